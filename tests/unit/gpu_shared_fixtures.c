/* gpu_shared_fixtures — what the shared-dispatch tests (test_gpu_shared*.c) share: a k40 GPU
 * in shared-dispatch mode, compute kernels of a given shape, launches and what the SMs run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "gpu_shared_fixtures.h"
#include "testutil.h"

struct gpu *make_gpu(unsigned streams, uint64_t seed)
{
    struct gpu_config cfg;
    test_preset("k40", &cfg);
    assert_int_equal(cfg.sms, SMS);
    char err[256];
    struct gpu *g = gpu_new_shared(&cfg, streams, seed, err, sizeof err);
    if (!g)
        fail_msg("gpu_new_shared: %s", err);
    gpu_set_dram_checking(g, true);
    return g;
}

/* A compute kernel of tbs TBs of `warps` warps, at most per_sm of them on an SM at once. */
struct kernel_profile wide_kernel(const char *name, unsigned tbs, unsigned per_sm, unsigned insts,
                                  unsigned warps)
{
    struct kernel_profile p = *kernel_builtin_find("compute");
    p.name = (char *)name;
    p.tbs = tbs;
    p.tbs_per_sm = per_sm;
    p.insts_per_warp = insts;
    p.warps_per_tb = warps;
    return p;
}

/* The same with TBs of 4 warps. */
struct kernel_profile short_kernel(const char *name, unsigned tbs, unsigned per_sm, unsigned insts)
{
    return wide_kernel(name, tbs, per_sm, insts, 4);
}

void launch(struct gpu *g, unsigned s, const struct kernel_profile *p)
{
    char err[256];
    if (gpu_launch(g, s, p, err, sizeof err))
        fail_msg("gpu_launch: %s", err);
}

/* SMs running stream s's TBs now; *idle (when not NULL) counts the idle ones. */
unsigned sms_of(const struct gpu *g, int s, unsigned *idle)
{
    unsigned n = 0, free_sms = 0;
    for (unsigned i = 0; i < SMS; i++) {
        int r = gpu_sm_running(g, i);
        n += r == s;
        free_sms += r == GPU_SM_IDLE;
        if (r >= 0)
            assert_true(gpu_sm_resident_tbs(g, i) > 0); /* an SM with no TB is idle */
        else
            assert_int_equal(gpu_sm_resident_tbs(g, i), 0);
    }
    if (idle)
        *idle = free_sms;
    return n;
}

uint64_t finished(const struct gpu *g, unsigned s)
{
    struct gpu_kernel_counters c;
    gpu_kernel_counters(g, s, &c);
    return c.tbs_finished;
}

uint64_t started(const struct gpu *g, unsigned s)
{
    uint64_t l, st, d;
    gpu_stream_times(g, s, &l, &st, &d);
    return st;
}

/* SMs holding TBs of both s and u. */
unsigned sms_shared_by(const struct gpu *g, unsigned s, unsigned u)
{
    unsigned n = 0;
    for (unsigned i = 0; i < SMS; i++)
        n += gpu_sm_kernel_tbs(g, i, s) > 0 && gpu_sm_kernel_tbs(g, i, u) > 0;
    return n;
}
