/* hsm — HSM §2: classifier, compute- and memory-bound NP, what-if, and its least squares.
 *
 * Choices the paper leaves open, made here:
 * - I_max is what sigma SMs (all of them, as in private mode) issue in E cycles at
 *   schedulers_per_sm instructions per SM per cycle: footnote 1 defines memory-bound as "more
 *   SMs would not help", so demand is judged at the private-mode SM count.
 * - MemAccesses is the epoch's row-buffer accesses (the paper's words), ReqSize the DRAM
 *   request size, f the core clock: B_d comes out in bytes per second, shown in GB/s.
 * - A kernel that issued nothing in the epoch has unbounded demand: memory-bound, and eq. 5
 *   then gives NP̂ from whatever bandwidth it had (0 when none).
 * - NP̂ is not capped: HSM does not cap it, and a cap would hide its errors. */
#include "corun/hsm.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"

void hsm_classify(const struct predict_gpu *gpu, const struct gpu_kernel_counters *c,
                  uint64_t epoch_cycles, double c1, double c2, struct hsm_demand *out)
{
    double e = (double)epoch_cycles;
    double f_hz = gpu->core_clock_mhz * 1e6;
    out->i_max = (double)gpu->sms * gpu->schedulers_per_sm * e;
    double ratio = c->instructions ? out->i_max / (double)c->instructions : INFINITY;
    out->demand_gbs =
        ratio * (double)c->row_accesses * gpu->request_bytes * (e > 0 ? f_hz / e : 0) / 1e9;
    out->potential_gbs = gpu->peak_gbs * (c1 * c->rbh + c2);
    /* No instructions and no DRAM traffic: nothing to judge, and NaN must not compare. */
    if (isnan(out->demand_gbs))
        out->demand_gbs = INFINITY;
    out->cls = out->demand_gbs > out->potential_gbs ? KERNEL_CLASS_MEMORY : KERNEL_CLASS_COMPUTE;
}

double hsm_np_compute(double sms, unsigned sigma)
{
    return sigma ? sms / sigma : NAN;
}

double hsm_np_memory(double bandwidth_util, double rbh, double c1, double c2)
{
    double beta = c1 * rbh + c2;
    return beta > 0 ? bandwidth_util / beta : NAN;
}

int hsm_fit_line(const double *x, const double *y, size_t n, double *c1, double *c2, double *r2)
{
    if (n < 2)
        return -1;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) {
        mx += x[i];
        my += y[i];
    }
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0)
        return -1;
    *c1 = sxy / sxx;
    *c2 = my - *c1 * mx;
    double sse = 0;
    for (size_t i = 0; i < n; i++) {
        double r = y[i] - (*c1 * x[i] + *c2);
        sse += r * r;
    }
    *r2 = syy > 0 ? 1 - sse / syy : 1;
    return 0;
}

/* The last epoch predicted, kept for np_at and explain. */
struct hsm_state {
    struct predict_gpu gpu;
    char path[256];
    double c1, c2;
    uint64_t epoch_cycles;
    unsigned nkernels;
    struct gpu_kernel_counters c[GPU_MAX_KERNELS];
    struct hsm_demand d[GPU_MAX_KERNELS];
    double np[GPU_MAX_KERNELS];
};

static void *hsm_create(const struct predict_gpu *gpu, const struct predict_model *model, char *err,
                        size_t errlen)
{
    if (!model || model->ncoef < 2) {
        snprintf(err, errlen, "hsm: needs c1 and c2 from a model file");
        return NULL;
    }
    double c1 = model->coef[0], c2 = model->coef[1];
    /* Predicted private-mode utilization must be positive for every RBH in [0, 1]. */
    if (!(c2 > 0) || !(c1 + c2 > 0)) {
        snprintf(err, errlen,
                 "%s: c1 = %g, c2 = %g predict no bandwidth at some row-buffer hit rate "
                 "(expected c2 > 0 and c1 + c2 > 0)",
                 model->path ? model->path : "hsm", c1, c2);
        return NULL;
    }
    struct hsm_state *s = xcalloc(1, sizeof(*s));
    s->gpu = *gpu;
    s->gpu.preset = NULL; /* not owned; explain does not need it */
    snprintf(s->path, sizeof s->path, "%s", model->path ? model->path : "(given)");
    s->c1 = c1;
    s->c2 = c2;
    return s;
}

static void hsm_destroy(void *state)
{
    free(state);
}

static void hsm_predict(void *state, const struct predict_input *in, struct predict_output *out)
{
    struct hsm_state *s = state;
    s->epoch_cycles = in->epoch_cycles;
    s->nkernels = in->nkernels;
    for (unsigned k = 0; k < in->nkernels; k++) {
        const struct gpu_kernel_counters *c = &in->c[k];
        s->c[k] = *c;
        hsm_classify(&s->gpu, c, in->epoch_cycles, s->c1, s->c2, &s->d[k]);
        s->np[k] = s->d[k].cls == KERNEL_CLASS_MEMORY
                       ? hsm_np_memory(c->bandwidth_util, c->rbh, s->c1, s->c2)
                       : hsm_np_compute(c->sms, s->gpu.sms);
        out->np[k] = s->np[k];
        out->cls[k] = s->d[k].cls;
    }
}

static double hsm_np_at(const void *state, unsigned k, double sms)
{
    const struct hsm_state *s = state;
    if (k >= s->nkernels || !(s->c[k].sms > 0))
        return NAN;
    return s->np[k] / s->c[k].sms * sms;
}

static void hsm_explain(const void *state, unsigned k, struct predict_text *t)
{
    const struct hsm_state *s = state;
    t->n = 0;
    if (k >= s->nkernels) {
        predict_text_add(t, "HSM: no epoch predicted yet");
        return;
    }
    const struct gpu_kernel_counters *c = &s->c[k];
    const struct hsm_demand *d = &s->d[k];
    bool mem = d->cls == KERNEL_CLASS_MEMORY;
    predict_text_add(t, "HSM (c1 %.4f, c2 %.4f from %s)", s->c1, s->c2, s->path);
    predict_text_add(t, "inputs: I_k %llu insts, S_k %.2f SMs, RBH %.3f, B_k %.3f of peak",
                     (unsigned long long)c->instructions, c->sms, c->rbh, c->bandwidth_util);
    predict_text_add(t, "        row accesses %llu, E %llu cycles, f %.0f MHz",
                     (unsigned long long)c->row_accesses, (unsigned long long)s->epoch_cycles,
                     s->gpu.core_clock_mhz);
    predict_text_add(t, "I_max = sigma %u x %u sched x E = %.4g insts", s->gpu.sms,
                     s->gpu.schedulers_per_sm, d->i_max);
    predict_text_add(t, "B_d = (I_max/I_k) x %llu x %u B x f/E = %.1f GB/s",
                     (unsigned long long)c->row_accesses, s->gpu.request_bytes, d->demand_gbs);
    predict_text_add(t, "B_p = %.1f GB/s x (c1 x %.3f + c2) = %.1f GB/s", s->gpu.peak_gbs, c->rbh,
                     d->potential_gbs);
    predict_text_add(t, "class: %s (B_d %s B_p)", mem ? "memory-bound" : "compute-bound",
                     mem ? ">" : "<=");
    if (mem)
        predict_text_add(t, "NP^ = B_k / (c1 x RBH + c2) = %.3f / %.3f = %.3f", c->bandwidth_util,
                         s->c1 * c->rbh + s->c2, s->np[k]);
    else
        predict_text_add(t, "NP^ = S_k / sigma = %.2f / %u = %.3f", c->sms, s->gpu.sms, s->np[k]);
    predict_text_add(t, "what-if: g = NP^ / S_k = %.4f per SM",
                     c->sms > 0 ? s->np[k] / c->sms : NAN);
}

const struct predictor_ops predictor_hsm = {
    .name = "hsm",
    .summary = "HSM: RBH-based classifier, NP from SM share or bandwidth (Zhao et al.)",
    .needs_private = false,
    .model = "hsm",
    .create = hsm_create,
    .destroy = hsm_destroy,
    .predict = hsm_predict,
    .np_at = hsm_np_at,
    .explain = hsm_explain,
};
