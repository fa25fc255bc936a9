/* Unit tests for HDF5 run files, continued: a mix that grows during the run (kernels joining,
 * read back with the epochs before them absent, h5dump's view, a kernel added to a file that
 * refuses it or is torn). A schema-1 file, the explanation kept per epoch and docs/runfile.md
 * are in test_runfile_schema.c. */
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

/* ---- tests ---- */

/* ---- a mix that changes during the run ---- */

#define GROW_SMS 6
#define GROW_AT  3 /* SAD joins before this epoch */

/* A kernel read from an epoch before it joined: 0 for integers, NaN for doubles. */
static void absent(struct runfile_kernel_epoch *k)
{
    memset(k, 0, sizeof(*k));
    for (size_t j = 0; j < runfile_per_kernel_table.count; j++)
        if (runfile_per_kernel_table.fields[j].type == RUNFILE_DOUBLE)
            *(double *)((char *)k + runfile_per_kernel_table.fields[j].offset) = NAN;
}

/* Epoch i as recorded: LBM and BINO, then SAD too from GROW_AT on; LBM leaves the mix at 4. */
static void grown_epoch(uint64_t i, struct runfile_epoch *e)
{
    synth_epoch(i, i < GROW_AT ? 2 : 3, GROW_SMS, e);
    if (i >= 4)
        e->k[0].in_mix = 0;
}

/* Epoch i as read back: every epoch has the three kernels. */
static void grown_epoch_read(uint64_t i, struct runfile_epoch *e)
{
    grown_epoch(i, e);
    if (i < GROW_AT) {
        e->nkernels = 3;
        absent(&e->k[2]);
    }
}

/* 5 epochs; SAD added after epoch 2, with an event "mix". */
static struct runfile *record_grown(const char *path)
{
    struct runfile_header h;
    make_header(&h, 2, GROW_SMS);
    char err[512] = "", msg[600];
    struct runfile *rf = runfile_create(path, &h, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    struct runfile_epoch *e = malloc(sizeof(*e));
    for (uint64_t i = 0; i < 5; i++) {
        if (i == GROW_AT) {
            struct runfile_kernel sad = {"SAD", 1, 0.6, 0.125};
            if (runfile_add_kernel(rf, &sad, err, sizeof(err)) != 0)
                fail_msg("%s", err);
            assert_int_equal(runfile_header(rf)->nkernels, 3);
            assert_string_equal(runfile_header(rf)->kernels[2].name, "SAD");
            /* Epochs now need the added kernel. */
            synth_epoch(i, 2, GROW_SMS, e);
            assert_int_equal(runfile_append_epoch(rf, e, err, sizeof(err)), -1);
            snprintf(msg, sizeof(msg), "%s: epoch 3 has 2 kernels, the run has 3", path);
            assert_string_equal(err, msg);
            assert_int_equal(
                runfile_append_event(rf, i, i * CYCLES, "mix", "added SAD", err, sizeof(err)), 0);
        }
        grown_epoch(i, e);
        if (runfile_append_epoch(rf, e, err, sizeof(err)) != 0)
            fail_msg("%s", err);
    }
    free(e);
    return rf;
}

static void assert_grown(struct runfile *rf)
{
    const struct runfile_header *h = runfile_header(rf);
    assert_int_equal(h->nkernels, 3);
    assert_int_equal(h->nkernels_start, 2);
    assert_string_equal(h->kernels[0].name, "LBM");
    assert_string_equal(h->kernels[1].name, "BINO");
    assert_string_equal(h->kernels[2].name, "SAD");
    assert_int_equal(h->kernels[2].priority, 1);
    assert_true(h->kernels[2].qos_target == 0.6 && h->kernels[2].weight == 0.125);
    assert_int_equal(runfile_epoch_count(rf), 5);
    char err[512] = "";
    struct runfile_epoch *want = malloc(sizeof(*want)), *got = malloc(sizeof(*got));
    for (uint64_t i = 0; i < 5; i++) {
        grown_epoch_read(i, want);
        if (runfile_read_epoch(rf, i, got, err, sizeof(err)) != 0)
            fail_msg("%s", err);
        assert_same_epoch(want, got);
    }
    /* The same, spelled out. Before SAD joined: */
    assert_int_equal(runfile_read_epoch(rf, 2, got, err, sizeof(err)), 0);
    assert_int_equal(got->nkernels, 3);
    assert_int_equal(got->k[2].in_mix, 0);
    assert_true(isnan(got->k[2].np_true) && isnan(got->k[2].np_pred) && isnan(got->k[2].c.ipc));
    assert_int_equal(got->k[2].c.cycles, 0);
    assert_int_equal(got->k[2].c.instructions_total, 0);
    assert_int_equal(got->k[0].in_mix, 1);
    assert_int_equal(got->k[1].in_mix, 1);
    assert_true(got->k[0].np_true == (double)200 / 7.0 + 35e-3); /* seed 200, field 35 */
    /* After: */
    assert_int_equal(runfile_read_epoch(rf, 3, got, err, sizeof(err)), 0);
    assert_int_equal(got->k[2].in_mix, 1);
    assert_true(got->k[2].np_true == (double)302 / 7.0 + 35e-3);
    assert_int_equal(got->owner[3], 2); /* (3 * 7 + 3) % 5 - 2: SAD owns SM 3 */
    assert_int_equal(runfile_read_epoch(rf, 4, got, err, sizeof(err)), 0);
    assert_int_equal(got->k[0].in_mix, 0); /* LBM removed */
    assert_int_equal(got->k[1].in_mix, 1);
    assert_int_equal(got->k[2].in_mix, 1);
    free(want);
    free(got);
    assert_int_equal(runfile_event_count(rf), 1);
    struct runfile_event ev;
    assert_int_equal(runfile_read_event(rf, 0, &ev, err, sizeof(err)), 0);
    assert_string_equal(ev.kind, "mix");
    assert_int_equal(ev.epoch, GROW_AT);
}

/* The line of text that begins with start ("\nEPOCH,KERNEL,"), without its newline. */
static char *csv_line(const char *text, const char *start)
{
    const char *p = strstr(text, start);
    if (!p)
        fail_msg("no line %s", start + 1);
    p++;
    size_t n = strcspn(p, "\n");
    char *line = malloc(n + 1);
    memcpy(line, p, n);
    line[n] = '\0';
    return line;
}

static bool ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n >= m && strcmp(s + n - m, end) == 0;
}

static void test_grown_mix(void **state)
{
    (void)state;
    const char *path = in_dir("grown.h5");
    struct runfile *w = record_grown(path);
    assert_grown(w); /* the recorder reads what it wrote */
    char err[512] = "";
    struct runfile *r = runfile_open(path, err, sizeof(err)); /* a reader while recording */
    if (!r)
        fail_msg("%s", err);
    assert_grown(r);
    close_ok(r);
    close_ok(w);
    r = runfile_open(path, err, sizeof(err));
    if (!r)
        fail_msg("%s", err);
    assert_grown(r);

    /* CSV: every epoch has a row for every kernel; in_mix says which were in the mix. */
    const char *out = in_dir("grown-csv");
    if (runfile_export_csv(r, out, true, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    char file[600];
    snprintf(file, sizeof(file), "%s/kernels.csv", out);
    char *text = read_all(file, NULL);
    size_t lines = 0;
    for (char *p = text; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 1 + 5 * 3);
    char *line = csv_line(text, "\n1,2,SAD,"); /* cycles, instructions, sms, active, owned, ipc */
    assert_true(strncmp(line, "1,2,SAD,0,0,nan,0,0,nan,", 24) == 0);
    /* np_true, np_pred, in_mix, pred_class, explain */
    assert_true(ends_with(line, ",nan,nan,0,0,"));
    free(line);
    line = csv_line(text, "\n4,2,SAD,");
    assert_non_null(strstr(line, ",nan,1,")); /* the last kernel has no prediction */
    free(line);
    line = csv_line(text, "\n5,0,LBM,");
    /* Removed: in_mix 0 before its class and explanation, and values that are not absent. */
    char *why = strstr(line, ",why ");
    assert_non_null(why);
    *why = '\0';
    *strrchr(line, ',') = '\0';
    assert_true(ends_with(line, ",0") && !ends_with(line, ",nan,0"));
    free(line);
    free(text);
    snprintf(file, sizeof(file), "%s/partition.csv", out);
    text = read_all(file, NULL);
    char want[400] = "epoch,sm0,sm1,sm2,sm3,sm4,sm5\n";
    struct runfile_epoch *e = malloc(sizeof(*e));
    for (uint64_t i = 0; i < 5; i++) {
        grown_epoch(i, e);
        size_t n = strlen(want);
        snprintf(want + n, sizeof(want) - n, "%llu", (unsigned long long)i + 1);
        for (unsigned s = 0; s < GROW_SMS; s++) {
            n = strlen(want);
            snprintf(want + n, sizeof(want) - n, ",%d", e->owner[s]);
        }
        strcat(want, "\n");
    }
    free(e);
    assert_string_equal(text, want);
    free(text);
    close_ok(r);
}

/* h5dump (HDF5's own reader, not corun's) reads a file whose mix grew. */
static void test_grown_mix_h5dump(void **state)
{
    (void)state;
    if (system("command -v h5dump >/dev/null 2>&1") != 0) {
        print_message("skipping: h5dump is not installed (package hdf5-tools)\n");
        skip();
    }
    const char *path = in_dir("grown-dump.h5");
    close_ok(record_grown(path));
    char cmd[1200];
    snprintf(cmd, sizeof(cmd), "h5dump '%s' >/dev/null 2>&1", path);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof(cmd),
             "h5dump -d /kernels/name -d /kernel_count -d /per_kernel/in_mix -d "
             "/per_kernel/np_true -s 2,2 -c 2,1 '%s' 2>&1",
             path);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char out[16384];
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    assert_int_equal(pclose(p), 0);
    /* -s and -c apply to the last dataset only: np_true of SAD in epochs 2 and 3. */
    static const char *const expect[] = {
        "STRSIZE 32;",
        "(0): \"LBM\", \"BINO\", \"SAD\"",
        "DATASET \"/kernel_count\"",
        "(0): 3",
        "DATATYPE  H5T_STD_U8LE",
        "DATASPACE  SIMPLE { ( 5, 3 ) / ( H5S_UNLIMITED, 8 ) }",
        "(0,0): 1, 1, 0,",
        "(4,0): 0, 1, 1",
        "(2,2): nan,",
    };
    for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
        if (!strstr(out, expect[i]))
            fail_msg("h5dump does not show %s:\n%s", expect[i], out);
}

static void test_add_kernel_refused(void **state)
{
    (void)state;
    char err[512] = "", msg[700];
    const char *path = in_dir("eight.h5");
    static char name31[] = "a-kernel-name-of-31-bytes-xxxxx",
                name32[] = "a-kernel-name-of-32-bytes-xxxxxx";
    assert_int_equal(strlen(name31), RUNFILE_NAME_MAX - 1);
    assert_int_equal(strlen(name32), RUNFILE_NAME_MAX);
    struct runfile_header h;
    make_header(&h, 7, 8);
    h.kernels[6].name = name32;
    assert_null(runfile_create(path, &h, err, sizeof(err)));
    snprintf(msg, sizeof(msg),
             "%s: kernel 6: the name \"%s\" has 32 bytes, a run file keeps at most 31; shorten it",
             path, name32);
    assert_string_equal(err, msg);
    assert_int_equal(access(path, F_OK), -1);
    h.kernels[6].name = name31;
    struct runfile *rf = runfile_create(path, &h, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);

    struct runfile_kernel k = {name32, 0, 0.5, 0};
    assert_int_equal(runfile_add_kernel(rf, &k, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg),
             "%s: kernel 7: the name \"%s\" has 32 bytes, a run file keeps at most 31; shorten it",
             path, name32);
    assert_string_equal(err, msg);
    k.name = "M\u00e9M"; /* 4 bytes of UTF-8 */
    k.priority = 2;
    assert_int_equal(runfile_add_kernel(rf, &k, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s: kernel M\u00e9M: priority 2 is neither 0 (low) nor 1 (high)",
             path);
    assert_string_equal(err, msg);
    k.priority = 1;
    if (runfile_add_kernel(rf, &k, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    assert_int_equal(runfile_header(rf)->nkernels, GPU_MAX_KERNELS);
    k.name = "NINTH";
    assert_int_equal(runfile_add_kernel(rf, &k, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg),
             "%s: cannot add kernel NINTH: the run has had 8 kernels, as many as a run file holds",
             path);
    assert_string_equal(err, msg);

    struct runfile_epoch *e = malloc(sizeof(*e));
    synth_epoch(0, 8, 8, e);
    e->k[1].in_mix = 2;
    assert_int_equal(runfile_append_epoch(rf, e, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s: epoch 0: kernel 1 has in_mix 2 (0 or 1)", path);
    assert_string_equal(err, msg);
    /* None of that stopped the recording. */
    synth_epoch(0, 8, 8, e);
    if (runfile_append_epoch(rf, e, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    free(e);
    close_ok(rf);

    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    const struct runfile_header *got = runfile_header(rf);
    assert_int_equal(got->nkernels, 8);
    assert_int_equal(got->nkernels_start, 7);
    assert_string_equal(got->kernels[6].name, name31);
    assert_string_equal(got->kernels[7].name, "M\u00e9M");
    assert_int_equal(got->kernels[7].priority, 1);
    assert_epochs(rf, 8, 8, 1);
    close_ok(rf);
}

static void write_count(const char *path, const char *name, uint64_t n)
{
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n) >= 0);
    H5Dclose(ds);
    H5Fclose(f);
}

/* A reader uses the kernels /kernel_count commits and every dataset holds, as a crash in the
 * middle of runfile_add_kernel would leave them. */
static void test_add_kernel_torn(void **state)
{
    (void)state;
    char err[512] = "";
    const char *path = in_dir("torn.h5");
    close_ok(record_grown(path));
    struct runfile_epoch *want = malloc(sizeof(*want)), *got = malloc(sizeof(*got));

    /* Grown, but not committed: the old mix. */
    write_count(path, "kernel_count", 2);
    struct runfile *rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_int_equal(runfile_header(rf)->nkernels, 2);
    assert_int_equal(runfile_read_epoch(rf, 1, got, err, sizeof(err)), 0);
    grown_epoch(1, want);
    assert_same_epoch(want, got);
    close_ok(rf);

    /* A count beyond what the datasets hold, or below the start: what is certain. */
    write_count(path, "kernel_count", 7);
    rf = runfile_open(path, err, sizeof(err));
    assert_non_null(rf);
    assert_int_equal(runfile_header(rf)->nkernels, 3);
    close_ok(rf);
    write_count(path, "kernel_count", 0);
    rf = runfile_open(path, err, sizeof(err));
    assert_non_null(rf);
    assert_int_equal(runfile_header(rf)->nkernels, 2);
    close_ok(rf);

    /* Committed, but one /per_kernel dataset was not widened. */
    write_count(path, "kernel_count", 3);
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    hid_t ds = H5Dopen2(f, "per_kernel/ipc", H5P_DEFAULT);
    hsize_t dims[2] = {5, 2};
    assert_true(H5Dset_extent(ds, dims) >= 0);
    H5Dclose(ds);
    H5Fclose(f);
    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_int_equal(runfile_header(rf)->nkernels, 2);
    assert_int_equal(runfile_read_epoch(rf, 4, got, err, sizeof(err)), 0);
    grown_epoch(4, want);
    want->nkernels = 2;
    assert_same_epoch(want, got);
    close_ok(rf);
    free(want);
    free(got);

    /* Schema 2 needs /kernel_count and /per_kernel/in_mix. */
    const char *const needed[] = {"kernel_count", "per_kernel/in_mix"};
    for (int i = 0; i < 2; i++) {
        const char *damaged = in_dir(i ? "no-in-mix.h5" : "no-count.h5");
        close_ok(record_grown(damaged));
        f = H5Fopen(damaged, H5F_ACC_RDWR, H5P_DEFAULT);
        assert_true(H5Ldelete(f, needed[i], H5P_DEFAULT) >= 0);
        H5Fclose(f);
        char msg[600];
        snprintf(msg, sizeof(msg), "%s: damaged run file: /%s is missing", damaged, needed[i]);
        expect_open_error(damaged, msg);
    }
}

/* A write failure in runfile_add_kernel stops recording like one in an append, and the file
 * keeps the old mix. */
static void test_add_kernel_fails(void **state)
{
    (void)state;
    char err[512] = "", msg[700];
    const char *path = in_dir("add-full.h5");
    struct runfile *rf = record(path, 2, 8, 3);
    /* No write may land at all: the file's space comes in pages, and the new kernel's rows
     * may fit in pages the file already has, so a limit at its size would not stop them. */
    struct rlimit old, lim;
    getrlimit(RLIMIT_FSIZE, &old);
    lim = (struct rlimit){0, old.rlim_max};
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    struct runfile_kernel k = {"SAD", 0, 0.5, 0};
    int rc = runfile_add_kernel(rf, &k, err, sizeof(err));
    setrlimit(RLIMIT_FSIZE, &old);
    signal(SIGXFSZ, SIG_DFL);
    assert_int_equal(rc, -1);
    snprintf(msg, sizeof(msg),
             "%s: cannot record kernel SAD: File too large; recording stopped, and the file keeps "
             "its first 3 epochs and 1 events",
             path);
    assert_string_equal(err, msg);
    assert_int_equal(runfile_header(rf)->nkernels, 2);
    assert_int_equal(runfile_add_kernel(rf, &k, err, sizeof(err)), -1);
    snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg), " (earlier)");
    assert_string_equal(err, msg);
    assert_int_equal(runfile_close(rf, err, sizeof(err)), -1);
    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_int_equal(runfile_header(rf)->nkernels, 2);
    assert_epochs(rf, 2, 8, 3);
    close_ok(rf);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_grown_mix, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_grown_mix_h5dump, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_add_kernel_refused, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_add_kernel_torn, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_add_kernel_fails, runfile_setup, runfile_teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    H5close(); /* so that leak checkers do not count HDF5's own tables */
    return failed;
}
