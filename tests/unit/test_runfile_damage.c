/* Unit tests for the run-file reader's validation: a file whose structure HDF5 accepts but whose
 * values no writer makes (issue 21, defects 1 to 3) is refused with a message naming the file,
 * the dataset or attribute and what was expected, never handed on to a replay or an export;
 * and the CSV export never writes through a link. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/accel_runfile.h"
#include "corun/runfile.h"

#include "../../src/io/runfile_internal.h" /* the reading child's verdicts */

#include <hdf5.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CYCLES  50000
#define EPOCHS  4
#define KERNELS 2
#define SMS     8

static char dir[256];
static char good[300], bad[300];

static int setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof(dir), "/tmp/corun-damage-XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    snprintf(good, sizeof(good), "%s/good.h5", dir);
    snprintf(bad, sizeof(bad), "%s/bad.h5", dir);
    struct runfile_header h;
    memset(&h, 0, sizeof(h));
    h.corun_version = "test";
    h.scenario_text = "name = \"pair\";\n";
    h.scenario_path = "pair.cfg";
    h.gpu_preset = "hbm80";
    h.sms = SMS;
    h.epoch_cycles = CYCLES;
    h.nkernels = KERNELS;
    h.kernels[0] = (struct runfile_kernel){"LBM", 1, 0.5, 0};
    h.kernels[1] = (struct runfile_kernel){"BINO", 0, 0.5, 0};
    char err[512] = "";
    struct runfile *rf = runfile_create(good, &h, err, sizeof(err));
    if (!rf)
        return -1;
    struct runfile_epoch *e = calloc(1, sizeof(*e));
    for (unsigned i = 0; i < EPOCHS; i++) {
        memset(e, 0, sizeof(*e));
        e->start_cycle = i * CYCLES;
        e->cycles = CYCLES;
        e->nkernels = KERNELS;
        e->nsms = SMS;
        for (unsigned k = 0; k < KERNELS; k++) {
            e->k[k].np_true = 0.5;
            e->k[k].np_pred = NAN;
            e->k[k].in_mix = 1;
        }
        e->stp = 1.0;
        e->antt = 2.0;
        e->fairness = 1.0;
        for (unsigned s = 0; s < SMS; s++)
            e->owner[s] = (int)(s % KERNELS);
        if (runfile_append_epoch(rf, e, err, sizeof(err)) != 0)
            return -1;
    }
    free(e);
    return runfile_close(rf, err, sizeof(err));
}

static int teardown(void **state)
{
    (void)state;
    unlink(good);
    unlink(bad);
    rmdir(dir);
    return 0;
}

/* bad.h5: a fresh copy of good.h5, opened for writing. */
static hid_t damage_copy(void)
{
    FILE *in = fopen(good, "rb"), *out = fopen(bad, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    fclose(out);
    hid_t f = H5Fopen(bad, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    return f;
}

static void set_attr(const char *name, hid_t mem_type, const void *value)
{
    hid_t f = damage_copy();
    hid_t a = H5Aopen(f, name, H5P_DEFAULT);
    assert_true(a >= 0);
    assert_true(H5Awrite(a, mem_type, value) >= 0);
    H5Aclose(a);
    H5Fclose(f);
}

/* Element (row, col) of a 2-D dataset, or row of a 1-D one (col < 0). */
static void set_element(const char *name, long row, long col, hid_t mem_type, const void *value)
{
    hid_t f = damage_copy();
    hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
    assert_true(ds >= 0);
    hid_t fs = H5Dget_space(ds);
    hsize_t start[2] = {(hsize_t)row, (hsize_t)(col < 0 ? 0 : col)}, count[2] = {1, 1};
    hid_t ms = H5Screate_simple(1, count, NULL);
    assert_true(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL) >= 0);
    assert_true(H5Dwrite(ds, mem_type, ms, fs, H5P_DEFAULT, value) >= 0);
    H5Sclose(ms);
    H5Sclose(fs);
    H5Dclose(ds);
    H5Fclose(f);
}

/* Root attribute name deleted, or (as_string) written again as a string. */
static void redo_attr(const char *name, bool as_string)
{
    hid_t f = damage_copy();
    assert_true(H5Adelete(f, name) >= 0);
    if (as_string) {
        hid_t type = H5Tcopy(H5T_C_S1), space = H5Screate(H5S_SCALAR);
        assert_true(H5Tset_size(type, 4) >= 0);
        hid_t a = H5Acreate2(f, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
        assert_true(a >= 0);
        assert_true(H5Awrite(a, type, "two") >= 0);
        H5Aclose(a);
        H5Sclose(space);
        H5Tclose(type);
    }
    H5Fclose(f);
}

/* A scalar dataset name, replaced by one of another type. */
static void replace_scalar(const char *name, hid_t file_type, hid_t mem_type, const void *value)
{
    hid_t f = damage_copy();
    assert_true(H5Ldelete(f, name, H5P_DEFAULT) >= 0);
    hid_t space = H5Screate(H5S_SCALAR);
    hid_t ds = H5Dcreate2(f, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(ds >= 0);
    assert_true(H5Dwrite(ds, mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, value) >= 0);
    H5Dclose(ds);
    H5Sclose(space);
    H5Fclose(f);
}

static void expect_refused(const char *message)
{
    char err[512] = "";
    struct runfile *rf = runfile_open(bad, err, sizeof(err));
    if (rf) {
        /* Opening reads the last epoch; an earlier one fails when it is read. */
        struct runfile_epoch *e = malloc(sizeof(*e));
        int rc = 0;
        for (uint64_t i = 0; i < runfile_epoch_count(rf) && rc == 0; i++)
            rc = runfile_read_epoch(rf, i, e, err, sizeof(err));
        free(e);
        runfile_close(rf, NULL, 0);
        if (rc == 0)
            fail_msg("%s was read; expected \"%s\"", bad, message);
    }
    char want[700];
    snprintf(want, sizeof(want), "%s: damaged run file: %s", bad, message);
    if (!strstr(err, want))
        fail_msg("got \"%s\", expected \"%s\"", err, want);
}

static void test_good_file_reads(void **state)
{
    (void)state;
    char err[512] = "";
    struct runfile *rf = runfile_open(good, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_int_equal(runfile_epoch_count(rf), EPOCHS);
    struct runfile_epoch *e = malloc(sizeof(*e));
    for (uint64_t i = 0; i < EPOCHS; i++)
        assert_int_equal(runfile_read_epoch(rf, i, e, err, sizeof(err)), 0);
    free(e);
    assert_int_equal(runfile_close(rf, err, sizeof(err)), 0);
}

/* Defect 1: an infinite np_true hung the replay's chart. */
static void test_infinite_values(void **state)
{
    (void)state;
    double inf = INFINITY;
    set_element("per_kernel/np_true", 1, 0, H5T_NATIVE_DOUBLE, &inf);
    expect_refused("/per_kernel/np_true[1][0] is infinite");
    set_element("per_kernel/np_pred", EPOCHS - 1, 1, H5T_NATIVE_DOUBLE, &inf);
    expect_refused("/per_kernel/np_pred[3][1] is infinite");
    double minus = -INFINITY;
    set_element("system/stp", 0, -1, H5T_NATIVE_DOUBLE, &minus);
    expect_refused("/system/stp[0] is infinite");
    set_element("kernels/qos_target", 1, -1, H5T_NATIVE_DOUBLE, &inf);
    expect_refused("/kernels/qos_target[1] is infinite");
}

/* Defect 2 and 3: an owner outside -2 .. kernels-1 indexed arrays out of bounds. */
static void test_bad_owners(void **state)
{
    (void)state;
    const short owners[] = {127, 7, KERNELS, 30000, -3, -30000};
    for (size_t i = 0; i < sizeof(owners) / sizeof(owners[0]); i++) {
        set_element("partition", 2, 5, H5T_NATIVE_SHORT, &owners[i]);
        char msg[128];
        snprintf(msg, sizeof(msg), "/partition[2][5] is %d (expected a kernel index 0 to %d",
                 owners[i], KERNELS - 1);
        expect_refused(msg);
    }
    /* SM 0's owner is checked like any other's. */
    set_element("partition", 2, 0, H5T_NATIVE_SHORT, &owners[1]);
    expect_refused("/partition[2][0] is 7 (expected a kernel index 0 to");
}

static void test_bad_in_mix(void **state)
{
    (void)state;
    unsigned char two = 2;
    set_element("per_kernel/in_mix", 0, 1, H5T_NATIVE_UCHAR, &two);
    expect_refused("/per_kernel/in_mix[0][1] is 2 (expected 0 or 1)");
}

static void test_bad_header(void **state)
{
    (void)state;
    unsigned zero = 0;
    set_attr("schema_version", H5T_NATIVE_UINT, &zero);
    expect_refused("schema_version is 0 (expected 1 to");
    uint64_t zero64 = 0;
    set_attr("epoch_cycles", H5T_NATIVE_UINT64, &zero64);
    expect_refused("attribute epoch_cycles is 0 (expected at least 1)");
    unsigned nine = 9;
    set_attr("nkernels", H5T_NATIVE_UINT, &nine);
    expect_refused("attribute nkernels is 9 (expected 1 to 8)");
    /* Gone, and there but not a number: the message tells which. */
    redo_attr("sms", false);
    expect_refused("attribute sms of / is missing");
    redo_attr("sms", true);
    expect_refused("attribute sms of / is unreadable");
    /* The least epoch length is one cycle. */
    uint64_t one = 1;
    set_attr("epoch_cycles", H5T_NATIVE_UINT64, &one);
    char err[512] = "";
    struct runfile *rf = runfile_open(bad, err, sizeof(err));
    if (!rf)
        fail_msg("a run of 1-cycle epochs was refused: %s", err);
    runfile_close(rf, NULL, 0);
}

/* Defect 3: counters that are no counters. */
static void test_bad_counters(void **state)
{
    (void)state;
    int64_t minus_one = -1;
    replace_scalar("epoch_count", H5T_STD_I64LE, H5T_NATIVE_INT64, &minus_one);
    expect_refused("/epoch_count is -1 (expected 0 to");
    /* A signed count that is a count (as h5py writes one) is taken, 0 too. */
    for (int64_t n = 0; n <= 2; n += 2) {
        replace_scalar("epoch_count", H5T_STD_I64LE, H5T_NATIVE_INT64, &n);
        char err[512] = "";
        struct runfile *rf = runfile_open(bad, err, sizeof(err));
        if (!rf)
            fail_msg("a signed epoch_count of %lld was refused: %s", (long long)n, err);
        assert_int_equal(runfile_epoch_count(rf), n);
        runfile_close(rf, NULL, 0);
    }
    hid_t str = H5Tcopy(H5T_C_S1);
    H5Tset_size(str, 5);
    replace_scalar("epoch_count", str, str, "five");
    H5Tclose(str);
    expect_refused("/epoch_count is not an integer (expected a count)");
    double two = 2.0;
    replace_scalar("event_count", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &two);
    expect_refused("/event_count is not an integer (expected a count)");
    uint64_t nine = 9, huge = (uint64_t)1 << 40;
    replace_scalar("kernel_count", H5T_STD_U64LE, H5T_NATIVE_UINT64, &nine);
    expect_refused("/kernel_count is 9 (expected 0 to 8)");
    replace_scalar("kernel_count", H5T_STD_U64LE, H5T_NATIVE_UINT64, &huge);
    expect_refused("/kernel_count is 1099511627776 (expected 0 to 8)");
}

/* Found by tests/fuzz: a count and extents that promise more epochs than the file can hold
 * (an old-format header has no checksum) made reading every epoch run for hours. */
static void test_too_many_epochs(void **state)
{
    (void)state;
    hid_t f = damage_copy();
    const hsize_t rows = 10000000;
    const struct runfile_table *tables[] = {&runfile_per_kernel_table, &runfile_system_table};
    for (int t = 0; t < 2; t++)
        for (size_t i = 0; i < tables[t]->count; i++) {
            char name[96];
            snprintf(name, sizeof(name), "%s/%s", tables[t]->where + 1, tables[t]->fields[i].name);
            hid_t ds = H5Dopen2(f, name, H5P_DEFAULT);
            assert_true(ds >= 0);
            hsize_t dims[2] = {rows, KERNELS};
            assert_true(H5Dset_extent(ds, dims) >= 0);
            H5Dclose(ds);
        }
    hid_t ds = H5Dopen2(f, "partition", H5P_DEFAULT);
    hsize_t dims[2] = {rows, SMS};
    assert_true(H5Dset_extent(ds, dims) >= 0);
    H5Dclose(ds);
    uint64_t n = rows;
    ds = H5Dopen2(f, "epoch_count", H5P_DEFAULT);
    assert_true(H5Dwrite(ds, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, &n) >= 0);
    H5Dclose(ds);
    H5Fclose(f);
    expect_refused("it claims 10000000 epochs and 0 events, more than its");
}

/* Found by tests/fuzz: a schema-1 file whose global heap (the variable-length header strings)
 * is damaged so that HDF5 1.10 copies a negative length and the process dies. The file is
 * read in a child first, and refused when the child dies. */
static void expect_hdf5_refused(const char *name)
{
    const char *srcdir = getenv("top_srcdir");
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/data/%s", srcdir ? srcdir : CORUN_TEST_SRCDIR, name);
    char err[512] = "";
    struct runfile *rf = runfile_open(path, err, sizeof(err));
    if (rf) { /* an HDF5 that reads it safely may open it: then it must read cleanly */
        runfile_close(rf, NULL, 0);
        return;
    }
    char want[1100];
    snprintf(want, sizeof(want), "%s: damaged run file: ", path);
    if (!strstr(err, want))
        fail_msg("got \"%s\"", err);
}

static void test_hdf5_crash_refused(void **state)
{
    (void)state;
    expect_hdf5_refused("runfile-heap-crash.h5");
}

/* Found by tests/fuzz: another damaged global heap on which HDF5 1.10 loops for ever; the
 * child's CPU time runs out and the file is refused. One second rather than the default ten:
 * this program runs three times in the suite (plain, ASan, valgrind). */
static void test_hdf5_loop_refused(void **state)
{
    (void)state;
    runfile_set_read_cpu_limit(1);
    expect_hdf5_refused("runfile-heap-loop.h5");
    runfile_set_read_cpu_limit(0);
}

/* The child that reads a file first: a file it read, or found bad, is read again here (0); a
 * child ended by an exit status of its own, as a sanitizer or libFuzzer ends a process (ASan's
 * is 1), or by a signal, means the file would end this process too: refused. Found by a long
 * fuzz run, where a child ended by libFuzzer's allocation limit led the parent to read the
 * file itself and be ended the same way. */
static int reads_well(const char *path, const struct rf_probe *p)
{
    (void)path, (void)p;
    return 0;
}

static int finds_it_bad(const char *path, const struct rf_probe *p)
{
    (void)path, (void)p;
    return 1;
}

static int ended_by_asan(const char *path, const struct rf_probe *p)
{
    (void)path, (void)p;
    _exit(1);
}

static int ended_by_signal(const char *path, const struct rf_probe *p)
{
    (void)path, (void)p;
    raise(SIGKILL);
    return 0;
}

static void test_reading_child_verdicts(void **state)
{
    (void)state;
    struct rf_probe p = {0};
    char err[512] = "";
    assert_int_equal(rf_survives_reading("good.h5", &p, reads_well, err, sizeof err), 0);
    assert_int_equal(rf_survives_reading("bad.h5", &p, finds_it_bad, err, sizeof err), 0);
    assert_int_equal(rf_survives_reading("asan.h5", &p, ended_by_asan, err, sizeof err), -1);
    assert_string_equal(err, "asan.h5: damaged run file: the process reading it ended with exit "
                             "status 1; corun refuses it rather than end too");
    assert_int_equal(rf_survives_reading("kill.h5", &p, ended_by_signal, err, sizeof err), -1);
    assert_non_null(strstr(err, "kill.h5: damaged run file: the HDF5 library crashed reading it "
                                "(signal 9"));
}

/* Found by tests/fuzz (2026-11-29): an accelerator run file whose chunk index says a chunk of
 * /applications/p50_ms holds 4294967271 bytes; HDF5 allocated that much to read it. A dataset
 * that claims more storage than the file has is refused before it is read. */
static void test_forged_chunk_size_refused(void **state)
{
    (void)state;
    const char *srcdir = getenv("top_srcdir");
    char path[1024];
    snprintf(path, sizeof(path), "%s/tests/data/accel-runfile-chunk-size.h5",
             srcdir ? srcdir : CORUN_TEST_SRCDIR);
    struct accel_record r;
    char err[512] = "";
    if (accel_runfile_read(path, &r, err, sizeof err) == 0) {
        accel_record_done(&r);
        fail_msg("read a file with a forged chunk size");
    }
    if (!strstr(err, "/applications/p50_ms claims 4294967271 bytes of storage, more than the "
                     "file holds"))
        fail_msg("got \"%s\"", err);
}

/* Issue 21, defect 11: export --csv DIR followed a symbolic link at DIR/kernels.csv and
 * overwrote its target. */
static void test_export_keeps_off_links(void **state)
{
    (void)state;
    char out[320], victim[320], link[340];
    snprintf(out, sizeof(out), "%s/csv", dir);
    snprintf(victim, sizeof(victim), "%s/victim.txt", dir);
    snprintf(link, sizeof(link), "%s/kernels.csv", out);
    assert_int_equal(mkdir(out, 0777), 0);
    FILE *v = fopen(victim, "w");
    assert_non_null(v);
    fputs("precious\n", v);
    fclose(v);
    assert_int_equal(symlink(victim, link), 0);
    char err[512] = "";
    struct runfile *rf = runfile_open(good, err, sizeof(err));
    assert_non_null(rf);
    assert_int_equal(runfile_export_csv(rf, out, true, err, sizeof(err)), -2);
    runfile_close(rf, NULL, 0);
    char want[700];
    snprintf(want, sizeof(want),
             "%s: exists and is not a regular file (a symbolic link, not "
             "followed)",
             link);
    if (!strstr(err, want))
        fail_msg("got \"%s\", expected \"%s\"", err, want);
    char text[32] = "";
    v = fopen(victim, "r");
    assert_non_null(v);
    assert_non_null(fgets(text, sizeof(text), v));
    fclose(v);
    assert_string_equal(text, "precious\n");
    unlink(link);
    unlink(victim);
    const char *names[] = {"system.csv", "events.csv", "partition.csv"};
    for (int i = 0; i < 3; i++) {
        char p[400];
        snprintf(p, sizeof(p), "%s/%s", out, names[i]);
        unlink(p);
    }
    rmdir(out);
}

/* The first 4 KB of path ("" when it cannot be read). */
static void slurp(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "rb");
    if (!f)
        return;
    size_t n = fread(buf, 1, len - 1, f);
    buf[n] = '\0';
    fclose(f);
}

/* An export that fails reading a damaged run file half way leaves the files of an export
 * before as they were, and nothing of its own: it removed them all, so a good export was lost
 * to a bad one (2026-12-06). */
static void test_failed_export_keeps_the_files_before(void **state)
{
    (void)state;
    char out[320], kernels[340], before[4096], after[4096], err[512] = "";
    snprintf(out, sizeof(out), "%s/kept", dir);
    snprintf(kernels, sizeof(kernels), "%s/kernels.csv", out);
    struct runfile *rf = runfile_open(good, err, sizeof(err));
    assert_non_null(rf);
    assert_int_equal(runfile_export_csv(rf, out, true, err, sizeof(err)), 0);
    runfile_close(rf, NULL, 0);
    slurp(kernels, before, sizeof(before));
    assert_non_null(strstr(before, "\n1,0,LBM,"));
    unsigned char two = 2; /* epoch 1's row damaged; opening reads the last one */
    set_element("per_kernel/in_mix", 0, 1, H5T_NATIVE_UCHAR, &two);
    rf = runfile_open(bad, err, sizeof(err));
    assert_non_null(rf);
    assert_int_equal(runfile_export_csv(rf, out, true, err, sizeof(err)), -2);
    runfile_close(rf, NULL, 0);
    assert_non_null(strstr(err, "/per_kernel/in_mix[0][1] is 2"));
    slurp(kernels, after, sizeof(after));
    assert_string_equal(after, before);
    const char *names[] = {"kernels.csv", "system.csv", "events.csv", "partition.csv"};
    unsigned n = 0;
    for (int i = 0; i < 4; i++) {
        char p[400];
        snprintf(p, sizeof(p), "%s/%s", out, names[i]);
        n += unlink(p) == 0;
    }
    assert_int_equal(n, 4);
    assert_int_equal(rmdir(out), 0); /* empty: no temporary file left */
}

/* A run file kept as DIR/kernels.csv, exported to DIR, was replaced by its own export (or
 * lost, the export failing half way): refused, the run file untouched. */
static void test_export_refuses_its_own_run_file(void **state)
{
    (void)state;
    char out[320], kept[340], err[512] = "";
    snprintf(out, sizeof(out), "%s/own", dir);
    snprintf(kept, sizeof(kept), "%s/kernels.csv", out);
    assert_int_equal(mkdir(out, 0777), 0);
    assert_int_equal(link(good, kept), 0);
    struct runfile *rf = runfile_open(kept, err, sizeof(err));
    assert_non_null(rf);
    assert_int_equal(runfile_export_csv(rf, out, true, err, sizeof(err)), -2);
    runfile_close(rf, NULL, 0);
    char want[800];
    snprintf(want, sizeof(want), "%s: is the run file being exported (%s)", kept, kept);
    if (!strstr(err, want))
        fail_msg("got \"%s\", expected \"%s\"", err, want);
    rf = runfile_open(good, err, sizeof(err));
    assert_non_null(rf);
    assert_int_equal(runfile_epoch_count(rf), EPOCHS);
    runfile_close(rf, NULL, 0);
    assert_int_equal(unlink(kept), 0);
    assert_int_equal(rmdir(out), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_file_reads),
        cmocka_unit_test(test_infinite_values),
        cmocka_unit_test(test_bad_owners),
        cmocka_unit_test(test_bad_in_mix),
        cmocka_unit_test(test_bad_header),
        cmocka_unit_test(test_bad_counters),
        cmocka_unit_test(test_export_keeps_off_links),
        cmocka_unit_test(test_failed_export_keeps_the_files_before),
        cmocka_unit_test(test_export_refuses_its_own_run_file),
        cmocka_unit_test(test_hdf5_crash_refused),
        cmocka_unit_test(test_too_many_epochs),
        cmocka_unit_test(test_hdf5_loop_refused),
        cmocka_unit_test(test_forged_chunk_size_refused),
        cmocka_unit_test(test_reading_child_verdicts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
