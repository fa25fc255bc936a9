/* fair — HSM-Fair (HSM §4.3). When the active predictor's fairness (min NP̂ / max NP̂) is
 * below fairness_threshold, SMs move from the kernel with the highest NP̂ to the one with the
 * lowest until the what-if (alloc_np_at: the predictor's, or HSM's line through the origin)
 * makes the two equal. With more than two kernels the highest and lowest are balanced again
 * and again, as HSM does for its four-program mixes, while that improves predicted fairness.
 * Above the threshold the partition stays: a repartition costs drains and context switches. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "corun/alloc.h"

/* Balancing rounds in one decision: each pairs the current highest and lowest. */
#define FAIR_MAX_ROUNDS 64

static void *fair_create(const struct alloc_setup *setup, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return alloc_state_new(setup, sizeof(struct alloc_common));
}

/* min / max of np over the unfinished kernels, with their indices. */
static double fairness(const struct alloc_input *in, const double *np, int *lo, int *hi)
{
    *lo = *hi = -1;
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (in->k[k].finished)
            continue;
        if (*lo < 0 || np[k] < np[*lo])
            *lo = (int)k;
        if (*hi < 0 || np[k] > np[*hi])
            *hi = (int)k;
    }
    return np[*hi] > 0 ? np[*lo] / np[*hi] : 1;
}

/* SMs to move from hi to lo so that their what-if NPs come closest; 0 when none helps. */
static unsigned balance(const struct alloc_input *in, const unsigned *sms, unsigned hi, unsigned lo)
{
    double best_gap = fabs(alloc_np_at(in, hi, sms[hi]) - alloc_np_at(in, lo, sms[lo]));
    unsigned best = 0;
    for (unsigned m = 1; m < sms[hi]; m++) {
        double gap = fabs(alloc_np_at(in, hi, sms[hi] - m) - alloc_np_at(in, lo, sms[lo] + m));
        if (gap < best_gap) {
            best_gap = gap;
            best = m;
        }
    }
    return best;
}

static void fair_decide(void *state, const struct alloc_input *in, struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "fair"))
        return;
    double thres = in->p->fairness_threshold;
    unsigned *s = out->sms;
    alloc_base(in, true, s, &out->gated);
    char counts[64];
    alloc_format_counts(in, s, counts, sizeof counts);
    double np[GPU_MAX_KERNELS] = {0};
    for (unsigned k = 0; k < in->nkernels; k++) {
        np[k] = in->k[k].finished ? 0 : in->k[k].np_pred;
        if (!in->k[k].finished && !isfinite(np[k])) {
            alloc_reason(in, out, "fair: no NP̂ for %s (predictor %s), keeping %s",
                         alloc_kernel_name(state, k), in->predictor ? in->predictor : "none",
                         counts);
            return;
        }
    }
    int lo, hi;
    double now = fairness(in, np, &lo, &hi);
    if (now >= thres) {
        alloc_reason(in, out, "fair: fairness %.2f ≥ %.2f, keeping %s", now, thres, counts);
        return;
    }
    /* From here on NPs are what-ifs at the counts being tried. */
    for (unsigned k = 0; k < in->nkernels; k++)
        np[k] = in->k[k].finished ? 0 : alloc_np_at(in, k, s[k]);
    double best = fairness(in, np, &lo, &hi);
    for (int round = 0; round < FAIR_MAX_ROUNDS && !isnan(best); round++) {
        unsigned m = balance(in, s, (unsigned)hi, (unsigned)lo);
        if (m == 0)
            break;
        double np_hi = np[hi], np_lo = np[lo];
        np[hi] = alloc_np_at(in, (unsigned)hi, s[hi] - m);
        np[lo] = alloc_np_at(in, (unsigned)lo, s[lo] + m);
        int nlo, nhi;
        double f = fairness(in, np, &nlo, &nhi);
        if (!(f >= best)) { /* ties: the extremes were shared; the pair still got closer */
            np[hi] = np_hi;
            np[lo] = np_lo;
            break;
        }
        s[hi] -= m;
        s[lo] += m;
        best = f;
        lo = nlo;
        hi = nhi;
    }
    char moves[128];
    alloc_format_moves(state, in, s, moves, sizeof moves);
    bool moved = false;
    for (unsigned k = 0; k < in->nkernels; k++)
        moved = moved || s[k] != in->k[k].sms;
    if (moved)
        alloc_reason(in, out, "fair: fairness %.2f < %.2f, moved %s (%.2f predicted)", now, thres,
                     moves, best);
    else
        alloc_reason(in, out, "fair: fairness %.2f < %.2f, but no move predicts better; keeping %s",
                     now, thres, counts);
}

const struct allocator_ops allocator_fair = {
    .name = "fair",
    .summary = "HSM-Fair: move SMs from the highest to the lowest predicted NP until equal",
    .uses_predictor = true,
    .create = fair_create,
    .destroy = alloc_state_delete,
    .decide = fair_decide,
};
