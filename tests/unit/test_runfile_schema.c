/* Unit tests for HDF5 run files, continued: a schema-1 file read by this build, the
 * explanation text kept per epoch, and docs/runfile.md agreeing with the layout tables. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/runfile.h"
#include "runfile_fixtures.h"
#include "testutil.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- schema 1 ---- */

/* tests/data/runfile-v1.h5 was recorded by `tests/runfile_writer write runfile-v1.h5 8` as of
 * commit de4764b (schema 1.0), which gave every field of table t a value made from seed and
 * the field's position. in_mix, new in schema 2 and last in its table, reads 1. */
static void v1_fill(const struct runfile_table *t, void *base, uint64_t seed)
{
    for (size_t j = 0; j < t->count; j++) {
        void *p = (char *)base + t->fields[j].offset;
        switch (t->fields[j].type) {
        case RUNFILE_U64: *(uint64_t *)p = seed * 1000003u + j * 7919u; break;
        case RUNFILE_UINT: *(unsigned *)p = (unsigned)((seed + j) % 1000u); break;
        case RUNFILE_DOUBLE: *(double *)p = (double)(seed + j) * 0.1 + 1.0 / 3.0; break;
        case RUNFILE_FLAG: *(unsigned *)p = 1; break;
        case RUNFILE_CLASS: *(int *)p = 0; break; /* schema 2.1 on: an older file reads none */
        case RUNFILE_TEXT: *(char *)p = '\0'; break;
        default: fail_msg("unexpected type in %s", t->where);
        }
    }
}

static void v1_epoch(uint64_t i, struct runfile_epoch *e)
{
    memset(e, 0, sizeof(*e));
    v1_fill(&runfile_system_table, e, i);
    e->start_cycle = i * 100000;
    e->cycles = e->sys.cycles = 100000;
    e->nkernels = 3;
    for (unsigned k = 0; k < 3; k++)
        v1_fill(&runfile_per_kernel_table, &e->k[k], i * 10 + k);
    e->k[1].np_pred = NAN;
    e->nsms = 80;
    for (unsigned s = 0; s < 80; s++)
        e->owner[s] = (int)((s + i) % 5) - 2;
}

static void test_schema1_file(void **state)
{
    (void)state;
    const char *top = getenv("CORUN_DATADIR");
    if (!top) {
        print_message("skipping: CORUN_DATADIR (the source tree) is not set\n");
        skip();
    }
    char path[600], err[512] = "";
    snprintf(path, sizeof(path), "%s/tests/data/runfile-v1.h5", top);
    struct runfile *rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    const struct runfile_header *h = runfile_header(rf);
    assert_int_equal(h->schema_version, 1);
    assert_int_equal(h->schema_minor, 0);
    assert_string_equal(h->corun_version, "0.1.0");
    assert_string_equal(h->scenario_text, "name = \"crash\";\n");
    assert_string_equal(h->scenario_path, "scenarios/crash.cfg");
    assert_int_equal(h->seed, 42);
    assert_string_equal(h->gpu_preset, "hbm80");
    assert_int_equal(h->sms, 80);
    assert_int_equal(h->epoch_cycles, 100000);
    assert_int_equal(h->nkernels, 3);
    assert_int_equal(h->nkernels_start, 3);
    const char *names[] = {"LBM", "BINO", "SAD"};
    for (unsigned k = 0; k < 3; k++) {
        assert_string_equal(h->kernels[k].name, names[k]);
        assert_int_equal(h->kernels[k].priority, k == 0);
        assert_true(h->kernels[k].qos_target == 0.8 && h->kernels[k].weight == 0);
    }
    assert_int_equal(runfile_epoch_count(rf), 8);
    struct runfile_epoch *want = malloc(sizeof(*want)), *got = malloc(sizeof(*got));
    for (uint64_t i = 0; i < 8; i++) {
        v1_epoch(i, want);
        if (runfile_read_epoch(rf, i, got, err, sizeof(err)) != 0)
            fail_msg("%s", err);
        assert_same_epoch(want, got);
    }
    /* Values h5dump shows, in case the formula and the reader agree on a mistake. */
    assert_int_equal(got->k[2].c.cycles, 72000216);
    assert_int_equal(got->k[2].c.active_sms, 75);
    assert_true(fabs(got->k[0].np_true - 10.8333) < 1e-4);
    assert_true(isnan(got->k[1].np_pred));
    assert_true(got->k[0].in_mix == 1 && got->k[1].in_mix == 1 && got->k[2].in_mix == 1);
    const int owners[6] = {0, 1, 2, -2, -1, 0};
    assert_memory_equal(got->owner, owners, sizeof(owners));
    free(want);
    free(got);

    assert_int_equal(runfile_event_count(rf), 2);
    struct runfile_event ev;
    assert_int_equal(runfile_read_event(rf, 1, &ev, err, sizeof(err)), 0);
    assert_int_equal(ev.epoch, 7);
    assert_int_equal(ev.cycle, 700000);
    assert_string_equal(ev.kind, "repartition");
    assert_string_equal(ev.text, "fair: fairness 0.61 < 0.90, moved 1 SMs LBM\u2192BINO (epoch 7)");

    /* Its CSV has the in_mix column, 1 in every row, then no class and no explanation. */
    const char *out = in_dir("v1-csv");
    if (runfile_export_csv(rf, out, true, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    char file[700];
    snprintf(file, sizeof(file), "%s/kernels.csv", out);
    char *text = read_all(file, NULL);
    size_t rows = 0;
    for (char *line = strchr(text, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
        size_t n = strcspn(line + 1, "\n");
        assert_true(n > 5 && strncmp(line + 1 + n - 5, ",1,0,", 5) == 0);
        rows++;
    }
    assert_int_equal(rows, 8 * 3);
    free(text);
    close_ok(rf);
}

/* Schema 2.1 keeps the predictor's class and explanation (several lines, any bytes a CSV must
 * quote); a 2.0 file, without them, reads class none and no explanation; a 2.1 file without
 * them is damaged. */
static void test_explain_kept(void **state)
{
    (void)state;
    char err[512] = "";
    const char *path = in_dir("explain.h5");
    struct runfile_header h;
    make_header(&h, 2, 8);
    struct runfile *rf = runfile_create(path, &h, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    struct runfile_epoch *e = calloc(1, sizeof(*e)), *got = calloc(1, sizeof(*got));
    synth_epoch(0, 2, 8, e);
    e->k[0].pred_class = 2;
    snprintf(e->k[0].explain, sizeof e->k[0].explain, "B_k = 410.2 GB/s\nNP = \"B_k\" / B_p, 0.61");
    /* A text that fills the room is kept up to its last byte. */
    memset(e->k[1].explain, 'x', RUNFILE_EXPLAIN_MAX - 1);
    e->k[1].explain[RUNFILE_EXPLAIN_MAX - 1] = '\0';
    if (runfile_append_epoch(rf, e, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    close_ok(rf);
    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_int_equal(runfile_header(rf)->schema_minor, RUNFILE_SCHEMA_MINOR);
    assert_int_equal(runfile_read_epoch(rf, 0, got, err, sizeof(err)), 0);
    assert_int_equal(got->k[0].pred_class, 2);
    assert_string_equal(got->k[0].explain, e->k[0].explain);
    assert_string_equal(got->k[1].explain, e->k[1].explain);
    const char *out = in_dir("explain-csv");
    if (runfile_export_csv(rf, out, true, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    close_ok(rf);
    char file[600];
    snprintf(file, sizeof(file), "%s/kernels.csv", out);
    char *text = read_all(file, NULL);
    assert_non_null(strstr(text, ",2,\"B_k = 410.2 GB/s\nNP = \"\"B_k\"\" / B_p, 0.61\"\n"));
    free(text);

    /* The same file as corun 2.0 would have written it. */
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    assert_true(H5Ldelete(f, "per_kernel/pred_class", H5P_DEFAULT) >= 0);
    assert_true(H5Ldelete(f, "per_kernel/explain", H5P_DEFAULT) >= 0);
    hid_t a = H5Aopen(f, "schema_minor", H5P_DEFAULT);
    unsigned minor = 0;
    assert_true(H5Awrite(a, H5T_NATIVE_UINT, &minor) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_int_equal(runfile_read_epoch(rf, 0, got, err, sizeof(err)), 0);
    assert_int_equal(got->k[0].pred_class, 0);
    assert_string_equal(got->k[0].explain, "");
    assert_true(got->k[0].np_true == e->k[0].np_true);
    close_ok(rf);

    /* Claiming 2.1 without them is damage. */
    f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    a = H5Aopen(f, "schema_minor", H5P_DEFAULT);
    minor = 1;
    assert_true(H5Awrite(a, H5T_NATIVE_UINT, &minor) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    char msg[600];
    snprintf(msg, sizeof(msg), "%s: damaged run file: /per_kernel/pred_class is missing", path);
    expect_open_error(path, msg);
    free(e);
    free(got);
}

/* docs/runfile.md holds the layout exactly as the tables print it. */
static void test_docs_match_tables(void **state)
{
    (void)state;
    test_doc_matches("docs/runfile.md", "<!-- layout: begin -->\n", "<!-- layout: end -->",
                     runfile_print_layout, "tests/runfile_writer layout");
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_schema1_file, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_explain_kept, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_docs_match_tables, runfile_setup, runfile_teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    H5close(); /* so that leak checkers do not count HDF5's own tables */
    return failed;
}
