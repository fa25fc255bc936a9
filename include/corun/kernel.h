/* kernel — a kernel profile: the grid, its warps' instruction mix, and the address-stream model
 * from which caches and DRAM see locality. Filled by the loader from data/kernels/NAME.cfg. */
#ifndef CORUN_KERNEL_H
#define CORUN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

#define KERNEL_MAX_PHASES 5
#define KERNEL_PHASE_SETS 24 /* settings one phase may change */

/* One setting a phase changes: the bytes of a kernel_profile field. Kept as plain bytes so
 * that profiles stay copyable by value. */
struct kernel_phase_set {
    uint16_t offset;
    uint8_t size;
    uint64_t bits;
};

/* One kernel of an application: the profile's settings with a few of them changed. */
struct kernel_phase {
    unsigned nsets;
    struct kernel_phase_set set[KERNEL_PHASE_SETS];
};

struct kernel_profile {
    char *name;
    char *description;
    unsigned tbs; /* thread blocks in the grid */
    unsigned warps_per_tb;
    unsigned tbs_per_sm;         /* an explicit cap on resident TBs per SM (0: none); the
                                    occupancy is also limited by the SM's warps, registers,
                                    shared memory and TB slots (kstate_occupancy) */
    unsigned insts_per_warp;     /* warp instructions each warp executes */
    double mem_fraction;         /* memory instructions among all instructions */
    double store_fraction;       /* stores among memory instructions */
    double lines_per_access;     /* 128 B line requests per memory instruction (coalescing) */
    unsigned mlp;                /* loads a warp may have outstanding before it stalls */
    unsigned dep_latency;        /* cycles before an ALU result can be used (0: the preset's
                                    alu_latency_cycles) */
    double const_fraction;       /* constant-cache loads among all instructions */
    uint64_t footprint_bytes;    /* data the kernel touches */
    unsigned seq_run_lines;      /* consecutive lines a stream reads before it jumps (RBH) */
    double reuse_fraction;       /* accesses that revisit a recently touched line */
    uint64_t reuse_window_bytes; /* how far back those revisits reach (cache locality) */
    unsigned regs_per_thread;    /* occupancy and context-switch cost */
    unsigned smem_per_tb_bytes;  /* occupancy and context-switch cost */
    /* Instruction classes beyond the FP32/INT ALU (kstate.h): fractions of all instructions,
     * each issued through its SM unit (gpu_config) and waited on for that unit's latency. */
    double sfu_fraction;           /* transcendentals, reciprocals, square roots */
    double fp64_fraction;          /* double precision arithmetic */
    double shared_fraction;        /* shared-memory loads and stores */
    unsigned shared_conflict_ways; /* bank conflicts: passes per shared access (0, 1: none) */
    unsigned barrier_interval;     /* instructions per warp between __syncthreads (0: none) */
    /* Per-TB address streams (kstate.h); KERNEL_PATTERN_LEGACY keeps the one shared cursor
     * of seq_run_lines / reuse_fraction. */
    int pattern;           /* enum kernel_pattern */
    unsigned tile_lines;   /* lines of each array a TB walks (0: its accesses' worth) */
    unsigned stride_lines; /* strided: distance between a TB's accesses; stencil: row
                              pitch; tiled: panel length */
    double hot_fraction;   /* gather: accesses that fall in the hot set */
    uint64_t hot_bytes;    /* gather: the hot set (e.g. a graph's vertex data) */
    uint64_t gap_cycles;   /* idle cycles before each launch of the grid (host work) */
    /* An application of several kernels run in order, then from the first again: phase i is
     * this profile with phase[i]'s settings changed (0 phases: one kernel). */
    unsigned nphases;
    struct kernel_phase phase[KERNEL_MAX_PHASES];
    /* Provenance and calibration targets: they never change a simulation. */
    int paper;          /* enum kernel_paper: whose workload the profile models */
    int target_class;   /* enum kernel_class: the class the paper gives */
    int split;          /* enum kernel_split: Themis' train/test split */
    double target_mpki; /* the paper's LLC misses per 1000 thread instructions; 0: none */
};

/* Values of the choice fields above; index 0 is "none" so that zeroed profiles carry no target.
 * The names are in preset_kernel_table (src/io/preset.c). */
enum kernel_paper {
    KERNEL_PAPER_NONE,
    KERNEL_PAPER_HSM,
    KERNEL_PAPER_THEMIS,
    KERNEL_PAPER_SMQOS,
    KERNEL_PAPER_TEACHING
};
enum kernel_class {
    KERNEL_CLASS_NONE,
    KERNEL_CLASS_COMPUTE,
    KERNEL_CLASS_MEMORY,
    KERNEL_CLASS_BALANCED
};
enum kernel_split { KERNEL_SPLIT_NONE, KERNEL_SPLIT_TRAIN, KERNEL_SPLIT_TEST };
/* Address patterns; names in preset_kernel_table. */
enum kernel_pattern {
    KERNEL_PATTERN_LEGACY,  /* one cursor per kernel, runs of seq_run_lines, a reuse window */
    KERNEL_PATTERN_STREAM,  /* each TB streams its own tile once: coalesced */
    KERNEL_PATTERN_STRIDED, /* TB b reads b, b + stride, b + 2 stride, ...: column access */
    KERNEL_PATTERN_STENCIL, /* each point of a TB's tile reads its row and the rows above and
                               below (pitch stride_lines): halo reuse */
    KERNEL_PATTERN_TILED,   /* GEMM-like: TB (i, j) walks row panel i of A and column panel j
                               of B, shared with the TBs of its row and column */
    KERNEL_PATTERN_GATHER,  /* irregular: hot_fraction of the accesses land anywhere in a hot
                               set of hot_bytes, the rest stream the TB's tile */
};

/* Profile of phase i of base (i < base->nphases): base with that phase's settings; strings
 * are base's (not copied). */
void kernel_phase_profile(const struct kernel_profile *base, unsigned i,
                          struct kernel_profile *out);

/* Release what the loader allocated inside p (not p itself). */
void kernel_profile_done(struct kernel_profile *p);

/* The built-in synthetic kernels (streaming, random, strided, compute-heavy, cache-friendly),
 * for tests and demos. Entries are static: never free them. */
size_t kernel_builtin_count(void);
const struct kernel_profile *kernel_builtin_at(size_t i);
/* The built-in kernel called name, or NULL. */
const struct kernel_profile *kernel_builtin_find(const char *name);

#endif
