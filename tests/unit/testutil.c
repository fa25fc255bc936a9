/* testutil — shared helpers for the CMocka unit tests. */
#define _XOPEN_SOURCE 700 /* nftw */

#include "testutil.h"

#include <ftw.h>
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/preset.h"

void test_preset(const char *name, struct gpu_config *out)
{
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    int rc = preset_gpu_load(datadir, name, out, &d);
    if (rc != 0)
        diag_print(&d, stderr);
    diag_done(&d);
    free(datadir);
    assert_int_equal(rc, 0);
}

const struct kernel_profile *test_builtin(const char *name)
{
    const struct kernel_profile *p = kernel_builtin_find(name);
    if (!p)
        fail_msg("no built-in kernel %s", name);
    return p;
}

struct gpu *test_hbm80_solo(const struct kernel_profile *p, unsigned sms)
{
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    char err[256];
    struct gpu *g = gpu_new(&cfg, &p, 1, 3, err, sizeof err);
    if (!g)
        fail_msg("gpu_new: %s", err);
    gpu_set_dram_checking(g, true);
    int own[1024];
    for (unsigned i = 0; i < cfg.sms; i++)
        own[i] = i < sms ? 0 : GPU_SM_GATED;
    if (gpu_set_partition(g, own, cfg.sms, GPU_SWITCH_DRAIN, err, sizeof err))
        fail_msg("gpu_set_partition: %s", err);
    return g;
}

char *test_write_temp(const char *text)
{
    char *path = strdup("/tmp/corun-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
    return path;
}

int test_diag_has(const struct diag *d, ...)
{
    for (size_t i = 0; i < d->count; i++) {
        va_list ap;
        va_start(ap, d);
        int all = 1;
        for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
            all &= strstr(d->msgs[i], s) != NULL;
        va_end(ap);
        if (all)
            return 1;
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void test_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void test_accel_load(struct accel_scenario *sc, const char *text)
{
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    int rc = accel_scenario_load_text(sc, "test.cfg", text, datadir, &d);
    if (rc) {
        diag_print(&d, stderr);
        fail_msg("scenario did not load");
    }
    diag_done(&d);
    free(datadir);
}

const char test_accel_copies_cfg[] =
    "mode = \"accelerator\"; name = \"copies\"; gpu = \"k40\"; seed = 1;\n"
    "applications = (\n"
    " { name = \"q\"; role = \"ls\"; qos_target = 2.0; arrival = \"closed\"; queries = 2;\n"
    "   tasks = ( { type = \"h2d\"; bytes = 6000; }, { type = \"d2h\"; bytes = 6000; } ); },\n"
    " { name = \"b\"; role = \"batch\"; instances = 1;\n"
    "   tasks = ( { type = \"h2d\"; bytes = 10000; copy = \"exclusive\"; },\n"
    "             { type = \"d2h\"; bytes = 20000; } ); }\n"
    ");\n";

void test_doc_matches(const char *doc, const char *begin_mark, const char *end_mark,
                      void (*print)(FILE *), const char *regen)
{
    const char *top = getenv("CORUN_DATADIR");
    if (!top) {
        print_message("skipping: CORUN_DATADIR (the source tree) is not set\n");
        skip();
    }
    size_t plen = strlen(top) + strlen(doc) + 2;
    char *path = malloc(plen);
    assert_non_null(path);
    snprintf(path, plen, "%s/%s", top, doc);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("%s: cannot open", path);
    char *text = NULL;
    size_t cap = 0;
    ssize_t got = getdelim(&text, &cap, '\0', f);
    fclose(f);
    assert_true(got > 0);
    char *begin = strstr(text, begin_mark), *end = begin ? strstr(begin, end_mark) : NULL;
    if (!begin || !end)
        fail_msg("%s: no section between \"%s\" and \"%s\"", path, begin_mark, end_mark);
    begin += strlen(begin_mark);
    *end = '\0';
    char *want = NULL;
    size_t want_len = 0;
    FILE *mem = open_memstream(&want, &want_len);
    assert_non_null(mem);
    print(mem);
    fclose(mem);
    if (strcmp(begin, want) != 0)
        fail_msg("%s: the section differs from the tables; regenerate it with %s", path, regen);
    free(want);
    free(text);
    free(path);
}

void test_snapshot(const struct gpu *g, unsigned n, struct test_outcome *out)
{
    memset(out, 0, sizeof(*out));
    for (unsigned k = 0; k < n; k++)
        gpu_kernel_counters(g, k, &out->k[k]);
    gpu_system_counters(g, &out->sys);
    for (unsigned c = 0; c < 2; c++)
        gpu_channel_counters(g, c, &out->ch[c]);
    out->now = gpu_now(g);
    for (unsigned i = 0; i < gpu_sms(g); i++)
        out->tbs = out->tbs * 31 + gpu_sm_tbs_finished(g, i);
}

struct gpu *test_gpu_of(const char *gpu, bool order_free, const char *const *names,
                        struct kernel_profile p[TEST_MAX_KERNELS], unsigned *n)
{
    struct gpu_config cfg;
    test_preset(gpu, &cfg);
    cfg.order_free = order_free;
    return test_gpu_of_config(&cfg, names, p, n);
}

struct gpu *test_gpu_of_config(const struct gpu_config *config, const char *const *names,
                               struct kernel_profile p[TEST_MAX_KERNELS], unsigned *n)
{
    struct gpu_config cfg = *config;
    const struct kernel_profile *ps[TEST_MAX_KERNELS];
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    unsigned k = 0;
    for (; k < TEST_MAX_KERNELS && names[k]; k++) {
        assert_int_equal(preset_kernel_load(datadir, names[k], &p[k], &d), 0);
        ps[k] = &p[k];
    }
    diag_done(&d);
    free(datadir);
    char err[256];
    struct gpu *g = gpu_new(&cfg, ps, k, 7, err, sizeof err);
    if (!g)
        fail_msg("%s", err);
    int own[1024];
    gpu_partition_even(cfg.sms, k, own);
    assert_int_equal(gpu_set_partition(g, own, cfg.sms, GPU_SWITCH_DRAIN, err, sizeof err), 0);
    *n = k;
    return g;
}

void test_repartition_thirds(struct gpu *g, enum gpu_switch_mode how)
{
    int own[1024];
    unsigned sms = gpu_sms(g);
    gpu_get_partition(g, own);
    for (unsigned i = 0; i < sms; i++)
        own[i] = i % 3 == 0 ? 0 : own[i];
    char err[256];
    if (gpu_set_partition(g, own, sms, how, err, sizeof err) != 0)
        fail_msg("%s", err);
}
