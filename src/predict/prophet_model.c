/* prophet_model — Prophet's equations 1–9, each as written in the paper (§4–5). */
#include "corun/prophet_model.h"

#include <assert.h>
#include <math.h>

double prophet_sequential_end_ns(double submit_ns, double t_run, const double *queued, size_t m,
                                 double remain_ns)
{
    double end = submit_ns + t_run + remain_ns;
    for (size_t i = 0; i < m; i++)
        end += queued[i];
    return end;
}

unsigned prophet_warps_per_pe(const struct prophet_hw *hw, const struct prophet_kernel *k)
{
    unsigned w = (unsigned)floor(hw->max_warps_per_pe * k->occupancy + 1e-9);
    return w ? w : 1;
}

unsigned prophet_batches(const struct prophet_hw *hw, const struct prophet_kernel *k)
{
    unsigned per_batch = prophet_warps_per_pe(hw, k) * hw->pes;
    return (k->warps + per_batch - 1) / per_batch;
}

unsigned prophet_batch_pes(const struct prophet_hw *hw, const struct prophet_kernel *k,
                           unsigned warps_left, unsigned free_pes)
{
    unsigned per_pe = prophet_warps_per_pe(hw, k);
    unsigned need = (warps_left + per_pe - 1) / per_pe;
    return need < free_pes ? need : free_pes;
}

double prophet_batch_solo_ns(const struct prophet_hw *hw, const struct prophet_kernel *k)
{
    unsigned nb = prophet_batches(hw, k);
    /* The paper writes bw x N_p: the demand of the task on every PE. A task whose warps fill
     * fewer PEs than there are runs alone on those only, so corun counts them. */
    unsigned pes = prophet_batch_pes(hw, k, k->warps, hw->pes);
    double demand = k->bw_per_pe_gbs * pes;
    double scale = demand > hw->mem_gbs ? hw->mem_gbs / demand : 1.0;
    return k->solo_ns / (nb ? nb : 1) * scale;
}

double prophet_batch_ns(double solo_batch_ns, double bw_per_pe_gbs, unsigned pe, double others_gbs,
                        double mem_gbs)
{
    double demand = bw_per_pe_gbs * pe + others_gbs;
    return solo_batch_ns * fmax(1.0, demand / mem_gbs);
}

double prophet_overlap_delay_ns(double overlap_ns, double new_gbs, double active_gbs,
                                double mem_gbs)
{
    double with = fmax(1.0, (new_gbs + active_gbs) / mem_gbs);
    double without = fmax(1.0, active_gbs / mem_gbs);
    return overlap_ns * (with / without - 1.0);
}

double prophet_bs_submit(double *ends, size_t n, double submit_ns, double t_run)
{
    double d_end = submit_ns + t_run, d_new = d_end;
    double prev = submit_ns, acc = submit_ns;
    size_t j = 0;
    int d_placed = 0;
    while (j < n || !d_placed) {
        assert(j == n || ends[j] >= submit_ns);
        int is_d = !d_placed && (j == n || d_end <= ends[j]);
        double boundary = is_d ? d_end : ends[j];
        double od = boundary - prev;
        double on = (double)(n - j);             /* eq. 7's ON: existing copies still on */
        double nn = on + (d_placed ? 0.0 : 1.0); /* eq. 6: one more while d moves */
        acc += on > 0 ? od * nn / on : od;       /* eq. 7 */
        prev = boundary;
        if (is_d) {
            d_new = acc;
            d_placed = 1;
        } else {
            ends[j++] = acc; /* eq. 8 */
        }
    }
    return d_new;
}

double prophet_bs_submit_even(double *ends, size_t n, double submit_ns, double t_run)
{
    /* what each copy in flight has left, in time alone on the link: ends[] becomes that */
    double prev = submit_ns, left = 0;
    for (size_t j = 0; j < n; j++) {
        assert(ends[j] >= prev);
        left += (ends[j] - prev) / (double)(n - j);
        prev = ends[j];
        ends[j] = left;
    }
    /* n + 1 copies share the link evenly; the one with the least left ends first */
    double t = submit_ns, done = 0, d_end = submit_ns;
    double sharing = (double)n + 1;
    size_t j = 0;
    int d_placed = 0;
    while (j < n || !d_placed) {
        int is_d = !d_placed && (j == n || t_run <= ends[j]);
        double w = is_d ? t_run : ends[j];
        t += (w - done) * sharing;
        done = w;
        sharing -= 1;
        if (is_d) {
            d_end = t;
            d_placed = 1;
        } else {
            ends[j++] = t;
        }
    }
    return d_end;
}

double prophet_be_start_ns(double submit_ns, double remain_ns, const double *queued, size_t n)
{
    double start = submit_ns + remain_ns;
    for (size_t i = 0; i < n; i++)
        start += queued[i];
    return start;
}

void prophet_be_preempt(double *ends, size_t n, double t)
{
    for (size_t i = 0; i < n; i++)
        ends[i] += t;
}
