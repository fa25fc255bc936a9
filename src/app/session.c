/* session — an experiment stepped epoch by epoch. */
#include "corun/session.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/bench.h"
#include "corun/solo.h"
#include "corun/split_gov.h"
#include "corun/util.h"
#include "session_internal.h"

/* Progress callbacks are made this many times per epoch (the epoch is simulated in slices). */

/* The scenario's split when it gives one (contiguous blocks, the rest idle or gated as
 * unassigned_sms says), else even. */
static void initial_partition(const struct scenario *sc, int *owner)
{
    if (sc->kernels[0].sms == 0) {
        gpu_partition_even(sc->gpu.sms, sc->nkernels, owner);
        return;
    }
    unsigned sm = 0;
    for (unsigned k = 0; k < sc->nkernels; k++)
        for (unsigned i = 0; i < sc->kernels[k].sms && sm < sc->gpu.sms; i++)
            owner[sm++] = (int)k;
    int rest = sc->unassigned_sms == SCENARIO_UNASSIGNED_GATED ? GPU_SM_GATED : GPU_SM_IDLE;
    while (sm < sc->gpu.sms)
        owner[sm++] = rest;
}

/* Prefix a name error with where the name came from: the scenario's line, or a --set (line
 * 0: scenario_set forgets the file's line of a setting it changes). */
static void scenario_place(const struct scenario *sc, const char *setting, int line, char *err,
                           size_t errlen)
{
    char *why =
        line > 0 ? xasprintf("%s:%d: %s: %s", sc->path ? sc->path : "scenario", line, setting, err)
                 : xasprintf("--set: %s: %s", setting, err);
    snprintf(err, errlen, "%s", why);
    free(why);
}

int session_check_choices(const struct scenario *sc, struct diag *d)
{
    char err[512];
    size_t before = d->count;
    if (session_predictor_known(sc->predictor, err, sizeof err) != 0) {
        scenario_place(sc, "predictor", sc->predictor_line, err, sizeof err);
        diag_add(d, "%s", err);
    }
    if (session_allocator_known(sc->allocator, err, sizeof err) != 0) {
        scenario_place(sc, "allocator", sc->allocator_line, err, sizeof err);
        diag_add(d, "%s", err);
    }
    return d->count == before ? 0 : -1;
}

struct session *session_new(const struct scenario *sc, char *err, size_t errlen)
{
    const struct kernel_profile *profiles[GPU_MAX_KERNELS];
    for (unsigned k = 0; k < sc->nkernels; k++)
        profiles[k] = &sc->kernels[k].profile;
    struct gpu *gpu = gpu_new(&sc->gpu, profiles, sc->nkernels, sc->seed, err, errlen);
    if (!gpu)
        return NULL;
    struct session *s = xcalloc(1, sizeof(*s));
    split_gov_recall(&s->split_gov);
    /* The session's own copy: parameters change it as the run goes. */
    scenario_copy(&s->owned_sc, sc);
    s->sc = &s->owned_sc;
    s->owns_sc = true;
    scenario_copy(&s->start_sc, sc);
    s->has_start = true;
    sc = s->sc;
    s->gpu = gpu;
    s->nkernels_start = sc->nkernels;
    s->solo = solo_cache_new();
    for (unsigned k = 0; k < sc->nkernels; k++) {
        s->ref[k] =
            solo_cache_get(s->solo, &sc->gpu, &sc->kernels[k].profile, 0, sc->seed, err, errlen);
        if (!s->ref[k]) {
            session_delete(s);
            return NULL;
        }
    }
    int *owner = xmalloc(sc->gpu.sms * sizeof(*owner));
    initial_partition(sc, owner);
    int rc = gpu_set_partition(gpu, owner, sc->gpu.sms, GPU_SWITCH_ADAPTIVE, err, errlen);
    free(owner);
    if (rc != 0) {
        session_delete(s);
        return NULL;
    }
    bool wants = sc->predictor && *sc->predictor && strcmp(sc->predictor, "none") != 0;
    if (wants && session_set_predictor(s, sc->predictor, err, errlen) != 0) {
        scenario_place(sc, "predictor", sc->predictor_line, err, errlen);
        session_delete(s);
        return NULL;
    }
    const char *alloc = sc->allocator && *sc->allocator ? sc->allocator : "static";
    /* The default needs no event; a chosen allocator is logged like a switch. */
    s->replaying = strcmp(alloc, "static") == 0;
    rc = session_set_allocator(s, alloc, err, errlen);
    s->replaying = false;
    if (rc != 0) {
        scenario_place(sc, "allocator", sc->allocator_line, err, errlen);
        session_delete(s);
        return NULL;
    }
    return s;
}

void session_delete(struct session *s)
{
    if (!s)
        return;
    session_stop_recording(s);
    session_drop_predictor(s);
    session_drop_allocator(s);
    gpu_delete(s->gpu);
    solo_cache_delete(s->solo);
    for (unsigned i = 0; i < s->nepochs; i++)
        for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
            free(s->explain[i][k]);
    free(s->explain);
    free(s->epochs);
    free(s->events);
    free(s->rec_path);
    free(s->rec_scenario_path);
    free(s->rec_created);
    free(s->rec_version);
    if (s->owns_sc)
        scenario_done(&s->owned_sc);
    if (s->has_start)
        scenario_done(&s->start_sc);
    free(s);
}

struct session_epoch *session_new_epoch(struct session *s)
{
    if (s->nepochs == s->cap) {
        s->cap = s->cap ? s->cap * 2 : 16;
        s->epochs = xrealloc(s->epochs, s->cap * sizeof(*s->epochs));
        s->explain = xrealloc(s->explain, s->cap * sizeof(*s->explain));
    }
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        s->explain[s->nepochs][k] = NULL;
    struct session_epoch *e = &s->epochs[s->nepochs];
    memset(e, 0, sizeof(*e));
    e->index = s->nepochs;
    return e;
}

/* Runs `cycles` of the shared run; with may_split, on one thread or on the session's threads
 * (gpu_set_threads: the memory side beside the SMs, and under the order-free rules the SMs
 * shared out too), whichever the governor finds faster on this machine now. */
static void run_chunk(struct session *s, uint64_t cycles, bool may_split)
{
    bool split = may_split && split_gov_choose(&s->split_gov);
    unsigned threads = s->threads, cpus = util_cpus_available();
    if (threads > cpus) /* the helpers spin between blocks: one core each */
        threads = cpus;
    unsigned used = gpu_set_threads(s->gpu, split ? threads : 1);
    if (!may_split || (split && used < 2)) {
        gpu_run(s->gpu, cycles); /* this GPU cannot split (gpu_set_threads), or may not now */
        return;
    }
    double t0 = split_gov_clock(), c0 = bench_cpu_seconds();
    gpu_run(s->gpu, cycles);
    double cpu = bench_cpu_seconds() - c0;
    split_gov_record(&s->split_gov, cycles, split_gov_clock() - t0, cpu);
    split_gov_remember(&s->split_gov);
}

/* Epoch e's partition, taken at its end: what the live SM map shows and owned_sms counts (an
 * allocator deciding within the epoch may have changed it since the epoch began). */
static void record_partition(const struct session *s, struct session_epoch *e)
{
    int owner[SESSION_MAX_SMS];
    gpu_get_partition(s->gpu, owner);
    for (unsigned i = 0; i < e->nsms; i++)
        e->owner[i] = (int8_t)owner[i];
}

int session_step_epoch(struct session *s, session_progress_fn progress, void *ctx)
{
    const struct scenario *sc = s->sc;
    if (!s->gpu) {
        snprintf(s->error, sizeof s->error, "a replay does not simulate: branch it first");
        return -1;
    }
    uint64_t len = sc->epoch_cycles;
    /* The epoch boundary: mix changes first, then the allocator decides from the last epoch
     * (after a mix change it starts afresh, as at the first epoch). */
    int mixed = session_apply_mix(s);
    if (mixed < 0)
        return -1;
    struct gpu_kernel_counters lastc[GPU_MAX_KERNELS];
    unsigned last = mixed ? 0 : s->nepochs;
    /* An interval allocator decided during the last epoch: at the boundary it sees the
     * interval since its last decision, not the whole epoch again (which would count those
     * cycles twice in SMQoS' running average and show it an IPC from before its moves). */
    bool tail = s->have_tail && s->alloc && s->alloc->uses_interval;
    for (unsigned k = 0; last && k < sc->nkernels; k++)
        lastc[k] = tail ? s->tail[k] : s->epochs[last - 1].k[k].c;
    int alloc_rc = session_allocate(s, last ? lastc : NULL, last ? &s->epochs[last - 1] : NULL);
    struct session_epoch *e = session_new_epoch(s);
    e->start_cycle = gpu_now(s->gpu);
    e->cycles = len;
    e->nkernels = sc->nkernels;
    for (unsigned k = 0; k < sc->nkernels; k++)
        e->k[k].in_mix = !s->gone[k];
    e->nsms = sc->gpu.sms;

    /* Progress: the shared run is the first half, the private-mode references the second.
     * Allocators that decide more often than once an epoch are asked at each interval; when
     * none does (it may read the references), spare threads run the references ahead. */
    gpu_reset_counters(s->gpu);
    uint64_t interval = s->alloc && s->alloc->uses_interval ? s->alloc_params.smqos_interval : 0;
    unsigned slot[GPU_MAX_KERNELS], n = session_live(s, slot);
    struct session_ahead *ahead = interval ? NULL : session_refs_ahead(s, slot, n);
    /* With no reference to run ahead, a second thread may take the shared run's memory side
     * (gpu_set_split: the same results), when that is faster (run_chunk). */
    bool may_split = !ahead && s->threads >= 2;
    struct gpu_kernel_counters prev[GPU_MAX_KERNELS], now[GPU_MAX_KERNELS];
    memset(prev, 0, sizeof prev);
    /* The steps end where a block of the GPU ends anyway (gpu_block_cycles), and the last at
     * the epoch's end: how finely progress is told changes no result. */
    unsigned slices = s->progress_slices ? s->progress_slices : SESSION_PROGRESS_SLICES;
    uint64_t done = 0, block = gpu_block_cycles(s->gpu), start = e->start_cycle;
    for (unsigned i = 1; i <= slices; i++) {
        uint64_t at = i == slices ? start + len : (start + len * i / slices) / block * block;
        uint64_t upto = at > start + done ? at - start : done;
        while (done < upto) {
            uint64_t stop = interval ? (done / interval + 1) * interval : upto;
            stop = stop < upto ? stop : upto;
            run_chunk(s, stop - done, may_split);
            done = stop;
            if (interval && done % interval == 0 && done < len && alloc_rc == 0) {
                session_interval_counters(s, prev, now);
                alloc_rc = session_allocate(s, now, last ? &s->epochs[last - 1] : NULL);
            }
        }
        if (progress && progress(ctx, 0.5 * i / slices) != 0) {
            session_refs_ahead_stop(ahead);
            gpu_set_split(s->gpu, false);
            return 1;
        }
    }
    session_refs_ahead_stop(ahead);
    gpu_set_split(s->gpu, false);
    record_partition(s, e);
    s->have_tail = interval > 0 && interval < len; /* else the tail is the whole epoch */
    if (s->have_tail)
        session_interval_counters(s, prev, s->tail);
    if (session_extend_references(s, slot, n, progress, ctx) != 0)
        return 1;

    double np[GPU_MAX_KERNELS];
    for (unsigned k = 0; k < sc->nkernels; k++) {
        struct session_kernel_epoch *ke = &e->k[k];
        gpu_kernel_counters(s->gpu, k, &ke->c);
        ke->np_true = NAN; /* a removed kernel's TBs may still drain: counted, not measured */
        ke->qos_target = session_qos_target(s, k); /* no change lands within an epoch */
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned k = slot[i];
        struct session_kernel_epoch *ke = &e->k[k];
        uint64_t end = gpu_kernel_instructions_total(s->gpu, k);
        ke->np_true = solo_true_np(s->ref[k], s->insts_at_start[k], end, len);
        s->insts_at_start[k] = end;
        np[i] = ke->np_true;
    }
    session_predict_epoch(s, e);
    gpu_system_counters(s->gpu, &e->sys);
    e->nchannels =
        sc->gpu.dram.channels < SESSION_MAX_CHANNELS ? sc->gpu.dram.channels : SESSION_MAX_CHANNELS;
    for (unsigned c = 0; c < e->nchannels; c++) {
        struct gpu_channel_counters cc;
        gpu_channel_counters(s->gpu, c, &cc);
        e->channel_util[c] = (float)cc.utilization;
    }
    metrics_compute(np, n, &e->m);
    s->nepochs++;
    if (progress)
        progress(ctx, 1);
    int rc = session_record_epoch(s, e);
    return alloc_rc != 0 ? -1 : rc;
}

unsigned session_epochs_done(const struct session *s)
{
    return s->nepochs;
}

const struct session_epoch *session_epoch_at(const struct session *s, unsigned i)
{
    return i < s->nepochs ? &s->epochs[i] : NULL;
}

const struct scenario *session_scenario(const struct session *s)
{
    return s->sc;
}

void session_partition(const struct session *s, int *owner_out)
{
    if (s->gpu) {
        gpu_get_partition(s->gpu, owner_out);
        return;
    }
    /* A replay: the partition of the last epoch shown. */
    const struct session_epoch *e = s->nepochs ? &s->epochs[s->nepochs - 1] : NULL;
    for (unsigned i = 0; i < s->sc->gpu.sms; i++)
        owner_out[i] = e && i < e->nsms ? e->owner[i] : GPU_SM_IDLE;
}

const char *session_error(const struct session *s)
{
    return s->error;
}
