/* themis-engine — the SM allocation engine of Themis (§VII-B, Algorithm 1). From the current
 * partition π it tries every one-SM move p_i → p_j, keeps any that raises the policy's score
 * (NPs from the what-if alloc_np_at, which is PSP, eqs. 9–10, when the Themis predictor is
 * active), and repeats until the policy's criterion holds, no move helps, or π' is maxDist
 * away from π: the what-if is only trusted near the allocation it was measured on.
 *
 * Policies: Fair (Algorithm 2) — criterion weighted unfairness < thres, score −unfairness,
 * with unfairness (eq. 11) over slowdowns s = 1/NP and the kernels' weights; thres is
 * 1 − fairness_threshold (0.1 for the default 0.9, the paper's value). QoS (§VII-D), when a
 * kernel has high priority — a score that first lifts its NP to qos_target, then maximizes
 * the others' NP sum; the criterion holds when it meets the target and one SM fewer would
 * not, i.e. nothing is left to give the others. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "corun/alloc.h"

#define THEMIS_MAX_DIST 5 /* maxDist = Δ of PSP (Themis §VII-C) */

struct themis_policy {
    int hp;       /* the QoS kernel, or -1 for Fair */
    double thres; /* Fair: unfairness to reach */
    double target;
    double w[GPU_MAX_KERNELS]; /* Fair: weights, all 1 when every weight is 0 */
};

static void *themis_create(const struct alloc_setup *setup, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return alloc_state_new(setup, sizeof(struct alloc_common));
}

/* Eq. 11 over the unfinished kernels; 1 when a kernel makes no progress. */
static double unfairness(const struct alloc_input *in, const double *np, const double *w)
{
    double hi = -INFINITY, lo = INFINITY;
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (in->k[k].finished)
            continue;
        if (!(np[k] > 0))
            return 1;
        double sw = w[k] / np[k];
        hi = sw > hi ? sw : hi;
        lo = sw < lo ? sw : lo;
    }
    return hi > 0 ? (hi - lo) / hi : 0;
}

static double score(const struct alloc_input *in, const struct themis_policy *pol, const double *np)
{
    if (pol->hp < 0)
        return -unfairness(in, np, pol->w);
    if (np[pol->hp] < pol->target)
        return np[pol->hp] - pol->target - 1; /* below every score that meets the target */
    double sum = 0;
    for (unsigned k = 0; k < in->nkernels; k++)
        if ((int)k != pol->hp && !in->k[k].finished)
            sum += np[k];
    return sum;
}

static bool criterion(const struct alloc_input *in, const struct themis_policy *pol,
                      const unsigned *sms, const double *np)
{
    if (pol->hp < 0)
        return unfairness(in, np, pol->w) < pol->thres;
    unsigned h = (unsigned)pol->hp;
    return np[h] >= pol->target && !(sms[h] > 1 && alloc_np_at(in, h, sms[h] - 1) >= pol->target);
}

static unsigned distance(const struct alloc_input *in, const unsigned *a, const unsigned *b)
{
    unsigned d = 0;
    for (unsigned k = 0; k < in->nkernels; k++) {
        unsigned x = a[k] > b[k] ? a[k] - b[k] : b[k] - a[k];
        d = x > d ? x : d;
    }
    return d;
}

/* Algorithm 1: from pi (with NPs np) to a better allocation in out (NPs in np). */
static void search(const struct alloc_input *in, const struct themis_policy *pol,
                   const unsigned *pi, unsigned *out, double *np)
{
    memcpy(out, pi, sizeof(unsigned) * in->nkernels);
    double best = score(in, pol, np);
    while (distance(in, out, pi) < THEMIS_MAX_DIST && !criterion(in, pol, out, np)) {
        bool improved = false;
        for (unsigned i = 0; i < in->nkernels; i++)
            for (unsigned j = 0; j < in->nkernels; j++) {
                if (i == j || in->k[i].finished || in->k[j].finished || out[i] < 2)
                    continue;
                out[i]--;
                out[j]++;
                double npi = np[i], npj = np[j];
                np[i] = alloc_np_at(in, i, out[i]);
                np[j] = alloc_np_at(in, j, out[j]);
                double sc = score(in, pol, np);
                if (distance(in, out, pi) <= THEMIS_MAX_DIST && sc > best) {
                    best = sc;
                    improved = true;
                    continue;
                }
                out[i]++;
                out[j]--;
                np[i] = npi;
                np[j] = npj;
            }
        if (!improved)
            break;
    }
}

static void themis_decide(void *state, const struct alloc_input *in, struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "themis-engine"))
        return;
    unsigned pi[GPU_MAX_KERNELS];
    alloc_base(in, true, pi, &out->gated);
    char counts[64], moves[128];
    alloc_format_counts(in, pi, counts, sizeof counts);
    struct themis_policy pol = {alloc_high_priority(in), 1 - in->p->fairness_threshold, 0, {0}};
    bool weighted = false;
    double np[GPU_MAX_KERNELS] = {0};
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (in->k[k].finished)
            continue;
        weighted = weighted || in->k[k].weight > 0;
        np[k] = alloc_np_at(in, k, pi[k]);
        if (!isfinite(np[k])) {
            memcpy(out->sms, pi, sizeof pi);
            alloc_reason(in, out, "themis-engine: no NP̂ for %s (predictor %s), keeping %s",
                         alloc_kernel_name(state, k), in->predictor ? in->predictor : "none",
                         counts);
            return;
        }
    }
    for (unsigned k = 0; k < in->nkernels; k++)
        pol.w[k] = weighted ? in->k[k].weight : 1;
    if (pol.hp >= 0)
        pol.target = in->k[pol.hp].qos_target;
    char why[96];
    if (pol.hp < 0)
        snprintf(why, sizeof why, "weighted unfairness %.2f (thres %.2f)",
                 unfairness(in, np, pol.w), pol.thres);
    else
        snprintf(why, sizeof why, "QoS %s NP̂ %.2f (target %.2f)",
                 alloc_kernel_name(state, (unsigned)pol.hp), np[pol.hp], pol.target);
    search(in, &pol, pi, out->sms, np);
    if (distance(in, out->sms, pi) == 0) {
        alloc_reason(in, out, "themis-engine: %s, keeping %s", why, counts);
        return;
    }
    alloc_format_moves(state, in, out->sms, moves, sizeof moves);
    if (pol.hp < 0)
        alloc_reason(in, out, "themis-engine: %s, moved %s (%.2f predicted)", why, moves,
                     unfairness(in, np, pol.w));
    else
        alloc_reason(in, out, "themis-engine: %s, moved %s (%.2f predicted)", why, moves,
                     np[pol.hp]);
}

const struct allocator_ops allocator_themis_engine = {
    .name = "themis-engine",
    .summary = "Themis's engine: one-SM moves scored by the what-if, at most 5 SMs a decision",
    .uses_predictor = true,
    .create = themis_create,
    .destroy = alloc_state_delete,
    .decide = themis_decide,
};
