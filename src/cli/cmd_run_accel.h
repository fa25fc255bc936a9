/* cmd_run_accel — `corun run` on an accelerator scenario (cmd_run.c parses the options). */
#ifndef CORUN_CMD_RUN_ACCEL_H
#define CORUN_CMD_RUN_ACCEL_H

#include <stdbool.h>
#include <stdint.h>

struct run_accel_options {
    bool dry; /* check everything a run checks before simulating, then stop */
    bool json;
    int predictor; /* enum accel_predictor */
    bool has_seed;
    uint64_t seed;       /* instead of the scenario's, when has_seed */
    const char *out;     /* the run file to write, or NULL */
    const char *catalog; /* with out: the catalog to add the run to (NULL: the default) */
    unsigned threads;    /* above 1: the solo runs beside the co-located run */
};

struct accel_record;

/* Prints an accelerator run as `corun run` does: the table, or one JSON document. */
void cmd_accel_print(const struct accel_record *r, bool json);

/* Loads and runs the accelerator scenario at path and prints its result; a CLI_* code. */
int cmd_run_accelerator(const char *path, const char *datadir, const struct run_accel_options *o);

#endif
