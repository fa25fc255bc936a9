/* gpu_counters — what the simulated GPU reports: per kernel, for the system, per DRAM channel
 * and per SM. */
#include "gpu_internal.h"

#include "corun/llc.h"

#include <string.h>

static double seconds(const struct gpu *g, uint64_t core_cycles)
{
    return (double)core_cycles / (g->cfg.core_clock_mhz * 1e6);
}

void gpu_kernel_counters(const struct gpu *g, unsigned k, struct gpu_kernel_counters *out)
{
    memset(out, 0, sizeof(*out));
    if (k >= g->nkernels || !g->kernels[k])
        return;
    const struct kstate *ks = g->kernels[k];
    const struct kstate_counters *c = &ks->c;
    out->cycles = g->now - g->epoch_start;
    out->instructions = c->insts;
    uint64_t sm_cycles = c->sm_cycles;
    for (unsigned i = 0; i < g->cfg.sms; i++) {
        const struct sm *sm = g->sms[i];
        if (sm_attributed(sm) == (int)k) {
            sm_cycles += g->now - sm_attributed_since(sm);
            out->active_sms++;
        }
        if (g->partition[i] == (int)k)
            out->owned_sms++;
    }
    out->sms = out->cycles ? (double)sm_cycles / (double)out->cycles : 0;
    out->ipc = out->cycles ? (double)c->insts / (double)out->cycles : 0;
    out->l1d_accesses = c->l1d_accesses;
    out->l1d_misses = c->l1d_misses;
    out->l1c_accesses = c->l1c_accesses;
    out->l1c_misses = c->l1c_misses;
    out->l2_accesses = c->l2_accesses;
    out->l2_misses = c->l2_misses;

    struct dram_app_counters d;
    dram_app_counters(g->env.dram, k, &d);
    out->dram_reads = d.reads;
    out->dram_writes = d.writes;
    out->dram_requests = d.reads + d.writes;
    out->row_hits = d.row_hits;
    out->row_accesses = d.row_hits + d.row_misses + d.row_conflicts;
    out->activates = d.activates;
    out->dram_bytes = d.bytes;
    out->rbh = out->row_accesses ? (double)d.row_hits / (double)out->row_accesses : 0;
    double secs = seconds(g, out->cycles);
    out->bandwidth_gbs = secs > 0 ? (double)d.bytes / secs / 1e9 : 0;
    double peak = gpu_config_peak_gbs(&g->cfg);
    out->bandwidth_util = peak > 0 ? out->bandwidth_gbs / peak : 0;
    out->dram_queue_cycles = d.queue_cycles;
    out->dram_interference_cycles = d.interference_cycles;
    struct llc_atd_counters atd;
    llc_atd_counters(g->env.llc, k, &atd);
    out->atd_accesses = atd.accesses;
    out->atd_misses = atd.misses;
    out->atd_shared_misses = atd.shared_misses;

    const struct gpu_prio *p = &g->prio;
    out->prio_cycles = p->acc_cycles[k];
    out->prio_l2_accesses = p->acc_l2[k];
    out->prio_l2_misses = p->acc_l2_misses[k];
    if (p->kernel == (int)k) {
        out->prio_cycles += g->now - p->since;
        out->prio_l2_accesses += c->l2_accesses - p->acc_at;
        out->prio_l2_misses += c->l2_misses - p->miss_at;
    }

    out->tbs_finished = c->tbs_finished;
    out->sfu_instructions = c->sfu_insts;
    out->fp64_instructions = c->fp64_insts;
    out->shared_instructions = c->shared_insts;
    out->barriers = c->barriers;
    out->occupancy_tbs = g->kernels[k]->occupancy;
    out->phase = g->kernels[k]->phase;
    out->tbs_saved = c->tbs_saved;
    out->tbs_restored = c->tbs_restored;
    out->launches = ks->launches;
    out->instructions_total = ks->insts_total;
    out->first_launch_cycle = ks->first_launch_cycle;
    out->first_launch_instructions = ks->first_launch_insts;

    out->energy_static_j = g->cfg.sm_static_watts * seconds(g, sm_cycles);
    out->energy_dynamic_j = (double)c->insts * g->cfg.inst_energy_nj * 1e-9;
    out->energy_dram_j = ((double)d.activates * g->cfg.dram_activate_nj +
                          (double)(d.reads + d.writes) * g->cfg.dram_burst_nj) *
                         1e-9;
    out->energy_j = out->energy_static_j + out->energy_dynamic_j + out->energy_dram_j;
}

void gpu_system_counters(const struct gpu *g, struct gpu_system_counters *out)
{
    memset(out, 0, sizeof(*out));
    out->cycles = g->now - g->epoch_start;
    for (unsigned i = 0; i < g->cfg.sms; i++) {
        const struct sm *sm = g->sms[i];
        uint64_t open = g->now - sm_attributed_since(sm);
        out->idle_sm_cycles += sm_idle_cycles(sm) + (sm_attributed(sm) == GPU_SM_IDLE ? open : 0);
        out->gated_sm_cycles +=
            sm_gated_cycles(sm) + (sm_attributed(sm) == GPU_SM_GATED ? open : 0);
    }
    out->energy_j = g->cfg.sm_static_watts * seconds(g, out->idle_sm_cycles);
    for (unsigned k = 0; k < g->nkernels; k++) {
        struct gpu_kernel_counters kc;
        gpu_kernel_counters(g, k, &kc);
        out->energy_j += kc.energy_j;
    }
}

void gpu_channel_counters(const struct gpu *g, unsigned channel, struct gpu_channel_counters *out)
{
    memset(out, 0, sizeof(*out));
    if (channel >= g->cfg.dram.channels)
        return;
    dram_channel_counters(g->env.dram, channel, &out->c);
    out->mem_cycles = dram_now(g->env.dram) - g->epoch_dram_start;
    out->utilization =
        out->mem_cycles ? (double)out->c.data_busy_cycles / (double)out->mem_cycles : 0;
}

uint64_t gpu_sm_tbs_finished(const struct gpu *g, unsigned sm)
{
    return sm < g->cfg.sms ? sm_tbs_finished(g->sms[sm]) : 0;
}

int gpu_sm_running(const struct gpu *g, unsigned sm)
{
    return sm < g->cfg.sms ? sm_attributed(g->sms[sm]) : GPU_SM_IDLE;
}

uint64_t gpu_kernel_instructions_total(const struct gpu *g, unsigned k)
{
    return k < g->nkernels && g->kernels[k] ? g->kernels[k]->insts_total : 0;
}

unsigned gpu_sm_resident_tbs(const struct gpu *g, unsigned sm)
{
    return sm < g->cfg.sms ? sm_resident_tbs(g->sms[sm]) : 0;
}

unsigned gpu_sm_kernel_tbs(const struct gpu *g, unsigned sm, unsigned k)
{
    return sm < g->cfg.sms ? sm_kernel_tbs(g->sms[sm], k) : 0;
}
