/* Unit tests for HDF5 run files: a round trip of every field, growth over many epochs, reading
 * a file being recorded or left by a crash, every bad input with its message, a full disk and
 * the CSV export. A mix that grows during the run, a schema-1 file and the layout's docs are in
 * test_runfile_mix.c. */
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

#ifdef __linux__
#include <sys/mount.h>
#endif

static void test_round_trip(void **state)
{
    (void)state;
    const char *path = in_dir("round.h5");
    struct runfile *rf = record(path, 3, 80, 5);
    char err[512] = "";
    /* Event text: cut at 255 bytes without splitting the 3-byte arrow that straddles it. */
    char longtext[400];
    memset(longtext, 'x', 253);
    strcpy(longtext + 253, "\u2192tail");
    assert_int_equal(runfile_append_event(rf, 4, 4 * CYCLES + 1, "repartition",
                                          "fair: fairness 0.61 < 0.90, moved 7 SMs LBM\u2192BINO",
                                          err, sizeof(err)),
                     0);
    assert_int_equal(
        runfile_append_event(rf, 5, 5 * CYCLES, "predictor", longtext, err, sizeof(err)), 0);
    const struct runfile_header *wh = runfile_header(rf);
    assert_int_equal(wh->schema_version, RUNFILE_SCHEMA_VERSION);
    char created[32];
    snprintf(created, sizeof(created), "%s", wh->created);
    assert_int_equal(runfile_epoch_count(rf), 5);
    assert_int_equal(runfile_event_count(rf), 3);
    close_ok(rf);

    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    const struct runfile_header *h = runfile_header(rf);
    struct runfile_header want;
    make_header(&want, 3, 80);
    want.schema_version = RUNFILE_SCHEMA_VERSION;
    want.schema_minor = RUNFILE_SCHEMA_MINOR;
    want.nkernels_start = 3;
    want.created = created;
    assert_same_table(&runfile_header_table, &want, h);
    assert_int_equal(strlen(h->created), 20); /* 2024-05-01T12:00:00Z */
    assert_true(h->created[4] == '-' && h->created[10] == 'T' && h->created[19] == 'Z');
    for (unsigned k = 0; k < 3; k++)
        assert_same_table(&runfile_kernel_table, &want.kernels[k], &h->kernels[k]);
    assert_epochs(rf, 3, 80, 5);

    assert_int_equal(runfile_event_count(rf), 3);
    struct runfile_event ev;
    assert_int_equal(runfile_read_event(rf, 0, &ev, err, sizeof(err)), 0);
    assert_int_equal(ev.epoch, 2);
    assert_int_equal(ev.cycle, 2 * CYCLES + 17);
    assert_string_equal(ev.kind, "note");
    assert_string_equal(ev.text, "a note");
    assert_int_equal(runfile_read_event(rf, 1, &ev, err, sizeof(err)), 0);
    assert_string_equal(ev.kind, "repartition");
    assert_string_equal(ev.text, "fair: fairness 0.61 < 0.90, moved 7 SMs LBM\u2192BINO");
    assert_int_equal(runfile_read_event(rf, 2, &ev, err, sizeof(err)), 0);
    assert_int_equal(strlen(ev.text), 253);
    assert_memory_equal(ev.text, longtext, 253);

    /* Out of range, and appending to a file opened for reading. */
    struct runfile_epoch *e = malloc(sizeof(*e));
    assert_int_equal(runfile_read_epoch(rf, 5, e, err, sizeof(err)), -1);
    char msg[600];
    snprintf(msg, sizeof(msg), "%s: no epoch 5 (the run has 5)", path);
    assert_string_equal(err, msg);
    assert_int_equal(runfile_read_event(rf, 3, &ev, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s: no event 3 (the run has 3)", path);
    assert_string_equal(err, msg);
    synth_epoch(5, 3, 80, e);
    assert_int_equal(runfile_append_epoch(rf, e, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s: opened for reading; cannot append", path);
    assert_string_equal(err, msg);
    free(e);
    close_ok(rf);
    assert_int_equal(runfile_close(NULL, err, sizeof(err)), 0);
}

/* The widest rows, 150 epochs of them (an event every third). Under valgrind (tests/valgrind.sh
 * sets CORUN_UNDER_VALGRIND) 15: the same rows and code, where 150 took 12 s of the suite. */
static void test_many_epochs(void **state)
{
    (void)state;
    const char *path = in_dir("many.h5");
    const unsigned n = getenv("CORUN_UNDER_VALGRIND") ? 15 : 150;
    struct runfile *rf = record(path, GPU_MAX_KERNELS, RUNFILE_MAX_SMS, n);
    assert_int_equal(runfile_epoch_count(rf), n);
    assert_int_equal(runfile_event_count(rf), n / 3);
    close_ok(rf);
    char err[512] = "";
    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_epochs(rf, GPU_MAX_KERNELS, RUNFILE_MAX_SMS, n);
    struct runfile_event ev;
    assert_int_equal(runfile_read_event(rf, n / 3 - 1, &ev, err, sizeof(err)), 0);
    assert_int_equal(ev.epoch, n - 1);
    close_ok(rf);
}

/* A reader sees what the recorder has committed so far. */
static void test_read_while_recording(void **state)
{
    (void)state;
    const char *path = in_dir("live.h5");
    struct runfile *w = record(path, 2, 16, 4);
    char err[512] = "";
    struct runfile *r = runfile_open(path, err, sizeof(err));
    if (!r)
        fail_msg("%s", err);
    assert_epochs(r, 2, 16, 4);
    close_ok(r);
    /* The recorder reads what it wrote, too. */
    assert_epochs(w, 2, 16, 4);
    struct runfile_event ev;
    assert_int_equal(runfile_read_event(w, 0, &ev, err, sizeof(err)), 0);
    assert_string_equal(ev.text, "a note");
    close_ok(w);
}

/* A recorder that dies without closing leaves a file that opens with every committed epoch. */
static void test_recorder_died(void **state)
{
    (void)state;
    const char *path = in_dir("died.h5");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        record(path, 3, 40, 7);
        _exit(0); /* no close, no flush at exit: as if killed */
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    char err[512] = "";
    struct runfile *rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_epochs(rf, 3, 40, 7);
    assert_int_equal(runfile_event_count(rf), 2);
    close_ok(rf);

    /* Half of such a file: its superblock cannot say how long it should be, so the damage is
     * found when reading. */
    size_t len;
    char *all = read_all(path, &len);
    const char *half = in_dir("died-half.h5");
    write_bytes(half, all, len / 2);
    free(all);
    char msg[600];
    snprintf(msg, sizeof(msg), "%s: damaged or truncated ", half);
    expect_open_error(half, msg);
}

static void test_bad_files(void **state)
{
    (void)state;
    char msg[600];
    const char *missing = in_dir("missing.h5");
    snprintf(msg, sizeof(msg), "%s: cannot open: No such file or directory", missing);
    expect_open_error(missing, msg);

    const char *empty = in_dir("empty.h5");
    write_bytes(empty, "", 0);
    snprintf(msg, sizeof(msg), "%s: empty file (0 bytes), not a run file", empty);
    expect_open_error(empty, msg);

    snprintf(msg, sizeof(msg), "%s: is a directory, not a run file", test_dir());
    expect_open_error(test_dir(), msg);
    expect_open_error("/dev/null", "/dev/null: not a regular file, not a run file");

    const char *noise = in_dir("noise.h5");
    unsigned char bytes[5000];
    srand(7);
    for (size_t i = 0; i < sizeof(bytes); i++)
        bytes[i] = (unsigned char)rand();
    write_bytes(noise, bytes, sizeof(bytes));
    snprintf(msg, sizeof(msg), "%s: not an HDF5 file (no HDF5 signature), so not a run file",
             noise);
    expect_open_error(noise, msg);

    /* A scenario given for a run file: said, with the command that records a run of it. */
    const char *scenario = in_dir("scenario.h5");
    const char *text = "name = \"x\";\ngpu = \"hbm80\";\nkernels = ( { name = \"stream\"; } );\n";
    write_bytes(scenario, text, strlen(text));
    snprintf(msg, sizeof(msg),
             "%s: a scenario, not a run file: `corun run %s --out RUN.h5` records a run of it",
             scenario, scenario);
    expect_open_error(scenario, msg);

    /* The first half of a valid file. */
    const char *good = in_dir("good.h5");
    close_ok(record(good, 2, 8, 20));
    size_t len;
    char *all = read_all(good, &len);
    const char *half = in_dir("half.h5");
    write_bytes(half, all, len / 2);
    snprintf(msg, sizeof(msg),
             "%s: truncated: the file has %zu bytes, its HDF5 superblock says %zu (an "
             "incomplete copy?)",
             half, len / 2, len);
    expect_open_error(half, msg);
    /* Its first 8 bytes (the signature alone): HDF5 gives no reason ("unknown HDF5 error"). */
    const char *eight = in_dir("eight.h5");
    write_bytes(eight, all, 8);
    snprintf(msg, sizeof(msg),
             "%s: truncated: the file has 8 bytes, too few for an HDF5 superblock (an incomplete "
             "copy?)",
             eight);
    expect_open_error(eight, msg);
    /* A valid start with random bytes after it. */
    memcpy(all + 4096, bytes, sizeof(bytes));
    const char *scrambled = in_dir("scrambled.h5");
    write_bytes(scrambled, all, len);
    snprintf(msg, sizeof(msg), "%s: ", scrambled);
    expect_open_error(scrambled, msg);
    free(all);
}

/* runfile_glance, for a catalog row's file: only what a stat and the superblock tell. */
static void expect_glance(const char *path, const char *want)
{
    char err[600] = "";
    int rc = runfile_glance(path, err, sizeof(err));
    if (!want) {
        if (rc != 0)
            fail_msg("%s: glance refused it: %s", path, err);
        return;
    }
    assert_int_equal(rc, -1);
    if (strncmp(err, want, strlen(want)) != 0)
        fail_msg("glance: expected '%s...', got '%s'", want, err);
}

static void test_glance(void **state)
{
    (void)state;
    char msg[600], good[512], half[512];
    snprintf(good, sizeof(good), "%s", in_dir("good.h5")); /* in_dir's buffers are reused */
    close_ok(record(good, 2, 8, 3));
    expect_glance(good, NULL);
    /* A file being recorded is shorter than its superblock may say: it passes. */
    const char *live = in_dir("live.h5");
    struct runfile *w = record(live, 2, 8, 3);
    expect_glance(live, NULL);
    close_ok(w);

    const char *missing = in_dir("missing.h5");
    snprintf(msg, sizeof(msg), "%s: cannot open: No such file or directory", missing);
    expect_glance(missing, msg);
    const char *junk = in_dir("junk.h5");
    write_bytes(junk, "garbage\n", 8);
    snprintf(msg, sizeof(msg), "%s: not an HDF5 file (no HDF5 signature), so not a run file", junk);
    expect_glance(junk, msg);
    size_t len;
    char *all = read_all(good, &len);
    snprintf(half, sizeof(half), "%s", in_dir("half.h5"));
    write_bytes(half, all, len / 2);
    free(all);
    snprintf(msg, sizeof(msg), "%s: truncated: the file has %zu bytes", half, len / 2);
    expect_glance(half, msg);
}

static void test_not_a_run_file(void **state)
{
    (void)state;
    char msg[600];
    /* An HDF5 file of someone else's. */
    const char *other = in_dir("other.h5");
    hid_t f = H5Fcreate(other, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    assert_true(f >= 0);
    hsize_t n = 4;
    hid_t space = H5Screate_simple(1, &n, NULL);
    hid_t ds = H5Dcreate2(f, "data", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    H5Dclose(ds);
    H5Sclose(space);
    H5Fclose(f);
    snprintf(msg, sizeof(msg),
             "%s: an HDF5 file, but not a corun run file (no schema_version attribute)", other);
    expect_open_error(other, msg);

    /* An HDF5 file whose (non-SWMR) writer died: its superblock still says "open for write". */
    const char *open_file = in_dir("open.h5");
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
        hid_t child = H5Fcreate(open_file, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        H5Fflush(child, H5F_SCOPE_GLOBAL);
        _exit(child >= 0 ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    snprintf(msg, sizeof(msg),
             "%s: the file is marked as open for writing by a program that did not use SWMR; if "
             "no program has it open, clear the mark with: h5clear -s %s",
             open_file, open_file);
    expect_open_error(open_file, msg);

    /* A run file from a future corun. */
    const char *future = in_dir("future.h5");
    close_ok(record(future, 2, 8, 3));
    f = H5Fopen(future, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(f >= 0);
    hid_t a = H5Aopen(f, "schema_version", H5P_DEFAULT);
    unsigned v = RUNFILE_SCHEMA_VERSION + 1;
    assert_true(H5Awrite(a, H5T_NATIVE_UINT, &v) >= 0);
    H5Aclose(a);
    H5Fclose(f);
    snprintf(msg, sizeof(msg),
             "%s: run file schema version %d is newer than this corun reads (version %d); "
             "open it with a newer corun",
             future, RUNFILE_SCHEMA_VERSION + 1, RUNFILE_SCHEMA_VERSION);
    expect_open_error(future, msg);

    /* A run file with a dataset removed. */
    const char *damaged = in_dir("damaged.h5");
    close_ok(record(damaged, 2, 8, 3));
    f = H5Fopen(damaged, H5F_ACC_RDWR, H5P_DEFAULT);
    assert_true(H5Ldelete(f, "per_kernel/ipc", H5P_DEFAULT) >= 0);
    H5Fclose(f);
    snprintf(msg, sizeof(msg), "%s: damaged run file: /per_kernel/ipc is missing", damaged);
    expect_open_error(damaged, msg);
}

static void test_bad_recording(void **state)
{
    (void)state;
    char err[512] = "", msg[600];
    struct runfile_header h;
    make_header(&h, 2, 8);
    const char *path = in_dir("rec.h5");

    h.nkernels = 0;
    assert_null(runfile_create(path, &h, err, sizeof(err)));
    snprintf(msg, sizeof(msg), "%s: cannot record 0 kernels (1 to %d)", path, GPU_MAX_KERNELS);
    assert_string_equal(err, msg);
    h.nkernels = 1; /* a kernel alone is a run too */
    struct runfile *one = runfile_create(path, &h, err, sizeof(err));
    if (!one)
        fail_msg("%s", err);
    assert_int_equal(runfile_close(one, err, sizeof(err)), 0);
    assert_int_equal(unlink(path), 0);
    h.nkernels = 2;
    h.sms = RUNFILE_MAX_SMS + 1;
    assert_null(runfile_create(path, &h, err, sizeof(err)));
    snprintf(msg, sizeof(msg), "%s: cannot record 1025 SMs (1 to 1024)", path);
    assert_string_equal(err, msg);
    h.sms = 8;
    char *name = h.kernels[1].name, empty[] = "";
    h.kernels[1].name = empty;
    assert_null(runfile_create(path, &h, err, sizeof(err)));
    snprintf(msg, sizeof(msg), "%s: kernel 1 has no name", path);
    assert_string_equal(err, msg);
    h.kernels[1].name = name;
    const char *nodir = in_dir("no/such/dir/x.h5");
    assert_null(runfile_create(nodir, &h, err, sizeof(err)));
    snprintf(msg, sizeof(msg), "%s: cannot create: No such file or directory", nodir);
    assert_string_equal(err, msg);
    assert_int_equal(access(path, F_OK), -1); /* nothing was made */

    struct runfile *rf = runfile_create(path, &h, err, sizeof(err));
    assert_non_null(rf);
    /* An existing file is never replaced. */
    assert_null(runfile_create(path, &h, err, sizeof(err)));
    snprintf(msg, sizeof(msg), "%s: already exists; a run file is never overwritten", path);
    assert_string_equal(err, msg);
    /* A directory is named as one (it was "already exists"). */
    assert_null(runfile_create("/tmp", &h, err, sizeof(err)));
    assert_string_equal(err, "/tmp: is a directory (expected the name of a new run file)");

    struct runfile_epoch *e = malloc(sizeof(*e));
    synth_epoch(0, 3, 8, e);
    assert_int_equal(runfile_append_epoch(rf, e, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s: epoch 0 has 3 kernels, the run has 2", path);
    assert_string_equal(err, msg);
    synth_epoch(0, 2, 8, e);
    e->owner[3] = 2;
    assert_int_equal(runfile_append_epoch(rf, e, err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s: epoch 0: SM 3 has owner 2 (-2 to 1)", path);
    assert_string_equal(err, msg);
    assert_int_equal(runfile_append_event(rf, 0, 0, "", "x", err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s: event kind \"\": expected 1 to 15 bytes", path);
    assert_string_equal(err, msg);
    assert_int_equal(runfile_append_event(rf, 0, 0, "averyveryverylongkind", "x", err, sizeof(err)),
                     -1);
    /* None of that stopped the recording. */
    synth_epoch(0, 2, 8, e);
    assert_int_equal(runfile_append_epoch(rf, e, err, sizeof(err)), 0);
    free(e);
    close_ok(rf);
    rf = runfile_open(path, err, sizeof(err));
    assert_non_null(rf);
    assert_epochs(rf, 2, 8, 1);
    assert_int_equal(runfile_event_count(rf), 0);
    close_ok(rf);
}

/* Files this process writes stop growing at `bytes` (soft limit; writes past it fail with
 * EFBIG, SIGXFSZ ignored) until file_size_unlimit(was); stdio is flushed first, as the test's
 * own log is a file too. */
static void file_size_limit(off_t bytes, struct rlimit *was)
{
    fflush(stdout);
    fflush(stderr);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, was), 0);
    struct rlimit lim = {(rlim_t)bytes, was->rlim_max};
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void file_size_unlimit(const struct rlimit *was)
{
    assert_int_equal(setrlimit(RLIMIT_FSIZE, was), 0);
    signal(SIGXFSZ, SIG_DFL);
}

/* Append until the file cannot grow; the failure is reported, later appends refuse, and the
 * file keeps every epoch before it. */
static void fill_disk(const char *path, bool restore_limit)
{
    char err[512] = "", msg[600];
    struct runfile *rf = record(path, 4, 64, 3);
    struct rlimit old;
    if (restore_limit) {
        /* The file may grow by a few epochs more. */
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        file_size_limit(st.st_size + 30000, &old);
    }
    struct runfile_epoch *e = malloc(sizeof(*e));
    uint64_t i = 3;
    for (; i < 100000; i++) {
        synth_epoch(i, 4, 64, e);
        if (runfile_append_epoch(rf, e, err, sizeof(err)) != 0)
            break;
    }
    if (restore_limit)
        file_size_unlimit(&old);
    assert_true(i < 100000);
    assert_int_equal(runfile_epoch_count(rf), i);
    snprintf(msg, sizeof(msg), "%s: cannot record epoch %llu: ", path, (unsigned long long)i + 1);
    if (strncmp(err, msg, strlen(msg)) != 0)
        fail_msg("got \"%s\"", err);
    snprintf(msg, sizeof(msg), "; recording stopped, and the file keeps its first %llu epochs",
             (unsigned long long)i);
    assert_non_null(strstr(err, msg));
    assert_non_null(strstr(err, restore_limit ? "File too large" : "No space left on device"));
    char first[512];
    snprintf(first, sizeof(first), "%s", err);
    /* Later appends refuse with the same reason; closing reports it too. */
    assert_int_equal(runfile_append_event(rf, i, 0, "note", "x", err, sizeof(err)), -1);
    snprintf(msg, sizeof(msg), "%s (earlier)", first);
    assert_string_equal(err, msg);
    assert_int_equal(runfile_close(rf, err, sizeof(err)), -1);
    assert_string_equal(err, first);
    free(e);

    rf = runfile_open(path, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    assert_epochs(rf, 4, 64, i);
    close_ok(rf);
}

static void test_full_disk_tmpfs(void **state)
{
    (void)state;
#ifdef __linux__
    char *mnt = in_dir("tmpfs");
    assert_int_equal(mkdir(mnt, 0700), 0);
    if (geteuid() != 0 || mount("tmpfs", mnt, "tmpfs", 0, "size=128k") != 0) {
        print_message("skipping the tmpfs case: cannot mount a small tmpfs here (%s); the file "
                      "size limit case covers full disks\n",
                      geteuid() != 0 ? "not root" : strerror(errno));
        skip();
    }
    char path[600];
    snprintf(path, sizeof(path), "%s/full.h5", mnt);
    fill_disk(path, false);
    assert_int_equal(umount(mnt), 0);
#else
    skip();
#endif
}

static void test_file_size_limit(void **state)
{
    (void)state;
    /* The limit makes writes past it fail with EFBIG, as a full disk fails them with ENOSPC. */
    fill_disk(in_dir("limited.h5"), true);
}

static void test_csv_export(void **state)
{
    (void)state;
    const char *path = in_dir("csv.h5");
    struct runfile *rf = record(path, 2, 4, 3);
    char err[512] = "";
    assert_int_equal(runfile_append_event(rf, 2, 123, "allocator",
                                          "switched to \"hsm-fair\", then back", err, sizeof(err)),
                     0);
    close_ok(rf);
    rf = runfile_open(path, err, sizeof(err));
    assert_non_null(rf);
    const char *out = in_dir("csv");
    if (runfile_export_csv(rf, out, false, err, sizeof(err)) != 0)
        fail_msg("%s", err);
    /* Again without replace: refused, naming the first file and counting the others, and
     * nothing changed; with replace, taken. */
    char first[600], before[8192], after[8192];
    snprintf(first, sizeof(first), "%s/kernels.csv", out);
    char *text = read_all(first, NULL);
    snprintf(before, sizeof(before), "%s", text);
    free(text);
    assert_int_equal(runfile_export_csv(rf, out, false, err, sizeof(err)), -2);
    char want[900];
    snprintf(want, sizeof(want),
             "%s: exists, and 3 more of the export's files; give --force to replace them, or "
             "export to another directory",
             first);
    assert_string_equal(err, want);
    text = read_all(first, NULL);
    snprintf(after, sizeof(after), "%s", text);
    free(text);
    assert_string_equal(after, before);
    if (runfile_export_csv(rf, out, true, err, sizeof(err)) != 0)
        fail_msg("%s", err);

    char file[600];
    snprintf(file, sizeof(file), "%s/kernels.csv", out);
    text = read_all(file, NULL);
    /* A header with one column per table field, units in brackets, then epochs x kernels. */
    const char *head = "epoch,kernel,name,cycles [cycles],instructions [warp instructions],"
                       "sms [SMs],active_sms [SMs],owned_sms [SMs],ipc [warp instructions/cycle],";
    assert_true(strncmp(text, head, strlen(head)) == 0);
    size_t lines = 0, commas = 0;
    for (char *p = text; *p; p++) {
        lines += *p == '\n';
        commas += *p == ',' && lines == 0;
    }
    assert_int_equal(lines, 1 + 3 * 2);
    assert_int_equal(commas, 2 + runfile_per_kernel_table.count);
    /* Row 1 (epoch 2), kernel 1: cycles is the first field, seed 101. */
    char row[128];
    snprintf(row, sizeof(row), "\n2,1,BINO,%llu,%llu,", /* epochs are numbered from 1 */
             (unsigned long long)(101 * 0x100000001b3u + 0),
             (unsigned long long)(101 * 0x100000001b3u + 1));
    assert_non_null(strstr(text, row));
    assert_non_null(strstr(text, ",np_true,np_pred,in_mix,pred_class,explain\n"));
    assert_non_null(strstr(text, ",nan,1,")); /* the last kernel's np_pred, in the mix */
    free(text);

    snprintf(file, sizeof(file), "%s/system.csv", out);
    text = read_all(file, NULL);
    head = "epoch,start_cycle [cycles],cycles [cycles],";
    assert_true(strncmp(text, head, strlen(head)) == 0);
    assert_non_null(strstr(text, "\n3,100000,50000,"));
    assert_non_null(strstr(text, ",stp,antt,fairness\n"));
    free(text);

    snprintf(file, sizeof(file), "%s/partition.csv", out);
    text = read_all(file, NULL);
    assert_string_equal(text, "epoch,sm0,sm1,sm2,sm3\n1,-2,1,0,-1\n2,-1,-2,1,0\n3,0,-1,-2,1\n");
    free(text);

    snprintf(file, sizeof(file), "%s/events.csv", out);
    text = read_all(file, NULL);
    assert_string_equal(text, "after_epoch,cycle,kind,text\n2,100017,note,a note\n"
                              "2,123,allocator,\"switched to \"\"hsm-fair\"\", then back\"\n");
    free(text);

    /* A directory that cannot be made. */
    const char *bad = in_dir("csv/kernels.csv/sub");
    assert_int_equal(runfile_export_csv(rf, bad, true, err, sizeof(err)), -2);
    char msg[700];
    snprintf(msg, sizeof(msg), "%s: cannot make the directory: Not a directory", bad);
    assert_string_equal(err, msg);

    /* Files that cannot be written whole (a file-size limit of 64 bytes, below each of
     * theirs): the export fails, naming the first. Nothing is printed meanwhile. */
    struct rlimit was;
    file_size_limit(64, &was);
    int rc = runfile_export_csv(rf, out, true, err, sizeof(err));
    file_size_unlimit(&was);
    assert_int_equal(rc, -1);
    snprintf(msg, sizeof(msg), "%s/kernels.csv: cannot write: File too large", out);
    assert_string_equal(err, msg);
    close_ok(rf);
}

int main(void)
{
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_many_epochs, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_read_while_recording, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_recorder_died, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_bad_files, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_not_a_run_file, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_glance, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_bad_recording, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_full_disk_tmpfs, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_file_size_limit, runfile_setup, runfile_teardown),
        cmocka_unit_test_setup_teardown(test_csv_export, runfile_setup, runfile_teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    H5close(); /* so that leak checkers do not count HDF5's own tables */
    return failed;
}
