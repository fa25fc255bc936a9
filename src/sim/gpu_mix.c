/* gpu_mix — what changes the mix on a partitioned GPU: the SM partition, kernels joining and
 * retiring, and the priority epochs ASM samples in (each kernel's turn in a round robin). */
#include "gpu_internal.h"

#include "corun/kstate.h"
#include "corun/sm.h"

#include <assert.h>
#include <string.h>

/* ---- priority epochs ---- */

/* Ends the prioritized kernel's turn (if any) at g->now: its cycles and LLC traffic so far
 * go to its totals for the counter epoch. */
void gpu_prio_close(struct gpu *g)
{
    struct gpu_prio *p = &g->prio;
    if (p->kernel < 0)
        return;
    const struct kstate_counters *c = &g->kernels[p->kernel]->c;
    p->acc_cycles[p->kernel] += g->now - p->since;
    p->acc_l2[p->kernel] += c->l2_accesses - p->acc_at;
    p->acc_l2_misses[p->kernel] += c->l2_misses - p->miss_at;
    p->kernel = -1;
}

/* Starts kernel k's turn at g->now (k < 0: nobody's). */
void gpu_prio_open(struct gpu *g, int k)
{
    struct gpu_prio *p = &g->prio;
    p->kernel = k;
    p->since = g->now;
    if (k >= 0) {
        p->rr = (unsigned)k + 1;
        p->acc_at = g->kernels[k]->c.l2_accesses;
        p->miss_at = g->kernels[k]->c.l2_misses;
        p->next = g->now + p->cycles;
    }
    dram_set_priority_app(g->env.dram, k >= 0 ? (unsigned)k : DRAM_APP_NONE);
}

/* Starts the next turn of the round robin at g->now, skipping retired kernels. With every
 * kernel retired nobody has it, and the round robin looks again a turn later (a kernel may
 * have joined by then). */
void gpu_prio_next_turn(struct gpu *g)
{
    struct gpu_prio *p = &g->prio;
    for (unsigned i = 0; i < g->nkernels; i++) {
        unsigned k = (p->rr + i) % g->nkernels;
        if (!g->retired[k]) {
            gpu_prio_open(g, (int)k);
            return;
        }
    }
    gpu_prio_open(g, -1);
    p->next = g->now + p->cycles;
}

void gpu_set_priority_epochs(struct gpu *g, uint64_t core_cycles)
{
    struct gpu_prio *p = &g->prio;
    if (g->env.shared)
        return; /* no kernel stays long enough for turns to mean anything */
    gpu_prio_close(g);
    p->cycles = core_cycles;
    if (core_cycles)
        gpu_prio_next_turn(g);
    else
        gpu_prio_open(g, -1);
}

int gpu_priority_kernel(const struct gpu *g)
{
    return g->prio.kernel;
}

/* ---- partition ---- */

void gpu_partition_even(unsigned sms, unsigned nkernels, int *owner_out)
{
    unsigned i = 0;
    for (unsigned k = 0; k < nkernels; k++) {
        unsigned n = sms / nkernels + (k < sms % nkernels);
        for (unsigned j = 0; j < n; j++)
            owner_out[i++] = (int)k;
    }
}

int gpu_set_partition(struct gpu *g, const int *owner_per_sm, size_t n, enum gpu_switch_mode mode,
                      char *err, size_t errlen)
{
    if (g->env.shared)
        return gpu_fail(err, errlen, "a shared-dispatch GPU has no partition");
    if (n != g->cfg.sms)
        return gpu_fail(err, errlen, "partition has %zu entries: the GPU has %u SMs", n,
                        g->cfg.sms);
    for (size_t i = 0; i < n; i++) {
        int o = owner_per_sm[i];
        if (o != GPU_SM_IDLE && o != GPU_SM_GATED && (o < 0 || o >= (int)g->nkernels))
            return gpu_fail(err, errlen,
                            "SM %zu is given to kernel %d: expected 0..%u, idle (%d) or gated (%d)",
                            i, o, g->nkernels - 1, GPU_SM_IDLE, GPU_SM_GATED);
        if (o >= 0 && g->retired[o])
            return gpu_fail(err, errlen,
                            "SM %zu is given to kernel %d (%s), which was retired from the mix: "
                            "give it to a kernel still in the mix, idle (%d) or gated (%d)",
                            i, o, g->kernels[o]->prof.name, GPU_SM_IDLE, GPU_SM_GATED);
    }
    if (mode != GPU_SWITCH_DRAIN && mode != GPU_SWITCH_CONTEXT && mode != GPU_SWITCH_ADAPTIVE)
        return gpu_fail(err, errlen, "unknown switch mode %d", (int)mode);
    for (size_t i = 0; i < n; i++) {
        struct sm *sm = g->sms[i];
        enum sm_switch how = mode == GPU_SWITCH_CONTEXT ? SM_SWITCH_SAVE : SM_SWITCH_DRAIN;
        int run = sm_attributed(sm);
        if (mode == GPU_SWITCH_ADAPTIVE && run >= 0) {
            /* HSM: drain when the SM finished more TBs in the epoch than it holds at once
             * (its TBs are short, draining is quick); otherwise context-switch. The epoch is
             * the current one, or the previous one when the caller reset counters first. */
            uint64_t done =
                g->now > g->epoch_start ? sm_tbs_finished(sm) : sm_tbs_finished_prev(sm);
            how = done > g->kernels[run]->occupancy ? SM_SWITCH_DRAIN : SM_SWITCH_SAVE;
        }
        g->partition[i] = owner_per_sm[i];
        sm_set_owner(sm, owner_per_sm[i], how, g->now);
    }
    for (unsigned k = 0; k < g->nkernels; k++)
        sm_dispatch(&g->env, g->kernels[k], g->now);
    return 0;
}

void gpu_get_partition(const struct gpu *g, int *owner_out)
{
    memcpy(owner_out, g->partition, g->cfg.sms * sizeof(int));
}

/* ---- mix changes ---- */

int gpu_add_kernel(struct gpu *g, const struct kernel_profile *profile, char *err, size_t errlen)
{
    const char *name = profile->name ? profile->name : "(unnamed)";
    if (g->env.shared)
        return gpu_fail(err, errlen,
                        "cannot add kernel %s: a shared-dispatch GPU launches grids on "
                        "its streams (gpu_launch)",
                        name);
    if (g->nkernels >= GPU_MAX_KERNELS)
        return gpu_fail(err, errlen,
                        "cannot add kernel %s: the GPU has run %u kernels, the limit "
                        "(GPU_MAX_KERNELS = %d, retired ones included)",
                        name, g->nkernels, GPU_MAX_KERNELS);
    if (gpu_profile_check(&g->cfg, profile, err, errlen))
        return -1;
    unsigned k = g->nkernels;
    g->kernels[k] = gpu_new_kstate(g, profile, k);
    /* SMs hold one reuse history, sized for the largest window; a longer one grows them all
     * now, keeping what they hold, so the kernels they run see the same lines. */
    unsigned hist = g->kernels[k]->hist_lines;
    if (hist > g->hist_lines) {
        for (unsigned i = 0; i < g->cfg.sms; i++)
            sm_grow_hist(g->sms[i], hist);
        g->hist_lines = hist;
    }
    unsigned app = dram_add_app(g->env.dram);
    assert(app == k);
    (void)app;
    g->nkernels = k + 1;
    g->env.nkernels = k + 1;
    return (int)k;
}

int gpu_retire_kernel(struct gpu *g, unsigned k, char *err, size_t errlen)
{
    if (g->env.shared)
        return gpu_fail(err, errlen, "a shared-dispatch GPU retires no kernel");
    if (k >= g->nkernels)
        return gpu_fail(err, errlen, "cannot retire kernel %u: the GPU has kernels 0..%u", k,
                        g->nkernels - 1);
    const char *name = g->kernels[k]->prof.name;
    if (g->retired[k])
        return gpu_fail(err, errlen, "kernel %u (%s) was retired already", k, name);
    unsigned owned = 0;
    for (unsigned i = 0; i < g->cfg.sms; i++)
        owned += g->partition[i] == (int)k;
    if (owned)
        return gpu_fail(err, errlen,
                        "cannot retire kernel %u (%s): it owns %u SMs; give them to other kernels "
                        "(or idle/gate them) with gpu_set_partition first",
                        k, name, owned);
    g->retired[k] = true;
    /* Its turn of priority ends here; the next turn starts when this one would have ended. */
    if (g->prio.kernel == (int)k) {
        gpu_prio_close(g);
        gpu_prio_open(g, -1);
    }
    return 0;
}

bool gpu_kernel_retired(const struct gpu *g, unsigned k)
{
    return k < g->nkernels && g->retired[k];
}
