/* gpu_internal — the simulated GPU's state, shared by gpu.c (building and running it),
 * gpu_config.c (checking presets and profiles against it) and gpu_counters.c (reading it out).
 * Not part of the public interface: everything else goes through corun/gpu.h. */
#ifndef CORUN_GPU_INTERNAL_H
#define CORUN_GPU_INTERNAL_H

#include "corun/gpu.h"
#include "corun/kstate.h"
#include "corun/simenv.h"
#include "corun/sm.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ASM's priority epochs (gpu_set_priority_epochs): one kernel at a time has the highest
 * priority at every memory controller, round robin over the kernels not retired, each for
 * `cycles` core cycles. */
struct gpu_prio {
    uint64_t cycles;                      /* epoch length; 0: off */
    uint64_t next;                        /* when the next kernel's turn starts */
    int kernel;                           /* prioritized now; -1: none */
    unsigned rr;                          /* the round robin looks here first for the next turn */
    uint64_t since, acc_at, miss_at;      /* the current turn's start within the counter epoch */
    uint64_t acc_cycles[SIM_MAX_KERNELS]; /* closed turns within the counter epoch */
    uint64_t acc_l2[SIM_MAX_KERNELS], acc_l2_misses[SIM_MAX_KERNELS];
};

_Static_assert(GPU_SM_IDLE == SM_OWNER_IDLE && GPU_SM_GATED == SM_OWNER_GATED,
               "partition entries are passed to the SMs as they are");
_Static_assert(SIM_MAX_KERNELS == DRAM_MAX_APPS, "each kernel is one DRAM application");
_Static_assert(GPU_MAX_KERNELS <= SIM_MAX_KERNELS && GPU_MAX_STREAMS <= SIM_MAX_KERNELS,
               "the parts size their arrays for SIM_MAX_KERNELS kernels");

/* Threads a GPU runs on at most (gpu_set_threads). */
#define GPU_MAX_THREADS 64

struct gpu {
    struct gpu_config cfg;
    struct sim_env env;
    uint64_t seed;
    unsigned nkernels; /* over the run's life: retired kernels keep their index */
    struct kstate *kernels[SIM_MAX_KERNELS]; /* NULL: a stream that never launched */
    bool retired[SIM_MAX_KERNELS];
    uint64_t launched_at[SIM_MAX_KERNELS]; /* shared dispatch: the stream's last launch */
    uint64_t launches[SIM_MAX_KERNELS];    /* shared dispatch: grids launched per stream */
    unsigned hist_lines;                   /* the SMs' reuse history capacity */
    struct sm **sms;
    int *partition;
    uint64_t *agents;        /* scratch bit set for wake_take: the SMs due in the block */
    uint64_t *slice_agents;  /* the same for the slices due in a cycle */
    struct gpu_split *split; /* helper threads (gpu_split.c), when there are any */
    unsigned sm_rr;          /* first SM run in a block: rotates so no SM always wins ports */
    unsigned sm_rr_step;     /* by this many SMs a block (1; others for tests) */
    bool sm_reverse;         /* order-free: step the due SMs last first (tests) */
    unsigned *due;           /* order-free: the SMs due in the block */
    struct sm_lane *lanes[GPU_MAX_THREADS]; /* order-free: one per thread, made as needed */
    unsigned block;                         /* SM block length, cycles */
    uint64_t skipped;                       /* cycles it jumped over */

    uint64_t now;
    uint64_t core_khz, dram_khz, dram_acc; /* DRAM ticks when the accumulator passes core_khz */
    uint64_t epoch_start, epoch_dram_start;
    struct gpu_prio prio;
};

/* The SM phase of the block [block_start, block_end), and the memory phase (slices, DRAM)
 * from g->now to block_end (gpu.c). */
void gpu_run_sms(struct gpu *g, uint64_t block_start, uint64_t block_end);
void gpu_run_memory(struct gpu *g, uint64_t block_end);

/* Order-free rules: thread t's lane (made on first use). */
struct sm_lane *gpu_lane(struct gpu *g, unsigned t);
/* Order-free rules: lists the SMs due in the block starting at block_start in g->due (in
 * order of SM) and returns their count; sets env.sm_first. */
unsigned gpu_due_sms(struct gpu *g, uint64_t block_start);

/* Runs the block to block_end on this thread and the helper threads (gpu_split.c), as if on
 * one; gpu_split_memory: the memory side runs beside the SMs (llc_split_*); gpu_split_stop
 * ends the helpers. */
void gpu_split_block(struct gpu *g, uint64_t block_end);
/* Runs the span from g->now to end pipelined (the memory side blocks ahead of the SMs, on
 * another thread); false, having run nothing, when this GPU's span cannot be (gpu_split.c). */
bool gpu_split_span(struct gpu *g, uint64_t end);
bool gpu_split_memory(const struct gpu *g);
void gpu_split_stop(struct gpu *g);

/* Writes the message to err (when there is room) and returns -1: the GPU's errors. */
int gpu_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Kernel k's run-time state: gpu_new and gpu_add_kernel build it alike, so a kernel's address
 * stream depends on its index and the seed only (gpu.c). */
struct kstate *gpu_new_kstate(const struct gpu *g, const struct kernel_profile *p, unsigned k);

/* Priority epochs (gpu_mix.c): gpu_prio_close ends the prioritized kernel's turn at g->now,
 * its cycles and LLC traffic going to its totals; gpu_prio_open starts kernel k's (k < 0:
 * nobody's); gpu_prio_next_turn starts the round robin's next, skipping retired kernels. */
void gpu_prio_close(struct gpu *g);
void gpu_prio_open(struct gpu *g, int k);
void gpu_prio_next_turn(struct gpu *g);

/* The per-SM resource limits of cfg that bound a kernel's resident blocks (gpu_config.c). */
struct kstate_sm_limits gpu_sm_limits(const struct gpu_config *cfg);

#endif
