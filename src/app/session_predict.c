/* session_predict — the session's active predictor: choosing it, loading its model file, and
 * running it on each epoch's counters. Predictors get only the GPU's counters; the private
 * truth (np_true) goes to a predictor that declares it needs it (the oracle), nowhere else. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_predict.h"
#include "corun/conftable.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/modelfile.h"
#include "corun/util.h"
#include "session_internal.h"

/* "unknown predictor" with the known names (and "none") and a did-you-mean. */
static void unknown_predictor(const char *name, char *err, size_t errlen)
{
    const char *names[32];
    size_t n = predict_registry_names(names, CORUN_ARRAY_LEN(names) - 1);
    if (n > CORUN_ARRAY_LEN(names) - 1)
        n = CORUN_ARRAY_LEN(names) - 1;
    names[n++] = "none";
    char *known = conf_known_names(name, names, n);
    if (accel_predictor_find(name) >= 0) /* a name of the other mode: say so */
        snprintf(err, errlen,
                 "predictor \"%s\" is for accelerator scenarios (mode = \"accelerator\"); this "
                 "scenario is spatial%s",
                 name, known);
    else
        snprintf(err, errlen, "unknown predictor \"%s\"%s", name, known);
    free(known);
}

/* Load ops' model file for the session's preset into *model (path: *path_out, to free). A
 * network's arrays in *model stay *m's: release m with modelfile_done after create. When it
 * was trained on another configuration than the session's (or does not say), warning[wlen]
 * says so; else it is empty. Returns 0, or -1 with every message joined in err. */
static int load_model(const struct session *s, const struct predictor_ops *ops,
                      struct predict_model *model, struct modelfile *mf, char **path_out,
                      char *warning, size_t wlen, char *err, size_t errlen)
{
    char *datadir = datadir_locate();
    char *path = modelfile_path(datadir, ops->model, s->sc->gpu_name);
    struct diag d;
    diag_init(&d);
    struct modelfile m;
    int rc = modelfile_load(path, ops->model, s->sc->gpu_name, &m, &d);
    *mf = m;
    if (rc != 0) {
        diag_join(&d, err, errlen);
        free(path);
    } else {
        memset(model, 0, sizeof(*model));
        model->coef[0] = m.c1;
        model->coef[1] = m.c2;
        model->ncoef = 2;
        model->layers = m.layers;
        model->nlayers = (unsigned)m.nlayers;
        model->weights = m.weights;
        model->nweights = m.nweights;
        model->path = path;
        *path_out = path;
        modelfile_training_warning(&m, path, s->sc->gpu_name, s->sc->gpu.sms, &s->sc->gpu, datadir,
                                   warning, wlen);
    }
    free(datadir);
    diag_done(&d);
    return rc;
}

void session_drop_predictor(struct session *s)
{
    if (s->pred && s->pred->priority_epoch_cycles && s->gpu)
        gpu_set_priority_epochs(s->gpu, 0);
    if (s->pred)
        s->pred->destroy(s->pred_state);
    s->pred = NULL;
    s->pred_state = NULL;
}

/* session_predictor_new, and the model's training-range warning in warning[wlen] ("" none). */
static void *predictor_new(const struct session *s, const struct predictor_ops *ops,
                           char **model_path, char *warning, size_t wlen, char *err, size_t errlen)
{
    warning[0] = '\0';
    const struct gpu_config *g = &s->sc->gpu;
    struct predict_gpu pg = {
        .preset = s->sc->gpu_name,
        .sms = g->sms,
        .schedulers_per_sm = g->schedulers_per_sm,
        .core_clock_mhz = g->core_clock_mhz,
        .peak_gbs = gpu_config_peak_gbs(g),
        .request_bytes = g->dram.request_bytes,
        .dram_clock_mhz = g->dram.clock_mhz,
    };
    struct predict_model model;
    struct modelfile mf = {0};
    char *path = NULL;
    if (ops->model && load_model(s, ops, &model, &mf, &path, warning, wlen, err, errlen) != 0)
        return NULL;
    void *state = ops->create(&pg, ops->model ? &model : NULL, err, errlen);
    modelfile_done(&mf);
    if (state && model_path)
        *model_path = path;
    else
        free(path);
    return state;
}

void *session_predictor_new(const struct session *s, const struct predictor_ops *ops,
                            char **model_path, char *err, size_t errlen)
{
    char warning[8];
    return predictor_new(s, ops, model_path, warning, sizeof warning, err, errlen);
}

/* Log warning (a model used outside its training configuration) as a "warning" event, once
 * per predictor and configuration: not again while the warning stays the same. */
static int warn_once(struct session *s, const struct predictor_ops *ops, const char *warning)
{
    size_t i = 0;
    while (i < predict_registry_count() && predict_registry_at(i) != ops)
        i++;
    if (i >= SESSION_MAX_PREDICTORS || strcmp(s->model_warned[i], warning) == 0)
        return 0;
    snprintf(s->model_warned[i], sizeof s->model_warned[i], "%s", warning);
    return *warning ? session_note(s, "warning", warning) : 0;
}

int session_predictor_known(const char *name, char *err, size_t errlen)
{
    if (!name || !*name || strcmp(name, "none") == 0 || predict_registry_find(name))
        return 0;
    unknown_predictor(name, err, errlen);
    return -1;
}

int session_set_predictor(struct session *s, const char *name, char *err, size_t errlen)
{
    if (!s->gpu) {
        snprintf(err, errlen, "a replay does not predict: branch it first");
        return -1;
    }
    const struct predictor_ops *ops = NULL;
    if (name && *name && strcmp(name, "none") != 0) {
        ops = predict_registry_find(name);
        if (!ops) {
            unknown_predictor(name, err, errlen);
            return -1;
        }
    }
    if (!ops && !s->pred)
        return 0; /* none again: nothing to restart, nothing to log */
    void *state = NULL;
    char *model_path = NULL, warning[256] = "";
    if (ops && !(state = predictor_new(s, ops, &model_path, warning, sizeof warning, err, errlen)))
        return -1;
    char text[256];
    const char *to = ops ? ops->name : "none";
    snprintf(text, sizeof text, "%s -> %s%s%s%s%s%s", session_predictor_name(s), to,
             model_path ? " (model " : "", model_path ? model_path : "", model_path ? ")" : "",
             ops && ops->needs_private ? " [private-mode truth, simulation only]" : "",
             strcmp(session_predictor_name(s), to) == 0 ? " (restarted)" : "");
    free(model_path);
    session_drop_predictor(s);
    s->pred = ops;
    s->pred_state = state;
    if (ops && ops->priority_epoch_cycles) /* ASM samples its alone rate in priority epochs */
        gpu_set_priority_epochs(s->gpu, ops->priority_epoch_cycles);
    if (session_note(s, "predictor", text) != 0 || (ops && warn_once(s, ops, warning) != 0)) {
        snprintf(err, errlen, "%s", s->error);
        return -1;
    }
    return 0;
}

int session_restart_predictor(struct session *s)
{
    if (!s->pred)
        return 0;
    char err[400], warning[256];
    void *state = predictor_new(s, s->pred, NULL, warning, sizeof warning, err, sizeof err);
    if (!state) {
        snprintf(s->error, sizeof s->error, "%s: %s", s->pred->name, err);
        return -1;
    }
    s->pred->destroy(s->pred_state);
    s->pred_state = state;
    return warn_once(s, s->pred, warning);
}

const char *session_predictor_name(const struct session *s)
{
    return s->pred ? s->pred->name : "none";
}

int session_predictor_explain(const struct session *s, unsigned k, struct predict_text *out)
{
    out->n = 0;
    unsigned slot[GPU_MAX_KERNELS], n = session_live(s, slot);
    for (unsigned i = 0; s->pred && i < n; i++) {
        if (slot[i] == k) { /* the predictor knows the mix as a compact list */
            s->pred->explain(s->pred_state, i, out);
            return 0;
        }
    }
    return -1;
}

/* Run ops on epoch e's counters (and its private truth when ops needs it). The predictor
 * sees the kernels in the mix as a compact list; out is indexed by kernel. */
static void predict_from(const struct predictor_ops *ops, void *state,
                         const struct session_epoch *e, struct predict_output *out)
{
    struct gpu_kernel_counters c[GPU_MAX_KERNELS];
    double np_private[GPU_MAX_KERNELS];
    unsigned slot[GPU_MAX_KERNELS], n = 0;
    for (unsigned k = 0; k < e->nkernels; k++) {
        out->np[k] = NAN;
        out->cls[k] = KERNEL_CLASS_NONE;
        out->far[k] = false;
        if (!e->k[k].in_mix)
            continue;
        c[n] = e->k[k].c;
        np_private[n] = e->k[k].np_true;
        slot[n++] = k;
    }
    struct predict_input in = {
        .epoch_cycles = e->cycles,
        .nkernels = n,
        .c = c,
        .np_private = ops->needs_private ? np_private : NULL,
    };
    struct predict_output o;
    for (unsigned i = 0; i < n; i++) {
        o.np[i] = NAN;
        o.cls[i] = KERNEL_CLASS_NONE;
        o.far[i] = false;
    }
    ops->predict(state, &in, &o);
    for (unsigned i = 0; i < n; i++) {
        out->np[slot[i]] = o.np[i];
        out->cls[slot[i]] = o.cls[i];
        out->far[slot[i]] = o.far[i];
    }
}

int session_predict_with(const struct session *s, const struct predictor_ops *ops, void *state,
                         unsigned epoch, struct predict_output *out)
{
    if (epoch >= s->nepochs)
        return -1;
    predict_from(ops, state, &s->epochs[epoch], out);
    return 0;
}

/* Keeps the predictor's explanation of every kernel of e beside it. */
static void keep_explanations(struct session *s, const struct session_epoch *e)
{
    for (unsigned k = 0; k < e->nkernels && k < GPU_MAX_KERNELS; k++) {
        struct predict_text x;
        if (!e->k[k].in_mix || session_predictor_explain(s, k, &x) != 0 || !x.n)
            continue;
        size_t len = 0;
        for (unsigned i = 0; i < x.n; i++)
            len += strlen(x.line[i]) + 1;
        char *text = xmalloc(len);
        text[0] = '\0';
        for (unsigned i = 0; i < x.n; i++) {
            strcat(text, x.line[i]);
            if (i + 1 < x.n)
                strcat(text, "\n");
        }
        free(s->explain[e->index][k]);
        s->explain[e->index][k] = text;
    }
}

const char *session_epoch_explain(const struct session *s, unsigned i, unsigned k)
{
    return i < s->nepochs && k < GPU_MAX_KERNELS ? s->explain[i][k] : NULL;
}

void session_predict_epoch(struct session *s, struct session_epoch *e)
{
    struct predict_output out;
    for (unsigned k = 0; k < e->nkernels; k++) {
        out.np[k] = NAN;
        out.cls[k] = KERNEL_CLASS_NONE;
        out.far[k] = false;
    }
    if (s->pred) {
        predict_from(s->pred, s->pred_state, e, &out);
        snprintf(e->predictor, sizeof e->predictor, "%s", s->pred->name);
    }
    for (unsigned k = 0; k < e->nkernels; k++) {
        struct session_kernel_epoch *ke = &e->k[k];
        ke->np_pred = out.np[k];
        ke->pred_class = out.cls[k];
        double are = isnan(out.np[k]) ? -1 : metrics_are(out.np[k], ke->np_true);
        ke->are = are < 0 ? NAN : are;
    }
    if (s->pred)
        keep_explanations(s, e);
}
