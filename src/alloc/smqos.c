/* smqos — SMQoS (Sun et al., §4.2–4.3, Algorithms 1–3), deciding every smqos_interval cycles.
 *
 * The latency-sensitive (LS) kernel has an IPC target, smqos_policy × its isolated IPC.
 * Algorithm 1: it takes one SM when its average or this interval's IPC misses the target, and
 * gives one back only when both clear it with room to spare. Algorithm 3: an SM the LS kernel
 * takes is an idle or gated one if any, else a batch kernel's; an SM it gives back goes to a
 * batch kernel while that kernel is below its optimal count opt_k or opt_k's upper bound is
 * not known yet, else the batch kernel gives one too (probing the lower bound) or the SM is
 * power-gated. Algorithm 2 learns opt_k one SM at a time from the batch kernel's IPC one
 * interval after each of its moves: a gain of more than smqos_threshold (1 %, the paper's best,
 * §5.3) from its last SM
 * raises opt_k, none marks the upper bound; a loss from giving one up marks the lower bound.
 * Once both bounds are known opt_k stays put.
 *
 * With several batch kernels each keeps its own search; a freed SM goes to the first (by
 * index) that wants it, and an LS kernel short of SMs takes from the batch kernel with most.
 * The paper does not say whether a batch kernel keeps its last SM: here it does, unless
 * smqos_batch_min = 0, when the LS kernel may take every SM (a batch kernel with none then
 * waits for the LS kernel to give one back). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "corun/alloc.h"

enum smqos_move { MOVE_NONE, MOVE_IN, MOVE_OUT };

/* Algorithm 2's history for one batch kernel. */
struct smqos_batch {
    bool started;
    unsigned opt_k;
    bool upper, lower;    /* opt_k's upper / lower bound reached */
    enum smqos_move last; /* its move at the previous decision */
    unsigned sm_last;     /* SMs before that move */
    double ipc_last;      /* IPC in the interval before that move */
};

struct smqos_state {
    struct alloc_common c;
    int ls;               /* the LS kernel the averages belong to (-1: none yet) */
    unsigned n_epoch;     /* intervals seen */
    double insts, cycles; /* the LS kernel's totals, for IPC_ave */
    struct smqos_batch b[GPU_MAX_KERNELS];
};

static void *smqos_create(const struct alloc_setup *setup, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct smqos_state *s = alloc_state_new(setup, sizeof(struct smqos_state));
    s->ls = -1;
    return s;
}

/* Algorithm 2, at the first decision after batch kernel b moved that finds the move in
 * effect: an SM changes owner only once its TBs have drained, so while the kernel's active
 * SMs (c; NULL: unknown, taken as done) still show the old count the interval says nothing
 * about the move and the evaluation waits. */
static void learn_opt_k(struct smqos_batch *b, unsigned sms_now, double ipc,
                        const struct gpu_kernel_counters *c, double threshold)
{
    enum smqos_move last = b->last;
    if (last == MOVE_NONE)
        return;
    if (c && (last == MOVE_IN ? c->active_sms < sms_now : c->active_sms > sms_now))
        return;
    b->last = MOVE_NONE;
    if ((b->upper && b->lower) || b->sm_last != b->opt_k || isnan(ipc) || isnan(b->ipc_last))
        return;
    if (last == MOVE_IN) {
        if (ipc > b->ipc_last * (1 + threshold)) {
            b->lower = true; /* the SM paid off: opt_k is at least this */
            b->opt_k = sms_now;
        } else {
            b->upper = true; /* it did not: opt_k stays below */
        }
    } else {
        if (ipc < b->ipc_last * (1 - threshold)) {
            b->lower = true; /* losing the SM hurt: opt_k stays above */
        } else {
            b->upper = true;
            b->opt_k = sms_now;
        }
    }
}

static void note_move(struct smqos_batch *b, enum smqos_move m, unsigned sms, double ipc)
{
    b->last = m;
    b->sm_last = sms;
    b->ipc_last = ipc;
}

static void smqos_decide(void *state, const struct alloc_input *in, struct alloc_decision *out)
{
    struct smqos_state *st = state;
    if (alloc_alone(state, in, out, "smqos"))
        return;
    int ls = alloc_ls_kernel(in);
    unsigned *s = out->sms;
    bool take_last = in->p->smqos_take_last; /* smqos_batch_min = 0 */
    unsigned keep = take_last ? 0 : 1;       /* SMs a batch kernel keeps */
    if (take_last)
        alloc_base_keep_empty(in, s, &out->gated);
    else
        alloc_base(in, false, s, &out->gated);
    unsigned used = out->gated, nbatch = alloc_unfinished(in) - 1;
    for (unsigned k = 0; k < in->nkernels; k++)
        used += s[k];
    unsigned idle = in->sms - used;
    char counts[64];
    alloc_format_counts(in, s, counts, sizeof counts);
    const struct alloc_kernel *l = &in->k[ls];
    const char *name = alloc_kernel_name(state, (unsigned)ls);
    double target = in->p->smqos_policy * l->ipc_isolated;
    if (!isfinite(l->ipc) || !(target > 0)) {
        alloc_reason(in, out, "smqos: no %s IPC for %s yet, keeping %s",
                     isfinite(l->ipc) ? "isolated" : "measured", name, counts);
        return;
    }
    if (st->ls != ls) { /* a new LS kernel: its averages start over */
        st->ls = ls;
        st->n_epoch = 0;
        st->insts = st->cycles = 0;
    }
    double w = l->c && l->c->cycles ? (double)l->c->cycles : 1;
    st->insts += l->ipc * w;
    st->cycles += w;
    st->n_epoch++;
    double ave = st->insts / st->cycles;

    for (unsigned k = 0; k < in->nkernels; k++) {
        struct smqos_batch *b = &st->b[k];
        if ((int)k == ls || in->k[k].finished)
            continue;
        if (!b->started)
            *b = (struct smqos_batch){.started = true, .opt_k = s[k]};
        learn_opt_k(b, s[k], in->k[k].ipc, in->k[k].c, in->p->smqos_threshold);
    }

    /* Algorithm 1. */
    bool swap_in = ave < target || l->ipc < target;
    bool swap_out = !swap_in && ave * st->n_epoch / (st->n_epoch + 1) > target && l->ipc > target;
    char what[112] = "";
    if (swap_in && s[ls] < in->sms - keep * nbatch) {
        /* Algorithm 3, precondition 1: a free SM, else the richest batch kernel's. */
        if (idle > 0) {
            idle--;
            snprintf(what, sizeof what, "+1 SM (idle)");
        } else if (out->gated > 0) {
            out->gated--;
            snprintf(what, sizeof what, "+1 SM (woken from gating)");
        } else {
            int rich = -1;
            for (unsigned k = 0; k < in->nkernels; k++)
                if ((int)k != ls && !in->k[k].finished && s[k] > keep &&
                    (rich < 0 || s[k] > s[rich]))
                    rich = (int)k;
            if (rich >= 0) {
                note_move(&st->b[rich], MOVE_OUT, s[rich], in->k[rich].ipc);
                s[rich]--;
                snprintf(what, sizeof what, "+1 SM from %s",
                         alloc_kernel_name(state, (unsigned)rich));
            }
        }
        s[ls] += what[0] != '\0';
    } else if (swap_out && s[ls] > 1) {
        /* Algorithm 3, precondition 2: the SM goes to a batch kernel that profits. */
        s[ls]--;
        unsigned freed = 1;
        for (unsigned k = 0; k < in->nkernels && freed; k++) {
            struct smqos_batch *b = &st->b[k];
            if ((int)k == ls || in->k[k].finished || (s[k] >= b->opt_k && b->upper))
                continue;
            note_move(b, MOVE_IN, s[k], in->k[k].ipc);
            s[k]++;
            freed = 0;
            snprintf(what, sizeof what, "−1 SM to %s (opt_k %u)", alloc_kernel_name(state, k),
                     b->opt_k);
        }
        for (unsigned k = 0; k < in->nkernels && freed; k++) {
            struct smqos_batch *b = &st->b[k];
            if ((int)k == ls || in->k[k].finished || b->lower || s[k] < 2)
                continue;
            note_move(b, MOVE_OUT, s[k], in->k[k].ipc);
            s[k]--;
            freed = 2;
            snprintf(what, sizeof what, "−1 SM and 1 from %s (probing opt_k %u), 2 gated",
                     alloc_kernel_name(state, k), b->opt_k);
        }
        if (freed == 1)
            snprintf(what, sizeof what, "−1 SM, gated (batch at opt_k)");
        out->gated += freed;
    }
    if (!what[0]) {
        alloc_reason(in, out, "smqos: %s IPC %.2f (avg %.2f), target %.2f%s, holding %s", name,
                     l->ipc, ave, target, swap_in ? " (no SM left to take)" : "", counts);
        return;
    }
    alloc_reason(in, out, "smqos: %s IPC %.2f (avg %.2f) %s target %.2f: %s", name, l->ipc, ave,
                 swap_in ? "<" : ">", target, what);
}

const struct allocator_ops allocator_smqos = {
    .name = "smqos",
    .summary = "SMQoS: one SM per interval keeps the LS kernel's IPC target; idle SMs gated",
    .uses_interval = true,
    .uses_isolated_ipc = true,
    .create = smqos_create,
    .destroy = alloc_state_delete,
    .decide = smqos_decide,
};
