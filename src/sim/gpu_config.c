/* gpu_config — a preset's and a kernel profile's consistency checks and the occupancy a
 * profile reaches on a preset's SMs. */
#include "gpu_internal.h"

#include "corun/util.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

double gpu_config_peak_gbs(const struct gpu_config *cfg)
{
    return dram_config_peak_gbs(&cfg->dram);
}

int gpu_fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int check_cache(const char *name, const struct cache_config *c, bool line128, char *err,
                       size_t errlen)
{
    if (c->line_bytes == 0 || (line128 && c->line_bytes != 128))
        return gpu_fail(err, errlen, "%s.line_bytes is %u: the core models 128-byte lines", name,
                        c->line_bytes);
    if (c->ways == 0 || c->size_bytes == 0 || c->size_bytes % (c->ways * c->line_bytes))
        return gpu_fail(err, errlen,
                        "%s: size_bytes (%u) must be a positive multiple of ways (%u) x line_bytes",
                        name, c->size_bytes, c->ways);
    return 0;
}

int gpu_config_check(const struct gpu_config *cfg, char *err, size_t errlen)
{
    if (cfg->sms < 1 || cfg->sms > 1024)
        return gpu_fail(err, errlen, "sms is %u: expected 1..1024", cfg->sms);
    if (!(cfg->core_clock_mhz > 0) || !(cfg->dram.clock_mhz > 0))
        return gpu_fail(err, errlen, "core_clock_mhz and dram.clock_mhz must be positive");
    if (cfg->warps_per_sm < 1 || cfg->warps_per_sm > SM_MAX_WARPS)
        return gpu_fail(err, errlen, "warps_per_sm is %u: expected 1..%d", cfg->warps_per_sm,
                        SM_MAX_WARPS);
    if (cfg->tbs_per_sm < 1 || cfg->tbs_per_sm > SM_MAX_TBS)
        return gpu_fail(err, errlen, "tbs_per_sm is %u: expected 1..%d", cfg->tbs_per_sm,
                        SM_MAX_TBS);
    if (cfg->schedulers_per_sm < 1 || cfg->schedulers_per_sm > SM_MAX_SCHEDULERS)
        return gpu_fail(err, errlen, "schedulers_per_sm is %u: expected 1..%d",
                        cfg->schedulers_per_sm, SM_MAX_SCHEDULERS);
    if (cfg->alu_latency_cycles < 1 || cfg->alu_latency_cycles > SM_MAX_DEP_LATENCY)
        return gpu_fail(err, errlen, "alu_latency_cycles is %u: expected 1..%d",
                        cfg->alu_latency_cycles, SM_MAX_DEP_LATENCY);
    const struct {
        const char *name;
        const struct unit_config *u;
    } units[] = {{"sfu", &cfg->sfu}, {"fp64", &cfg->fp64}, {"shmem", &cfg->shmem}};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(units); i++) {
        const struct unit_config *u = units[i].u;
        if (u->lanes < 1 || u->lanes > 1024)
            return gpu_fail(err, errlen, "%s.lanes is %u: expected 1..1024", units[i].name,
                            u->lanes);
        if (u->latency_cycles < 1 || u->latency_cycles > SM_UNIT_MAX_LATENCY)
            return gpu_fail(err, errlen, "%s.latency_cycles is %u: expected 1..%d", units[i].name,
                            u->latency_cycles, SM_UNIT_MAX_LATENCY);
    }
    /* The constant cache's line size only sets its capacity in lines: constant loads move
     * 128-byte lines like every other request. */
    if (check_cache("l1d", &cfg->l1d, true, err, errlen) ||
        check_cache("l1c", &cfg->l1c, false, err, errlen))
        return -1;
    if (cfg->llc_slices < 1 || cfg->llc.size_bytes % cfg->llc_slices)
        return gpu_fail(err, errlen, "llc_slices is %u: expected >= 1 and dividing llc.size_bytes",
                        cfg->llc_slices);
    struct cache_config slice = cfg->llc;
    slice.size_bytes /= cfg->llc_slices;
    if (check_cache("llc (one slice)", &slice, true, err, errlen))
        return -1;
    if (cfg->llc.mshrs < 1)
        return gpu_fail(err, errlen, "llc.mshrs is 0: expected at least 1 per slice");
    if (cfg->noc_bytes_per_cycle < 1)
        return gpu_fail(err, errlen, "noc_bytes_per_cycle is 0: expected at least 1");
    if (cfg->context_switch_bytes_per_cycle < 1)
        return gpu_fail(err, errlen, "context_switch_bytes_per_cycle is 0: expected at least 1");
    /* Every cache line the model keeps costs host memory: bound the whole GPU's. */
    uint64_t lines = (uint64_t)cfg->sms * (cfg->l1d.size_bytes / cfg->l1d.line_bytes +
                                           cfg->l1c.size_bytes / cfg->l1c.line_bytes) +
                     cfg->llc.size_bytes / cfg->llc.line_bytes;
    if (lines > GPU_MAX_CACHE_LINES)
        return gpu_fail(err, errlen,
                        "the caches hold %llu lines over %u SMs: expected at most %llu (the model "
                        "keeps every line in memory; make l1d, l1c or llc smaller)",
                        (unsigned long long)lines, cfg->sms,
                        (unsigned long long)GPU_MAX_CACHE_LINES);
    const struct dram_config *d = &cfg->dram;
    if (dram_config_check(d, err, errlen))
        return -1;
    if (d->request_bytes != cfg->llc.line_bytes)
        return gpu_fail(err, errlen, "dram.request_bytes is %u: must equal the LLC line (%u B)",
                        d->request_bytes, cfg->llc.line_bytes);
    return 0;
}

struct kstate_sm_limits gpu_sm_limits(const struct gpu_config *cfg)
{
    unsigned tbs = cfg->tbs_per_sm < SM_MAX_TBS ? cfg->tbs_per_sm : SM_MAX_TBS;
    unsigned warps = cfg->warps_per_sm < SM_MAX_WARPS ? cfg->warps_per_sm : SM_MAX_WARPS;
    return (struct kstate_sm_limits){tbs, warps, cfg->regs_per_sm, cfg->smem_per_sm_bytes};
}

unsigned gpu_occupancy(const struct gpu_config *cfg, const struct kernel_profile *p,
                       const char **limit)
{
    struct kstate_sm_limits lim = gpu_sm_limits(cfg);
    return kstate_occupancy(p, &lim, limit);
}

int gpu_profile_check(const struct gpu_config *cfg, const struct kernel_profile *p, char *err,
                      size_t errlen)
{
    const char *n = p->name ? p->name : "(unnamed)";
    if (p->nphases > KERNEL_MAX_PHASES)
        return gpu_fail(err, errlen, "kernel %s: %u phases: expected at most %d", n, p->nphases,
                        KERNEL_MAX_PHASES);
    for (unsigned i = 0; i < p->nphases; i++) {
        struct kernel_profile q;
        kernel_phase_profile(p, i, &q);
        q.nphases = 0;
        char sub[512];
        if (gpu_profile_check(cfg, &q, sub, sizeof sub) != 0)
            return gpu_fail(err, errlen, "%s (in phase %u)", sub, i + 1);
    }
    if (p->tbs < 1 || p->warps_per_tb < 1 || p->insts_per_warp < 1)
        return gpu_fail(err, errlen,
                        "kernel %s: tbs, warps_per_tb and insts_per_warp must be positive", n);
    if (p->warps_per_tb > cfg->warps_per_sm)
        return gpu_fail(err, errlen, "kernel %s: warps_per_tb is %u but an SM holds %u warps", n,
                        p->warps_per_tb, cfg->warps_per_sm);
    if (p->tbs_per_sm > SM_MAX_TBS)
        return gpu_fail(err, errlen, "kernel %s: tbs_per_sm is %u: expected 0..%d", n,
                        p->tbs_per_sm, SM_MAX_TBS);
    struct kstate_sm_limits lim = gpu_sm_limits(cfg);
    const char *limit;
    if (kstate_occupancy(p, &lim, &limit) == 0)
        return gpu_fail(err, errlen,
                        "kernel %s: no thread block fits on an SM (%s: %u registers per thread, "
                        "%u B of shared memory per block; an SM has %u registers and %u B)",
                        n, limit, p->regs_per_thread, p->smem_per_tb_bytes, cfg->regs_per_sm,
                        cfg->smem_per_sm_bytes);
    const double fr[] = {p->mem_fraction, p->const_fraction, p->sfu_fraction, p->fp64_fraction,
                         p->shared_fraction};
    double sum = 0;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(fr); i++) {
        if (!(fr[i] >= 0 && fr[i] <= 1))
            return gpu_fail(err, errlen, "kernel %s: instruction fractions must lie in [0, 1]", n);
        sum += fr[i];
    }
    if (!(sum <= 1))
        return gpu_fail(err, errlen,
                        "kernel %s: mem_fraction + const_fraction + sfu_fraction + fp64_fraction + "
                        "shared_fraction is %g: expected at most 1",
                        n, sum);
    if (p->pattern != KERNEL_PATTERN_LEGACY && p->footprint_bytes >= KSTATE_CONST_OFFSET / 2)
        return gpu_fail(err, errlen,
                        "kernel %s: footprint_bytes must be below 2^38 with a per-TB pattern "
                        "(the output array sits above it)",
                        n);
    if ((p->pattern == KERNEL_PATTERN_STRIDED || p->pattern == KERNEL_PATTERN_STENCIL) &&
        p->stride_lines == 0)
        return gpu_fail(err, errlen, "kernel %s: the %s pattern needs stride_lines (at least 1)", n,
                        p->pattern == KERNEL_PATTERN_STRIDED ? "strided" : "stencil");
    if (!(p->hot_fraction >= 0 && p->hot_fraction <= 1))
        return gpu_fail(err, errlen, "kernel %s: hot_fraction must lie in [0, 1]", n);
    if (p->shared_conflict_ways > 32)
        return gpu_fail(err, errlen, "kernel %s: shared_conflict_ways is %u: expected 0..32", n,
                        p->shared_conflict_ways);
    if (!(p->store_fraction >= 0 && p->store_fraction <= 1) ||
        !(p->reuse_fraction >= 0 && p->reuse_fraction <= 1))
        return gpu_fail(err, errlen,
                        "kernel %s: store_fraction and reuse_fraction must lie in "
                        "[0, 1]",
                        n);
    if (!(p->lines_per_access >= 1 && p->lines_per_access <= SM_MAX_LINES))
        return gpu_fail(err, errlen, "kernel %s: lines_per_access is %g: expected 1..%d", n,
                        p->lines_per_access, SM_MAX_LINES);
    if (p->mlp < 1 || p->mlp > SM_MAX_MLP)
        return gpu_fail(err, errlen, "kernel %s: mlp is %u: expected 1..%d", n, p->mlp, SM_MAX_MLP);
    if (p->dep_latency > SM_MAX_DEP_LATENCY)
        return gpu_fail(err, errlen, "kernel %s: dep_latency is %u: expected 0..%d", n,
                        p->dep_latency, SM_MAX_DEP_LATENCY);
    if (p->footprint_bytes < cfg->llc.line_bytes || p->footprint_bytes >= KSTATE_CONST_OFFSET)
        return gpu_fail(err, errlen, "kernel %s: footprint_bytes must lie in [%u, 2^39)", n,
                        cfg->llc.line_bytes);
    if (p->seq_run_lines < 1)
        return gpu_fail(err, errlen, "kernel %s: seq_run_lines must be at least 1", n);
    return 0;
}
