/* split_gov — timing a shared run's chunks to choose between one thread and a split block. */
#include "corun/split_gov.h"

#include <pthread.h>
#include <time.h>

static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static struct split_gov last; /* the last remembered; gap 0: none */

void split_gov_init(struct split_gov *g)
{
    *g = (struct split_gov){.keep = true, .gap = SPLIT_GOV_FIRST_TRY};
}

void split_gov_inherit(struct split_gov *g, const struct split_gov *from)
{
    *g = (struct split_gov){.keep = from->keep, .gap = from->gap};
}

/* A try lost (or was skipped): the next one comes after twice the gap, or four times after a
 * clear loss, up to SPLIT_GOV_MAX_GAP. */
static void lost(struct split_gov *g, bool clear)
{
    g->since = 0;
    g->gap *= clear ? 4 : 2;
    if (g->gap > SPLIT_GOV_MAX_GAP)
        g->gap = SPLIT_GOV_MAX_GAP;
}

/* Keeps mode keep from now on, its rate so far `rate` (0: none yet), tries due afresh. */
static void switch_to(struct split_gov *g, bool keep, double rate, bool starved)
{
    *g = (struct split_gov){
        .keep = keep, .rate_keep = rate, .gap = SPLIT_GOV_FIRST_TRY, .starved = starved};
}

bool split_gov_choose(struct split_gov *g)
{
    if (!g->trying && g->rate_keep > 0 && g->since >= g->gap) {
        if (!g->keep && g->starved)
            lost(g, false); /* one thread has no core to itself: two would not either */
        else
            g->trying = true;
    }
    return g->trying ? !g->keep : g->keep;
}

void split_gov_record(struct split_gov *g, uint64_t cycles, double seconds, double cpu_seconds)
{
    if (cycles == 0 || !(seconds > 0))
        return; /* nothing to learn from; a try stays due */
    double rate = (double)cycles / seconds;
    bool starved = cpu_seconds >= 0 && cpu_seconds < SPLIT_GOV_STARVED * seconds;
    if (!g->trying) {
        if (g->keep && starved && g->starved) { /* another job wants the cores: one thread */
            switch_to(g, false, 0, false);
            return;
        }
        g->starved = starved;
        g->rate_prev = g->rate_keep;
        g->rate_keep = rate;
        g->since++;
        return;
    }
    g->trying = false;
    double kept = g->rate_keep > g->rate_prev ? g->rate_keep : g->rate_prev;
    if (rate > kept * SPLIT_GOV_MARGIN && !(starved && !g->keep))
        switch_to(g, !g->keep, rate, starved);
    else
        lost(g, kept > rate * SPLIT_GOV_CLEAR);
}

void split_gov_remember(const struct split_gov *g)
{
    pthread_mutex_lock(&last_lock);
    last = *g;
    pthread_mutex_unlock(&last_lock);
}

void split_gov_recall(struct split_gov *g)
{
    pthread_mutex_lock(&last_lock);
    if (last.gap)
        split_gov_inherit(g, &last);
    else
        split_gov_init(g);
    pthread_mutex_unlock(&last_lock);
}

double split_gov_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
