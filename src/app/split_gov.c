/* split_gov — timing a shared run's chunks to choose between one thread and a split block. */
#include "corun/split_gov.h"

#include <time.h>

void split_gov_init(struct split_gov *g)
{
    *g = (struct split_gov){.keep = true, .gap = SPLIT_GOV_FIRST_TRY};
}

bool split_gov_choose(struct split_gov *g)
{
    g->trying = g->rate_keep > 0 && g->since >= g->gap;
    return g->trying ? !g->keep : g->keep;
}

void split_gov_record(struct split_gov *g, uint64_t cycles, double seconds)
{
    if (cycles == 0 || !(seconds > 0))
        return; /* nothing to learn from; a try stays due */
    double rate = (double)cycles / seconds;
    if (!g->trying) {
        g->rate_keep = rate;
        g->since++;
        return;
    }
    g->trying = false;
    g->since = 0;
    if (rate > g->rate_keep * SPLIT_GOV_MARGIN) {
        g->keep = !g->keep;
        g->rate_keep = rate;
        g->gap = SPLIT_GOV_FIRST_TRY;
    } else if (g->gap < SPLIT_GOV_MAX_GAP) {
        g->gap *= 2;
    }
}

double split_gov_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
