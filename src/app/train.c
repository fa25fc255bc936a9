/* train — HSM's least squares over private-mode runs. */
#include "corun/train.h"

#include <stdlib.h>
#include <string.h>

#include "corun/hsm.h"
#include "corun/preset.h"
#include "corun/util.h"

/* Is p one of gpu's memory-bound training kernels? any_target: use the paper's own preset's
 * kernels (false: HSM's, for presets no paper targets). */
static bool is_training_kernel(const struct kernel_profile *p, const char *gpu, bool any_target)
{
    if (p->target_class != KERNEL_CLASS_MEMORY)
        return false;
    if (!any_target)
        return p->paper == KERNEL_PAPER_HSM;
    const char *target = calibrate_target_gpu(p);
    return target && strcmp(target, gpu) == 0;
}

/* The names of gpu's training kernels into *out (the caller frees). */
static int select_kernels(const char *datadir, const char *gpu, struct name_list *out,
                          struct diag *d)
{
    struct name_list all;
    preset_kernel_names(datadir, &all);
    memset(out, 0, sizeof(*out));
    int rc = 0;
    for (int pass = 0; pass < 2 && out->count == 0 && rc == 0; pass++)
        for (size_t i = 0; i < all.count; i++) {
            struct kernel_profile p;
            if (preset_kernel_load(datadir, all.names[i], &p, d) != 0) {
                rc = -1;
                continue;
            }
            if (is_training_kernel(&p, gpu, pass == 0)) {
                out->names = xrealloc(out->names, (out->count + 1) * sizeof(*out->names));
                out->names[out->count++] = xstrdup(all.names[i]);
            }
            kernel_profile_done(&p);
        }
    name_list_done(&all);
    if (rc == 0 && out->count < 2) {
        diag_add(d, "corun: train hsm: %s has %zu memory-bound training kernels, the fit needs 2",
                 gpu, out->count);
        rc = -1;
    }
    return rc;
}

int train_hsm(const char *datadir, const char *gpu, uint64_t cycles, calib_progress_fn progress,
              void *user, struct train_hsm_result *out, struct diag *diags)
{
    memset(out, 0, sizeof(*out));
    struct gpu_config cfg;
    if (preset_gpu_find(datadir, gpu, "corun: --gpu", &cfg, diags) != 0)
        return TRAIN_BAD_INPUT;
    struct name_list names;
    if (select_kernels(datadir, gpu, &names, diags) != 0) {
        name_list_done(&names);
        return TRAIN_BAD_INPUT;
    }
    out->gpu = xstrdup(gpu);
    out->sms = cfg.sms;
    out->cycles = cycles;
    out->points = xcalloc(names.count, sizeof(*out->points));
    double *x = xmalloc(names.count * sizeof(*x)), *y = xmalloc(names.count * sizeof(*y));
    int rc = 0;
    for (size_t i = 0; i < names.count && rc == 0; i++) {
        if (progress)
            progress(user, names.names[i], i, names.count);
        struct kernel_profile p;
        struct calib_measure m;
        char err[512];
        if (preset_kernel_load(datadir, names.names[i], &p, diags) != 0) {
            rc = TRAIN_FAILED;
            break;
        }
        if (calibrate_measure_all_sms(&cfg, &p, cycles, 1, &m, err, sizeof err) != 0) {
            diag_add(diags, "corun: train hsm: %s: %s", names.names[i], err);
            rc = TRAIN_FAILED;
        } else {
            struct train_point *pt = &out->points[out->npoints++];
            pt->kernel = xstrdup(names.names[i]);
            pt->rbh = x[i] = m.rbh;
            pt->utilization = y[i] = m.bandwidth_pct / 100;
        }
        kernel_profile_done(&p);
    }
    if (rc == 0 && hsm_fit_line(x, y, out->npoints, &out->c1, &out->c2, &out->r2) != 0) {
        diag_add(diags,
                 "corun: train hsm: every training kernel on %s has the same RBH: no line "
                 "fits",
                 gpu);
        rc = TRAIN_FAILED;
    }
    if (progress && rc == 0)
        progress(user, "", names.count, names.count);
    free(x);
    free(y);
    name_list_done(&names);
    if (rc != 0)
        train_hsm_done(out);
    return rc;
}

void train_hsm_done(struct train_hsm_result *r)
{
    for (size_t i = 0; i < r->npoints; i++)
        free(r->points[i].kernel);
    free(r->points);
    free(r->gpu);
    memset(r, 0, sizeof(*r));
}
