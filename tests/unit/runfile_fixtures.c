/* runfile_fixtures — what the run-file unit tests (test_runfile.c, test_runfile_mix.c) share:
 * a temporary directory per test, synthetic headers and epochs whose every field is set, and
 * assertions that a file holds them. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "runfile_fixtures.h"
#include "testutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef __linux__
#include <sys/mount.h>
#endif

static char dir[256];

const char *test_dir(void)
{
    return dir;
}

char *in_dir(const char *name)
{
    static char path[2][512];
    static int which;
    which = !which;
    snprintf(path[which], sizeof(path[which]), "%s/%s", dir, name);
    return path[which];
}

int runfile_setup(void **state)
{
    (void)state;
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof(dir), "%s/test_runfile.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    return mkdtemp(dir) ? 0 : -1;
}

int runfile_teardown(void **state)
{
    (void)state;
#ifdef __linux__
    umount(in_dir("tmpfs")); /* left mounted when the full-disk test failed */
#endif
    test_remove_tree(dir);
    return 0;
}

void make_header(struct runfile_header *h, unsigned nkernels, unsigned sms)
{
    static char *names[] = {"LBM", "BINO", "SAD", "HS", "BLK", "CFD", "SPMV", "MM"};
    memset(h, 0, sizeof(*h));
    h->corun_version = "9.9.9-test";
    h->scenario_text = "name = \"pair\";\ngpu = \"hbm80\";\n# \u00e9t\u00e9\n";
    h->scenario_path = "scenarios/pair.cfg";
    h->seed = 0xfedcba9876543210u;
    h->gpu_preset = "hbm80";
    h->sms = sms;
    h->epoch_cycles = CYCLES;
    h->nkernels = nkernels;
    for (unsigned k = 0; k < nkernels; k++)
        h->kernels[k] = (struct runfile_kernel){names[k], (int)(k % 2), 0.5 + 0.05 * k,
                                                k == 0 ? 0.75 : 0.25 / (nkernels - 1)};
}

/* Every field of table t in base gets a value made from seed and the field's position. */
void fill(const struct runfile_table *t, void *base, uint64_t seed)
{
    for (size_t j = 0; j < t->count; j++) {
        void *p = (char *)base + t->fields[j].offset;
        switch (t->fields[j].type) {
        case RUNFILE_U64: *(uint64_t *)p = seed * 0x100000001b3u + j; break;
        case RUNFILE_UINT: *(unsigned *)p = (unsigned)(seed * 31 + j); break;
        case RUNFILE_DOUBLE: *(double *)p = (double)seed / 7.0 + (double)j * 1e-3; break;
        case RUNFILE_FLAG: *(unsigned *)p = 1; break;
        case RUNFILE_CLASS: *(int *)p = (int)(seed % 4); break;
        case RUNFILE_TEXT:
            snprintf(p, RUNFILE_EXPLAIN_MAX, "why %llu", (unsigned long long)seed);
            break;
        default: fail_msg("unexpected type in %s", t->where);
        }
    }
}

void synth_epoch(uint64_t i, unsigned nkernels, unsigned sms, struct runfile_epoch *e)
{
    memset(e, 0, sizeof(*e));
    fill(&runfile_system_table, e, i);
    e->start_cycle = i * CYCLES;
    e->cycles = CYCLES;
    e->sys.cycles = CYCLES;
    e->nkernels = nkernels;
    for (unsigned k = 0; k < nkernels; k++)
        fill(&runfile_per_kernel_table, &e->k[k], i * 100 + k);
    e->k[nkernels - 1].np_pred = NAN; /* no prediction for this one */
    if (i % 3 == 0)
        e->fairness = NAN;
    e->nsms = sms;
    for (unsigned s = 0; s < sms; s++)
        e->owner[s] = (int)((s * 7 + i) % (nkernels + 2)) - 2;
}

void assert_same_table(const struct runfile_table *t, const void *a, const void *b)
{
    for (size_t j = 0; j < t->count; j++) {
        const char *pa = (const char *)a + t->fields[j].offset;
        const char *pb = (const char *)b + t->fields[j].offset;
        switch (t->fields[j].type) {
        case RUNFILE_U64: assert_int_equal(*(const uint64_t *)pa, *(const uint64_t *)pb); break;
        case RUNFILE_UINT:
        case RUNFILE_FLAG: assert_int_equal(*(const unsigned *)pa, *(const unsigned *)pb); break;
        case RUNFILE_PRIORITY:
        case RUNFILE_CLASS: assert_int_equal(*(const int *)pa, *(const int *)pb); break;
        case RUNFILE_TEXT: assert_string_equal(pa, pb); break;
        case RUNFILE_STRING:
        case RUNFILE_NAME: assert_string_equal(*(char *const *)pa, *(char *const *)pb); break;
        case RUNFILE_DOUBLE: {
            double x = *(const double *)pa, y = *(const double *)pb;
            if (!(isnan(x) && isnan(y)))
                assert_memory_equal(&x, &y, sizeof(x));
            break;
        }
        }
    }
}

void assert_same_epoch(const struct runfile_epoch *want, const struct runfile_epoch *got)
{
    assert_same_table(&runfile_system_table, want, got);
    assert_int_equal(got->sys.cycles, want->sys.cycles);
    assert_int_equal(got->nkernels, want->nkernels);
    for (unsigned k = 0; k < want->nkernels; k++)
        assert_same_table(&runfile_per_kernel_table, &want->k[k], &got->k[k]);
    assert_int_equal(got->nsms, want->nsms);
    assert_memory_equal(got->owner, want->owner, want->nsms * sizeof(want->owner[0]));
}

/* Record n epochs (and an event every third) at path; returns the open recorder. */
struct runfile *record(const char *path, unsigned nkernels, unsigned sms, uint64_t n)
{
    struct runfile_header h;
    make_header(&h, nkernels, sms);
    char err[512] = "";
    struct runfile *rf = runfile_create(path, &h, err, sizeof(err));
    if (!rf)
        fail_msg("%s", err);
    struct runfile_epoch *e = malloc(sizeof(*e));
    for (uint64_t i = 0; i < n; i++) {
        synth_epoch(i, nkernels, sms, e);
        if (runfile_append_epoch(rf, e, err, sizeof(err)) != 0)
            fail_msg("%s", err);
        if (i % 3 == 2)
            assert_int_equal(
                runfile_append_event(rf, i, i * CYCLES + 17, "note", "a note", err, sizeof(err)),
                0);
    }
    free(e);
    return rf;
}

void close_ok(struct runfile *rf)
{
    char err[512] = "";
    if (runfile_close(rf, err, sizeof(err)) != 0)
        fail_msg("%s", err);
}

void assert_epochs(struct runfile *rf, unsigned nkernels, unsigned sms, uint64_t n)
{
    char err[512] = "";
    struct runfile_epoch *want = malloc(sizeof(*want)), *got = malloc(sizeof(*got));
    assert_int_equal(runfile_epoch_count(rf), n);
    for (uint64_t i = 0; i < n; i++) {
        synth_epoch(i, nkernels, sms, want);
        if (runfile_read_epoch(rf, i, got, err, sizeof(err)) != 0)
            fail_msg("%s", err);
        assert_same_epoch(want, got);
    }
    free(want);
    free(got);
}

void expect_open_error(const char *path, const char *message)
{
    char err[512] = "";
    struct runfile *rf = runfile_open(path, err, sizeof(err));
    if (rf) {
        runfile_close(rf, err, sizeof(err));
        fail_msg("%s opened; expected \"%s\"", path, message);
    }
    if (!strstr(err, message))
        fail_msg("got \"%s\", expected \"%s\"", err, message);
}

void write_bytes(const char *path, const void *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    if (len)
        *len = (size_t)n;
    return buf;
}

/* ---- tests ---- */
