/* preset_tables — the settings of a GPU preset and of a kernel profile: name, type, range,
 * default, unit and help of each, which loading, `corun check` and `corun help` all read. */
#include "corun/preset.h"

#include <stddef.h>

#include "corun/confread.h"
#include "corun/kstate.h"
#include "corun/sm.h"
#include "corun/util.h"

#define CACHE_FIELD(field_, def_, lo_, hi_, unit_, help_)                                          \
    {                                                                                              \
#field_, CONF_UINT, lo_, hi_, def_, unit_, help_, offsetof(struct cache_config, field_),   \
            NULL, NULL                                                                             \
    }

/* The L1 data cache and the LLC move 128-byte lines (the core's request size); the constant
 * cache's line may differ. */
#define CACHE_SETTINGS(line_lo_, line_hi_)                                                         \
    CACHE_FIELD(                                                                                   \
        size_bytes, NULL, 1024, 1 << 30, "bytes",                                                  \
        "capacity, a multiple of ways x line_bytes (LLC: over all slices, and that multiple "      \
        "in each slice)"),                                                                         \
        CACHE_FIELD(ways, NULL, 1, 64, NULL, "associativity"),                                     \
        CACHE_FIELD(line_bytes, "128", line_lo_, line_hi_, "bytes", "line size"),                  \
        CACHE_FIELD(mshrs, "32", 1, 4096, NULL, "outstanding misses (per cache or slice)"),        \
        CACHE_FIELD(latency_cycles, "1", 1, 1000, "core cycles", "hit latency")

static const struct conf_setting cache_settings[] = {CACHE_SETTINGS(32, 256)};
static const struct conf_table cache_table = {"cache", cache_settings,
                                              CORUN_ARRAY_LEN(cache_settings), "gpu"};
static const struct conf_setting cache128_settings[] = {CACHE_SETTINGS(128, 128)};
static const struct conf_table cache128_table = {"cache", cache128_settings,
                                                 CORUN_ARRAY_LEN(cache128_settings), "gpu"};

#define TIMING(field_, lo_, hi_, help_)                                                            \
    {                                                                                              \
#field_, CONF_UINT, lo_, hi_, NULL, "memory cycles", help_,                                \
            offsetof(struct dram_timing, field_), NULL, NULL                                       \
    }

static const struct conf_setting timing_settings[] = {
    TIMING(rc, 1, 1000,
           "tRC: ACT to ACT, same bank (the next ACT still waits tRAS + tRP when that is longer)"),
    TIMING(rcd, 1, 1000, "tRCD: ACT to RD/WR, same bank"),
    TIMING(rp, 1, 1000, "tRP: PRE to ACT, same bank"),
    TIMING(cl, 1, 1000, "tCL: RD to first read data"),
    TIMING(wl, 0, 1000, "tWL: WR to first write data"),
    TIMING(ras, 1, 1000, "tRAS: ACT to PRE, same bank"),
    TIMING(rrd_l, 1, 1000, "tRRD_L: ACT to ACT, same bank group"),
    TIMING(rrd_s, 1, 1000, "tRRD_S: ACT to ACT, different bank group"),
    TIMING(faw, 1, 1000, "tFAW: window holding at most four ACTs"),
    TIMING(rtp, 1, 1000, "tRTP: RD to PRE"),
    TIMING(ccd_l, 1, 1000, "tCCD_L: column to column, same bank group"),
    TIMING(ccd_s, 1, 1000, "tCCD_S: column to column, different bank group"),
    TIMING(wtr_l, 1, 1000, "tWTR_L: end of write data to RD, same bank group"),
    TIMING(wtr_s, 1, 1000, "tWTR_S: end of write data to RD, different bank group"),
    TIMING(rfc, 1, 10000, "tRFC: refresh duration"),
    TIMING(refi, 0, 1000000, "tREFI: refresh interval (0: no refresh)"),
};
static const struct conf_table timing_table = {"DRAM timing", timing_settings,
                                               CORUN_ARRAY_LEN(timing_settings), "gpu"};

#define UNIT_FIELD(field_, def_, lo_, hi_, unit_, help_)                                           \
    {                                                                                              \
#field_, CONF_UINT, lo_, hi_, def_, unit_, help_, offsetof(struct unit_config, field_),    \
            NULL, NULL                                                                             \
    }

static const struct conf_setting unit_settings[] = {
    UNIT_FIELD(lanes, "16", 1, 1024, "threads per cycle",
               "a warp instruction holds the unit 32 / lanes cycles"),
    UNIT_FIELD(latency_cycles, "20", 1, SM_UNIT_MAX_LATENCY, "core cycles",
               "until the warp's next instruction may issue"),
};
static const struct conf_table unit_table = {"execution unit", unit_settings,
                                             CORUN_ARRAY_LEN(unit_settings), "gpu"};

static const char *const mapping_names[] = {"hashed", "linear", NULL};

#define DRAM_FIELD(field_, type_, def_, lo_, hi_, unit_, help_)                                    \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, unit_, help_, offsetof(struct dram_config, field_), NULL,  \
            NULL                                                                                   \
    }

static const struct conf_setting dram_settings[] = {
    DRAM_FIELD(channels, CONF_UINT, NULL, 1, 256, NULL, "memory channels"),
    DRAM_FIELD(bank_groups, CONF_UINT, NULL, 1, 16, NULL, "bank groups per channel"),
    DRAM_FIELD(banks_per_group, CONF_UINT, NULL, 1, 64, NULL, "banks in each bank group"),
    DRAM_FIELD(row_bytes, CONF_UINT, "2048", 256, 65536, "bytes", "row (page) size"),
    DRAM_FIELD(bus_bytes_per_cycle, CONF_UINT, NULL, 1, 1024, "bytes",
               "data moved per channel per memory cycle"),
    /* The LLC's line, which is the core's one line size (dram-trace's --request-bytes drives
     * the DRAM model alone with others). */
    DRAM_FIELD(request_bytes, CONF_UINT, "128", 128, 128, "bytes", "one request's size"),
    DRAM_FIELD(clock_mhz, CONF_FLOAT, NULL, 1, 100000, "MHz", "memory clock"),
    DRAM_FIELD(queue_entries, CONF_UINT, "64", 1, 4096, NULL, "request queue per channel"),
    DRAM_FIELD(row_hit_cap, CONF_UINT, "5", 1, 1000, NULL,
               "FR-FCFS: row hits served before an older miss"),
    DRAM_FIELD(dual_command, CONF_BOOL, "false", 0, 0, NULL,
               "separate row and column command buses (HBM): an ACT or PRE may issue in the "
               "same cycle as a RD or WR"),
    {"mapping", CONF_CHOICE, 0, 0, "hashed", NULL, "address mapping",
     offsetof(struct dram_config, mapping), mapping_names, NULL},
    {"timing", CONF_GROUP, 0, 0, NULL, NULL, "timing constraints, in memory cycles",
     offsetof(struct dram_config, t), NULL, &timing_table},
};
static const struct conf_table dram_table = {"DRAM", dram_settings, CORUN_ARRAY_LEN(dram_settings),
                                             "gpu"};

#define PCIE_FIELD(field_, def_, help_)                                                            \
    {                                                                                              \
#field_, CONF_FLOAT, 0.01, 1000, def_, "GB/s", help_,                                      \
            offsetof(struct pcie_config, field_), NULL, NULL                                       \
    }

/* The defaults are those of the k40 preset (PCIe 3.0 x16; data/gpus/k40.cfg says why). */
static const struct conf_setting pcie_settings[] = {
    PCIE_FIELD(shared_gbs, "6.0",
               "a bandwidth-sharing (pageable) copy alone; n of them split it evenly"),
    PCIE_FIELD(exclusive_gbs, "10.0",
               "a bandwidth-exclusive (pinned) copy, which holds the whole link"),
};
static const struct conf_table pcie_table = {"PCIe link", pcie_settings,
                                             CORUN_ARRAY_LEN(pcie_settings), "gpu"};

#define GPU_FIELD(field_, type_, def_, lo_, hi_, unit_, help_)                                     \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, unit_, help_, offsetof(struct gpu_config, field_), NULL,   \
            NULL                                                                                   \
    }
#define GPU_GROUP(field_, table_, help_)                                                           \
    {                                                                                              \
#field_, CONF_GROUP, 0, 0, NULL, NULL, help_, offsetof(struct gpu_config, field_), NULL,   \
            &table_                                                                                \
    }

static const struct conf_setting gpu_settings[] = {
    GPU_FIELD(sms, CONF_UINT, NULL, 1, 1024, NULL, "streaming multiprocessors"),
    GPU_FIELD(core_clock_mhz, CONF_FLOAT, NULL, 1, 10000, "MHz", "SM clock"),
    GPU_FIELD(warps_per_sm, CONF_UINT, "64", 1, SM_MAX_WARPS, NULL, "resident warps per SM"),
    GPU_FIELD(tbs_per_sm, CONF_UINT, "32", 1, SM_MAX_TBS, NULL, "resident thread blocks per SM"),
    GPU_FIELD(schedulers_per_sm, CONF_UINT, "2", 1, SM_MAX_SCHEDULERS, NULL,
              "GTO warp schedulers per SM"),
    GPU_FIELD(regs_per_sm, CONF_UINT, "65536", 1024, 1 << 22, "registers",
              "32-bit registers per SM"),
    GPU_FIELD(smem_per_sm_bytes, CONF_UINT, "98304", 0, 1 << 24, "bytes", "shared memory per SM"),
    GPU_FIELD(alu_latency_cycles, CONF_UINT, "6", 1, SM_MAX_DEP_LATENCY, "core cycles",
              "dependent FP32/INT issue (kernels whose dep_latency is 0)"),
    GPU_GROUP(sfu, unit_table, "special-function unit (sin, exp, rcp, sqrt), per SM"),
    GPU_GROUP(fp64, unit_table, "double-precision unit, per SM"),
    GPU_GROUP(shmem, unit_table, "shared memory, per SM (lanes: banks)"),
    GPU_GROUP(l1d, cache128_table, "L1 data cache, per SM"),
    GPU_GROUP(l1c, cache_table, "constant cache, per SM"),
    GPU_GROUP(llc, cache128_table, "last-level cache (size over all slices)"),
    GPU_FIELD(llc_slices, CONF_UINT, NULL, 1, 1024, NULL, "LLC slices"),
    GPU_FIELD(noc_bytes_per_cycle, CONF_UINT, "32", 1, 1024, "bytes",
              "crossbar channel width per core cycle"),
    GPU_FIELD(noc_latency_cycles, CONF_UINT, "8", 0, 1000, "core cycles", "crossbar traversal"),
    GPU_FIELD(context_switch_bytes_per_cycle, CONF_UINT, "128", 1, 65536, "bytes",
              "rate at which thread-block state is saved or restored"),
    GPU_FIELD(order_free, CONF_BOOL, "false", 0, 0, NULL,
              "the SMs of a block reach the crossbar's slice ports, the TB dispatcher and each "
              "other only at the block's end, so the results do not depend on the order the "
              "SMs are stepped in and --threads shares them out among its threads (rules of "
              "their own: other results than with false)"),
    GPU_FIELD(sm_static_watts, CONF_FLOAT, "1.0", 0, 1000, "W", "static power per active SM"),
    GPU_FIELD(inst_energy_nj, CONF_FLOAT, "0.5", 0, 1000, "nJ",
              "dynamic energy per warp instruction"),
    GPU_FIELD(dram_activate_nj, CONF_FLOAT, "2.0", 0, 1000, "nJ", "energy per DRAM activate"),
    GPU_FIELD(dram_burst_nj, CONF_FLOAT, "4.0", 0, 1000, "nJ",
              "energy per DRAM request transferred"),
    GPU_GROUP(dram, dram_table, "the memory system"),
    GPU_GROUP(pcie, pcie_table, "the host link, each direction (accelerator scenarios)"),
};
const struct conf_table preset_gpu_table = {"gpu", gpu_settings, CORUN_ARRAY_LEN(gpu_settings),
                                            "gpu"};

#define KERNEL_FIELD(field_, type_, def_, lo_, hi_, unit_, help_)                                  \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, unit_, help_, offsetof(struct kernel_profile, field_),     \
            NULL, NULL                                                                             \
    }

#define KERNEL_CHOICE(field_, names_, help_)                                                       \
    {                                                                                              \
#field_, CONF_CHOICE, 0, 0, "none", NULL, help_, offsetof(struct kernel_profile, field_),  \
            names_, NULL                                                                           \
    }

/* In the order of enum kernel_paper, kernel_class and kernel_split (kernel.h). */
static const char *const paper_names[] = {"none", "hsm", "themis", "smqos", "teaching", NULL};
static const char *const class_names[] = {"none", "compute", "memory", "balanced", NULL};
static const char *const split_names[] = {"none", "train", "test", NULL};
static const char *const pattern_names[] = {"legacy", "stream", "strided", "stencil",
                                            "tiled",  "gather", NULL};

static const struct conf_setting kernel_settings[] = {
    KERNEL_FIELD(description, CONF_STRING, "", 0, 0, NULL, "what the kernel is"),
    KERNEL_FIELD(tbs, CONF_UINT, NULL, 1, 1 << 24, NULL, "thread blocks in the grid"),
    KERNEL_FIELD(warps_per_tb, CONF_UINT, NULL, 1, 32, NULL, "warps per thread block"),
    KERNEL_FIELD(tbs_per_sm, CONF_UINT, "0", 0, SM_MAX_TBS, NULL,
                 "an explicit cap on resident thread blocks per SM (0: none; the SM's warps, "
                 "registers, shared memory and TB slots limit it too)"),
    KERNEL_FIELD(insts_per_warp, CONF_UINT, NULL, 1, 1 << 30, "instructions",
                 "warp instructions each warp executes"),
    KERNEL_FIELD(mem_fraction, CONF_FLOAT, NULL, 0, 1, NULL,
                 "memory instructions among all instructions but barriers"),
    KERNEL_FIELD(store_fraction, CONF_FLOAT, "0.0", 0, 1, NULL, "stores among memory instructions"),
    KERNEL_FIELD(lines_per_access, CONF_FLOAT, "1.0", 1, SM_MAX_LINES, "lines",
                 "128 B line requests per memory instruction (coalescing)"),
    KERNEL_FIELD(mlp, CONF_UINT, "4", 1, SM_MAX_MLP, "loads", "loads a warp may have outstanding"),
    KERNEL_FIELD(dep_latency, CONF_UINT, "0", 0, SM_MAX_DEP_LATENCY, "core cycles",
                 "latency before an ALU result can be used (0: the preset's "
                 "alu_latency_cycles)"),
    KERNEL_FIELD(const_fraction, CONF_FLOAT, "0.0", 0, 1, NULL,
                 "constant-cache loads among all instructions"),
    KERNEL_FIELD(footprint_bytes, CONF_U64, NULL, 128, KSTATE_CONST_OFFSET - 1, "bytes",
                 "data the kernel touches"),
    KERNEL_FIELD(seq_run_lines, CONF_UINT, "1", 1, 1 << 20, "lines",
                 "consecutive lines a stream reads before it jumps (row locality)"),
    KERNEL_FIELD(reuse_fraction, CONF_FLOAT, "0.0", 0, 1, NULL,
                 "accesses that revisit a recently touched line"),
    KERNEL_FIELD(reuse_window_bytes, CONF_U64, "0", 0, 1ull << 40, "bytes",
                 "how far back those revisits reach (cache locality)"),
    KERNEL_FIELD(regs_per_thread, CONF_UINT, "32", 1, 255, "registers",
                 "registers per thread (occupancy, context-switch cost)"),
    KERNEL_FIELD(smem_per_tb_bytes, CONF_UINT, "0", 0, 1 << 20, "bytes",
                 "shared memory per thread block (occupancy, context-switch cost)"),
    KERNEL_FIELD(sfu_fraction, CONF_FLOAT, "0.0", 0, 1, NULL,
                 "special-function instructions (sin, exp, rcp, sqrt) among all"),
    KERNEL_FIELD(fp64_fraction, CONF_FLOAT, "0.0", 0, 1, NULL,
                 "double-precision instructions among all"),
    KERNEL_FIELD(shared_fraction, CONF_FLOAT, "0.0", 0, 1, NULL,
                 "shared-memory loads and stores among all instructions"),
    KERNEL_FIELD(shared_conflict_ways, CONF_UINT, "1", 0, 32, "passes",
                 "bank-conflict degree of a shared-memory access (0 or 1: none)"),
    KERNEL_FIELD(barrier_interval, CONF_UINT, "0", 0, 1 << 30, "instructions",
                 "instructions per warp from one __syncthreads barrier to the next, the barrier "
                 "included (0: none; 1 is refused); the fractions are of the others"),
    {"pattern", CONF_CHOICE, 0, 0, "legacy", NULL,
     "address stream: legacy (one cursor per kernel), stream, strided, stencil, tiled, gather",
     offsetof(struct kernel_profile, pattern), pattern_names, NULL},
    KERNEL_FIELD(tile_lines, CONF_UINT, "0", 0, 1 << 30, "lines",
                 "lines of each array a thread block walks (0: as many as it accesses)"),
    KERNEL_FIELD(stride_lines, CONF_UINT, "0", 0, 1 << 30, "lines",
                 "strided: distance between accesses; stencil: row pitch; tiled: panel length"),
    KERNEL_FIELD(hot_fraction, CONF_FLOAT, "0.0", 0, 1, NULL,
                 "gather: accesses that fall in the hot set"),
    KERNEL_FIELD(hot_bytes, CONF_U64, "0", 0, 1ull << 38, "bytes",
                 "gather: size of the hot set (e.g. a graph's vertex data)"),
    KERNEL_FIELD(gap_cycles, CONF_U64, "0", 0, 1ull << 32, "core cycles",
                 "idle cycles before each launch of the grid (the host's work between kernels)"),
    {"phases", CONF_CUSTOM, 0, 0, NULL, NULL,
     "a list ( { SETTING = VALUE; ... }, ... ) of 2 to 5 kernels the application runs in "
     "order, then again from the first: each is this profile with the settings it names "
     "changed",
     0, NULL, NULL},
    KERNEL_CHOICE(paper, paper_names,
                  "whose workload this models (hsm, themis, smqos); every profile naming a "
                  "paper, yours too, is one of its set: `train` fits on it (hsm: the "
                  "memory-bound ones; themis: the training split), `calibrate` measures it"),
    KERNEL_CHOICE(target_class, class_names, "the class the paper gives (checked by calibrate)"),
    KERNEL_CHOICE(split, split_names, "Themis' train/test split"),
    KERNEL_FIELD(target_mpki, CONF_FLOAT, "0", 0, 1000, "misses per 1000 thread instructions",
                 "the paper's LLC misses per 1000 thread instructions (0: no target)"),
};
const struct conf_table preset_kernel_table = {"kernel", kernel_settings,
                                               CORUN_ARRAY_LEN(kernel_settings), "kernel"};
