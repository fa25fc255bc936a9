/* conftable — settings tables in the manner of tmux's options-table.c: one table per kind of
 * file (scenario, GPU preset, kernel profile) names every setting with its type, range,
 * default, unit and help. Validation, defaults and `corun help` are all generated from it. */
#ifndef CORUN_CONFTABLE_H
#define CORUN_CONFTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "corun/diag.h"

enum conf_type {
    CONF_UINT,   /* unsigned int */
    CONF_U64,    /* uint64_t */
    CONF_FLOAT,  /* double; integers are accepted */
    CONF_BOOL,   /* bool */
    CONF_STRING, /* char *, heap-allocated */
    CONF_CHOICE, /* int: index into choices */
    CONF_GROUP,  /* a nested group described by sub */
    CONF_CUSTOM, /* validated by the table's owner; sub (optional) is shown in help */
};

struct conf_setting {
    const char *name;
    enum conf_type type;
    double min, max;              /* inclusive range for numbers; strings: min 1, not empty */
    const char *def;              /* default, as it would be written; NULL: required */
    const char *unit;             /* NULL when unitless */
    const char *help;             /* one line */
    size_t offset;                /* where the value lives in the target struct */
    const char *const *choices;   /* CONF_CHOICE: NULL-terminated names */
    const struct conf_table *sub; /* CONF_GROUP */
};

struct conf_table {
    const char *what; /* "scenario", "GPU preset", ...: used in messages and help */
    const struct conf_setting *settings;
    size_t count;
    const char *topic; /* `corun help TOPIC` lists these settings; NULL: no help lists them */
};

/* Opaque libconfig group, so that only src/io sees libconfig. */
struct conf_group;

enum conf_apply_mode {
    CONF_FULL,    /* unset settings take their defaults; a missing required one is an error */
    CONF_OVERLAY, /* only the settings present change the target (inline overrides) */
};

/* Apply group to target (a struct laid out as the table says). file names the file in
 * messages; prefix ("" or "dram.") is prepended to setting names. Every mistake is added to
 * diags; returns the number added. Strings in target are freed and replaced. */
size_t conf_apply(const struct conf_table *table, const struct conf_group *group, void *target,
                  enum conf_apply_mode mode, const char *file, const char *prefix,
                  struct diag *diags);

/* Set every setting of table in target to its default (required ones untouched). */
void conf_defaults(const struct conf_table *table, void *target);

/* Free the strings the table placed in target. */
void conf_free_strings(const struct conf_table *table, void *target);

/* Describe the value range of s in words ("an integer from 1 to 64"); the caller frees. */
char *conf_expected(const struct conf_setting *s);

/* Print the table as help text: name, type and range, default, unit, help. */
void conf_print_help(const struct conf_table *table, FILE *out);

/* Print the help of the one setting named name in table (a group's by its dotted name,
 * "dram.timing.rcd"), as conf_print_help prints it; false when the table has none. */
bool conf_print_setting(const struct conf_table *table, const char *name, FILE *out);

/* The settings whose values differ between a and b (structs laid out as table says), named
 * with prefix ("" or "gpu.") and nested groups' by their dotted names, but the one named
 * skip (NULL: none) and custom ones: written to out[len] as "name a -> b, ..." (cut short
 * when it does not fit); returns how many differ. Values are compared as they would be
 * written (a float to 6 significant digits). */
size_t conf_diff(const struct conf_table *table, const void *a, const void *b, const char *prefix,
                 const char *skip, char *out, size_t len);

/* "did you mean X?" support: the message tail for word against names, e.g.
 * "; known: a, b, c (did you mean b?)". The caller frees. */
char *conf_known_names(const char *word, const char *const *names, size_t count);

#endif
