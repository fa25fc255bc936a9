/* conftable — table-driven validation of libconfig groups. */
#include "corun/conftable.h"

#include <inttypes.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corun/suggest.h"
#include "corun/util.h"

static const config_setting_t *as_setting(const struct conf_group *g)
{
    return (const config_setting_t *)g;
}

static void *field(void *target, const struct conf_setting *s)
{
    return (char *)target + s->offset;
}

static const char *type_phrase(int type)
{
    switch (type) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64: return "an integer";
    case CONFIG_TYPE_FLOAT: return "a number with a decimal point";
    case CONFIG_TYPE_STRING: return "a string";
    case CONFIG_TYPE_BOOL: return "a boolean";
    case CONFIG_TYPE_GROUP: return "a group { ... }";
    case CONFIG_TYPE_ARRAY: return "an array [ ... ]";
    case CONFIG_TYPE_LIST: return "a list ( ... )";
    default: return "something else";
    }
}

/* What a setting holds, for a message: its type and, for a scalar, its value. */
static const char *describe(const config_setting_t *cs, char *buf, size_t len)
{
    int type = config_setting_type(cs);
    switch (type) {
    case CONFIG_TYPE_INT:
    case CONFIG_TYPE_INT64:
        snprintf(buf, len, "an integer %lld", (long long)config_setting_get_int64(cs));
        break;
    case CONFIG_TYPE_FLOAT: snprintf(buf, len, "a number %g", config_setting_get_float(cs)); break;
    case CONFIG_TYPE_STRING:
        snprintf(buf, len, "a string \"%.60s\"", config_setting_get_string(cs));
        break;
    case CONFIG_TYPE_BOOL:
        snprintf(buf, len, "%s", config_setting_get_bool(cs) ? "true" : "false");
        break;
    default: snprintf(buf, len, "%s", type_phrase(type));
    }
    return buf;
}

/* Numbers in messages: integers without a decimal point, others with up to 6 digits. */
static void format_number(char *buf, size_t len, double v)
{
    if (v == floor(v) && fabs(v) <= 1e18) {
        snprintf(buf, len, "%.0f", v);
        return;
    }
    /* The fewest digits that give v back: %g's six made 1.0000000001 "1", out of 0.01 to 1. */
    for (int digits = 6; digits <= 17; digits++) {
        snprintf(buf, len, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static char *choices_list(const char *const *choices)
{
    size_t len = 1;
    for (size_t i = 0; choices[i]; i++)
        len += strlen(choices[i]) + 2;
    char *out = xmalloc(len);
    out[0] = '\0';
    for (size_t i = 0; choices[i]; i++) {
        if (i)
            strcat(out, ", ");
        strcat(out, choices[i]);
    }
    return out;
}

char *conf_expected(const struct conf_setting *s)
{
    char lo[32], hi[32];
    format_number(lo, sizeof lo, s->min);
    format_number(hi, sizeof hi, s->max);
    switch (s->type) {
    case CONF_UINT:
    case CONF_U64:
        if (s->min == s->max) /* a setting the core allows one value of */
            return xasprintf("%s, the only value the core models", lo);
        return xasprintf("an integer from %s to %s", lo, hi);
    case CONF_FLOAT: return xasprintf("a number from %s to %s", lo, hi);
    case CONF_BOOL: return xstrdup("true or false");
    case CONF_STRING: return xstrdup(s->min >= 1 ? "a non-empty string" : "a string");
    case CONF_CHOICE: {
        char *list = choices_list(s->choices);
        char *out = xasprintf("one of %s", list);
        free(list);
        return out;
    }
    case CONF_GROUP: return xasprintf("a group { ... } of %s settings", s->sub->what);
    case CONF_CUSTOM: return xstrdup(s->help);
    }
    return xstrdup("?");
}

char *conf_known_names(const char *word, const char *const *names, size_t count)
{
    size_t len = 64;
    for (size_t i = 0; i < count; i++)
        len += strlen(names[i]) + 2;
    char *near = suggest_names(word, names, count, "", "");
    if (near)
        len += strlen(near);
    char *out = xmalloc(len);
    strcpy(out, "; known: ");
    for (size_t i = 0; i < count; i++) {
        if (i)
            strcat(out, ", ");
        strcat(out, names[i]);
    }
    if (near) {
        strcat(out, " (did you mean ");
        strcat(out, near);
        strcat(out, "?)");
    }
    free(near);
    return out;
}

static const struct conf_setting *find_setting(const struct conf_table *t, const char *name)
{
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->settings[i].name, name) == 0)
            return &t->settings[i];
    return NULL;
}

/* The message for a value that is not what s wants. */
static void report(struct diag *d, const char *file, int line, const char *prefix,
                   const struct conf_setting *s, const char *got)
{
    char *want = conf_expected(s);
    if (s->unit && s->type != CONF_BOOL && s->type != CONF_STRING)
        diag_add(d, "%s:%d: %s%s: expected %s (%s), got %s", file, line, prefix, s->name, want,
                 s->unit, got);
    else
        diag_add(d, "%s:%d: %s%s: expected %s, got %s", file, line, prefix, s->name, want, got);
    free(want);
}

static bool is_integer(int type)
{
    return type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64;
}

/* Validate one present setting and store it. Returns the number of diagnostics added. */
static size_t apply_one(const struct conf_setting *s, const config_setting_t *cs, void *target,
                        enum conf_apply_mode mode, const char *file, const char *prefix,
                        struct diag *d)
{
    int line = (int)config_setting_source_line(cs);
    int type = config_setting_type(cs);
    char got[96];

    switch (s->type) {
    case CONF_UINT:
    case CONF_U64:
    case CONF_FLOAT: {
        double v;
        if (is_integer(type) && s->type != CONF_FLOAT) {
            /* Compared as integers: a double holds none exactly past 2^53 (1e18 + 1 read as
             * 1e18 passed the range). */
            long long iv = config_setting_get_int64(cs);
            long long lo = (long long)s->min, hi = s->max >= 0x1p63 ? LLONG_MAX : (long long)s->max;
            if (iv < lo || iv > hi) {
                snprintf(got, sizeof got, "%lld", iv);
                report(d, file, line, prefix, s, got);
                return 1;
            }
            v = (double)iv;
        } else if (is_integer(type))
            v = (double)config_setting_get_int64(cs);
        else if (type == CONFIG_TYPE_FLOAT && s->type == CONF_FLOAT)
            v = config_setting_get_float(cs);
        else {
            if (type == CONFIG_TYPE_FLOAT) {
                /* 1e4 said "10000 (not an integer)": it is one, written as a float */
                double f = config_setting_get_float(cs);
                char num[32];
                format_number(num, sizeof num, f);
                if (!isfinite(f))
                    snprintf(got, sizeof got, "%s (not a finite number)", num);
                else if (f == floor(f) && fabs(f) <= 1e18) /* writable as digits */
                    snprintf(got, sizeof got, "%s written as a float (write %s)", num, num);
                else if (f == floor(f))
                    snprintf(got, sizeof got, "%s written as a float", num);
                else
                    snprintf(got, sizeof got, "%s (not an integer)", num);
            } else
                describe(cs, got, sizeof got);
            report(d, file, line, prefix, s, got);
            return 1;
        }
        if (!(v >= s->min && v <= s->max)) {
            format_number(got, sizeof got, v);
            report(d, file, line, prefix, s, got);
            return 1;
        }
        if (s->type == CONF_UINT)
            *(unsigned *)field(target, s) = (unsigned)v;
        else if (s->type == CONF_U64)
            *(uint64_t *)field(target, s) = (uint64_t)config_setting_get_int64(cs);
        else
            *(double *)field(target, s) = v;
        return 0;
    }
    case CONF_BOOL:
        if (type != CONFIG_TYPE_BOOL) {
            report(d, file, line, prefix, s, describe(cs, got, sizeof got));
            return 1;
        }
        *(bool *)field(target, s) = config_setting_get_bool(cs);
        return 0;
    case CONF_STRING: {
        if (type != CONFIG_TYPE_STRING) {
            report(d, file, line, prefix, s, describe(cs, got, sizeof got));
            return 1;
        }
        if (s->min >= 1 && !*config_setting_get_string(cs)) { /* min: a length, for strings */
            report(d, file, line, prefix, s, "\"\"");
            return 1;
        }
        char **slot = field(target, s);
        free(*slot);
        *slot = xstrdup(config_setting_get_string(cs));
        return 0;
    }
    case CONF_CHOICE: {
        if (type != CONFIG_TYPE_STRING) {
            report(d, file, line, prefix, s, describe(cs, got, sizeof got));
            return 1;
        }
        const char *v = config_setting_get_string(cs);
        size_t n = 0;
        while (s->choices[n])
            n++;
        for (size_t i = 0; i < n; i++)
            if (strcmp(s->choices[i], v) == 0) {
                *(int *)field(target, s) = (int)i;
                return 0;
            }
        char *near = suggest_names(v, s->choices, n, "", "");
        char *want = conf_expected(s);
        diag_add(d, "%s:%d: %s%s: expected %s, got \"%s\"%s%s%s", file, line, prefix, s->name, want,
                 v, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        free(want);
        free(near);
        return 1;
    }
    case CONF_CUSTOM: return 0;
    case CONF_GROUP: {
        if (type != CONFIG_TYPE_GROUP) {
            report(d, file, line, prefix, s, describe(cs, got, sizeof got));
            return 1;
        }
        char *sub_prefix = xasprintf("%s%s.", prefix, s->name);
        size_t n = conf_apply(s->sub, (const struct conf_group *)cs, field(target, s), mode, file,
                              sub_prefix, d);
        free(sub_prefix);
        return n;
    }
    }
    return 0;
}

static void set_default(const struct conf_setting *s, void *target)
{
    if (s->type == CONF_GROUP) {
        conf_defaults(s->sub, field(target, s));
        return;
    }
    if (!s->def)
        return;
    switch (s->type) {
    case CONF_UINT: *(unsigned *)field(target, s) = (unsigned)strtoul(s->def, NULL, 0); break;
    case CONF_U64: *(uint64_t *)field(target, s) = strtoull(s->def, NULL, 0); break;
    case CONF_FLOAT: *(double *)field(target, s) = strtod(s->def, NULL); break;
    case CONF_BOOL: *(bool *)field(target, s) = strcmp(s->def, "true") == 0; break;
    case CONF_STRING: {
        char **slot = field(target, s);
        free(*slot);
        *slot = xstrdup(s->def);
        break;
    }
    case CONF_CHOICE:
        for (int i = 0; s->choices[i]; i++)
            if (strcmp(s->choices[i], s->def) == 0)
                *(int *)field(target, s) = i;
        break;
    case CONF_GROUP:
    case CONF_CUSTOM: break;
    }
}

void conf_defaults(const struct conf_table *table, void *target)
{
    for (size_t i = 0; i < table->count; i++)
        set_default(&table->settings[i], target);
}

void conf_free_strings(const struct conf_table *table, void *target)
{
    for (size_t i = 0; i < table->count; i++) {
        const struct conf_setting *s = &table->settings[i];
        if (s->type == CONF_STRING) {
            char **slot = field(target, s);
            free(*slot);
            *slot = NULL;
        } else if (s->type == CONF_GROUP) {
            conf_free_strings(s->sub, field(target, s));
        }
    }
}

static const char **table_names(const struct conf_table *t)
{
    const char **names = xmalloc(t->count * sizeof(*names));
    for (size_t i = 0; i < t->count; i++)
        names[i] = t->settings[i].name;
    return names;
}

size_t conf_apply(const struct conf_table *table, const struct conf_group *group, void *target,
                  enum conf_apply_mode mode, const char *file, const char *prefix,
                  struct diag *diags)
{
    const config_setting_t *g = as_setting(group);
    size_t errors = 0;

    /* Unknown settings first, so a misspelt name is reported next to its missing twin. */
    for (int i = 0; i < config_setting_length(g); i++) {
        const config_setting_t *cs = config_setting_get_elem(g, (unsigned)i);
        const char *name = config_setting_name(cs);
        if (find_setting(table, name))
            continue;
        const char **names = table_names(table);
        char *near = suggest_names(name, names, table->count, prefix, "");
        if (near)
            diag_add(diags, "%s:%d: %s%s: unknown %s setting (did you mean %s?)", file,
                     (int)config_setting_source_line(cs), prefix, name, table->what, near);
        else if (table->topic)
            diag_add(diags, "%s:%d: %s%s: unknown %s setting (see `corun help %s`)", file,
                     (int)config_setting_source_line(cs), prefix, name, table->what, table->topic);
        else
            diag_add(diags, "%s:%d: %s%s: unknown %s setting", file,
                     (int)config_setting_source_line(cs), prefix, name, table->what);
        free(near);
        free(names);
        errors++;
    }

    for (size_t i = 0; i < table->count; i++) {
        const struct conf_setting *s = &table->settings[i];
        const config_setting_t *cs = config_setting_get_member(g, s->name);
        if (cs) {
            errors += apply_one(s, cs, target, mode, file, prefix, diags);
        } else if (mode == CONF_FULL && s->type != CONF_CUSTOM) {
            if (s->def || s->type == CONF_GROUP) {
                set_default(s, target);
            } else {
                char *want = conf_expected(s);
                int line = (int)config_setting_source_line(g);
                if (line > 0)
                    diag_add(diags, "%s:%d: %s%s: required setting is missing (expected %s)", file,
                             line, prefix, s->name, want);
                else
                    diag_add(diags, "%s: %s%s: required setting is missing (expected %s)", file,
                             prefix, s->name, want);
                free(want);
                errors++;
            }
        }
    }
    return errors;
}

/* One setting's help, named name: what it is, then its values, unit and default. */
static void print_setting(const struct conf_setting *s, const char *name, FILE *out)
{
    if (s->type == CONF_CUSTOM || s->type == CONF_GROUP) {
        fprintf(out, "  %-26s %s\n", name, s->help);
        return;
    }
    char *want = conf_expected(s);
    fprintf(out, "  %-26s %s\n", name, s->help);
    const char *def = !s->def ? "(required)" : (*s->def ? s->def : "\"\" (empty)");
    /* A number's default outside its own range marks it unset (a setting only some entries
     * take, e.g. an LS application's qos_target): say none, not the marker. */
    bool number = s->type == CONF_UINT || s->type == CONF_U64 || s->type == CONF_FLOAT;
    if (number && s->def && *s->def) {
        double v = strtod(s->def, NULL);
        if (v < s->min || v > s->max)
            def = "none";
    }
    fprintf(out, "  %-26s %s%s%s; default: %s\n", "", want, s->unit ? ", in " : "",
            s->unit ? s->unit : "", def);
    free(want);
}

static void print_settings(const struct conf_table *table, const char *prefix, FILE *out)
{
    for (size_t i = 0; i < table->count; i++) {
        const struct conf_setting *s = &table->settings[i];
        if (s->type == CONF_CUSTOM) {
            fprintf(out, "  %s%-*s %s\n", prefix, (int)(26 - strlen(prefix)), s->name, s->help);
            continue;
        }
        if (s->type == CONF_GROUP) {
            char *sub = xasprintf("%s%s.", prefix, s->name);
            fprintf(out, "\n  %s%s { ... }: %s\n", prefix, s->name, s->help);
            print_settings(s->sub, sub, out);
            free(sub);
            continue;
        }
        char *name = xasprintf("%s%s", prefix, s->name);
        print_setting(s, name, out);
        free(name);
    }
}

void conf_print_help(const struct conf_table *table, FILE *out)
{
    const char *article = strchr("aeiouAEIOU", table->what[0]) ? "an" : "a";
    fprintf(out, "Settings of %s %s (libconfig syntax: name = value;)\n\n", article, table->what);
    print_settings(table, "", out);
}

/* The setting named name in t, a group's by its dotted name ("dram.timing.rcd"); NULL: none. */
static const struct conf_setting *find_dotted(const struct conf_table *t, const char *name)
{
    for (size_t i = 0; i < t->count; i++) {
        const struct conf_setting *s = &t->settings[i];
        size_t n = strlen(s->name);
        if (strcmp(name, s->name) == 0)
            return s;
        if (s->type == CONF_GROUP && strncmp(name, s->name, n) == 0 && name[n] == '.')
            return find_dotted(s->sub, name + n + 1);
    }
    return NULL;
}

bool conf_print_setting(const struct conf_table *table, const char *name, FILE *out)
{
    const struct conf_setting *s = find_dotted(table, name);
    if (s)
        print_setting(s, name, out);
    return s != NULL;
}

/* A setting's value in target as it would be written, into buf[len]. */
static void format_value(const struct conf_setting *s, const void *target, char *buf, size_t len)
{
    const void *v = (const char *)target + s->offset;
    switch (s->type) {
    case CONF_UINT: snprintf(buf, len, "%u", *(const unsigned *)v); break;
    case CONF_U64: snprintf(buf, len, "%llu", (unsigned long long)*(const uint64_t *)v); break;
    case CONF_FLOAT: format_number(buf, len, *(const double *)v); break;
    case CONF_BOOL: snprintf(buf, len, "%s", *(const bool *)v ? "true" : "false"); break;
    case CONF_STRING: {
        const char *str = *(const char *const *)v;
        snprintf(buf, len, "\"%s\"", str ? str : "");
        break;
    }
    case CONF_CHOICE: snprintf(buf, len, "%s", s->choices[*(const int *)v]); break;
    case CONF_GROUP:
    case CONF_CUSTOM: snprintf(buf, len, "?"); break;
    }
}

static size_t diff_settings(const struct conf_table *table, const void *a, const void *b,
                            const char *prefix, const char *skip, char *out, size_t len,
                            size_t *used)
{
    size_t n = 0;
    for (size_t i = 0; i < table->count; i++) {
        const struct conf_setting *s = &table->settings[i];
        char *name = xasprintf("%s%s", prefix, s->name);
        if (s->type == CONF_GROUP) {
            char *sub = xasprintf("%s.", name);
            n += diff_settings(s->sub, (const char *)a + s->offset, (const char *)b + s->offset,
                               sub, skip, out, len, used);
            free(sub);
        } else if (s->type != CONF_CUSTOM && !(skip && strcmp(name, skip) == 0)) {
            char va[64], vb[64];
            format_value(s, a, va, sizeof va);
            format_value(s, b, vb, sizeof vb);
            if (strcmp(va, vb) != 0) {
                if (*used < len)
                    *used += (size_t)snprintf(out + *used, len - *used, "%s%s %s -> %s",
                                              *used ? ", " : "", name, va, vb);
                n++;
            }
        }
        free(name);
    }
    return n;
}

size_t conf_diff(const struct conf_table *table, const void *a, const void *b, const char *prefix,
                 const char *skip, char *out, size_t len)
{
    size_t used = 0;
    if (len)
        out[0] = '\0';
    return diff_settings(table, a, b, prefix, skip, out, len, &used);
}
