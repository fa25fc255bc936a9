/* bw-app — even SMs, with application-aware memory bandwidth partitioning in the channel
 * schedulers (HSM §6's BW-App baseline: the application with the lowest attained bandwidth is
 * served first). The allocator only names the scheduler; src/sim implements it. */

#include <stdbool.h>

#include "corun/alloc.h"

static void *bw_app_create(const struct alloc_setup *setup, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    return alloc_state_new(setup, sizeof(struct alloc_common));
}

static void bw_app_decide(void *state, const struct alloc_input *in, struct alloc_decision *out)
{
    if (alloc_alone(state, in, out, "bw-app"))
        return;
    alloc_spread(in, in->sms, NULL, out->sms);
    alloc_conclude(state, in, out, "bw-app", "bandwidth shared by the DRAM scheduler, even ");
}

const struct allocator_ops allocator_bw_app = {
    .name = "bw-app",
    .summary = "even SMs; the memory controllers favour the lowest attained bandwidth (BW-App)",
    .dram_scheduler = "bw-app",
    .create = bw_app_create,
    .destroy = alloc_state_delete,
    .decide = bw_app_decide,
};
