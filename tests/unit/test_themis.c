/* Unit tests: the Themis predictor — its inputs from counters, NP̂ from a network with weights
 * set by hand, PSP (eqs. 9-10) worked by hand, refusing unusable networks, network model
 * files (round trip, wrong preset, missing, corrupt, the shipped one), and the quick training
 * run's plan, samples and fit. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_close.h"

#include "testutil.h"

#include "corun/diag.h"
#include "corun/kernel.h"
#include "corun/modelfile.h"
#include "corun/predict.h"
#include "corun/preset.h"
#include "corun/themis.h"
#include "corun/train.h"

/* themis60-like facts: 60 SMs, 2 schedulers, 1.4 GHz, 448 GB/s, 128 B requests. */
static const struct predict_gpu gpu60 = {
    .preset = "test", .sms = 60, .schedulers_per_sm = 2, .core_clock_mhz = 1400, .peak_gbs = 448};

/* Widths 12-2-2-2 with hand-set weights, inputs normalized by mean 0 and scale 1 except
 * N_sm (scale 10): hidden 1 = (N_sm / 10, co-runner MemBW), hidden 2 = the same (identity),
 * SD_scal = 0.5 * N_sm / 10 + 0.5 and SD_inter = 1 + co-runner MemBW. */
static const unsigned layers[] = {12, 2, 2, 2};
#define NWEIGHTS (24 + 26 + 6 + 6)
static void hand_weights(double *w)
{
    memset(w, 0, NWEIGHTS * sizeof(*w));
    for (int i = 0; i < 12; i++)
        w[12 + i] = 1; /* scale */
    w[12] = 10;        /* scale of N_sm */
    double *p = w + 24;
    p[0] = 1;       /* W1 row 0 picks N_sm */
    p[12 + 11] = 1; /* W1 row 1 picks the co-runners' MemBW */
    p += 26;        /* W1 (24) and b1 (2) */
    p[0] = p[3] = 1;
    p += 6; /* W2 (4) and b2 (2) */
    p[0] = 0.5;
    p[3] = 1;
    p[4] = 0.5;
    p[5] = 1;
}

static void *themis_with(const double *w, size_t n, const unsigned *l, char *err, size_t len)
{
    struct predict_model m = {
        .path = "hand", .layers = l, .nlayers = 4, .weights = w, .nweights = n};
    return predictor_themis.create(&gpu60, &m, err, len);
}

/* Two kernels on 30 SMs each for 1000 cycles. */
static void two_kernels(struct gpu_kernel_counters *c)
{
    memset(c, 0, 2 * sizeof(*c));
    c[0] = (struct gpu_kernel_counters){.cycles = 1000,
                                        .sms = 30,
                                        .instructions = 60000,
                                        .l1d_accesses = 6000,
                                        .l1d_misses = 3000,
                                        .l2_accesses = 3000,
                                        .l2_misses = 1500,
                                        .bandwidth_util = 0.5};
    c[1] = (struct gpu_kernel_counters){.cycles = 1000,
                                        .sms = 30,
                                        .instructions = 30000,
                                        .l2_accesses = 5000,
                                        .l2_misses = 4000,
                                        .bandwidth_util = 0.25};
}

static void features_by_hand(void **state)
{
    (void)state;
    struct gpu_kernel_counters c[2];
    two_kernels(c);
    double x[THEMIS_INPUTS];
    assert_int_equal(themis_features(c, 2, 0, x), 0);
    /* 30 SMs x 1000 cycles = 30000 SM-cycles for the kernel's own events. */
    const double want[] = {30, 2, 0.2, 0.1, 0, 0, 0.1, 0.05, 0.5, 5, 4, 0.25};
    for (int i = 0; i < THEMIS_INPUTS; i++)
        assert_close(x[i], want[i], 1e-12);
    c[1].sms = 0;
    assert_int_equal(themis_features(c, 2, 1, x), -1);
}

static void np_from_hand_set_weights(void **state)
{
    (void)state;
    double w[NWEIGHTS];
    hand_weights(w);
    char err[256];
    void *s = themis_with(w, NWEIGHTS, layers, err, sizeof err);
    assert_non_null(s);
    struct gpu_kernel_counters c[2];
    two_kernels(c);
    struct predict_input in = {1000, 2, c, NULL};
    struct predict_output out;
    predictor_themis.predict(s, &in, &out);
    /* Kernel 0: SD_scal = 0.5 * 3 + 0.5 = 2, SD_inter = 1 + 0.25: NP̂ = 1 / 2.5 = 0.4.
     * Kernel 1: SD_scal = 2, SD_inter = 1 + 0.5: NP̂ = 1 / 3. */
    assert_close(out.np[0], 0.4, 1e-12);
    assert_close(out.np[1], 1.0 / 3, 1e-12);
    assert_int_equal(out.cls[0], KERNEL_CLASS_NONE);
    struct predict_text t;
    predictor_themis.explain(s, 0, &t);
    assert_true(t.n >= 5);
    int found = 0;
    for (unsigned i = 0; i < t.n; i++)
        found |= strstr(t.line[i], "SD_scal = 2.000") != NULL;
    assert_true(found);
    /* PSP from n = 30 of 60 (PG_scal_n = 0.5, SD_inter_n = 1.25):
     * m = 15: 0.5 * 15 / 30 = 0.25 -> 0.2; m = 45: 0.5 + 0.5 * 15 / 30 = 0.75 -> 0.6;
     * m = 60: 1 -> 0.8; m = 30: NP̂ itself. */
    assert_close(predictor_themis.np_at(s, 0, 15), 0.2, 1e-12);
    assert_close(predictor_themis.np_at(s, 0, 45), 0.6, 1e-12);
    assert_close(predictor_themis.np_at(s, 0, 60), 0.8, 1e-12);
    assert_close(predictor_themis.np_at(s, 0, 30), 0.4, 1e-12);
    assert_true(isnan(predictor_themis.np_at(s, 5, 30)));
    /* A kernel without SMs has nothing to predict from. */
    c[1].sms = 0;
    predictor_themis.predict(s, &in, &out);
    assert_true(isnan(out.np[1]));
    assert_true(isnan(predictor_themis.np_at(s, 1, 30)));
    predictor_themis.destroy(s);
}

static bool explain_has(void *s, unsigned k, const char *what)
{
    struct predict_text t;
    predictor_themis.explain(s, k, &t);
    for (unsigned i = 0; i < t.n; i++)
        if (strstr(t.line[i], what))
            return true;
    return false;
}

/* Inputs far from the training data are named: with the hand model's mean 0 and scale 1 (N_sm
 * 10), kernel 0's co-runner L2 accesses (5 per cycle) lie 5 SD out, past THEMIS_FAR_Z;
 * kernel 1's farthest inputs (N_sm 30 / 10, co-runner L2 accesses 3) lie 3 SD out. */
static void far_inputs_are_named(void **state)
{
    (void)state;
    double w[NWEIGHTS];
    hand_weights(w);
    struct gpu_kernel_counters c[2];
    two_kernels(c);
    double x[THEMIS_INPUTS];
    unsigned which;
    assert_int_equal(themis_features(c, 2, 0, x), 0);
    assert_close(themis_farthest_input(w, w + 12, x, &which), 5, 1e-12);
    assert_int_equal(which, 9);
    assert_int_equal(themis_features(c, 2, 1, x), 0);
    assert_close(themis_farthest_input(w, w + 12, x, &which), 3, 1e-12);
    assert_true(which == 0 || which == 9);

    char err[256];
    void *s = themis_with(w, NWEIGHTS, layers, err, sizeof err);
    assert_non_null(s);
    struct predict_input in = {1000, 2, c, NULL};
    struct predict_output out;
    predictor_themis.predict(s, &in, &out);
    assert_true(explain_has(s, 0, "extrapolating: co L2Acc is 5.0 SD above the training mean"));
    assert_false(explain_has(s, 1, "extrapolating"));
    /* ... and flagged beside the prediction, for the tables that count them */
    assert_true(out.far[0]);
    assert_false(out.far[1]);
    assert_true(predictor_themis.flags_far);
    predictor_themis.destroy(s);
}

static void psp_by_hand(void **state)
{
    (void)state;
    /* SD_scal 4 on 20 of 80 SMs (PG 0.25), SD_inter 2: m = 10 -> 0.125 / 2;
     * m = 50 -> 0.25 + 0.75 * 30 / 60 = 0.625 -> 0.3125. A PG above 1 is held at 1. */
    assert_close(themis_psp_np(4, 2, 20, 10, 80), 0.0625, 1e-12);
    assert_close(themis_psp_np(4, 2, 20, 50, 80), 0.3125, 1e-12);
    assert_close(themis_psp_np(0.5, 1, 40, 20, 80), 0.5, 1e-12);
    assert_true(isnan(themis_psp_np(4, 2, 0, 10, 80)));
    assert_true(isnan(themis_psp_np(4, -1, 20, 10, 80)));
}

static void unusable_networks_are_refused(void **state)
{
    (void)state;
    double w[NWEIGHTS];
    hand_weights(w);
    char err[256];
    assert_null(themis_with(w, NWEIGHTS - 1, layers, err, sizeof err));
    assert_non_null(strstr(err, "weights"));
    const unsigned three_out[] = {12, 2, 2, 3};
    assert_null(themis_with(w, NWEIGHTS, three_out, err, sizeof err));
    assert_non_null(strstr(err, "outputs"));
    w[12] = 0;
    assert_null(themis_with(w, NWEIGHTS, layers, err, sizeof err));
    assert_non_null(strstr(err, "input_scale"));
    assert_null(predictor_themis.create(&gpu60, NULL, err, sizeof err));
}

static void fit_normalizes_and_learns(void **state)
{
    (void)state;
    /* 48 samples: N_sm in {10, 20, 30, 40, 50, 60} x co-runner MemBW in 8 steps; labels
     * SD_scal = 60 / N_sm (perfect scaling), SD_inter = 1 + co-runner MemBW. */
    enum { N = 48 };
    double x[N * THEMIS_INPUTS] = {0}, y[N * 2], w[THEMIS_WEIGHTS];
    for (int r = 0; r < N; r++) {
        x[r * THEMIS_INPUTS] = 10.0 * (1 + r % 6);
        x[r * THEMIS_INPUTS + 11] = 0.1 * (r / 6);
        y[2 * r] = 60 / x[r * THEMIS_INPUTS];
        y[2 * r + 1] = 1 + x[r * THEMIS_INPUTS + 11];
    }
    double loss = themis_fit(x, y, N, 1500, 3, w);
    assert_close(w[0], 35, 1e-12);                         /* mean of N_sm */
    assert_close(w[THEMIS_INPUTS], sqrt(875.0 / 3), 1e-9); /* its deviation */
    assert_close(w[THEMIS_INPUTS + 1], 1, 0);              /* a constant input */
    /* Untrained (both outputs 1) the data term alone is about 1.05; lambda * ||W||^2 stays. */
    assert_true(loss < 0.05);
    struct predict_model m = {.path = "fit",
                              .layers = themis_widths,
                              .nlayers = 4,
                              .weights = w,
                              .nweights = THEMIS_WEIGHTS};
    char err[256];
    void *s = predictor_themis.create(&gpu60, &m, err, sizeof err);
    assert_non_null(s);
    struct gpu_kernel_counters c[2] = {{.cycles = 1000, .sms = 30, .instructions = 1},
                                       {.cycles = 1000, .sms = 30, .bandwidth_util = 0.4}};
    struct predict_input in = {1000, 2, c, NULL};
    struct predict_output out;
    predictor_themis.predict(s, &in, &out);
    /* Truth for kernel 0: SD_scal 2, SD_inter 1.4, NP 1 / 2.8. */
    assert_true(fabs(out.np[0] * 2.8 - 1) < 0.1);
    predictor_themis.destroy(s);
}

/* Writes text to path and loads it as a themis model for themis60, which must refuse it; d
 * gets the messages (diag_done it). */
static void load_refused(const char *path, const char *text, struct diag *d)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    diag_init(d);
    struct modelfile m;
    assert_int_equal(modelfile_load(path, "themis", "themis60", &m, d), -1);
}

static void network_model_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/corun-themis-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/themis-themis60.cfg", dir);
    struct modelfile m;
    struct diag d;

    diag_init(&d);
    assert_int_equal(modelfile_load(path, "themis", "themis60", &m, &d), -1);
    assert_true(test_diag_has(&d, path, "corun train themis --gpu themis60", NULL));
    diag_done(&d);

    double w[NWEIGHTS];
    hand_weights(w);
    unsigned l[4] = {12, 2, 2, 2};
    struct modelfile out = {.model = "themis",
                            .gpu = "themis60",
                            .sms = 60,
                            .layers = l,
                            .nlayers = 4,
                            .weights = w,
                            .nweights = NWEIGHTS,
                            .train_error = 0.05,
                            .test_error = 0.1,
                            .points = 99};
    char err[256];
    assert_int_equal(modelfile_write(path, &out, "hand\nRegenerate with: x", err, sizeof err), 0);
    diag_init(&d);
    assert_int_equal(modelfile_load(path, "themis", "themis60", &m, &d), 0);
    assert_int_equal(m.nlayers, 4);
    assert_int_equal(m.nweights, NWEIGHTS);
    for (size_t i = 0; i < NWEIGHTS; i++)
        assert_close(m.weights[i], w[i], 1e-9);
    assert_int_equal(m.points, 99);
    assert_int_equal(m.sms, 60);
    char warning[512];
    assert_int_equal(
        modelfile_training_warning(&m, path, "themis60", 60, NULL, NULL, warning, sizeof warning),
        0);
    assert_string_equal(warning, "");
    /* On 16 SMs of the same preset (--set gpu.sms=16): a warning naming both. */
    assert_int_equal(
        modelfile_training_warning(&m, path, "themis60", 16, NULL, NULL, warning, sizeof warning),
        1);
    assert_non_null(strstr(warning, path));
    assert_non_null(strstr(warning, "trained on themis60 with 60 SMs, used on themis60 with 16"));
    modelfile_done(&m);
    diag_done(&d);

    /* The same file for another preset: it loads, and the warning names both. */
    diag_init(&d);
    assert_int_equal(modelfile_load(path, "themis", "hbm80", &m, &d), 0);
    assert_int_equal(d.count, 0);
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 80, NULL, NULL, warning, sizeof warning), 1);
    assert_non_null(strstr(warning, "trained on themis60 with 60 SMs, used on hbm80 with 80"));
    modelfile_done(&m);
    diag_done(&d);

    /* Corrupt: one weight short, and a non-number. */
    load_refused(path,
                 "model = \"themis\";\ngpu = \"themis60\";\nlayers = [12, 2, 2, 2];\n"
                 "input_mean = [0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.];\n"
                 "input_scale = [1.,1.,1.,1.,1.,1.,1.,1.,1.,1.,1.,1.];\nweights = [1.0, 2.0];\n",
                 &d);
    char where[160];
    snprintf(where, sizeof where, "%s:6:", path);
    assert_true(test_diag_has(&d, where, "weights", "38", NULL));
    assert_true(test_diag_has(&d, "corun train themis --gpu themis60", NULL));
    diag_done(&d);
    load_refused(path, "model = \"themis\";\ngpu = \"themis60\";\nlayers = \"big\";\n", &d);
    assert_true(test_diag_has(&d, path, "layers", NULL));
    diag_done(&d);
    /* A layer of no nodes: refused at its line before the weights are counted. */
    load_refused(path, "model = \"themis\";\ngpu = \"themis60\";\nlayers = [12, 0, 2];\n", &d);
    snprintf(where, sizeof where, "%s:3:", path);
    assert_true(test_diag_has(&d, where, "every width must be 1 to", "got 0", NULL));
    diag_done(&d);
    /* One input's mean missing, its scales all there: refused, as either short would be. */
    load_refused(
        path,
        "model = \"themis\";\ngpu = \"themis60\";\nlayers = [12, 2];\n"
        "input_mean = [0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.];\n"
        "input_scale = [1.,1.,1.,1.,1.,1.,1.,1.,1.,1.,1.,1.];\n"
        "weights = [0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,0.,"
        "0.,0.];\n",
        &d);
    snprintf(where, sizeof where, "%s:4:", path);
    assert_true(test_diag_has(&d, where, "expected 12 values each", "got 11 and 12", NULL));
    diag_done(&d);
    unlink(path);
    rmdir(dir);
}

static void shipped_themis60_model_predicts(void **state)
{
    (void)state;
    const char *datadir = getenv("CORUN_DATADIR");
    if (!datadir)
        skip();
    char *path = modelfile_path(datadir, "themis", "themis60");
    struct modelfile m;
    struct diag d;
    diag_init(&d);
    int rc = modelfile_load(path, "themis", "themis60", &m, &d);
    if (rc != 0)
        diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    struct predict_model pm = {.path = path,
                               .layers = m.layers,
                               .nlayers = (unsigned)m.nlayers,
                               .weights = m.weights,
                               .nweights = m.nweights};
    char err[256];
    void *s = predictor_themis.create(&gpu60, &pm, err, sizeof err);
    assert_non_null(s);
    struct gpu_kernel_counters c[2];
    two_kernels(c);
    struct predict_input in = {1000, 2, c, NULL};
    struct predict_output out;
    predictor_themis.predict(s, &in, &out);
    assert_true(out.np[0] > 0 && out.np[0] < 20);
    predictor_themis.destroy(s);
    modelfile_done(&m);
    diag_done(&d);
    free(path);
}

struct heard {
    size_t calls, last_done, last_total;
    bool fitting, rising;
    char labels[80][64]; /* each run's, as progress names it: "K alone @N", "K@N + K2" */
    size_t nlabels;
};

static void hear(void *user, const char *label, size_t done, size_t total)
{
    struct heard *h = user;
    if (*label && strcmp(label, "fitting the network") != 0 && h->nlabels < 80)
        snprintf(h->labels[h->nlabels++], sizeof h->labels[0], "%s", label);
    h->rising = h->rising && done >= h->last_done && done <= total;
    h->fitting = h->fitting || strcmp(label, "fitting the network") == 0;
    h->last_done = done;
    h->last_total = total;
    h->calls++;
}

/* How many of the runs' labels contain text. */
static size_t labelled(const struct heard *h, const char *text)
{
    size_t n = 0;
    for (size_t i = 0; i < h->nlabels; i++)
        n += strstr(h->labels[i], text) != NULL;
    return n;
}

/* The quick plan's runs by their labels: each SM count of N/6 .. N alone for the 5 kernels;
 * levels 1, 6 and 12 of both producers beside each training kernel at N/3 and 2N/3; the test
 * pairs at N/2. A kernel beside a producer comes from Themis' training split, one in a pair
 * from its test split. */
static void check_plan(const char *datadir, const struct heard *h)
{
    assert_int_equal(h->nlabels, 70);
    static const char *const alone[] = {"alone @10", "alone @20", "alone @30",
                                        "alone @40", "alone @50", "alone @60"};
    for (size_t i = 0; i < 6; i++)
        assert_int_equal(labelled(h, alone[i]), 5);
    static const char *const producers[] = {"+ cachepp1", "+ cachepp6", "+ cachepp12",
                                            "+ bwpp1",    "+ bwpp6",    "+ bwpp12"};
    for (size_t i = 0; i < 6; i++) /* "cachepp1" is also the start of "cachepp12" */
        assert_int_equal(labelled(h, producers[i]), i % 3 == 0 ? 12 : 6);
    assert_int_equal(labelled(h, "@20 + "), 18);
    assert_int_equal(labelled(h, "@40 + "), 18);
    assert_int_equal(labelled(h, "@30 + "), 4);
    for (size_t i = 0; i < h->nlabels; i++) {
        const char *l = h->labels[i], *at = strchr(l, '@');
        if (strstr(l, "alone"))
            continue;
        char name[32];
        snprintf(name, sizeof name, "%.*s", (int)(at - l), l);
        struct kernel_profile k;
        struct diag d;
        diag_init(&d);
        assert_int_equal(preset_kernel_load(datadir, name, &k, &d), 0);
        bool training = strstr(l, "pp") != NULL;
        if (k.paper != KERNEL_PAPER_THEMIS ||
            k.split != (training ? KERNEL_SPLIT_TRAIN : KERNEL_SPLIT_TEST))
            fail_msg("%s: %s is not of Themis' %s split", l, name, training ? "training" : "test");
        kernel_profile_done(&k);
        diag_done(&d);
    }
}

/* `train themis --quick` on themis60, its plan worked out: 5 kernels (3 training, one per
 * class; 2 test, compute and memory) alone on the 6 SM counts (30 runs), the 3 training kernels
 * beside 3 levels x 2 kinds of pressure producer at 2 splits (36), the 2 test kernels in
 * ordered pairs at N/2:N/2 (4): 70 runs; 36 training samples, 12 per class, and 8 test
 * samples, both kernels of each test pair. The rows come training then test, by class, then
 * all, whose errors are the classes' weighted by their samples. The network fits its training
 * samples to a few per cent (labels read off the wrong runs would leave it far off). */
static void train_quick_plan_and_fit(void **state)
{
    (void)state;
    const char *datadir = getenv("CORUN_DATADIR");
    assert_non_null(datadir);
    struct train_themis_options o = {.quick = true, .jobs = 1, .seed = 1};
    struct train_themis_result r;
    struct diag d;
    diag_init(&d);
    struct heard h = {.rising = true};
    if (train_themis(datadir, "themis60", &o, hear, &h, &r, &d) != 0)
        fail_msg("%s", d.count ? d.msgs[0] : "train_themis failed");
    assert_string_equal(r.gpu, "themis60");
    assert_int_equal(r.sms, 60);
    assert_int_equal(r.cycles, TRAIN_THEMIS_QUICK_CYCLES);
    assert_int_equal(r.train_kernels, 3);
    assert_int_equal(r.test_kernels, 2);
    assert_int_equal(r.levels, 3);
    assert_int_equal(r.splits, 2);
    assert_int_equal(r.runs, 70);
    assert_true(h.rising && h.fitting && h.last_done == 70 && h.last_total == 70);
    assert_true(h.calls >= 72); /* each run, the fit, the end */
    check_plan(datadir, &h);
    assert_int_equal(r.nweights, THEMIS_WEIGHTS);
    assert_true(r.loss > 0 && isfinite(r.loss));
    static const int cls[4] = {KERNEL_CLASS_COMPUTE, KERNEL_CLASS_MEMORY, KERNEL_CLASS_BALANCED,
                               KERNEL_CLASS_NONE};
    static const size_t samples[8] = {12, 12, 12, 36, 4, 4, 0, 8};
    assert_int_equal(r.nrows, 8);
    for (size_t i = 0; i < 8; i++) {
        const struct train_themis_row *row = &r.rows[i];
        assert_true(row->test == (i >= 4));
        assert_int_equal(row->cls, cls[i % 4]);
        assert_int_equal(row->samples, samples[i]);
        assert_true(row->err_scal >= 0 && row->err_inter >= 0 && row->err_sd >= 0 &&
                    row->are_np >= 0);
    }
    for (size_t set = 0; set < 8; set += 4) {
        double sd = 0, scal = 0;
        for (size_t c = 0; c < 3; c++) {
            sd += r.rows[set + c].err_sd * (double)r.rows[set + c].samples;
            scal += r.rows[set + c].err_scal * (double)r.rows[set + c].samples;
        }
        double n = (double)r.rows[set + 3].samples;
        assert_close(r.rows[set + 3].err_sd, sd / n, 1e-12);
        assert_close(r.rows[set + 3].err_scal, scal / n, 1e-12);
    }
    const struct train_themis_row *all = &r.rows[3];
    printf("  training samples: SD_scal %.1f %%, SD_inter %.1f %%, SD %.1f %%\n",
           100 * all->err_scal, 100 * all->err_inter, 100 * all->err_sd);
    assert_true(all->err_scal < 0.1 && all->err_inter < 0.1 && all->err_sd < 0.1);
    train_themis_done(&r);
    assert_null(r.weights);
    diag_done(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(features_by_hand),
        cmocka_unit_test(np_from_hand_set_weights),
        cmocka_unit_test(far_inputs_are_named),
        cmocka_unit_test(psp_by_hand),
        cmocka_unit_test(unusable_networks_are_refused),
        cmocka_unit_test(fit_normalizes_and_learns),
        cmocka_unit_test(network_model_files),
        cmocka_unit_test(train_quick_plan_and_fit),
        cmocka_unit_test(shipped_themis60_model_predicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
