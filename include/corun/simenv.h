/* simenv — what the parts of the simulated GPU (SMs, LLC slices) see of each other: one
 * struct owned by the gpu module and shared by pointer, so the hot paths call each other
 * directly instead of through tables of callbacks. Layer: sim */
#ifndef CORUN_SIMENV_H
#define CORUN_SIMENV_H

#include <stdbool.h>
#include <stdint.h>

/* Kernel indices the parts size their arrays for: spatial GPUs use at most GPU_MAX_KERNELS
 * of them, shared-dispatch ones GPU_MAX_STREAMS. */
#define SIM_MAX_KERNELS 16

struct gpu_config;
struct kstate;
struct sm;
struct llc;
struct noc;
struct dram;
struct wake;

struct sim_env {
    const struct gpu_config *cfg;
    struct kstate **kernels;
    unsigned nkernels; /* indices handed out, retired kernels included; grows (gpu_add_kernel) */
    struct sm **sms;
    unsigned nsms;
    struct llc *llc;
    struct noc *noc;
    struct dram *dram;
    struct wake *sm_wake, *slice_wake;
    uint64_t now;            /* current core cycle of the slices and DRAM */
    uint64_t next_dram_tick; /* core cycle at whose end DRAM ticks next */
    uint64_t sm_block_start; /* the first cycle of the SMs' block */
    uint64_t sm_block_end;   /* SMs have been stepped up to (not including) this cycle */
    bool sm_fast_forward;    /* SMs jump over cycles that only repeat a compute rotation, and
                              * the loop over cycles in which nothing is due (gpu.c) */
    /* The SM phase of a block runs the due SMs in order from sm_first (wrapping); sm_running
     * is the one running (nsms outside sm_run_block) and sm_due the set still to run, which
     * a sleeping SM woken for its turn in the block joins. */
    unsigned sm_first, sm_running;
    uint64_t *sm_due;
    /* gpu.order_free on a co-run GPU: while sm_phase is set (the SMs of a block are being
     * stepped) an SM keeps what reaches the others for the block's end (sm_block_done). */
    bool order_free, sm_phase;
    /* Shared dispatch (gpu_new_shared): no partition; the kernels with TBs left place them
     * in the order they were launched (fcfs, kernel indices), on idle SMs and beside other
     * kernels' TBs where there is room, and a completed grid stops the run at the end of its
     * block. */
    bool shared;
    bool grid_done;
    unsigned fcfs[SIM_MAX_KERNELS], nfcfs;
    uint64_t started_at[SIM_MAX_KERNELS]; /* when the grid placed its first TB */
};

#endif
