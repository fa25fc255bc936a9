/* sm — one streaming multiprocessor: TB slots, warps, GTO warp schedulers, the L1 data and
 * constant caches, and the SM's side of the crossbar.
 *
 * A warp issues its next instruction when its previous result is ready (compute dependency
 * latency), when it has fewer than `mlp` loads outstanding, and when the structures a memory
 * instruction needs (L1 MSHRs, the request queue) have room; otherwise a scheduler moves on to
 * the next oldest ready warp. Loads complete when all their line requests have returned.
 * Stores write through the L1 without allocating (the LLC keeps the dirty data).
 *
 * The SM is stepped only in cycles where something can happen, and in blocks: the core runs
 * each awake SM through all its busy cycles of a block of a few cycles before moving to the
 * next SM (its state stays in the host's cache), then runs the slices and DRAM cycle by cycle
 * through the same block. A block is shorter than the crossbar's reply latency, so no reply
 * can arrive inside a block already run; other wake-ups (room in an LLC queue, new TBs) that
 * fall inside it are deferred to the block's end. */
#ifndef CORUN_SM_H
#define CORUN_SM_H

#include "corun/kstate.h"
#include "corun/simenv.h"

#include <stdbool.h>
#include <stdint.h>

#define SM_MAX_WARPS        64
#define SM_MAX_TBS          64
#define SM_MAX_SCHEDULERS   8
#define SM_MAX_MLP          32
#define SM_MAX_DEP_LATENCY  255  /* dependency wheel span - 1 */
#define SM_UNIT_MAX_LATENCY 1000 /* SFU, FP64 and shared-memory latency */
#define SM_MAX_LINES        32   /* line requests of one memory instruction */
#define SM_OWNER_IDLE       (-1)
#define SM_OWNER_GATED      (-2)

enum sm_state {
    SM_IDLE,  /* powered, no kernel */
    SM_GATED, /* power-gated */
    SM_RUN,   /* runs its owner's TBs */
    SM_DRAIN, /* finishes its TBs, takes no new ones, then switches owner */
    SM_SAVE,  /* waits for outstanding loads, saves its TBs, then switches owner */
};

enum sm_switch { SM_SWITCH_DRAIN, SM_SWITCH_SAVE };

struct sm;

/* SM number id in env, idle; seed feeds its PRNG; hist_lines sizes its reuse history. */
struct sm *sm_new(unsigned id, struct sim_env *env, uint64_t seed, unsigned hist_lines);
void sm_delete(struct sm *sm);
/* Makes the SM's reuse history hold at least hist_lines lines (a kernel with a larger reuse
 * window joined the mix); the lines it holds stay, so its current kernel's accesses do not
 * change. */
void sm_grow_hist(struct sm *sm, unsigned hist_lines);

/* Steps the SM through every cycle before block_end at which it has work, then registers its
 * next such cycle with env->sm_wake. */
void sm_run_block(struct sm *sm, uint64_t block_end);
/* Asks for the SM to be stepped at cycle t (or at env->sm_block_end if that is later). */
void sm_wake(struct sm *sm, uint64_t t);
/* An SM asleep in a compute rotation gets the state the per-cycle model has at this point of
 * the block (env->sm_running says which SMs have run it), so it can be read or changed, and is
 * scheduled to run from there; any other SM is left alone. */
void sm_touch(struct sm *sm);
/* Adds the instructions that SMs asleep in a rotation issued up to this point to their
 * kernels' counters, before these are read. (kstate_tb_finished reads insts_total when a
 * launch completes, but then no SM holds a TB of that kernel, so none of its SMs sleeps.) */
void sm_count_lazy(struct sim_env *env);
/* The slice sm waited for has room again: the SM tries its refused request from cycle t. */
void sm_room(struct sm *sm, uint64_t t);
/* A line reply from the LLC that reaches the SM at cycle arrival (for the constant cache when
 * is_const). */
void sm_deliver(struct sm *sm, uint64_t arrival, uint64_t line, bool is_const);
/* Order-free rules: what the SMs stepped on one thread in a block leave for its end, kept
 * apart per thread so that threads do not write to the same host cache lines: which SMs sent
 * requests and which have TB business (finished, to save, wanting TBs), bits by SM; when each
 * asks to be stepped next; and their counts per kernel. */
struct sm_lane_wake {
    unsigned sm;
    uint64_t t;
};
struct sm_lane {
    unsigned words; /* of sent and tb */
    uint64_t *sent, *tb;
    unsigned nwake;
    struct sm_lane_wake *wake; /* room for every SM */
    uint32_t kc_dirty;         /* kernels (bits) with counts in kc */
    struct kstate_counters kc[SIM_MAX_KERNELS];
};
struct sm_lane *sm_lane_new(unsigned nsms);
void sm_lane_delete(struct sm_lane *lane);
/* sm_run_block under the order-free rules, with what reaches the others left in lane. */
void sm_run_block_in(struct sm *sm, struct sm_lane *lane, uint64_t block_end);
/* Order-free rules (env->order_free), after the SMs of the block [env->sm_block_start,
 * env->sm_block_end) ran, in whatever order and on whatever threads, with lanes[0..nlanes):
 * their requests go to the slices SM by SM from env->sm_first, and what they did to the grids
 * (TBs finished, saved, wanted) is done in order of SM number, at the block's last cycle. The
 * lanes are left empty. */
void sm_block_done(struct sim_env *env, struct sm_lane *const *lanes, unsigned nlanes);
/* Hands kernel k's waiting TBs to its SMs with free slots, one per SM per round, at cycle now
 * (after a relaunch, a context switch, or a new partition). */
void sm_dispatch(struct sim_env *env, struct kstate *k, uint64_t now);
/* Gives the SM to owner (a kernel index, SM_OWNER_IDLE or SM_OWNER_GATED) at cycle now. An SM
 * still running another kernel's TBs drains or saves them first, as `how` says. An SM that
 * switches at once takes no TBs: the caller runs sm_dispatch for its kernels afterwards. */
void sm_set_owner(struct sm *sm, int owner, enum sm_switch how, uint64_t now);
/* Shared dispatch (sim_env.shared, sm_shared.c): the grids of env->fcfs with TBs left place
 * them on idle SMs and in room beside other kernels' TBs, oldest first, each only once the
 * older ones have none left; drops the grids that have none left from it. */
void sm_shared_dispatch(struct sim_env *env, uint64_t now);

/* The owner the SM has been given (it may still be switching to it). */
int sm_owner(const struct sm *sm);
/* The kernel whose TBs the SM holds or runs, else SM_OWNER_IDLE / SM_OWNER_GATED: the SM's
 * time is counted for it. */
int sm_attributed(const struct sm *sm);
/* Cycle since which the SM's time has been counted for sm_attributed. */
uint64_t sm_attributed_since(const struct sm *sm);
enum sm_state sm_state(const struct sm *sm);
unsigned sm_resident_tbs(const struct sm *sm);
/* TBs of kernel k the SM holds (in shared-dispatch mode an SM may hold several kernels'). */
unsigned sm_kernel_tbs(const struct sm *sm, unsigned k);
/* TBs finished on this SM since sm_reset_counters, and in the epoch before that. */
uint64_t sm_tbs_finished(const struct sm *sm);
uint64_t sm_tbs_finished_prev(const struct sm *sm);
/* SM-cycles spent idle and gated since sm_reset_counters (closed intervals only). */
uint64_t sm_idle_cycles(const struct sm *sm);
uint64_t sm_gated_cycles(const struct sm *sm);
/* Starts a counter epoch at cycle now. */
void sm_reset_counters(struct sm *sm, uint64_t now);
/* Cycles a context switch of the SM's resident TBs would take. */
uint64_t sm_save_cost(const struct sm *sm);

#endif
