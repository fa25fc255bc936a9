/* reproduce_offline — SMQoS §5.4's Offline allocation, found by search over static runs.
 *
 * Offline is the static partition of an LS x batch pair, LS n SMs and batch m SMs, the rest
 * power-gated: n is the smallest count whose run meets the LS target with the batch on all the
 * other SMs (the paper's "(1) the LS task occupies just enough SMs to meet its QoS"), m the
 * smallest count whose batch NP is within 1 % (SMQoS's threshold) of the best over m ("(2) the
 * remaining SMs are assigned to batch tasks for better throughput", with the gating SMQoS's
 * §4.3 gives itself, so that the power comparison of Fig. 13 is fair).
 *
 * The target is SMQoS's: IPC >= policy x the LS task's isolated IPC, the IPC it has alone on
 * every SM. The session hands smqos that isolated IPC from the private-mode reference (the task
 * alone on all SMs, from its first instruction), and NP over a run is the same reference's
 * cycles for the run's instructions over the run's cycles, i.e. the run's IPC over the isolated
 * IPC on the same instructions: so the target is met when NP >= policy, which is also how the
 * experiment's table counts it.
 *
 * Both searches are binary and assume monotonicity: the LS NP does not fall as n grows (more
 * SMs, and fewer for the batch), the batch NP does not fall as m grows. The exhaustive mode
 * tries every n and m instead, to check that on real mixes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/catalog.h"
#include "corun/reproduce_alloc.h"
#include "corun/scenario.h"
#include "corun/util.h"
#include "reproduce_alloc_internal.h"

struct probe {
    unsigned ls_sms, batch_sms;
    struct ralloc_run run;
};

/* One search: the runs it has asked for, each asked once. */
struct search {
    unsigned ls;
    ralloc_probe_fn probe;
    void *ctx;
    struct probe *done;
    unsigned ndone;
    char *err;
    size_t errlen;
};

static double ls_np(const struct search *s, const struct ralloc_run *r)
{
    return r->private_cycles[s->ls] / r->cycles;
}

static double batch_np(const struct search *s, const struct ralloc_run *r)
{
    double sum = 0;
    for (unsigned k = 0; k < RALLOC_MAX_KERNELS; k++)
        sum += k == s->ls ? 0 : r->private_cycles[k];
    return sum / r->cycles;
}

/* The run of partition (n, m); NULL with s->err set when it failed. */
static const struct ralloc_run *run_at(struct search *s, unsigned n, unsigned m)
{
    for (unsigned i = 0; i < s->ndone; i++)
        if (s->done[i].ls_sms == n && s->done[i].batch_sms == m)
            return &s->done[i].run;
    struct probe *p = &s->done[s->ndone];
    *p = (struct probe){.ls_sms = n, .batch_sms = m};
    s->err[0] = '\0';
    if (s->probe(s->ctx, n, m, &p->run, s->err, s->errlen) != 0 || p->run.failed ||
        !(p->run.cycles > 0)) {
        if (!s->err[0])
            snprintf(s->err, s->errlen, "the static run of LS %u + batch %u SMs failed", n, m);
        return NULL;
    }
    s->ndone++;
    return &p->run;
}

/* (1): the smallest n meeting the target with the batch on the other sms - n SMs; *met is
 * false when even sms - 1 does not (n is then sms - 1). 0 when a run failed. */
static unsigned search_ls(struct search *s, unsigned sms, double policy, bool exhaustive, bool *met)
{
    const struct ralloc_run *r;
    *met = false;
    if (exhaustive) {
        unsigned first = 0;
        for (unsigned n = 1; n < sms; n++) {
            if (!(r = run_at(s, n, sms - n)))
                return 0;
            if (!first && ls_np(s, r) >= policy)
                first = n;
        }
        *met = first > 0;
        return first ? first : sms - 1;
    }
    unsigned lo = 0, hi = sms - 1; /* lo misses (0 SMs surely does), hi meets once checked */
    if (!(r = run_at(s, hi, sms - hi)))
        return 0;
    if (ls_np(s, r) < policy)
        return hi;
    *met = true;
    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;
        if (!(r = run_at(s, mid, sms - mid)))
            return 0;
        if (ls_np(s, r) >= policy)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

/* (2): the smallest m whose batch NP is within the threshold of the best over m, the LS on n
 * and the rest gated. 0 when a run failed. */
static unsigned search_batch(struct search *s, unsigned n, unsigned most, bool exhaustive)
{
    const struct ralloc_run *r;
    double keep = 1 - RALLOC_OFFLINE_THRESHOLD;
    if (exhaustive) {
        double best = 0;
        for (unsigned m = 1; m <= most; m++) {
            if (!(r = run_at(s, n, m)))
                return 0;
            best = batch_np(s, r) > best ? batch_np(s, r) : best;
        }
        unsigned m = 1;
        while (batch_np(s, run_at(s, n, m)) < keep * best)
            m++; /* every run is done: run_at only looks it up */
        return m;
    }
    /* The best so far only rises at a probe that then becomes hi, so hi always keeps within
     * the threshold of it and lo, which missed a lower best, misses the higher one too. */
    if (!(r = run_at(s, n, most)))
        return 0;
    double best = batch_np(s, r);
    unsigned lo = 0, hi = most;
    while (hi - lo > 1) {
        unsigned mid = lo + (hi - lo) / 2;
        if (!(r = run_at(s, n, mid)))
            return 0;
        double t = batch_np(s, r);
        best = t > best ? t : best;
        if (t >= keep * best)
            hi = mid;
        else
            lo = mid;
    }
    return hi;
}

int ralloc_offline_search(unsigned sms, unsigned ls, double policy, bool exhaustive,
                          ralloc_probe_fn probe, void *ctx, struct ralloc_offline *found,
                          struct ralloc_run *chosen, char *err, size_t errlen)
{
    if (sms < 2 || ls >= RALLOC_MAX_KERNELS || !(policy > 0)) {
        snprintf(err, errlen,
                 "Offline needs 2 SMs or more, an LS kernel and a target above 0: got %u SMs, "
                 "kernel %u, target %g",
                 sms, ls, policy);
        return -1;
    }
    struct search s = {ls, probe, ctx, xcalloc(2 * sms, sizeof(struct probe)), 0, err, errlen};
    bool met;
    unsigned n = search_ls(&s, sms, policy, exhaustive, &met);
    unsigned m = n ? search_batch(&s, n, sms - n, exhaustive) : 0;
    const struct ralloc_run *r = m ? run_at(&s, n, m) : NULL;
    if (r) {
        *chosen = *r;
        *found = (struct ralloc_offline){n, m, met, s.ndone, 0};
    }
    free(s.done);
    return r ? 0 : -1;
}

/* ---- the static runs of one pair ---- */

struct ralloc_prober {
    struct scenario sc; /* static, no predictor, unassigned SMs gated; sms set per run */
    unsigned ls;
    struct catalog *cat;
    struct probe *runs;
    unsigned nruns, cap;
};

struct ralloc_prober *ralloc_prober_new(const struct scenario *sc, unsigned ls, struct catalog *cat,
                                        char *err, size_t errlen)
{
    if (sc->nkernels != 2 || ls > 1) {
        snprintf(err, errlen,
                 "Offline partitions a pair, an LS task and a batch task: got %u kernel%s with "
                 "kernel %u as the LS one",
                 sc->nkernels, sc->nkernels == 1 ? "" : "s", ls);
        return NULL;
    }
    struct ralloc_prober *p = xcalloc(1, sizeof(*p));
    scenario_copy(&p->sc, sc);
    free(p->sc.allocator);
    p->sc.allocator = xstrdup("static");
    free(p->sc.predictor);
    p->sc.predictor = xstrdup("none");
    p->sc.unassigned_sms = SCENARIO_UNASSIGNED_GATED;
    p->ls = ls;
    p->cat = cat;
    return p;
}

int ralloc_prober_run(void *ctx, unsigned ls_sms, unsigned batch_sms, struct ralloc_run *out,
                      char *err, size_t errlen)
{
    struct ralloc_prober *p = ctx;
    for (unsigned i = 0; i < p->nruns; i++)
        if (p->runs[i].ls_sms == ls_sms && p->runs[i].batch_sms == batch_sms) {
            *out = p->runs[i].run;
            return 0;
        }
    if (ls_sms < 1 || batch_sms < 1 || ls_sms + batch_sms > p->sc.gpu.sms) {
        snprintf(err, errlen, "Offline: expected 1 SM or more each and %u in all, got %u + %u",
                 p->sc.gpu.sms, ls_sms, batch_sms);
        return -1;
    }
    p->sc.kernels[p->ls].sms = ls_sms;
    p->sc.kernels[1 - p->ls].sms = batch_sms;
    if (ralloc_run_scenario(&p->sc, 1, p->cat, NULL, NULL, out, err, errlen) != 0)
        return -1;
    if (p->nruns == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 16;
        p->runs = xrealloc(p->runs, p->cap * sizeof(*p->runs));
    }
    p->runs[p->nruns++] = (struct probe){ls_sms, batch_sms, *out};
    return 0;
}

unsigned ralloc_prober_simulated(const struct ralloc_prober *p)
{
    return p->nruns;
}

void ralloc_prober_delete(struct ralloc_prober *p)
{
    if (!p)
        return;
    scenario_done(&p->sc);
    free(p->runs);
    free(p);
}
