/* gpu — the simulated GPU: SMs, L1 and constant caches, crossbar, LLC slices and the DRAM
 * system, with spatial multitasking (each SM owned by one kernel, idle, or power-gated).
 *
 * The configuration below is filled from a preset by the scenario loader; the runtime API
 * after it builds a GPU for a set of kernels, partitions its SMs among them, steps it and hands
 * out per-kernel counters. Interference between kernels is not computed anywhere: it emerges
 * from the queues, caches, MSHRs, crossbar ports and DRAM banks they share. */
#ifndef CORUN_GPU_H
#define CORUN_GPU_H

#include "corun/dram.h"
#include "corun/kernel.h"
#include "corun/pcie.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cache_config {
    unsigned size_bytes;
    unsigned ways;
    unsigned line_bytes;
    unsigned mshrs;          /* outstanding misses (0: blocking) */
    unsigned latency_cycles; /* hit latency, core cycles */
};

/* An SM execution unit other than the FP32/INT ALUs, shared by the SM's schedulers. */
struct unit_config {
    unsigned lanes;          /* threads served per cycle: a warp instruction holds the unit for
                                32 / lanes cycles (more than 32 lanes: several per cycle) */
    unsigned latency_cycles; /* until the warp's next instruction may issue */
};

struct gpu_config {
    unsigned sms;
    double core_clock_mhz;
    unsigned warps_per_sm;       /* resident warp limit */
    unsigned tbs_per_sm;         /* resident thread-block limit */
    unsigned schedulers_per_sm;  /* GTO warp schedulers, one instruction each per cycle */
    unsigned regs_per_sm;        /* 32-bit registers: occupancy, context-switch cost */
    unsigned smem_per_sm_bytes;  /* shared memory: occupancy, context-switch cost */
    unsigned alu_latency_cycles; /* dependent FP32/INT issue (kernels with dep_latency 0) */
    struct unit_config sfu;      /* special functions */
    struct unit_config fp64;     /* double precision */
    struct unit_config shmem;    /* shared memory: lanes are banks */
    struct cache_config l1d;     /* per SM */
    struct cache_config l1c;     /* constant cache, per SM */
    struct cache_config llc;     /* size_bytes is the total over all slices */
    unsigned llc_slices;
    unsigned noc_bytes_per_cycle; /* crossbar channel width, per core cycle */
    unsigned noc_latency_cycles;
    unsigned context_switch_bytes_per_cycle; /* save/restore rate of TB state */
    /* The SMs of a block meet the shared parts only at its end (crossbar to the slices, TB
     * dispatch, the grid's completion, saved TBs), so results do not depend on the order the
     * SMs are stepped in; co-run GPUs only (shared dispatch keeps the ordered rules). */
    bool order_free;
    double sm_static_watts;                 /* per active (not gated) SM */
    double inst_energy_nj;                  /* dynamic energy per warp instruction */
    double dram_activate_nj, dram_burst_nj; /* per ACT, per request transferred */
    struct dram_config dram;
    struct pcie_config pcie; /* the host link (accelerator scenarios), each direction */
};

/* Peak DRAM bandwidth in GB/s. */
double gpu_config_peak_gbs(const struct gpu_config *cfg);
/* 0 when cfg can be simulated; else -1 with a message naming the field and its valid range. */
int gpu_config_check(const struct gpu_config *cfg, char *err, size_t errlen);
/* Resident thread blocks of p on one SM of cfg; *limit (when limit is not NULL) names what
 * bounds it ("registers", "shared memory", "warp slots", ...). */
unsigned gpu_occupancy(const struct gpu_config *cfg, const struct kernel_profile *p,
                       const char **limit);
/* 0 when profile p can run on cfg; else -1 with a message naming the field. */
int gpu_profile_check(const struct gpu_config *cfg, const struct kernel_profile *p, char *err,
                      size_t errlen);

/* ---- runtime ---- */

#define GPU_MAX_KERNELS 8
/* Shared dispatch: streams (processes) one GPU serves, as MPS serves 16 clients. */
#define GPU_MAX_STREAMS 16
/* Cache lines over the whole GPU (every SM's L1s and the LLC): about 40 bytes of host memory
 * each, so the bound keeps a GPU under a few hundred MB. */
#define GPU_MAX_CACHE_LINES (4ull << 20)
#define GPU_SM_IDLE         (-1) /* partition entry: powered but unused */
#define GPU_SM_GATED        (-2) /* partition entry: power-gated (no static power) */

/* How an SM that changes owner gets rid of the TBs it holds. */
enum gpu_switch_mode {
    GPU_SWITCH_DRAIN,    /* take no new TBs, switch when the resident ones finish */
    GPU_SWITCH_CONTEXT,  /* save the TBs (cost: their register + shared-memory bytes /
                            context_switch_bytes_per_cycle) and resume them on the kernel's
                            other SMs later */
    GPU_SWITCH_ADAPTIVE, /* HSM §4.2, per SM: drain when more TBs finished on the SM during the
                            epoch than fit on it at once (TBs are short), else context-switch.
                            The epoch is the one since gpu_reset_counters, or the one before it
                            when no cycle has run since the reset */
};

/* Per-kernel counters of one epoch (since gpu_reset_counters), all things a GPU can count. */
struct gpu_kernel_counters {
    uint64_t cycles;                   /* core cycles in the epoch */
    uint64_t instructions;             /* warp instructions issued */
    double sms;                        /* time-weighted SM count: SM-cycles / cycles */
    unsigned active_sms;               /* SMs holding or running its TBs now */
    unsigned owned_sms;                /* SMs the partition gives it now */
    double ipc;                        /* instructions / cycles */
    uint64_t l1d_accesses, l1d_misses; /* load line requests (stores bypass the L1) */
    uint64_t l1c_accesses, l1c_misses;
    uint64_t l2_accesses, l2_misses; /* reads and writes; a merged read miss is a miss */
    uint64_t dram_reads, dram_writes, dram_requests;
    uint64_t row_hits, row_accesses, activates;
    uint64_t dram_bytes;
    double rbh;                        /* row_hits / row_accesses (0 when none) */
    double bandwidth_gbs;              /* dram_bytes over the epoch's time */
    double bandwidth_util;             /* bandwidth_gbs / peak */
    uint64_t dram_queue_cycles;        /* memory cycles, summed over requests */
    uint64_t dram_interference_cycles; /* memory cycles delayed by other kernels */
    uint64_t tbs_finished;
    uint64_t tbs_saved, tbs_restored;                                  /* by context switches */
    uint64_t sfu_instructions, fp64_instructions, shared_instructions; /* of instructions */
    uint64_t barriers;           /* __syncthreads instructions */
    unsigned occupancy_tbs;      /* resident TBs per SM its resources allow */
    unsigned phase;              /* the application's kernel running now (0-based) */
    uint64_t launches;           /* grids completed since gpu_new (relaunches follow) */
    uint64_t instructions_total; /* since gpu_new */
    uint64_t first_launch_cycle; /* when the first grid completed (0: not yet) */
    uint64_t first_launch_instructions;
    /* Sampled auxiliary tag directory (ATD, as DASE and ASM propose in hardware): for a few
     * sampled LLC sets, a private tag copy per kernel tells which accesses would have missed
     * had the kernel run alone. Counted over the sampled sets only. */
    uint64_t atd_accesses;      /* the kernel's LLC accesses to sampled sets */
    uint64_t atd_misses;        /* of those, misses in its private tag copy (alone) */
    uint64_t atd_shared_misses; /* of those, misses in the shared LLC (llc.h says exactly
                                   which: a read merged into a miss in flight is not one) */
    /* ASM's priority epochs at the memory controllers (gpu_set_priority_epochs): counted while
     * this kernel has the highest priority. */
    uint64_t prio_cycles;      /* core cycles in its priority epochs */
    uint64_t prio_l2_accesses; /* LLC accesses made during them */
    uint64_t prio_l2_misses;
    double energy_static_j;  /* sm_static_watts over its SM-time */
    double energy_dynamic_j; /* inst_energy_nj per instruction */
    double energy_dram_j;    /* per activate and per request moved */
    double energy_j;         /* the sum */
};

/* Whole-GPU counters of one epoch. */
struct gpu_system_counters {
    uint64_t cycles;
    uint64_t idle_sm_cycles, gated_sm_cycles;
    double energy_j; /* every kernel's energy plus idle (not gated) SMs' static power */
};

/* One DRAM channel over the epoch, for a DRAM view. */
struct gpu_channel_counters {
    struct dram_channel_counters c;
    uint64_t mem_cycles; /* memory cycles in the epoch */
    double utilization;  /* data bus busy / mem_cycles */
};

struct gpu;

/* A GPU for cfg running nkernels kernels (profiles[k] is kernel k; both are copied), seeded
 * with seed. All SMs start idle: call gpu_set_partition. Returns NULL with a message in err
 * when cfg or a profile is invalid. Free with gpu_delete. */
struct gpu *gpu_new(const struct gpu_config *cfg, const struct kernel_profile *const *profiles,
                    unsigned nkernels, uint64_t seed, char *err, size_t errlen);
void gpu_delete(struct gpu *g);

/* Mix changes. A kernel's index is stable for the GPU's life (run-file columns, SM-map letters
 * use it): a kernel that leaves is retired and keeps its index, one that joins takes the next
 * index, and at most GPU_MAX_KERNELS indices are ever handed out. */

/* Adds a kernel to a running GPU (a mix change): it gets index gpu_kernels(g) as it was before
 * the call, owns no SM until gpu_set_partition gives it some, draws its addresses and choices
 * from the same PRNG stream it would have had in gpu_new at that index, and starts its first
 * grid from the beginning. Its counters start at zero (the epoch's `cycles` is still the whole
 * counter epoch's). The other kernels run exactly as before while it owns no SM; under
 * priority epochs it takes its turn in the round robin. profile is copied. Returns the index,
 * or -1 with a message (GPU_MAX_KERNELS kernels already, counting retired ones; an invalid
 * profile) and nothing changed. */
int gpu_add_kernel(struct gpu *g, const struct kernel_profile *profile, char *err, size_t errlen);
/* Kernel k leaves the mix. It must own no SM in the partition: give its SMs away with
 * gpu_set_partition first. TBs of it that SMs still hold drain or are saved as that switch
 * said, and saved ones are never resumed. It keeps its index and its counters; a later
 * partition that gives it an SM is refused, and priority epochs skip it (a turn it holds ends
 * at once, nobody's until the turn's end). Returns 0, or -1 with a message (k out of range,
 * already retired, still owning SMs) and nothing changed. */
int gpu_retire_kernel(struct gpu *g, unsigned k, char *err, size_t errlen);
/* True once kernel k was retired (false for an index out of range). */
bool gpu_kernel_retired(const struct gpu *g, unsigned k);

/* Runs the DRAM legality checker (dram_set_checking) inside g; call before gpu_run. */
void gpu_set_dram_checking(struct gpu *g, bool on);
/* SMs fast-forward through compute-only cycles (sm_ff.c), and the loop jumps over cycles in
 * which no SM or LLC slice is due and the DRAM has nothing to do but count (an idle GPU, a
 * quiet memory system), unless turned off; the counters are the same either way, so this
 * exists for the tests that say so. */
void gpu_set_fast_forward(struct gpu *g, bool on);
/* The same for every GPU made after the call (the default: on), private-mode references
 * included; for `corun run --no-shortcuts`, which checks that the shortcuts change nothing.
 * Call it before any thread makes a GPU. Off, the references are cached under keys of their
 * own (solo_config_hash), so that a check never reads a trace the shortcuts made. */
void gpu_set_default_fast_forward(bool on);
bool gpu_default_fast_forward(void);
/* Runs each block's SM phase and memory phase (LLC slices, DRAM) on two threads, with the same
 * results (gpu_split.c). False when it cannot: the second thread does not start, or (ordered
 * rules) a request could be ready at its LLC slice within the block it was sent in (an LLC
 * latency shorter than the crossbar's reply). Off by default. */
bool gpu_set_split(struct gpu *g, bool on);
/* Runs the GPU on n threads (1: this one alone), with the same results for any n: under the
 * order-free rules (gpu.order_free) the SMs of each block are shared out among all of them
 * and the memory side runs on one beside them where gpu_set_split could; under the ordered
 * rules at most two are used, as gpu_set_split does. Returns the threads in use. */
unsigned gpu_set_threads(struct gpu *g, unsigned n);
/* Moves the first SM stepped in a block on by step SMs a block instead of one (tests: the
 * order-free rules' results do not depend on it, the ordered rules' do). */
void gpu_set_sm_rotation_step(struct gpu *g, unsigned step);
/* Order-free GPUs (gpu.order_free): steps each block's SMs in the reverse order (tests: the
 * results do not depend on it). */
void gpu_set_reverse_stepping(struct gpu *g, bool on);
/* Cycles the loop jumped over so far (0 with the fast paths off). */
uint64_t gpu_skipped_cycles(const struct gpu *g);

/* The memory controllers' channel scheduler, by dram_set_scheduler's names ("frfcfs",
 * "bw-app"); may change at any cycle. Returns 0, or -1 (nothing changed) for an unknown name. */
int gpu_set_dram_scheduler(struct gpu *g, const char *name);
/* ASM's priority epochs: every core_cycles core cycles the next kernel (round robin over the
 * kernels not retired; nobody when all are) gets the highest priority at every memory
 * controller (its requests first, FR-FCFS among them); the prio_* counters count those turns.
 * 0 turns them off (the default). */
void gpu_set_priority_epochs(struct gpu *g, uint64_t core_cycles);
/* The kernel that has the priority now, or -1. */
int gpu_priority_kernel(const struct gpu *g);

/* Gives SM i to owner_per_sm[i] (a kernel index, GPU_SM_IDLE or GPU_SM_GATED); n must be the
 * SM count. SMs that change owner switch as mode says. Returns 0, or -1 with a message (and
 * nothing changed) for a wrong length, an unknown owner or a retired kernel. */
int gpu_set_partition(struct gpu *g, const int *owner_per_sm, size_t n, enum gpu_switch_mode mode,
                      char *err, size_t errlen);
/* The partition last set (owner_out has gpu_sms entries). */
void gpu_get_partition(const struct gpu *g, int *owner_out);
/* An even split of sms SMs among nkernels kernels, in contiguous blocks (the first kernels
 * get one more when it does not divide). */
void gpu_partition_even(unsigned sms, unsigned nkernels, int *owner_out);

/* Advances the GPU by core_cycles core cycles (DRAM follows at its own clock). */
void gpu_run(struct gpu *g, uint64_t core_cycles);
/* Core cycles simulated since gpu_new. */
uint64_t gpu_now(const struct gpu *g);
/* The length of g's blocks in core cycles: a run's blocks end at multiples of it, and at the end
 * of each gpu_run. So runs that end only at such multiples give what one longer run gives. */
unsigned gpu_block_cycles(const struct gpu *g);
unsigned gpu_sms(const struct gpu *g);
/* Kernel indices handed out so far: gpu_new's kernels plus those added, retired ones included. */
unsigned gpu_kernels(const struct gpu *g);
const struct gpu_config *gpu_config(const struct gpu *g);

/* Starts a new counter epoch. */
void gpu_reset_counters(struct gpu *g);
/* Kernel k's counters for the epoch so far. */
void gpu_kernel_counters(const struct gpu *g, unsigned k, struct gpu_kernel_counters *out);
void gpu_system_counters(const struct gpu *g, struct gpu_system_counters *out);
void gpu_channel_counters(const struct gpu *g, unsigned channel, struct gpu_channel_counters *out);
/* TBs finished on SM sm in the epoch so far. */
uint64_t gpu_sm_tbs_finished(const struct gpu *g, unsigned sm);
/* The kernel whose TBs SM sm holds now (GPU_SM_IDLE / GPU_SM_GATED otherwise). */
int gpu_sm_running(const struct gpu *g, unsigned sm);
/* Kernel k's warp instructions since gpu_new (for NP intervals). */
uint64_t gpu_kernel_instructions_total(const struct gpu *g, unsigned k);
/* TBs SM sm holds now. */
unsigned gpu_sm_resident_tbs(const struct gpu *g, unsigned sm);
/* TBs of kernel (stream) k SM sm holds now: in shared dispatch an SM may hold several
 * kernels' TBs, and gpu_sm_running names the one its time counts for. */
unsigned gpu_sm_kernel_tbs(const struct gpu *g, unsigned sm, unsigned k);

/* ---- shared dispatch (accelerator scenarios) ----
 *
 * No partition: every SM that holds no thread block is idle, and the grids launched on the
 * GPU's streams place their TBs first come, first served. The oldest launched grid that still
 * has TBs to hand out places them (one TB per SM per round, up to its occupancy, as the
 * spatial mode's dispatch does; idle SMs and those it already has first, then room beside
 * other kernels' TBs) before a younger one places any. An SM may hold TBs of several kernels
 * as long as their TB slots, warps, registers and shared memory fit the SM's; room that frees
 * goes to the grid first in line. Kernel indices are stream indices; gpu_kernel_counters and
 * gpu_system_counters work as in the spatial mode (a stream's counters restart with each
 * launch), gpu_set_partition, gpu_add_kernel and priority epochs are refused or not used. */

/* A shared-dispatch GPU for cfg with nstreams streams (1..GPU_MAX_STREAMS), seeded with seed,
 * every SM idle. NULL with a message in err when cfg is invalid. Free with gpu_delete. */
struct gpu *gpu_new_shared(const struct gpu_config *cfg, unsigned nstreams, uint64_t seed,
                           char *err, size_t errlen);
/* Launches one grid of p (copied; no phases) on stream s at gpu_now: its TBs queue behind every
 * grid launched before. Returns 0, or -1 with a message (not a shared GPU, s out of range or
 * still running a grid, invalid profile) and nothing changed. */
int gpu_launch(struct gpu *g, unsigned s, const struct kernel_profile *p, char *err, size_t errlen);
/* True while stream s's last grid has not completed. */
bool gpu_stream_busy(const struct gpu *g, unsigned s);
/* Stream s's last grid: the cycle it was launched, placed its first TB and completed (the
 * last two UINT64_MAX until they happen). */
void gpu_stream_times(const struct gpu *g, unsigned s, uint64_t *launched, uint64_t *started,
                      uint64_t *done);
/* Runs a shared GPU up to core_cycles, stopping early at the end of the SM block (a few
 * cycles) in which a grid completes. Returns the cycles run. */
uint64_t gpu_run_shared(struct gpu *g, uint64_t core_cycles);

#endif
