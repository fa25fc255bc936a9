/* themis — Themis §V: NP̂ from a small network over hardware events, and PSP (§VII-A).
 *
 * Choices the paper leaves open, made here (see also themis.h for the inputs):
 * - The output layer is linear; a slowdown under THEMIS_SD_FLOOR is read as the floor.
 * - One prediction per epoch: the paper's phases end at kernel boundaries, corun's epochs are
 *   the periods of its Fig. 7(b).
 * - A kernel without cycles or SMs in the epoch gets NaN: the model has nothing to say. */
#include "corun/themis.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/mlp.h"
#include "corun/util.h"

const unsigned themis_widths[THEMIS_LAYERS] = {THEMIS_INPUTS, THEMIS_HIDDEN, THEMIS_HIDDEN,
                                               THEMIS_OUTPUTS};
const char *const themis_input_names[THEMIS_INPUTS] = {
    "N_sm",     "IPC/SM",    "L1dAcc/SM", "L1dMiss/SM", "L1cAcc/SM", "L1cMiss/SM",
    "L2Acc/SM", "L2Miss/SM", "MemBW",     "co L2Acc",   "co L2Miss", "co MemBW"};

int themis_features(const struct gpu_kernel_counters *c, unsigned nkernels, unsigned k, double *x)
{
    const struct gpu_kernel_counters *me = &c[k];
    double cycles = (double)me->cycles, sm_cycles = me->sms * cycles;
    if (!(cycles > 0) || !(sm_cycles > 0))
        return -1;
    x[0] = me->sms;
    x[1] = (double)me->instructions / sm_cycles;
    x[2] = (double)me->l1d_accesses / sm_cycles;
    x[3] = (double)me->l1d_misses / sm_cycles;
    x[4] = (double)me->l1c_accesses / sm_cycles;
    x[5] = (double)me->l1c_misses / sm_cycles;
    x[6] = (double)me->l2_accesses / sm_cycles;
    x[7] = (double)me->l2_misses / sm_cycles;
    x[8] = me->bandwidth_util;
    x[9] = x[10] = x[11] = 0;
    for (unsigned j = 0; j < nkernels; j++) {
        if (j == k)
            continue;
        x[9] += (double)c[j].l2_accesses / cycles;
        x[10] += (double)c[j].l2_misses / cycles;
        x[11] += c[j].bandwidth_util;
    }
    return 0;
}

double themis_psp_np(double sd_scal_n, double sd_inter_n, double n, double m, double total)
{
    if (!(n > 0) || !(n <= total) || !(sd_scal_n > 0) || !(sd_inter_n > 0))
        return NAN;
    double pg_n = 1 / sd_scal_n;
    if (pg_n > 1)
        pg_n = 1;
    if (m < 0)
        m = 0;
    if (m > total)
        m = total;
    double pg_m;
    if (m <= n)
        pg_m = pg_n * (m - n) / n + pg_n;
    else
        pg_m = (1 - pg_n) * (m - n) / (total - n) + pg_n;
    /* SD_m = SD_scal_m * SD_inter_n, and NP = 1 / SD_m. */
    return pg_m / sd_inter_n;
}

void themis_slowdowns(const struct mlp *net, const double *mean, const double *scale,
                      const double *x, double *sd_scal, double *sd_inter)
{
    double z[THEMIS_INPUTS], sd[THEMIS_OUTPUTS];
    for (unsigned i = 0; i < THEMIS_INPUTS; i++)
        z[i] = (x[i] - mean[i]) / scale[i];
    mlp_forward(net, z, sd);
    *sd_scal = sd[0] > THEMIS_SD_FLOOR ? sd[0] : THEMIS_SD_FLOOR;
    *sd_inter = sd[1] > THEMIS_SD_FLOOR ? sd[1] : THEMIS_SD_FLOOR;
}

double themis_farthest_input(const double *mean, const double *scale, const double *x,
                             unsigned *which)
{
    double far = 0;
    *which = 0;
    for (unsigned i = 0; i < THEMIS_INPUTS; i++) {
        double z = fabs(x[i] - mean[i]) / scale[i];
        if (z > far) {
            far = z;
            *which = i;
        }
    }
    return far;
}

#define FIT_ALPHA  2.0   /* eq. 8 */
#define FIT_LAMBDA 0.001 /* eq. 8 */
#define FIT_RATE   0.003 /* Adam's step: stable for these sizes, chosen by corun */
#define FIT_BATCH  64

/* Mean and standard deviation of each input over the samples (a constant input: scale 1). */
static void normalization(const double *x, size_t n, double *mean, double *scale)
{
    for (unsigned i = 0; i < THEMIS_INPUTS; i++) {
        double sum = 0, sq = 0;
        for (size_t r = 0; r < n; r++)
            sum += x[r * THEMIS_INPUTS + i];
        mean[i] = n ? sum / (double)n : 0;
        for (size_t r = 0; r < n; r++) {
            double d = x[r * THEMIS_INPUTS + i] - mean[i];
            sq += d * d;
        }
        double sd = n ? sqrt(sq / (double)n) : 0;
        scale[i] = sd > 1e-12 ? sd : 1;
    }
}

double themis_fit(const double *x, const double *y, size_t n, unsigned epochs, uint64_t seed,
                  double *weights)
{
    struct mlp net;
    mlp_init(&net, themis_widths, THEMIS_LAYERS, seed);
    assert(2 * THEMIS_INPUTS + net.nparams == THEMIS_WEIGHTS);
    double *mean = weights, *scale = weights + THEMIS_INPUTS;
    normalization(x, n, mean, scale);
    double *z = xmalloc((n ? n : 1) * THEMIS_INPUTS * sizeof(*z));
    for (size_t r = 0; r < n; r++)
        for (unsigned i = 0; i < THEMIS_INPUTS; i++)
            z[r * THEMIS_INPUTS + i] = (x[r * THEMIS_INPUTS + i] - mean[i]) / scale[i];
    /* Both outputs start at a slowdown of 1 (none) rather than 0. */
    net.params[net.nparams - 1] = net.params[net.nparams - 2] = 1;
    struct mlp_train_options o = {
        .alpha = FIT_ALPHA,
        .lambda = FIT_LAMBDA,
        .learning_rate = FIT_RATE,
        .epochs = epochs,
        .batch = FIT_BATCH,
        .seed = seed,
    };
    double loss = mlp_train(&net, z, y, n, &o);
    memcpy(weights + 2 * THEMIS_INPUTS, net.params, net.nparams * sizeof(*net.params));
    free(z);
    mlp_done(&net);
    return loss;
}

struct themis_state {
    struct predict_gpu gpu;
    char path[256];
    struct mlp net;
    double mean[THEMIS_INPUTS], scale[THEMIS_INPUTS];
    unsigned nkernels;
    bool valid[GPU_MAX_KERNELS];
    double x[GPU_MAX_KERNELS][THEMIS_INPUTS];
    double sd_scal[GPU_MAX_KERNELS], sd_inter[GPU_MAX_KERNELS];
    double n_sm[GPU_MAX_KERNELS], np[GPU_MAX_KERNELS];
};

static void *themis_create(const struct predict_gpu *gpu, const struct predict_model *model,
                           char *err, size_t errlen)
{
    const char *path = model && model->path ? model->path : "themis";
    if (!model || model->nlayers != THEMIS_LAYERS || !model->layers || !model->weights) {
        snprintf(err, errlen, "%s: themis needs a network of %d layers from a model file", path,
                 THEMIS_LAYERS);
        return NULL;
    }
    if (model->layers[0] != THEMIS_INPUTS || model->layers[THEMIS_LAYERS - 1] != THEMIS_OUTPUTS) {
        snprintf(err, errlen,
                 "%s: the network has %u inputs and %u outputs, themis needs %d and %d", path,
                 model->layers[0], model->layers[THEMIS_LAYERS - 1], THEMIS_INPUTS, THEMIS_OUTPUTS);
        return NULL;
    }
    struct themis_state *s = xcalloc(1, sizeof(*s));
    if (mlp_init(&s->net, model->layers, model->nlayers, 0) != 0 ||
        model->nweights != 2 * THEMIS_INPUTS + s->net.nparams) {
        snprintf(err, errlen, "%s: %zu weights do not fit the network's layers", path,
                 model->nweights);
        mlp_done(&s->net);
        free(s);
        return NULL;
    }
    for (unsigned i = 0; i < THEMIS_INPUTS; i++) {
        s->mean[i] = model->weights[i];
        s->scale[i] = model->weights[THEMIS_INPUTS + i];
        if (!(s->scale[i] > 0)) {
            snprintf(err, errlen, "%s: input_scale of %s must be > 0, got %g", path,
                     themis_input_names[i], s->scale[i]);
            mlp_done(&s->net);
            free(s);
            return NULL;
        }
    }
    mlp_set_params(&s->net, model->weights + 2 * THEMIS_INPUTS, s->net.nparams);
    s->gpu = *gpu;
    s->gpu.preset = NULL; /* not owned */
    snprintf(s->path, sizeof s->path, "%s", path);
    return s;
}

static void themis_destroy(void *state)
{
    struct themis_state *s = state;
    if (!s)
        return;
    mlp_done(&s->net);
    free(s);
}

static void themis_predict(void *state, const struct predict_input *in, struct predict_output *out)
{
    struct themis_state *s = state;
    s->nkernels = in->nkernels;
    for (unsigned k = 0; k < in->nkernels; k++) {
        out->cls[k] = KERNEL_CLASS_NONE;
        out->np[k] = s->np[k] = NAN;
        s->valid[k] = themis_features(in->c, in->nkernels, k, s->x[k]) == 0;
        if (!s->valid[k])
            continue;
        themis_slowdowns(&s->net, s->mean, s->scale, s->x[k], &s->sd_scal[k], &s->sd_inter[k]);
        unsigned far_input;
        out->far[k] = themis_farthest_input(s->mean, s->scale, s->x[k], &far_input) > THEMIS_FAR_Z;
        s->n_sm[k] = in->c[k].sms;
        out->np[k] = s->np[k] = 1 / (s->sd_scal[k] * s->sd_inter[k]);
    }
}

static double themis_np_at(const void *state, unsigned k, double sms)
{
    const struct themis_state *s = state;
    if (k >= s->nkernels || !s->valid[k])
        return NAN;
    return themis_psp_np(s->sd_scal[k], s->sd_inter[k], s->n_sm[k], sms, s->gpu.sms);
}

static void themis_explain(const void *state, unsigned k, struct predict_text *t)
{
    const struct themis_state *s = state;
    t->n = 0;
    if (k >= s->nkernels || !s->valid[k]) {
        predict_text_add(t, "Themis: no epoch with cycles and SMs predicted yet");
        return;
    }
    const double *x = s->x[k];
    predict_text_add(t, "Themis network %u-%u-%u-%u from %s", s->net.width[0], s->net.width[1],
                     s->net.width[2], s->net.width[3], s->path);
    predict_text_add(t, "N_sm %.2f  IPC/SM %.3f  MemBW %.3f of peak", x[0], x[1], x[8]);
    predict_text_add(t, "per SM-cycle: L1d %.4f acc %.4f miss, L1c %.4f acc %.4f miss", x[2], x[3],
                     x[4], x[5]);
    predict_text_add(t, "              L2 %.4f acc %.4f miss", x[6], x[7]);
    predict_text_add(t, "co-runners: L2 %.3f acc %.3f miss per cycle, MemBW %.3f", x[9], x[10],
                     x[11]);
    predict_text_add(t, "SD_scal = %.3f (fewer SMs), SD_inter = %.3f (sharing)", s->sd_scal[k],
                     s->sd_inter[k]);
    predict_text_add(t, "NP^ = 1 / (SD_scal x SD_inter) = %.3f", s->np[k]);
    unsigned i;
    double z = themis_farthest_input(s->mean, s->scale, x, &i);
    if (z > THEMIS_FAR_Z)
        predict_text_add(t, "extrapolating: %s is %.1f SD %s the training mean",
                         themis_input_names[i], z, x[i] > s->mean[i] ? "above" : "below");
    double half = s->gpu.sms / 2.0;
    predict_text_add(
        t, "PSP: NP on %.0f SMs %.3f, on %u SMs %.3f", half,
        themis_psp_np(s->sd_scal[k], s->sd_inter[k], s->n_sm[k], half, s->gpu.sms), s->gpu.sms,
        themis_psp_np(s->sd_scal[k], s->sd_inter[k], s->n_sm[k], s->gpu.sms, s->gpu.sms));
}

const struct predictor_ops predictor_themis = {
    .name = "themis",
    .summary = "Themis: a 12-12-12-2 network over hardware events, PSP what-if (Zhao et al.)",
    .needs_private = false,
    .flags_far = true,
    .model = "themis",
    .create = themis_create,
    .destroy = themis_destroy,
    .predict = themis_predict,
    .np_at = themis_np_at,
    .explain = themis_explain,
};
