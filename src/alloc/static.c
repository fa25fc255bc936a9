/* static, even, proportional, static-smqos — the allocators that need no measurement: each
 * fixes a partition from the mix alone (docs/design.md §5) and only redraws it when a kernel
 * finishes, so that no SM stays with a kernel that has no work. */
#include <math.h>
#include <stdio.h>

#include "corun/alloc.h"

static void *fixed_create(const struct alloc_setup *setup, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return alloc_state_new(setup, sizeof(struct alloc_common));
}

/* static: the partition stays as it is (idle and gated SMs too). */
static void static_decide(void *state, const struct alloc_input *in, struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "static"))
        return;
    alloc_base(in, false, out->sms, &out->gated);
    alloc_conclude(state, in, out, "static", "");
}

/* even: every SM, split evenly over the unfinished kernels. */
static void even_decide(void *state, const struct alloc_input *in, struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "even"))
        return;
    alloc_spread(in, in->sms, NULL, out->sms);
    alloc_conclude(state, in, out, "even", "");
}

/* share * SMs rounded (down: rounded down), leaving at least one SM per kernel on either side. */
static unsigned share_of(const struct alloc_input *in, double share, bool down, unsigned group,
                         unsigned others)
{
    double want = down ? floor(share * in->sms) : round(share * in->sms);
    if (!(want >= group))
        want = group; /* also a NaN share */
    if (want > in->sms - others)
        want = in->sms - others;
    return (unsigned)want;
}

/* proportional: the high-priority kernels together get hp_share of the SMs (HSM's baseline:
 * 64 of 80), evenly among them; the others split the rest evenly. */
static void proportional_decide(void *state, const struct alloc_input *in,
                                struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "proportional"))
        return;
    bool high[GPU_MAX_KERNELS] = {false}, low[GPU_MAX_KERNELS] = {false};
    unsigned nhigh = 0, nlow = 0;
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (in->k[k].finished)
            continue;
        high[k] = in->k[k].priority > 0;
        low[k] = !high[k];
        nhigh += high[k];
        nlow += low[k];
    }
    char why[96];
    if (nhigh == 0 || nlow == 0) {
        alloc_spread(in, in->sms, NULL, out->sms);
        alloc_conclude(state, in, out, "proportional",
                       nhigh ? "every kernel has high priority, even "
                             : "no high-priority kernel, even ");
        return;
    }
    unsigned share = share_of(in, in->p->hp_share, false, nhigh, nlow);
    alloc_spread(in, share, low, out->sms);
    alloc_spread(in, in->sms - share, high, out->sms);
    snprintf(why, sizeof why, "high priority %u of %u (hp_share %.2f), ", share, in->sms,
             in->p->hp_share);
    alloc_conclude(state, in, out, "proportional", why);
}

/* static-smqos (SMQoS §5): the latency-sensitive kernel gets smqos_policy of the SMs, the
 * batch kernels the rest, evenly. The paper does not say how the share is rounded: to the
 * nearest SM by default, down with static_smqos_rounding = "down". */
static void static_smqos_decide(void *state, const struct alloc_input *in,
                                struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "static-smqos"))
        return;
    int ls = alloc_ls_kernel(in);
    bool lsmask[GPU_MAX_KERNELS] = {false};
    lsmask[ls] = true;
    unsigned share =
        share_of(in, in->p->smqos_policy, in->p->static_smqos_down, 1, alloc_unfinished(in) - 1);
    out->sms[ls] = share;
    alloc_spread(in, in->sms - share, lsmask, out->sms);
    char why[96];
    snprintf(why, sizeof why, "%s (LS) %u of %u (policy %.2f%s), ",
             alloc_kernel_name(state, (unsigned)ls), share, in->sms, in->p->smqos_policy,
             in->p->static_smqos_down ? ", rounded down" : "");
    alloc_conclude(state, in, out, "static-smqos", why);
}

const struct allocator_ops allocator_static = {
    .name = "static",
    .summary = "keep the scenario's partition (a finished kernel's SMs go to the others)",
    .create = fixed_create,
    .destroy = alloc_state_delete,
    .decide = static_decide,
};

const struct allocator_ops allocator_even = {
    .name = "even",
    .summary = "every SM, split evenly over the unfinished kernels",
    .create = fixed_create,
    .destroy = alloc_state_delete,
    .decide = even_decide,
};

const struct allocator_ops allocator_proportional = {
    .name = "proportional",
    .summary = "hp_share of the SMs to the high-priority kernel (HSM: 64/80), the rest evenly",
    .create = fixed_create,
    .destroy = alloc_state_delete,
    .decide = proportional_decide,
};

const struct allocator_ops allocator_static_smqos = {
    .name = "static-smqos",
    .summary = "smqos_policy of the SMs to the latency-sensitive kernel, the rest to batch",
    .create = fixed_create,
    .destroy = alloc_state_delete,
    .decide = static_smqos_decide,
};
