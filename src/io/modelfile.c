/* modelfile — loading and writing trained predictor coefficients. */
#define _DEFAULT_SOURCE /* flock */
#include "corun/modelfile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <libconfig.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/confread.h"
#include "corun/preset.h"
#include "corun/tempfile.h"
#include "corun/util.h"

#define MF_FIELD(field_, type_, def_, lo_, hi_, help_)                                             \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, NULL, help_, offsetof(struct modelfile, field_), NULL,     \
            NULL                                                                                   \
    }

/* Ranges: utilization is a fraction of peak, so the line's slope and intercept stay well
 * inside [-2, 2]; anything outside is a corrupt file, not a model. */
static const struct conf_setting modelfile_settings[] = {
    MF_FIELD(model, CONF_STRING, NULL, 0, 0, "which predictor the coefficients are for"),
    MF_FIELD(gpu, CONF_STRING, NULL, 0, 0, "the GPU preset they were trained on"),
    MF_FIELD(sms, CONF_UINT, "0", 0, 100000, "the SM count they were trained on (0: not recorded)"),
    MF_FIELD(c1, CONF_FLOAT, NULL, -2, 2, "HSM: bandwidth utilization gained per unit of RBH"),
    MF_FIELD(c2, CONF_FLOAT, NULL, -2, 2, "HSM: bandwidth utilization when no access hits"),
    MF_FIELD(r2, CONF_FLOAT, "0", -1e9, 1, "coefficient of determination of the fit"),
    MF_FIELD(points, CONF_UINT, "0", 0, 1000000, "training points"),
};
const struct conf_table modelfile_table = {"model file", modelfile_settings,
                                           CORUN_ARRAY_LEN(modelfile_settings), NULL};

#define MF_ARRAY(name_, help_)                                                                     \
    {                                                                                              \
        name_, CONF_CUSTOM, 0, 0, NULL, NULL, help_, 0, NULL, NULL                                 \
    }

/* Network models: read_network below reads the arrays (conf_apply only knows their names). */
static const struct conf_setting modelfile_network_settings[] = {
    MF_FIELD(model, CONF_STRING, NULL, 0, 0, "which predictor the network is for"),
    MF_FIELD(gpu, CONF_STRING, NULL, 0, 0, "the GPU preset it was trained on"),
    MF_FIELD(sms, CONF_UINT, "0", 0, 100000, "the SM count it was trained on (0: not recorded)"),
    MF_ARRAY("layers", "array of integers: nodes per layer, inputs first, outputs last"),
    MF_ARRAY("input_mean", "array of floats: subtracted from each input"),
    MF_ARRAY("input_scale", "array of floats (> 0): each centred input is divided by it"),
    MF_ARRAY("weights", "array of floats: per layer its weight matrix (row-major), then biases"),
    MF_FIELD(train_error, CONF_FLOAT, "0", 0, 1e9, "mean relative NP error on the training set"),
    MF_FIELD(test_error, CONF_FLOAT, "0", 0, 1e9, "mean relative NP error on the test set"),
    MF_FIELD(points, CONF_UINT, "0", 0, 100000000, "training samples"),
};
const struct conf_table modelfile_network_table = {
    "model file", modelfile_network_settings, CORUN_ARRAY_LEN(modelfile_network_settings), NULL};

/* The models whose files hold a network instead of coefficients. */
static const char *const network_models[] = {"themis"};

int modelfile_holds_weights(const char *model)
{
    for (size_t i = 0; i < CORUN_ARRAY_LEN(network_models); i++)
        if (strcmp(model, network_models[i]) == 0)
            return 1;
    return 0;
}

#define MF_MAX_LAYERS 8
#define MF_MAX_WIDTH  64
#define MF_MAX_VALUES 100000

char *modelfile_path(const char *datadir, const char *model, const char *gpu)
{
    return xasprintf("%s/data/models/%s-%s.cfg", datadir, model, gpu);
}

char *modelfile_regenerate_command(const char *model, const char *gpu)
{
    return xasprintf("corun train %s --gpu %s", model, gpu);
}

static int line_of(const struct conf_file *f, const char *name)
{
    const config_setting_t *s =
        config_setting_get_member((const config_setting_t *)confread_root(f), name);
    return s ? (int)config_setting_source_line(s) : 0;
}

/* Array `name` of f as numbers into a new array (*out, *n). Returns 0, or -1 with a message. */
static int read_array(const struct conf_file *f, const char *path, const char *name, int integers,
                      double **out, size_t *n, struct diag *d)
{
    *out = NULL;
    *n = 0;
    const config_setting_t *a =
        config_setting_get_member((const config_setting_t *)confread_root(f), name);
    if (!a) {
        diag_add(d, "%s: %s: required setting is missing (expected an array of %s)", path, name,
                 integers ? "integers" : "floats");
        return -1;
    }
    int line = (int)config_setting_source_line(a), len = config_setting_length(a);
    if (!config_setting_is_array(a) || len < 1 || len > MF_MAX_VALUES) {
        diag_add(d, "%s:%d: %s: expected an array [...] of 1 to %d %s", path, line, name,
                 MF_MAX_VALUES, integers ? "integers" : "floats");
        return -1;
    }
    double *v = xmalloc((size_t)len * sizeof(*v));
    for (int i = 0; i < len; i++) {
        const config_setting_t *e = config_setting_get_elem(a, (unsigned)i);
        int type = config_setting_type(e);
        if (type == CONFIG_TYPE_INT || type == CONFIG_TYPE_INT64)
            v[i] = (double)config_setting_get_int64(e);
        else if (type == CONFIG_TYPE_FLOAT && !integers)
            v[i] = config_setting_get_float(e);
        else
            v[i] = NAN;
        if (!isfinite(v[i])) {
            diag_add(d, "%s:%d: %s: element %d is not a finite %s", path, line, name, i,
                     integers ? "integer" : "number");
            free(v);
            return -1;
        }
    }
    *out = v;
    *n = (size_t)len;
    return 0;
}

/* layers, input_mean, input_scale and weights into m (weights: mean, scale, parameters). */
static void read_network(const struct conf_file *f, const char *path, struct modelfile *m,
                         struct diag *d)
{
    double *layers = NULL, *mean = NULL, *scale = NULL, *params = NULL;
    size_t nl = 0, nmean = 0, nscale = 0, nparams = 0;
    if (read_array(f, path, "layers", 1, &layers, &nl, d) != 0)
        goto out;
    size_t expect = 0;
    if (nl < 2 || nl > MF_MAX_LAYERS) {
        diag_add(d, "%s:%d: layers: expected 2 to %d layer widths, got %zu", path,
                 line_of(f, "layers"), MF_MAX_LAYERS, nl);
        goto out;
    }
    for (size_t l = 0; l < nl; l++) {
        if (layers[l] < 1 || layers[l] > MF_MAX_WIDTH) {
            diag_add(d, "%s:%d: layers: every width must be 1 to %d, got %g", path,
                     line_of(f, "layers"), MF_MAX_WIDTH, layers[l]);
            goto out;
        }
        if (l > 0)
            expect += (size_t)(layers[l] * layers[l - 1] + layers[l]);
    }
    if (read_array(f, path, "input_mean", 0, &mean, &nmean, d) != 0 ||
        read_array(f, path, "input_scale", 0, &scale, &nscale, d) != 0 ||
        read_array(f, path, "weights", 0, &params, &nparams, d) != 0)
        goto out;
    size_t nin = (size_t)layers[0];
    if (nmean != nin || nscale != nin) {
        diag_add(d,
                 "%s:%d: input_mean, input_scale: expected %zu values each (layers[0]), got "
                 "%zu and %zu",
                 path, line_of(f, "input_mean"), nin, nmean, nscale);
        goto out;
    }
    for (size_t i = 0; i < nin; i++)
        if (!(scale[i] > 0)) {
            diag_add(d, "%s:%d: input_scale: element %zu must be > 0, got %g", path,
                     line_of(f, "input_scale"), i, scale[i]);
            goto out;
        }
    if (nparams != expect) {
        diag_add(d, "%s:%d: weights: the layers need %zu values, got %zu", path,
                 line_of(f, "weights"), expect, nparams);
        goto out;
    }
    m->nlayers = nl;
    m->layers = xmalloc(nl * sizeof(*m->layers));
    for (size_t l = 0; l < nl; l++)
        m->layers[l] = (unsigned)layers[l];
    m->nweights = 2 * nin + nparams;
    m->weights = xmalloc(m->nweights * sizeof(*m->weights));
    memcpy(m->weights, mean, nin * sizeof(*mean));
    memcpy(m->weights + nin, scale, nin * sizeof(*scale));
    memcpy(m->weights + 2 * nin, params, nparams * sizeof(*params));
out:
    free(layers);
    free(mean);
    free(scale);
    free(params);
}

/* Checks that need more than one setting, or the caller's expectations. */
static void check_meaning(const struct conf_file *f, const char *path, const char *model,
                          const struct modelfile *m, struct diag *d)
{
    if (m->model && strcmp(m->model, model) != 0)
        diag_add(d, "%s:%d: model: expected \"%s\", got \"%s\"", path, line_of(f, "model"), model,
                 m->model);
    if (modelfile_holds_weights(model))
        return;
    /* HSM divides by c1 * RBH + c2: it must stay positive over RBH in [0, 1]. */
    if (!(m->c2 > 0) || !(m->c1 + m->c2 > 0))
        diag_add(d,
                 "%s:%d: c2: expected c2 > 0 and c1 + c2 > 0 (utilization at RBH 0 and 1), "
                 "got c1 = %g, c2 = %g",
                 path, line_of(f, "c2"), m->c1, m->c2);
}

int modelfile_load(const char *path, const char *model, const char *gpu, struct modelfile *out,
                   struct diag *diags)
{
    memset(out, 0, sizeof(*out));
    size_t before = diags->count;
    struct conf_file *f = confread_open(path, diags);
    if (f) {
        int network = modelfile_holds_weights(model);
        conf_apply(network ? &modelfile_network_table : &modelfile_table, confread_root(f), out,
                   CONF_FULL, path, "", diags);
        if (diags->count == before && network)
            read_network(f, path, out, diags);
        if (diags->count == before)
            check_meaning(f, path, model, out, diags);
        confread_close(f);
    }
    if (diags->count == before)
        return 0;
    char *cmd = modelfile_regenerate_command(model, gpu);
    diag_add(diags, "%s: regenerate it with `%s`", path, cmd);
    free(cmd);
    modelfile_done(out);
    return -1;
}

/* The settings of cfg that differ from preset name's own, but the SM count, in out[len];
 * returns how many (0 also when cfg or datadir is NULL or the preset cannot be loaded:
 * nothing to compare). */
static size_t changed_settings(const char *datadir, const char *name, const struct gpu_config *cfg,
                               char *out, size_t len)
{
    struct gpu_config preset;
    struct diag d;
    diag_init(&d);
    size_t n = 0;
    if (cfg && datadir && preset_gpu_load(datadir, name, &preset, &d) == 0)
        n = conf_diff(&preset_gpu_table, &preset, cfg, "gpu.", "gpu.sms", out, len);
    diag_done(&d);
    return n;
}

int modelfile_training_warning(const struct modelfile *m, const char *path, const char *gpu,
                               unsigned sms, const struct gpu_config *cfg, const char *datadir,
                               char *out, size_t len)
{
    char *cmd = modelfile_regenerate_command(m->model, gpu);
    char changed[160];
    size_t n = 0;
    int rc = 1;
    if (m->sms == 0)
        snprintf(out, len,
                 "%s model: training configuration unknown (trained on %s, SM count not "
                 "recorded), used on %s with %u SMs (%s; `%s` records it)",
                 m->model, m->gpu, gpu, sms, path, cmd);
    else if (strcmp(m->gpu, gpu) != 0 || m->sms != sms)
        snprintf(out, len,
                 "%s model trained on %s with %u SMs, used on %s with %u SMs: predictions "
                 "outside its training range (%s)",
                 m->model, m->gpu, m->sms, gpu, sms, path);
    else if ((n = changed_settings(datadir, m->gpu, cfg, changed, sizeof changed)) > 0)
        snprintf(out, len,
                 "%s model trained on %s as its preset gives it, used with %zu of its settings "
                 "changed (%s): predictions outside its training range (%s)",
                 m->model, m->gpu, n, changed, path);
    else
        rc = 0;
    if (rc == 0 && len)
        out[0] = '\0';
    free(cmd);
    return rc;
}

void modelfile_done(struct modelfile *m)
{
    conf_free_strings(&modelfile_table, m);
    free(m->layers);
    free(m->weights);
    memset(m, 0, sizeof(*m));
}

/* values[0..n) as a libconfig array of floats (%e keeps every element a float). */
static void write_floats(FILE *fp, const char *name, const double *values, size_t n)
{
    fprintf(fp, "%s = [", name);
    for (size_t i = 0; i < n; i++)
        fprintf(fp, "%s%s%.9e", i ? "," : "", i % 6 == 0 ? "\n  " : " ", values[i]);
    fprintf(fp, "\n];\n");
}

static void write_network(FILE *fp, const struct modelfile *m)
{
    fprintf(fp, "layers = [");
    for (size_t l = 0; l < m->nlayers; l++)
        fprintf(fp, "%s%u", l ? ", " : "", m->layers[l]);
    fprintf(fp, "];\n");
    size_t nin = m->layers[0];
    assert(m->nweights >= 2 * nin);
    write_floats(fp, "input_mean", m->weights, nin);
    write_floats(fp, "input_scale", m->weights + nin, nin);
    write_floats(fp, "weights", m->weights + 2 * nin, m->nweights - 2 * nin);
    fprintf(fp, "train_error = %.6f;\ntest_error = %.6f;\npoints = %u;\n", m->train_error,
            m->test_error, m->points);
}

int modelfile_write(const char *path, const struct modelfile *m, const char *comment, char *err,
                    size_t errlen)
{
    /* Write beside the target and rename, so a failure never leaves half a model. */
    char *tmp = NULL;
    FILE *fp = tempfile_open(path, &tmp, err, errlen);
    if (!fp)
        return -1;
    if (comment) {
        const char *p = comment;
        while (*p) {
            size_t n = strcspn(p, "\n");
            fprintf(fp, "# %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
    fprintf(fp, "model = \"%s\";\ngpu = \"%s\";\n", m->model, m->gpu);
    if (m->sms)
        fprintf(fp, "sms = %u;\n", m->sms);
    if (m->nlayers > 0)
        write_network(fp, m);
    else
        fprintf(fp, "c1 = %.6f;\nc2 = %.6f;\nr2 = %.6f;\npoints = %u;\n", m->c1, m->c2, m->r2,
                m->points);
    int bad = ferror(fp);
    if (fclose(fp) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        unlink(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}

/* Two writers of path (two trainings to one model) would each keep the model they found as
 * PATH.prev and rename their own over path: the one renamed first was in neither. An exclusive
 * flock of path's directory makes them take turns; its descriptor, or -1 where the file system
 * locks nothing (they go on as they did). */
static int lock_directory(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir =
        slash ? xasprintf("%.*s", slash == path ? 1 : (int)(slash - path), path) : xstrdup(".");
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    int rc = 0;
    while (fd >= 0 && (rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
        ;
    if (fd >= 0 && rc != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

int modelfile_replace(const char *path, const struct modelfile *m, const char *comment, char **kept,
                      char *err, size_t errlen)
{
    *kept = NULL;
    int lock = lock_directory(path);
    char *prev = xasprintf("%s.prev", path), *old = NULL;
    struct stat st;
    int rc = 0;
    /* A link to the model replaced, not a copy, under a name of its own until the new model is
     * in place: a failure leaves path and PATH.prev as they were. */
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode) && !(old = tempfile_link(path, err, errlen))) {
        char why[512];
        snprintf(why, sizeof why, "%s", err);
        snprintf(err, errlen, "cannot keep the model in %s before replacing it (%s)", path, why);
        rc = -1;
    }
    if (rc == 0 && modelfile_write(path, m, comment, err, errlen) != 0)
        rc = -1;
    if (rc < 0 && old) {
        unlink(old);
    } else if (old && rename(old, prev) != 0) {
        snprintf(err, errlen, "%s: written, but the model it replaced is in %s, not %s: %s", path,
                 old, prev, strerror(errno));
        rc = 1;
    } else if (old) {
        unlink(old); /* gone, unless prev was another name of the same file */
        *kept = prev;
        prev = NULL;
    }
    free(old);
    free(prev);
    if (lock >= 0)
        close(lock);
    return rc;
}
