/* calibrate — profiles measured alone, classified by measurement, checked against targets. */
#include "corun/calibrate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/solo.h"
#include "corun/util.h"

static const char *const paper_names[] = {"none", "hsm", "themis", "smqos", "teaching"};
static const char *const class_names[] = {"none", "compute", "memory", "balanced"};
static const char *const split_names[] = {"none", "train", "test"};
/* The preset each paper's targets belong to (index: enum kernel_paper). */
static const char *const paper_gpus[] = {NULL, "hbm80", "themis60", "smqos24", NULL};

static const char *name_at(const char *const *names, size_t n, int i)
{
    return i >= 0 && (size_t)i < n ? names[i] : "?";
}

const char *calibrate_paper_name(int paper)
{
    return name_at(paper_names, CORUN_ARRAY_LEN(paper_names), paper);
}

const char *calibrate_class_name(int cls)
{
    return name_at(class_names, CORUN_ARRAY_LEN(class_names), cls);
}

const char *calibrate_split_name(int split)
{
    return name_at(split_names, CORUN_ARRAY_LEN(split_names), split);
}

const char *calibrate_target_gpu(const struct kernel_profile *p)
{
    if (p->paper < 0 || (size_t)p->paper >= CORUN_ARRAY_LEN(paper_gpus))
        return NULL;
    if (p->target_class == KERNEL_CLASS_NONE && p->target_mpki <= 0)
        return NULL;
    return paper_gpus[p->paper];
}

int calibrate_classify(double scaling, double bandwidth_pct)
{
    if (scaling < CALIBRATE_MEMORY_SCALING)
        return KERNEL_CLASS_MEMORY;
    return bandwidth_pct >= CALIBRATE_BALANCED_BW_PCT ? KERNEL_CLASS_BALANCED
                                                      : KERNEL_CLASS_COMPUTE;
}

bool calibrate_class_matches(const struct kernel_profile *p, int measured)
{
    if (p->target_class == KERNEL_CLASS_NONE)
        return true;
    if (p->paper == KERNEL_PAPER_THEMIS)
        return measured == p->target_class;
    return (measured == KERNEL_CLASS_MEMORY) == (p->target_class == KERNEL_CLASS_MEMORY);
}

static int measure_all_sms(const struct gpu_config *cfg, const struct kernel_profile *p,
                           uint64_t cycles, uint64_t seed, util_progress_fn progress, void *ctx,
                           struct calib_measure *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct solo_result full;
    if (solo_characterize(cfg, p, 0, cycles, seed, progress, ctx, &full, err, errlen) != 0)
        return -1;
    out->sms = full.sms;
    out->ipc = full.ipc;
    out->mpki_warp = full.mpki;
    out->mpki_thread = full.mpki / CALIBRATE_THREADS_PER_WARP;
    out->rbh = full.rbh;
    out->bandwidth_gbs = full.bandwidth_gbs;
    out->bandwidth_pct = full.bandwidth_pct;
    out->l2_miss_rate = full.l2_miss_rate;
    return 0;
}

int calibrate_measure_all_sms(const struct gpu_config *cfg, const struct kernel_profile *p,
                              uint64_t cycles, uint64_t seed, struct calib_measure *out, char *err,
                              size_t errlen)
{
    return measure_all_sms(cfg, p, cycles, seed, NULL, NULL, out, err, errlen);
}

/* One of calibrate_measure's two runs, told as its half of the whole. */
struct half {
    util_progress_fn progress;
    void *ctx;
    double before;
};

static void tell_half(void *half, double done)
{
    struct half *h = half;
    h->progress(h->ctx, h->before + done / 2);
}

int calibrate_measure(const struct gpu_config *cfg, const struct kernel_profile *p, uint64_t cycles,
                      uint64_t seed, util_progress_fn progress, void *ctx,
                      struct calib_measure *out, char *err, size_t errlen)
{
    struct solo_result half;
    unsigned half_sms = cfg->sms / 2 ? cfg->sms / 2 : 1;
    struct half first = {progress, ctx, 0}, second = {progress, ctx, 0.5};
    util_progress_fn tell = progress ? tell_half : NULL;
    if (measure_all_sms(cfg, p, cycles, seed, tell, &first, out, err, errlen) != 0 ||
        solo_characterize(cfg, p, half_sms, cycles, seed, tell, &second, &half, err, errlen) != 0)
        return -1;
    out->ipc_half = half.ipc;
    out->scaling = half.ipc > 0 ? out->ipc / (2 * half.ipc) : 0;
    out->measured_class = calibrate_classify(out->scaling, out->bandwidth_pct);
    return 0;
}

/* Fill the target half of row from p and check the measured half against it. */
static void judge(const struct kernel_profile *p, struct calib_row *row)
{
    row->paper = p->paper;
    row->target_class = p->target_class;
    row->split = p->split;
    row->target_mpki = p->target_mpki;
    row->class_ok = calibrate_class_matches(p, row->m.measured_class);
    row->mpki_ok = true;
    if (p->target_mpki > 0) {
        row->mpki_error = (row->m.mpki_thread - p->target_mpki) / p->target_mpki;
        row->mpki_ok = fabs(row->mpki_error) <= CALIBRATE_MPKI_TOLERANCE;
    }
}

/* The names of the profiles to measure on gpu, into *out (the caller frees the list). */
static int select_kernels(const char *datadir, const char *gpu, const char *const *only,
                          size_t n_only, struct name_list *out, struct diag *diags)
{
    struct name_list all;
    preset_kernel_names(datadir, &all);
    out->names = NULL;
    out->count = 0;
    int rc = 0;
    size_t n = n_only ? n_only : all.count;
    char elsewhere[256] = ""; /* the presets other profiles have targets on, for a message */
    bool listed[CORUN_ARRAY_LEN(paper_gpus)] = {false};
    for (size_t i = 0; i < n; i++) {
        const char *name = n_only ? only[i] : all.names[i];
        struct kernel_profile p;
        if (n_only ? preset_kernel_find(datadir, name, "corun: calibrate", &p, diags)
                   : preset_kernel_load(datadir, name, &p, diags)) {
            rc = -1;
            continue;
        }
        const char *target = calibrate_target_gpu(&p);
        if (target && strcmp(target, gpu) != 0 && !listed[p.paper]) { /* a target is a paper's */
            listed[p.paper] = true;
            size_t len = strlen(elsewhere);
            snprintf(elsewhere + len, sizeof elsewhere - len, "%s%s", len ? ", " : "", target);
        }
        if (target && strcmp(target, gpu) == 0) {
            out->names = xrealloc(out->names, (out->count + 1) * sizeof(*out->names));
            out->names[out->count++] = xstrdup(name);
        } else if (n_only) {
            diag_add(diags, "corun: calibrate: kernel \"%s\" has no targets on %s%s%s", name, gpu,
                     target ? "; its targets are for " : "", target ? target : "");
            rc = -1;
        }
        kernel_profile_done(&p);
    }
    if (rc == 0 && !n_only && out->count == 0) {
        diag_add(diags,
                 "corun: calibrate: no profile has targets on %s (a profile is calibrated on the "
                 "preset its paper's per-application figures are for: %s)",
                 gpu, elsewhere[0] ? elsewhere : "none here");
        rc = -1;
    }
    name_list_done(&all);
    return rc;
}

int calibrate_check(const char *datadir, const char *gpu, const char *const *only, size_t n_only,
                    struct diag *diags)
{
    struct gpu_config cfg;
    if (preset_gpu_find(datadir, gpu, "corun: --gpu", &cfg, diags) != 0)
        return -1;
    struct name_list names;
    int rc = select_kernels(datadir, gpu, only, n_only, &names, diags);
    name_list_done(&names);
    return rc;
}

int calibrate_run(const char *datadir, const char *gpu, uint64_t cycles, const char *const *only,
                  size_t n_only, calib_progress_fn progress, void *user,
                  struct calib_report *report, struct diag *diags)
{
    memset(report, 0, sizeof(*report));
    struct gpu_config cfg;
    if (preset_gpu_find(datadir, gpu, "corun: --gpu", &cfg, diags) != 0)
        return -1;
    struct name_list names;
    if (select_kernels(datadir, gpu, only, n_only, &names, diags) != 0) {
        name_list_done(&names);
        return -1;
    }
    report->gpu = xstrdup(gpu);
    report->cycles = cycles;
    report->rows = xcalloc(names.count ? names.count : 1, sizeof(*report->rows));
    int rc = 0;
    for (size_t i = 0; i < names.count && rc == 0; i++) {
        if (progress)
            progress(user, names.names[i], i, names.count);
        struct kernel_profile p;
        char err[512];
        if (preset_kernel_load(datadir, names.names[i], &p, diags) != 0) {
            rc = -1;
            break;
        }
        struct calib_row *row = &report->rows[report->count];
        if (calibrate_measure(&cfg, &p, cycles, 1, NULL, NULL, &row->m, err, sizeof err) != 0) {
            diag_add(diags, "corun: calibrate: %s: %s", names.names[i], err);
            rc = -1;
        } else {
            row->kernel = xstrdup(names.names[i]);
            judge(&p, row);
            report->count++;
            if (!row->class_ok || !row->mpki_ok)
                report->failures++;
        }
        kernel_profile_done(&p);
    }
    if (progress && rc == 0)
        progress(user, "", names.count, names.count);
    name_list_done(&names);
    if (rc != 0)
        calibrate_report_done(report);
    return rc;
}

void calibrate_report_done(struct calib_report *r)
{
    for (size_t i = 0; i < r->count; i++)
        free(r->rows[i].kernel);
    free(r->rows);
    free(r->gpu);
    memset(r, 0, sizeof(*r));
}

/* The library row and the all-SM measurement of one calibrated kernel. */
static int record_row(struct catalog *cat, const char *datadir, const struct calib_report *r,
                      const struct calib_row *w, char *err, size_t errlen)
{
    struct kernel_profile p;
    struct diag diags;
    diag_init(&diags);
    if (preset_kernel_load(datadir, w->kernel, &p, &diags) != 0) {
        snprintf(err, errlen, "%s", diags.count ? diags.msgs[0] : "the profile did not load");
        diag_done(&diags);
        return -1;
    }
    diag_done(&diags);
    char *path = xasprintf("%s/data/kernels/%s.cfg", datadir, w->kernel);
    const char *source = access(path, R_OK) == 0 ? path : "built-in";
    struct catalog_measurement m = {
        .kernel = w->kernel,
        .gpu = r->gpu,
        .sms = w->m.sms,
        .ipc = w->m.ipc,
        .bandwidth_gbs = w->m.bandwidth_gbs,
        .bandwidth_pct = w->m.bandwidth_pct,
        .rbh = w->m.rbh,
        .mpki = w->m.mpki_warp, /* solo_characterize's count, per 1000 warp instructions */
        .class_name = calibrate_class_name(w->m.measured_class),
    };
    int rc = catalog_put_kernel(cat, &p, source, err, errlen) != 0 ||
                     catalog_put_measurement(cat, &m, err, errlen) != 0
                 ? -1
                 : 0;
    free(path);
    kernel_profile_done(&p);
    return rc;
}

int calibrate_record(const char *datadir, const struct calib_report *r, const char *catalog_path,
                     char *err, size_t errlen)
{
    struct catalog *cat = catalog_open(catalog_path, err, errlen);
    if (!cat)
        return -1;
    int stored = 0;
    for (size_t i = 0; i < r->count; i++) {
        if (record_row(cat, datadir, r, &r->rows[i], err, errlen) != 0) {
            stored = -1;
            break;
        }
        stored++;
    }
    catalog_close(cat);
    return stored;
}
