/* kstate — the run-time state of one kernel (application) inside the simulated GPU: its grid
 * (TBs handed out, finished, preempted ones waiting to resume), relaunches, its address stream
 * and its raw event counters. Shared by every SM the kernel owns.
 *
 * Address model. Kernel k's data lives at byte addresses (k + 1) << KSTATE_ADDR_SHIFT onward,
 * so kernels never share a line (and their constant data sits 2^39 bytes above their data).
 * A data access revisits, with probability reuse_fraction, a line drawn uniformly from the
 * last reuse_window_bytes of new lines this SM streamed (its own recent history, so the reuse
 * is visible to its L1 when the window is small and to the LLC when it is larger). Otherwise
 * it takes the next line of the kernel's sequential run; a run lasts seq_run_lines lines, then
 * the stream jumps to a uniformly random line of the footprint. The run is one per kernel and
 * shared by all its SMs, as the TBs resident at one time on a real GPU cover neighbouring
 * tiles of the grid: consecutive lines land in consecutive DRAM channels, so a run of L lines
 * brings about L / channels accesses to each row it touches, close together in time. That is
 * where row-buffer locality comes from; seq_run_lines is its knob. That is the legacy model
 * (pattern = "legacy").
 *
 * Per-TB streams (every other pattern, kernel.h). Each TB walks its own tile of the kernel's
 * arrays: the input array at the data base, an output array (stores) footprint_bytes above it.
 * TB b of a launch gets tile b; the TB's warps take the next line of the TB's walk in turn
 * (kstate_tb_line), so a TB's accesses are coalesced and sequential within its tile, and what
 * the DRAM banks see is the interleaving of every resident TB's walk: row-buffer locality then
 * depends on how many TBs run at once (the SM count and the occupancy) and on what the
 * co-runners' TBs put between them. Reuse is real: a line is hit again only when the pattern
 * revisits it (a stencil's neighbouring rows, the panels a GEMM tile shares with its row and
 * column, a tile re-walked because it is smaller than the TB's accesses, a hot set, or the
 * next launch re-reading a footprint that still sits in the LLC).
 *
 * Instruction classes. A warp issues runs of FP32/INT ALU instructions (geometric lengths),
 * each followed by one instruction of another class: a global load or store, a constant
 * load, an SFU, FP64 or shared-memory instruction, or a __syncthreads barrier every
 * barrier_interval instructions. */
#ifndef CORUN_KSTATE_H
#define CORUN_KSTATE_H

#include "corun/kernel.h"
#include "corun/rng.h"

#include <stdbool.h>
#include <stdint.h>

#define KSTATE_ADDR_SHIFT   40           /* kernel index field of a byte address */
#define KSTATE_CONST_OFFSET (1ull << 39) /* constant data, above any footprint */
#define KSTATE_CONST_LINES  32           /* constant working set: 4 KB of 128 B lines */
#define KSTATE_HIST_MAX     16384        /* reuse history cap, lines (2 MB of 128 B lines) */
#define KSTATE_GEO          64           /* table of short compute runs */

/* Instruction kinds a warp issues. */
enum kstate_inst { KI_COMPUTE, KI_LOAD, KI_STORE, KI_CONST, KI_SFU, KI_FP64, KI_SHARED, KI_BAR };

/* Raw events of one kernel since the last kstate_reset_counters. */
struct kstate_counters {
    uint64_t insts, loads, stores, const_loads;
    uint64_t l1d_accesses, l1d_misses, l1c_accesses, l1c_misses;
    uint64_t l2_accesses, l2_misses, l2_writebacks;
    uint64_t tbs_finished, tbs_saved, tbs_restored;
    uint64_t sm_cycles; /* SM-cycles attributed so far (the gpu adds the open intervals) */
    uint64_t sfu_insts, fp64_insts, shared_insts, barriers;
};

/* One warp's progress, as saved by a context switch. */
struct kstate_warp_ctx {
    uint32_t insts_left, compute_left, bar_left;
    uint8_t next_kind, next_lines, at_bar;
};

/* Where a TB is in its walk of the kernel's arrays (per-TB patterns). */
struct kstate_tbaddr {
    uint32_t tile;      /* the TB's index in its grid */
    uint32_t pos, spos; /* loads and stores made so far */
};

/* A preempted TB waiting to resume on some SM of its kernel. */
struct kstate_saved_tb {
    unsigned nwarps;
    struct kstate_tbaddr addr;
    struct kstate_warp_ctx warp[];
};

/* The SM's limits that bound a kernel's occupancy. */
struct kstate_sm_limits {
    unsigned tbs, warps, regs, smem_bytes;
};

/* An SM's recent history of new lines, for reuse. */
struct kstate_hist {
    uint64_t *line;
    unsigned cap, pos, count;
};

struct kstate {
    struct kernel_profile prof; /* the kernel running now (the application's current phase);
                                   its strings are app's */
    struct kernel_profile app;  /* copy of the profile; name and description owned */
    unsigned phase;             /* index into app.phase (0 without phases) */
    uint64_t launch_at;         /* the current launch's TBs may not start before this cycle */
    struct kstate_sm_limits limits;
    unsigned index;
    uint64_t base;       /* first byte address of the data */
    uint64_t base_line;  /* base / line_bytes */
    uint64_t const_line; /* first line of the constant data */
    uint64_t footprint_lines;
    unsigned line_bytes;
    unsigned occupancy;          /* TBs per SM */
    const char *occupancy_limit; /* what bounds it: "warps", "registers", ... */
    uint64_t out_line;           /* first line of the output array (per-TB patterns) */
    uint32_t tile_lines;         /* per-TB patterns: the tile, resolved */
    uint32_t grid_side;          /* tiled: TBs per grid row */
    uint64_t thr_hot;            /* gather: access in the hot set */
    uint64_t hot_lines;
    unsigned hist_lines; /* reuse window in lines, capped at KSTATE_HIST_MAX */

    /* grid */
    uint64_t tbs_next; /* fresh TBs handed out in this launch */
    uint64_t tbs_done; /* TBs of this launch finished */
    struct kstate_saved_tb **saved;
    unsigned saved_head, saved_count, saved_cap;
    uint64_t launches; /* grids completed */
    bool one_grid;     /* a task's kernel (shared dispatch): the grid runs once, no relaunch */
    uint64_t first_launch_cycle, first_launch_insts; /* when launch 1 completed (0: not yet) */

    /* address stream */
    struct rng rng;
    uint64_t cursor;
    uint64_t run_left;

    /* instruction mix, precomputed */
    double pn;                /* non-ALU instructions among all */
    double inv_log_compute;   /* 1 / ln(1 - pn), for geometric compute runs */
    unsigned geo_n;           /* entries of geo (0: draw with the logarithm) */
    uint64_t geo[KSTATE_GEO]; /* thresholds (1 - pn)^(n + 1) of a run longer than n */
    uint64_t thr_mem;         /* non-compute is memory (vs the other classes) */
    bool has_classes;         /* SFU, FP64 or shared instructions exist */
    uint64_t thr_cls[3];      /* non-memory: cumulative thresholds of constant, SFU, FP64 */
    uint64_t thr_store;       /* memory instruction is a store */
    uint64_t thr_reuse;
    uint64_t thr_extra_line; /* fractional part of lines_per_access */
    unsigned base_lines;

    uint64_t insts_total; /* since creation, never reset */
    struct kstate_counters c;
};

/* What one TB of p holds of an SM: registers and shared memory bytes, at their allocation
 * granularities (kstate_occupancy's model). */
uint64_t kstate_tb_regs(const struct kernel_profile *p);
unsigned kstate_tb_smem(const struct kernel_profile *p);

/* Runtime state for kernel `index` of profile p (copied) on a GPU with line_bytes lines and
 * TB limits tbs_per_sm and warps_per_sm; seed feeds the address stream's PRNG. The caller has
 * validated p (gpu_new does). Free with kstate_delete. */
struct kstate *kstate_new(const struct kernel_profile *p, unsigned index, unsigned line_bytes,
                          const struct kstate_sm_limits *sm, uint64_t seed);
/* Resident TBs of p per SM: the smallest of the SM's TB slots, its warps over the TB's warps,
 * its registers over the TB's (allocated per warp in units of 256), its shared memory over
 * the TB's (in units of 256 B) and the profile's own cap. *limit names the binding one. */
unsigned kstate_occupancy(const struct kernel_profile *p, const struct kstate_sm_limits *sm,
                          const char **limit);
void kstate_delete(struct kstate *k);

/* Hands out the next TB: a preempted one first (returned in *saved, to be freed by the caller
 * with free()), else a fresh one (*saved = NULL). Returns false when none is left. */
bool kstate_take_tb(struct kstate *k, struct kstate_saved_tb **saved, uint32_t *tile);
/* Records a finished TB at cycle now; when it completes the grid the kernel is relaunched.
 * Returns true when new TBs became available. */
bool kstate_tb_finished(struct kstate *k, uint64_t now);
/* Queues a preempted TB (ownership passes to k). */
void kstate_save_tb(struct kstate *k, struct kstate_saved_tb *tb);
/* true when kstate_take_tb would succeed. */
bool kstate_has_tb(const struct kstate *k);

/* Compute instructions before the warp's next non-compute instruction. */
uint32_t kstate_draw_compute_run(const struct kstate *k, struct rng *r);
/* Kind (KI_LOAD, KI_STORE or KI_CONST) and line count of a non-compute instruction. */
void kstate_draw_mem(const struct kstate *k, struct rng *r, uint8_t *kind, uint8_t *lines);
/* The line number of the next data access by an SM with history h. */
uint64_t kstate_next_line(struct kstate *k, struct rng *r, struct kstate_hist *h);
/* An SM's own cursor in a legacy stream under the order-free rules (gpu.order_free), where
 * the SMs cannot share the kernel's within a block: each SM walks runs of the kernel's
 * seq_run_lines of its own, their starts drawn from the SM's generator. Zero-initialised, it
 * draws its first run's start. */
struct kstate_cursor {
    uint64_t cursor, run_left;
};
/* kstate_next_line from the SM's cursor c, drawing from r. */
uint64_t kstate_next_line_own(const struct kstate *k, struct rng *r, struct kstate_hist *h,
                              struct kstate_cursor *c);
/* The line number of a TB's next load (store: next store) under a per-TB pattern; r is
 * drawn from only by the gather pattern. */
uint64_t kstate_tb_line(const struct kstate *k, struct rng *r, struct kstate_tbaddr *a, bool store);
/* The line number of a constant load. */
uint64_t kstate_const_line(const struct kstate *k, struct rng *r);
/* Kernel index owning a line number (from its address). */
unsigned kstate_kernel_of_line(uint64_t line, unsigned line_bytes);

void kstate_hist_init(struct kstate_hist *h, unsigned cap);
void kstate_hist_done(struct kstate_hist *h);
void kstate_hist_clear(struct kstate_hist *h);
/* Enlarges h to cap lines (nothing when it holds that many already), keeping its lines and
 * their order, so kstate_next_line draws exactly what it would have drawn from h before. */
void kstate_hist_grow(struct kstate_hist *h, unsigned cap);

void kstate_reset_counters(struct kstate *k);

#endif
