/* gpu_sets — `--set gpu.SETTING=VALUE` for reproduce, sweep and rbh-shift: GPU settings
 * changed for every mix, as `corun run --set` changes them for one scenario.
 *
 * reproduce and sweep check the settings against the suite's preset before anything runs,
 * apply them to each mix's scenario after it is loaded (scenario_set_gpu on its GPU, what
 * `run --set` does with a GPU setting), and name them wherever a result's identity is written
 * (reproduce's journal and the key of the results it keeps in the catalog, a sweep's config
 * in the catalog), so that a result measured under other settings is never taken for this
 * one; rbh-shift, which keeps nothing, applies them to its preset's configuration. */
#include "corun/gpu_sets.h"

#include <stdio.h>
#include <string.h>

#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/preset.h"
#include "corun/scenario.h"

int gpu_sets_add(struct gpu_sets *s, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    if (strncmp(assignment, "gpu.", 4) != 0 || !eq || eq - assignment < 5 || !eq[1]) {
        snprintf(err, errlen,
                 "--set: expected gpu.SETTING=VALUE (e.g. gpu.order_free=true), got \"%s\": "
                 "only the GPU's settings change here; epochs, seeds and mixes have options "
                 "or come from the suite",
                 assignment);
        return -1;
    }
    if ((size_t)(eq - assignment) == strlen("gpu.sms") && strncmp(assignment, "gpu.sms", 7) == 0) {
        snprintf(err, errlen,
                 "--set: %s: the SM count is the preset's here (reproduce and rbh-shift take "
                 "--gpu PRESET for another, reproduce scaling a suite's splits to it; a sweep "
                 "runs its suite's preset)",
                 assignment);
        return -1;
    }
    /* A setting given again replaces the one before, as scenario_set would: named once where
     * a result's identity is written (both were, so identical results were made again under
     * another identity). */
    size_t keylen = (size_t)(eq - assignment) + 1; /* with its '=' */
    for (unsigned i = 0; i < s->n; i++)
        if (strncmp(s->v[i], assignment, keylen) == 0) {
            memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof s->v[0]);
            s->n--;
            break;
        }
    size_t used = 0;
    for (unsigned i = 0; i < s->n; i++)
        used += strlen(s->v[i]) + 1;
    for (const char *c = assignment; *c; c++)
        if ((unsigned char)*c < ' ') {
            snprintf(err, errlen, "--set: \"%s\": a control character (a setting is one line)",
                     assignment);
            return -1;
        }
    /* Described whole wherever a result's identity is written (gpu_sets_describe's callers
     * keep GPU_SETS_TEXT_MAX bytes), so that two runs never differ only past a cut. */
    if (used + strlen(assignment) + 1 > GPU_SETS_TEXT_MAX) {
        snprintf(err, errlen, "--set: the settings are longer than %d characters together",
                 GPU_SETS_TEXT_MAX);
        return -1;
    }
    if (s->n == GPU_MAX_SETS) {
        snprintf(err, errlen, "--set: at most %d settings", GPU_MAX_SETS);
        return -1;
    }
    s->v[s->n++] = assignment;
    return 0;
}

int gpu_sets_apply_gpu(const struct gpu_sets *s, struct gpu_config *cfg, const char *gpu, char *err,
                       size_t errlen)
{
    if (!s || !s->n)
        return 0;
    struct diag d;
    diag_init(&d);
    int rc = 0;
    for (unsigned i = 0; rc == 0 && i < s->n; i++)
        rc = scenario_set_gpu(cfg, s->v[i], &d);
    char why[256] = "";
    if (rc == 0 && gpu_config_check(cfg, why, sizeof why) != 0) {
        diag_add(&d, "--set: the GPU %s would have: %s", gpu, why);
        rc = -1;
    }
    if (rc != 0)
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "--set: cannot apply the settings");
    diag_done(&d);
    return rc;
}

int gpu_sets_check(const struct gpu_sets *s, const char *datadir, const char *gpu, char *err,
                   size_t errlen)
{
    if (!s || !s->n)
        return 0;
    struct gpu_config cfg;
    struct diag d;
    diag_init(&d);
    int rc = preset_gpu_find(datadir, gpu, "--gpu", &cfg, &d);
    if (rc != 0)
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "--gpu: cannot load the preset");
    diag_done(&d);
    return rc == 0 ? gpu_sets_apply_gpu(s, &cfg, gpu, err, errlen) : -1;
}

int gpu_sets_apply(const struct gpu_sets *s, struct scenario *sc, char *err, size_t errlen)
{
    /* Every setting is a GPU one other than gpu.sms (gpu_sets_add), so the mix's SMs still fit
     * and scenario_set would do no more than this to the scenario. */
    return gpu_sets_apply_gpu(s, &sc->gpu, sc->gpu_name, err, errlen);
}

void gpu_sets_describe(const struct gpu_sets *s, const char *prefix, const char *sep, char *out,
                       size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; s && i < s->n && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", i ? sep : prefix, s->v[i]);
}
