/* oracle — the private-mode reference as a predictor: NP̂ is the true NP the session measured
 * by running each kernel alone. It exists only in simulation (a real GPU cannot know it) and
 * is labelled so; it is the yardstick the other predictors are compared against. It has no
 * what-if: the true NP at another SM count would need another simulation. */
#include <math.h>
#include <stdlib.h>

#include "corun/predict.h"
#include "corun/util.h"

struct oracle_state {
    unsigned nkernels;
    double np[GPU_MAX_KERNELS];
};

static void *oracle_create(const struct predict_gpu *gpu, const struct predict_model *model,
                           char *err, size_t errlen)
{
    (void)gpu, (void)model, (void)err, (void)errlen;
    return xcalloc(1, sizeof(struct oracle_state));
}

static void oracle_destroy(void *state)
{
    free(state);
}

static void oracle_predict(void *state, const struct predict_input *in, struct predict_output *out)
{
    struct oracle_state *s = state;
    s->nkernels = in->nkernels;
    for (unsigned k = 0; k < in->nkernels; k++) {
        /* np_private is always given to a needs_private predictor; NaN if a caller forgot. */
        double np = in->np_private && in->np_private[k] > 0 ? in->np_private[k] : NAN;
        s->np[k] = np;
        out->np[k] = np;
        out->cls[k] = KERNEL_CLASS_NONE;
    }
}

static void oracle_explain(const void *state, unsigned k, struct predict_text *t)
{
    const struct oracle_state *s = state;
    t->n = 0;
    predict_text_add(t, "oracle: PRIVATE-MODE TRUTH (simulation only, not a real predictor)");
    if (k >= s->nkernels) {
        predict_text_add(t, "no epoch predicted yet");
        return;
    }
    predict_text_add(t, "NP^ = true NP = private cycles for the epoch's insts / epoch cycles");
    predict_text_add(t, "    = %.4f", s->np[k]);
}

const struct predictor_ops predictor_oracle = {
    .name = "oracle",
    .summary = "private-mode truth (simulation only): the true NP, as a reference",
    .needs_private = true,
    .model = NULL,
    .create = oracle_create,
    .destroy = oracle_destroy,
    .predict = oracle_predict,
    .np_at = NULL,
    .explain = oracle_explain,
};
