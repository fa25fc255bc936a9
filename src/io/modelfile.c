/* modelfile — loading and writing trained predictor coefficients. */
#include "corun/modelfile.h"

#include <errno.h>
#include <libconfig.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/confread.h"
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
    MF_FIELD(c1, CONF_FLOAT, NULL, -2, 2, "HSM: bandwidth utilization gained per unit of RBH"),
    MF_FIELD(c2, CONF_FLOAT, NULL, -2, 2, "HSM: bandwidth utilization when no access hits"),
    MF_FIELD(r2, CONF_FLOAT, "0", -1e9, 1, "coefficient of determination of the fit"),
    MF_FIELD(points, CONF_UINT, "0", 0, 1000000, "training points"),
};
const struct conf_table modelfile_table = {"model file", modelfile_settings,
                                           CORUN_ARRAY_LEN(modelfile_settings)};

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

/* Checks that need more than one setting, or the caller's expectations. */
static void check_meaning(const struct conf_file *f, const char *path, const char *model,
                          const char *gpu, const struct modelfile *m, struct diag *d)
{
    if (m->model && strcmp(m->model, model) != 0)
        diag_add(d, "%s:%d: model: expected \"%s\", got \"%s\"", path, line_of(f, "model"), model,
                 m->model);
    if (m->gpu && strcmp(m->gpu, gpu) != 0)
        diag_add(d, "%s:%d: gpu: the model was trained for \"%s\", not \"%s\"", path,
                 line_of(f, "gpu"), m->gpu, gpu);
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
        conf_apply(&modelfile_table, confread_root(f), out, CONF_FULL, path, "", diags);
        if (diags->count == before)
            check_meaning(f, path, model, gpu, out, diags);
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

void modelfile_done(struct modelfile *m)
{
    conf_free_strings(&modelfile_table, m);
    memset(m, 0, sizeof(*m));
}

int modelfile_write(const char *path, const struct modelfile *m, const char *comment, char *err,
                    size_t errlen)
{
    /* Write beside the target and rename, so a failure never leaves half a model. */
    char *tmp = xasprintf("%s.tmp", path);
    FILE *fp = fopen(tmp, "w");
    if (!fp) {
        snprintf(err, errlen, "%s: cannot write: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    if (comment) {
        const char *p = comment;
        while (*p) {
            size_t n = strcspn(p, "\n");
            fprintf(fp, "# %.*s\n", (int)n, p);
            p += n + (p[n] == '\n');
        }
    }
    fprintf(fp, "model = \"%s\";\ngpu = \"%s\";\n", m->model, m->gpu);
    fprintf(fp, "c1 = %.6f;\nc2 = %.6f;\nr2 = %.6f;\npoints = %u;\n", m->c1, m->c2, m->r2,
            m->points);
    int bad = ferror(fp);
    if (fclose(fp) != 0 || bad || rename(tmp, path) != 0) {
        snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
        remove(tmp);
        free(tmp);
        return -1;
    }
    free(tmp);
    return 0;
}
