/* prophet_model — the interference models of Prophet (Chen et al., ASPLOS 2017, §4–5) as
 * functions of solo-run profiles: the sequential task execution model (eq. 1), the concurrent
 * task execution model (batches of warps on free processing elements, eqs. 2–5) and the PCIe
 * data transfer model (bandwidth-sharing segments, eqs. 6–8; queueing behind and pre-emption
 * by bandwidth-exclusive copies, eq. 9 and §5.2.3).
 *
 * These are the predictor's equations, not the simulator's: nothing here is used to produce a
 * ground truth. Times are in nanoseconds, bandwidths in GB/s (bytes per ns). A processing
 * element (PE) is an SM. */
#ifndef CORUN_PROPHET_MODEL_H
#define CORUN_PROPHET_MODEL_H

#include <stddef.h>

/* The hardware side of Table 1. */
struct prophet_hw {
    unsigned pes;              /* N_p */
    unsigned max_warps_per_pe; /* N_mw */
    double mem_gbs;            /* GB: effective global-memory bandwidth */
    /* 0: sharing copies join with eqs. 6-8 as written; 1: with prophet_bs_submit_even, corun's
     * variant (the predictor prophet-even), not the paper's */
    int bs_even;
};

/* A computational task's solo profile (Table 1's task side). */
struct prophet_kernel {
    double solo_ns;       /* t: its duration alone */
    unsigned warps;       /* N_w */
    double occupancy;     /* Occu: active warps / N_mw, in (0, 1] */
    double bw_per_pe_gbs; /* bw: global-memory bandwidth one PE of it asks for */
};

/* Eq. 1, sequential execution: a task of duration t_run submitted at submit_ns behind m
 * queued tasks of durations queued[0..m) and a running one with remain_ns left completes at
 * submit_ns + t_run + sum(queued) + remain_ns. */
double prophet_sequential_end_ns(double submit_ns, double t_run, const double *queued, size_t m,
                                 double remain_ns);

/* Warps of k one PE runs in a batch: N_mw x Occu (at least 1). */
unsigned prophet_warps_per_pe(const struct prophet_hw *hw, const struct prophet_kernel *k);
/* Batches of k alone on every PE: ceil(N_w / (N_mw x Occu x N_p)). */
unsigned prophet_batches(const struct prophet_hw *hw, const struct prophet_kernel *k);
/* PEs a batch of k with warps_left warps still to run takes when free_pes are free: as many as
 * its warps fill (Observation 1), at most free_pes. */
unsigned prophet_batch_pes(const struct prophet_hw *hw, const struct prophet_kernel *k,
                           unsigned warps_left, unsigned free_pes);
/* Eq. 2: one batch of k alone, without bandwidth contention:
 * t / batches x min(1, GB / (bw x P)), where the paper has P = N_p and corun takes the PEs k's
 * warps fill alone (at most N_p): a task too small for every PE never asked bw x N_p. */
double prophet_batch_solo_ns(const struct prophet_hw *hw, const struct prophet_kernel *k);
/* Eq. 3: a batch of solo_batch_ns on pe PEs of bandwidth bw per PE, beside other active tasks
 * that ask others_gbs (the sum of bw_i x pe_i): solo_batch_ns x max(1, (bw x pe + others) / GB). */
double prophet_batch_ns(double solo_batch_ns, double bw_per_pe_gbs, unsigned pe, double others_gbs,
                        double mem_gbs);
/* Eq. 5: how much later an active task ends when a batch asking new_gbs (bw x pe) overlaps it
 * for overlap_ns while the active tasks ask active_gbs:
 * t_ol x (max(1, (new + active) / GB) / max(1, active / GB) - 1). */
double prophet_overlap_delay_ns(double overlap_ns, double new_gbs, double active_gbs,
                                double mem_gbs);

/* Eqs. 6–8: a bandwidth-sharing copy of solo duration t_run submitted at submit_ns while n
 * sharing copies are active and expected to end at ends[0..n) (ascending). The time from
 * submit_ns to the last end is cut into segments at every expected end and at the new copy's
 * own (submit_ns + t_run); a segment of duration OD shared by ON active copies (ON = those
 * not ended before it ends) and N = ON + 1 while it lies before the new copy's end, N = ON
 * after, lasts D = OD x N / ON (OD when ON = 0: the new copy alone). Each copy then ends at
 * submit_ns plus the D of the segments up to its own. ends is updated in place (still
 * ascending); returns the new copy's end. */
double prophet_bs_submit(double *ends, size_t n, double submit_ns, double t_run);
/* corun's variant of eqs. 6-8, not the paper's: the link split evenly among every sharing copy
 * in flight, the new one included (processor sharing). What each copy in flight has left, in
 * time alone on the link, follows from ends[0..n) (ascending) under an even split since
 * submit_ns; then n + 1 copies share it, each ending in the order of what it has left. Equal
 * to prophet_bs_submit when n <= 1; with more copies in flight the new one takes up to n + 1
 * times t_run where the equations as written give it (n + 1) / n. ends is updated in place
 * (still ascending); returns the new copy's end. */
double prophet_bs_submit_even(double *ends, size_t n, double submit_ns, double t_run);
/* Eq. 9: a copy submitted at submit_ns while an exclusive copy with remain_ns left moves and
 * n exclusive copies of durations queued[0..n) wait starts at submit_ns + remain_ns +
 * sum(queued). */
double prophet_be_start_ns(double submit_ns, double remain_ns, const double *queued, size_t n);
/* §5.2.3: an exclusive copy of solo duration t submitted while sharing copies move pauses
 * them: each of ends[0..n) moves t later. */
void prophet_be_preempt(double *ends, size_t n, double t);

#endif
