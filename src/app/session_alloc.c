/* session_alloc — the session's active allocator: choosing it, asking it at each decision
 * point (every epoch boundary, and every smqos_interval cycles for allocators that decide
 * more often) and applying its partition with the core's adaptive drain / context switch. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/conftable.h"
#include "corun/solo.h"
#include "corun/util.h"
#include "session_internal.h"

/* "unknown allocator" with the known names and a did-you-mean. */
static void unknown_allocator(const char *name, char *err, size_t errlen)
{
    const char *names[32];
    size_t n = alloc_registry_names(names, CORUN_ARRAY_LEN(names));
    if (n > CORUN_ARRAY_LEN(names))
        n = CORUN_ARRAY_LEN(names);
    char *known = conf_known_names(name, names, n);
    snprintf(err, errlen, "unknown allocator \"%s\"%s", name, known);
    free(known);
}

void session_alloc_params(struct session *s)
{
    const struct scenario *sc = s->sc;
    s->alloc_params = (struct alloc_params){
        .fairness_threshold = sc->fairness_threshold,
        .qos_upper = sc->qos_upper,
        .hp_share = sc->hp_share,
        .smqos_policy = sc->smqos_policy,
        .smqos_interval = sc->smqos_interval,
        .smqos_threshold = sc->smqos_threshold,
        .smqos_take_last = sc->smqos_batch_min == 0,
        .static_smqos_down = sc->static_smqos_rounding == SCENARIO_ROUND_DOWN,
    };
}

void session_drop_allocator(struct session *s)
{
    if (s->alloc && s->alloc->destroy)
        s->alloc->destroy(s->alloc_state);
    s->alloc = NULL;
    s->alloc_state = NULL;
}

/* A state of ops for the kernels in the mix (compact: kernel i is the i-th in the mix);
 * *state is NULL for an allocator without one. 0, or -1 with a message in err. */
static int allocator_create(struct session *s, const struct allocator_ops *ops, void **state,
                            char *err, size_t errlen)
{
    const char *names[GPU_MAX_KERNELS];
    unsigned slot[GPU_MAX_KERNELS], n = session_live(s, slot);
    for (unsigned i = 0; i < n; i++)
        names[i] = s->sc->kernels[slot[i]].name;
    session_alloc_params(s);
    struct alloc_setup setup = {s->sc->gpu.sms, n, names, &s->alloc_params};
    *state = ops->create ? ops->create(&setup, err, errlen) : NULL;
    return ops->create && !*state ? -1 : 0;
}

int session_restart_allocator(struct session *s)
{
    if (!s->alloc)
        return 0;
    void *state;
    char err[256];
    if (allocator_create(s, s->alloc, &state, err, sizeof err) != 0) {
        snprintf(s->error, sizeof s->error, "%s: %s", s->alloc->name, err);
        return -1;
    }
    if (s->alloc->destroy)
        s->alloc->destroy(s->alloc_state);
    s->alloc_state = state;
    return 0;
}

int session_allocator_known(const char *name, char *err, size_t errlen)
{
    if (!name || !*name || alloc_registry_find(name))
        return 0;
    unknown_allocator(name, err, errlen);
    return -1;
}

int session_set_allocator(struct session *s, const char *name, char *err, size_t errlen)
{
    if (!s->gpu) {
        snprintf(err, errlen, "a replay does not allocate: branch it first");
        return -1;
    }
    const struct allocator_ops *ops = alloc_registry_find(name ? name : "");
    if (!ops) {
        unknown_allocator(name ? name : "", err, errlen);
        return -1;
    }
    void *state;
    if (allocator_create(s, ops, &state, err, errlen) != 0)
        return -1;
    const char *sched = ops->dram_scheduler ? ops->dram_scheduler : "frfcfs";
    if (gpu_set_dram_scheduler(s->gpu, sched) != 0) {
        snprintf(err, errlen, "allocator %s needs the DRAM scheduler \"%s\", which is unknown",
                 ops->name, sched);
        if (ops->destroy)
            ops->destroy(state);
        return -1;
    }
    /* Before the first (the scenario's own, from session_new) the partition is the static
     * one the run starts on; session_allocator_name would name the scenario's already. */
    const char *old = s->alloc ? s->alloc->name : "static";
    char text[256];
    snprintf(text, sizeof text, "%s -> %s%s%s", old, ops->name,
             ops->dram_scheduler ? " (DRAM scheduler " : "",
             ops->dram_scheduler ? ops->dram_scheduler : "");
    if (ops->dram_scheduler)
        strcat(text, ")");
    if (s->alloc == ops)
        strcat(text, " (restarted)"); /* the same allocator, its state begun again */
    session_drop_allocator(s);
    s->alloc = ops;
    s->alloc_state = state;
    s->alloc_idle_note[0] = '\0'; /* a new allocator: say again if it cannot act */
    if (!s->replaying && session_note(s, "allocator", text) != 0) {
        snprintf(err, errlen, "%s", s->error);
        return -1;
    }
    return 0;
}

const char *session_allocator_name(const struct session *s)
{
    if (s->alloc)
        return s->alloc->name;
    if (s->replay_allocator[0])
        return s->replay_allocator;
    return s->sc->allocator ? s->sc->allocator : "static";
}

double session_qos_target_in(const struct scenario *sc, const char *allocator, unsigned k)
{
    if (k >= sc->nkernels || sc->kernels[k].priority != SCENARIO_HIGH)
        return 0;
    if (strcmp(allocator, "smqos") == 0 || strcmp(allocator, "static-smqos") == 0)
        return sc->smqos_policy;
    return sc->kernels[k].qos_target;
}

double session_qos_target(const struct session *s, unsigned k)
{
    return session_qos_target_in(s->sc, session_allocator_name(s), k);
}

void session_replay_allocator(struct session *s)
{
    for (unsigned i = s->nevents; i-- > 0;) {
        const char *arrow = strstr(s->events[i].text, "-> ");
        if (strcmp(s->events[i].kind, "allocator") == 0 && arrow) {
            snprintf(s->replay_allocator, sizeof s->replay_allocator, "%.*s",
                     (int)strcspn(arrow + 3, " "), arrow + 3);
            return;
        }
    }
}

const char *session_last_decision(const struct session *s)
{
    return s->last_decision;
}

/* The predictor's what-if for the allocator. */
static double what_if(const void *ctx, unsigned k, double sms)
{
    const struct session *s = ctx;
    if (!s->pred || !s->pred->np_at)
        return NAN;
    return s->pred->np_at(s->pred_state, k, sms);
}

/* The longest window of an isolated-IPC profile: SMQoS runs each mix for 2 M cycles (§5.1). */
#define PROFILE_CYCLES 2000000u

/* Kernel k's IPC alone on every SM over the run's planned length (its epochs x epoch_cycles
 * when first asked, at most PROFILE_CYCLES), SMQoS's offline profile, from its private-mode
 * reference (extended to that length once). A fixed window, not the reference so far: how
 * much of it a cached trace already holds must not change the answer. */
static double isolated_ipc(struct session *s, unsigned k)
{
    if (s->ipc_isolated[k] > 0)
        return s->ipc_isolated[k];
    uint64_t planned = (uint64_t)s->sc->epochs * s->sc->epoch_cycles;
    uint64_t samples = (planned < PROFILE_CYCLES ? planned : PROFILE_CYCLES) / SOLO_SAMPLE_CYCLES;
    if (samples == 0)
        samples = 1;
    solo_trace_extend(s->ref[k], samples * SOLO_SAMPLE_CYCLES);
    const uint64_t *insts;
    size_t n = solo_trace_samples(s->ref[k], &insts);
    if (n <= samples)
        return NAN;
    s->ipc_isolated[k] = (double)insts[samples] / ((double)samples * SOLO_SAMPLE_CYCLES);
    return s->ipc_isolated[k];
}

/* An allocator that cannot act in this session (no predictor to decide from, no kernel to
 * protect) keeps the partition silently; say so in the log, once each time it starts. */
static int note_idle_allocator(struct session *s, const struct alloc_input *in)
{
    char why[ALLOC_REASON_MAX] = "";
    const char *name = s->alloc->name;
    if (s->alloc->uses_predictor && !s->pred)
        snprintf(why, sizeof why,
                 "%s decides from a predictor's NP̂ and none is active, so it keeps the "
                 "partition: choose one (--predictor P, or p in the workbench)",
                 name);
    else if (s->alloc->needs_high_priority && alloc_high_priority(in) < 0)
        snprintf(why, sizeof why,
                 "%s protects a high-priority kernel and the mix has none, so it keeps the "
                 "partition: give one priority = \"high\" (or h in the workbench's mix editor)",
                 name);
    if (strcmp(why, s->alloc_idle_note) == 0)
        return 0;
    snprintf(s->alloc_idle_note, sizeof s->alloc_idle_note, "%s", why);
    return why[0] ? session_note(s, "allocator", why) : 0;
}

/* Ask the allocator at a decision point; `interval` holds the counters since the last one
 * and np_pred the last epoch's predictions (NULL at the first). Applies a changed partition
 * and logs it. Returns 0, or -1 with s->error set. */
int session_allocate(struct session *s, const struct gpu_kernel_counters *interval,
                     const struct session_epoch *last)
{
    if (!s->alloc)
        return 0;
    const struct scenario *sc = s->sc;
    unsigned nsms = sc->gpu.sms;
    /* The allocator sees the mix as a compact list: its kernel i is kernel slot[i]. */
    unsigned slot[GPU_MAX_KERNELS], n = session_live(s, slot);
    int compact[GPU_MAX_KERNELS];
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        compact[k] = GPU_SM_IDLE;
    for (unsigned i = 0; i < n; i++)
        compact[slot[i]] = (int)i;
    int owner[SESSION_MAX_SMS];
    gpu_get_partition(s->gpu, owner);
    for (unsigned i = 0; i < nsms; i++)
        owner[i] = owner[i] >= 0 ? compact[owner[i]] : owner[i];
    struct alloc_input in = {
        .sms = nsms,
        .nkernels = n,
        .cycle = gpu_now(s->gpu),
        .predictor = session_predictor_name(s),
        .np_at = s->pred && s->pred->np_at ? what_if : NULL,
        .np_at_ctx = s,
        .p = &s->alloc_params,
    };
    for (unsigned i = 0; i < nsms; i++) {
        if (owner[i] >= 0)
            in.k[owner[i]].sms++;
        else if (owner[i] == GPU_SM_GATED)
            in.gated++;
    }
    for (unsigned i = 0; i < n; i++) {
        unsigned k = slot[i];
        struct alloc_kernel *ak = &in.k[i];
        ak->priority = sc->kernels[k].priority;
        ak->qos_target = sc->kernels[k].qos_target;
        ak->weight = sc->kernels[k].weight;
        ak->np_pred = last && k < last->nkernels ? last->k[k].np_pred : NAN;
        ak->ipc = interval && interval[k].cycles ? interval[k].ipc : NAN;
        ak->ipc_isolated = s->alloc->uses_isolated_ipc ? isolated_ipc(s, k) : NAN;
        ak->finished = false; /* kernels relaunch: none runs out of work */
        ak->c = interval ? &interval[k] : NULL;
    }
    if (note_idle_allocator(s, &in) != 0)
        return -1;
    struct alloc_decision d;
    memset(&d, 0, sizeof d);
    s->alloc->decide(s->alloc_state, &in, &d);
    snprintf(s->last_decision, sizeof s->last_decision, "%s", d.reason);
    if (!d.changed)
        return 0;
    int next[SESSION_MAX_SMS];
    alloc_place(&d, n, owner, nsms, next);
    for (unsigned i = 0; i < nsms; i++)
        next[i] = next[i] >= 0 ? (int)slot[next[i]] : next[i];
    char err[256];
    if (gpu_set_partition(s->gpu, next, nsms, GPU_SWITCH_ADAPTIVE, err, sizeof err) != 0) {
        snprintf(s->error, sizeof s->error, "%s: %s", s->alloc->name, err);
        return -1;
    }
    return session_note(s, "repartition", d.reason);
}

/* The counters since the previous call (cumulative counters minus the snapshot in prev,
 * which is updated): what SMQoS's interval decisions see. */
void session_interval_counters(struct session *s, struct gpu_kernel_counters *prev,
                               struct gpu_kernel_counters *out)
{
    for (unsigned k = 0; k < s->sc->nkernels; k++) {
        struct gpu_kernel_counters now;
        gpu_kernel_counters(s->gpu, k, &now);
        out[k] = now;
        out[k].cycles = now.cycles - prev[k].cycles;
        out[k].instructions = now.instructions - prev[k].instructions;
        double sm_cycles = now.sms * (double)now.cycles - prev[k].sms * (double)prev[k].cycles;
        out[k].sms = out[k].cycles ? sm_cycles / (double)out[k].cycles : now.sms;
        out[k].ipc = out[k].cycles ? (double)out[k].instructions / (double)out[k].cycles : 0;
        prev[k] = now;
    }
}
