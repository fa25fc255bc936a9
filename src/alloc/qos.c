/* qos — HSM-QoS (HSM §4.3). The high-priority kernel keeps its NP at qos_target: below it,
 * the what-if (alloc_np_at) says how many SMs reach the target and those are taken from the
 * low-priority kernels; above qos_upper it shrinks to the fewest SMs predicted to stay at or
 * above the target. SMs move among the low-priority kernels one at a time, greedily by the
 * what-if's marginal NP, so their sum (and STP) is as large as the model can see. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>

#include "corun/alloc.h"

static void *qos_create(const struct alloc_setup *setup, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return alloc_state_new(setup, sizeof(struct alloc_common));
}

/* The NP kernel k gains on one more SM (loses on one fewer, when less); -inf unknown. */
static double margin(const struct alloc_input *in, const unsigned *sms, unsigned k, bool more)
{
    double a = alloc_np_at(in, k, sms[k]);
    double b = alloc_np_at(in, k, more ? sms[k] + 1 : sms[k] - 1);
    double d = more ? b - a : a - b;
    return isnan(d) ? -INFINITY : d;
}

/* The low-priority kernel (not hp) to give one SM to (give) or take one from: largest gain,
 * or smallest loss among those with an SM to spare; fewer SMs first on ties (more when
 * taking), then lower index. -1 when none can give. */
static int pick(const struct alloc_input *in, const unsigned *sms, unsigned hp, bool give)
{
    int best = -1;
    double best_v = 0;
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (k == hp || in->k[k].finished || (!give && sms[k] < 2))
            continue;
        double v = give ? margin(in, sms, k, true) : -margin(in, sms, k, false);
        if (!give && v == INFINITY)
            v = -INFINITY; /* an unknown loss is the last to take from */
        bool tie = best >= 0 && v == best_v;
        if (best < 0 || v > best_v || (tie && (give ? sms[k] < sms[best] : sms[k] > sms[best]))) {
            best = (int)k;
            best_v = v;
        }
    }
    return best;
}

/* The fewest SMs in [lo, hi] whose what-if NP reaches target; 0 when none does. */
static unsigned sms_for(const struct alloc_input *in, unsigned k, unsigned lo, unsigned hi,
                        double target)
{
    for (unsigned m = lo; m <= hi; m++)
        if (alloc_np_at(in, k, m) >= target)
            return m;
    return 0;
}

/* "from lbm" / "to lbm" when one low-priority kernel gives or takes all, else the moves. */
static void from_whom(const void *state, const struct alloc_input *in, const unsigned *sms,
                      unsigned hp, char *buf, size_t len)
{
    int other = -1;
    unsigned n = 0;
    for (unsigned k = 0; k < in->nkernels; k++)
        if (k != hp && sms[k] != in->k[k].sms) {
            other = (int)k;
            n++;
        }
    if (n == 1 && !in->k[other].finished) {
        snprintf(buf, len, "%s %s", sms[other] < in->k[other].sms ? "from" : "to",
                 alloc_kernel_name(state, (unsigned)other));
        return;
    }
    char moves[96];
    alloc_format_moves(state, in, sms, moves, sizeof moves);
    snprintf(buf, len, "(%s)", moves);
}

static void qos_decide(void *state, const struct alloc_input *in, struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "qos"))
        return;
    unsigned *s = out->sms;
    alloc_base(in, true, s, &out->gated);
    char counts[64], moves[128];
    alloc_format_counts(in, s, counts, sizeof counts);
    int h = alloc_high_priority(in);
    if (h < 0) {
        alloc_reason(in, out, "qos: no high-priority kernel, keeping %s", counts);
        return;
    }
    const char *name = alloc_kernel_name(state, (unsigned)h);
    double np = in->k[h].np_pred, target = in->k[h].qos_target, upper = in->p->qos_upper;
    if (!isfinite(np)) {
        alloc_reason(in, out, "qos: no NP̂ for %s (predictor %s), keeping %s", name,
                     in->predictor ? in->predictor : "none", counts);
        return;
    }
    unsigned most = in->sms - (alloc_unfinished(in) - 1); /* 1 SM per other kernel */
    unsigned have = s[h];
    if (np < target) {
        unsigned want = have < most ? sms_for(in, (unsigned)h, have + 1, most, target) : 0;
        if (have >= most) {
            alloc_reason(in, out,
                         "qos: %s NP̂ %.2f < target %.2f with %u SMs already, 1 per other "
                         "kernel; keeping %s",
                         name, np, target, have, counts);
            return;
        }
        bool every = want == 0;
        if (every)
            want = most;
        for (int from; s[h] < want && (from = pick(in, s, (unsigned)h, false)) >= 0; s[h]++)
            s[from]--;
        from_whom(state, in, s, (unsigned)h, moves, sizeof moves);
        alloc_reason(in, out, "qos: %s NP̂ %.2f < target %.2f%s, +%u SMs %s", name, np, target,
                     every ? ", even the most SMs will not reach it" : "", s[h] - have, moves);
        return;
    }
    if (np > upper) {
        unsigned want = sms_for(in, (unsigned)h, 1, have, target);
        if (want == 0 || want == have) {
            alloc_reason(in, out,
                         "qos: %s NP̂ %.2f > %.2f, but it needs its %u SMs for %.2f; "
                         "keeping %s",
                         name, np, upper, have, target, counts);
            return;
        }
        for (; s[h] > want; s[h]--)
            s[pick(in, s, (unsigned)h, true)]++;
        from_whom(state, in, s, (unsigned)h, moves, sizeof moves);
        alloc_reason(in, out, "qos: %s NP̂ %.2f > %.2f, −%u SMs %s, just above target %.2f", name,
                     np, upper, have - want, moves, target);
        return;
    }
    alloc_reason(in, out, "qos: %s NP̂ %.2f within target %.2f..%.2f, keeping %s", name, np, target,
                 upper, counts);
}

const struct allocator_ops allocator_qos = {
    .name = "qos",
    .summary = "HSM-QoS: the high-priority kernel just reaches qos_target, the rest maximize NP",
    .needs_high_priority = true,
    .uses_predictor = true,
    .create = qos_create,
    .destroy = alloc_state_delete,
    .decide = qos_decide,
};
