/* kernel — a kernel profile: the grid, its warps' instruction mix, and the address-stream model
 * from which caches and DRAM see locality. Filled by the loader from data/kernels/NAME.cfg. */
#ifndef CORUN_KERNEL_H
#define CORUN_KERNEL_H

#include <stddef.h>
#include <stdint.h>

struct kernel_profile {
    char *name;
    char *description;
    unsigned tbs; /* thread blocks in the grid */
    unsigned warps_per_tb;
    unsigned tbs_per_sm;         /* occupancy limit from registers / shared memory */
    unsigned insts_per_warp;     /* warp instructions each warp executes */
    double mem_fraction;         /* memory instructions among all instructions */
    double store_fraction;       /* stores among memory instructions */
    double lines_per_access;     /* 128 B line requests per memory instruction (coalescing) */
    unsigned mlp;                /* loads a warp may have outstanding before it stalls */
    unsigned dep_latency;        /* cycles before a compute instruction's result can be used */
    double const_fraction;       /* constant-cache loads among all instructions */
    uint64_t footprint_bytes;    /* data the kernel touches */
    unsigned seq_run_lines;      /* consecutive lines a stream reads before it jumps (RBH) */
    double reuse_fraction;       /* accesses that revisit a recently touched line */
    uint64_t reuse_window_bytes; /* how far back those revisits reach (cache locality) */
    unsigned regs_per_thread;    /* for context-switch cost */
    unsigned smem_per_tb_bytes;  /* for context-switch cost */
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

/* Release what the loader allocated inside p (not p itself). */
void kernel_profile_done(struct kernel_profile *p);

/* The built-in synthetic kernels (streaming, random, strided, compute-heavy, cache-friendly),
 * for tests and demos. Entries are static: never free them. */
size_t kernel_builtin_count(void);
const struct kernel_profile *kernel_builtin_at(size_t i);
/* The built-in kernel called name, or NULL. */
const struct kernel_profile *kernel_builtin_find(const char *name);

#endif
