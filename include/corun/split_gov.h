/* split_gov — whether a shared run splits its blocks over two threads (gpu_set_split).
 *
 * Split or not, the run gives the same results; the split is faster only when the second
 * core is free. Beside another busy job its two threads wait on each other for a core and
 * the run is slower than on one thread (two `run --threads 2` at once on two cores: 1.4x the
 * wall time of two `run --threads 1`). So the session times the run's chunks: it keeps the
 * mode that simulated more cycles per wall second, and now and then tries the other to see
 * whether that changed, less often while the kept mode keeps winning, and less often still
 * while it wins clearly. A try is one chunk, timed against the better of the last two in the
 * kept mode, so that one slow chunk (a phase of the kernels, a burst of another job) does not
 * hand it the win.
 *
 * The timing thread's CPU time says more: a thread that spins while it waits is on a core for
 * the whole chunk unless another job takes the core from it. So two split chunks running in
 * which it ran for less than SPLIT_GOV_STARVED of the wall time drop the split, without a try
 * (one such chunk may be the host's doing: a virtual machine's cores are not always there),
 * and while one thread does not get a core to itself either, the split is not tried (a try
 * that is due counts as lost). */
#ifndef CORUN_SPLIT_GOV_H
#define CORUN_SPLIT_GOV_H

#include <stdbool.h>
#include <stdint.h>

/* The other mode must beat the kept one by this factor to be kept instead. */
#define SPLIT_GOV_MARGIN 1.05
/* Chunks in the kept mode before the first try of the other, and at most between tries. */
#define SPLIT_GOV_FIRST_TRY 2
#define SPLIT_GOV_MAX_GAP   32
/* A try lost by this factor or more (the kept mode that much faster) is a clear loss: the gap
 * to the next grows four times instead of twice, since each try costs a chunk in the slower
 * mode and a machine rarely changes that much. */
#define SPLIT_GOV_CLEAR 1.25
/* A chunk whose timing thread ran for less than this share of its wall time was kept off its
 * core by another job. */
#define SPLIT_GOV_STARVED 0.6

struct split_gov {
    bool keep;        /* the mode kept: true splits */
    bool trying;      /* the chunk being run tries the other mode */
    unsigned since;   /* chunks run in the kept mode since the last try */
    unsigned gap;     /* chunks in the kept mode between tries */
    double rate_keep; /* cycles per wall second of the last chunk in the kept mode; 0: none */
    double rate_prev; /* and of the one before; 0: none */
    bool starved;     /* the last kept chunk did not have a core to itself */
};

void split_gov_init(struct split_gov *g);
/* A governor for another run on the same machine: from's kept mode and gap between tries,
 * with nothing measured yet (a rate of another run is not comparable). */
void split_gov_inherit(struct split_gov *g, const struct split_gov *from);
/* The mode for the next chunk: true to split. */
bool split_gov_choose(struct split_gov *g);
/* That chunk ran `cycles` in `seconds` of wall time, in the mode split_gov_choose gave, and
 * the thread that timed it used cpu_seconds of CPU time meanwhile (negative: not known). */
void split_gov_record(struct split_gov *g, uint64_t cycles, double seconds, double cpu_seconds);
/* The process keeps what its last governor learnt (a machine busy with another job stays
 * busy across the short runs of a sweep): split_gov_remember records g; split_gov_recall
 * starts g from the last recorded (split_gov_inherit), or afresh. Thread-safe. */
void split_gov_remember(const struct split_gov *g);
void split_gov_recall(struct split_gov *g);
/* Wall-clock seconds (monotonic), for timing chunks (their CPU time: bench_cpu_seconds). */
double split_gov_clock(void);

#endif
