/* kernel — kernel profiles and the built-in synthetic kernels. */
#include "corun/kernel.h"

#include <stdlib.h>
#include <string.h>

/* Synthetic kernels with one dominant behaviour each. Their parameters are chosen to make that
 * behaviour obvious, not to match any paper's benchmark (that is data/kernels/'s job).
 *
 * Row-buffer locality comes from seq_run_lines (see kstate.h): consecutive lines fall in
 * consecutive DRAM channels, so a run of L lines brings about L / channels accesses to each
 * row it crosses. On hbm80 (32 channels, 2 KB rows) runs shorter than ~32 lines give almost no
 * row hits and long runs approach the FR-FCFS row-hit cap. The seqN family spans that range
 * for the bandwidth-against-RBH study (HSM Fig. 3); the RBH each reaches on hbm80 is in its
 * description. */
static const struct kernel_profile builtins[] = {
    {
        .name = "stream",
        .description = "streams through a large array, one store per three loads: "
                       "row-buffer friendly, memory-bound",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.25,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 1024,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "random",
        .description = "random lines over a large footprint: no locality, memory-bound",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.2,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 32,
        .seq_run_lines = 1,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "strided",
        .description = "short sequential runs with long jumps, two lines per access: "
                       "little row locality, memory-bound",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.2,
        .store_fraction = 0.1,
        .lines_per_access = 2.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 31,
        .seq_run_lines = 48,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 4096,
    },
    {
        .name = "compute",
        .description = "arithmetic with rare, cache-resident loads: compute-bound",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 20000,
        .mem_fraction = 0.01,
        .store_fraction = 0.1,
        .lines_per_access = 1.0,
        .mlp = 2,
        .dep_latency = 6,
        .const_fraction = 0.02,
        .footprint_bytes = 1ull << 20,
        .seq_run_lines = 8,
        .reuse_fraction = 0.9,
        .reuse_window_bytes = 16384,
        .regs_per_thread = 40,
        .smem_per_tb_bytes = 8192,
    },
    {
        .name = "cachefit",
        .description = "works inside a footprint that fits the LLC: cache-friendly",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.15,
        .store_fraction = 0.05,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 2u << 20,
        .seq_run_lines = 16,
        .reuse_fraction = 0.8,
        .reuse_window_bytes = 1u << 20,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "seq40",
        .description = "memory-bound, sequential runs of 40 lines (hbm80: RBH ~0.1)",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 40,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "seq64",
        .description = "memory-bound, sequential runs of 64 lines (hbm80: RBH ~0.2)",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 64,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "seq96",
        .description = "memory-bound, sequential runs of 96 lines (hbm80: RBH ~0.35)",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 96,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "seq128",
        .description = "memory-bound, sequential runs of 128 lines (hbm80: RBH ~0.5)",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 128,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "seq192",
        .description = "memory-bound, sequential runs of 192 lines (hbm80: RBH ~0.6)",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 192,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "seq256",
        .description = "memory-bound, sequential runs of 256 lines (hbm80: RBH ~0.7)",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 256,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
    {
        .name = "seq2048",
        .description = "memory-bound, sequential runs of 2048 lines (hbm80: RBH ~0.8)",
        .tbs = 4096,
        .warps_per_tb = 8,
        .tbs_per_sm = 8,
        .insts_per_warp = 4000,
        .mem_fraction = 0.25,
        .store_fraction = 0.0,
        .lines_per_access = 1.0,
        .mlp = 4,
        .dep_latency = 8,
        .const_fraction = 0.0,
        .footprint_bytes = 1ull << 30,
        .seq_run_lines = 2048,
        .reuse_fraction = 0.0,
        .reuse_window_bytes = 0,
        .regs_per_thread = 32,
        .smem_per_tb_bytes = 0,
    },
};

void kernel_phase_profile(const struct kernel_profile *base, unsigned i, struct kernel_profile *out)
{
    *out = *base;
    const struct kernel_phase *ph = &base->phase[i];
    for (unsigned j = 0; j < ph->nsets; j++)
        memcpy((char *)out + ph->set[j].offset, &ph->set[j].bits, ph->set[j].size);
}

void kernel_profile_done(struct kernel_profile *p)
{
    free(p->name);
    free(p->description);
    p->name = p->description = NULL;
}

size_t kernel_builtin_count(void)
{
    return sizeof(builtins) / sizeof(builtins[0]);
}

const struct kernel_profile *kernel_builtin_at(size_t i)
{
    return i < kernel_builtin_count() ? &builtins[i] : NULL;
}

const struct kernel_profile *kernel_builtin_find(const char *name)
{
    for (size_t i = 0; i < kernel_builtin_count(); i++)
        if (strcmp(builtins[i].name, name) == 0)
            return &builtins[i];
    return NULL;
}
