/* Unit tests: predictors — the registry, the oracle, HSM on hand-built counters with
 * hand-computed answers, its least squares, and the model-file loader's messages. */
#include <dirent.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_close.h"

#include "testutil.h"

#include "corun/datadir.h"
#include "corun/hsm.h"
#include "corun/modelfile.h"
#include "corun/predict.h"
#include "corun/preset.h"
#include "corun/train.h"

/* hbm80-like facts: 80 SMs, 2 schedulers each, 1.4 GHz, 900 GB/s, 64 B requests, 440 MHz HBM. */
static const struct predict_gpu gpu80 = {"test", 80, 2, 1400, 900, 64, 440};
#define EPOCH 100000

static void registry_lists_each_once_and_only_oracle_sees_truth(void **state)
{
    (void)state;
    size_t n = predict_registry_count();
    assert_true(n >= 2);
    assert_ptr_equal(predict_registry_find("oracle"), &predictor_oracle);
    assert_ptr_equal(predict_registry_find("hsm"), &predictor_hsm);
    assert_null(predict_registry_find("nope"));
    assert_null(predict_registry_at(n));
    const char *names[16];
    assert_int_equal(predict_registry_names(names, 16), n);
    for (size_t i = 0; i < n; i++) {
        const struct predictor_ops *p = predict_registry_at(i);
        assert_string_equal(names[i], p->name);
        assert_non_null(p->summary);
        assert_non_null(p->create);
        assert_non_null(p->destroy);
        assert_non_null(p->predict);
        assert_non_null(p->explain);
        assert_ptr_equal(predict_registry_find(p->name), p);
        /* The private-mode truth is the oracle's alone. */
        assert_int_equal(p->needs_private, strcmp(p->name, "oracle") == 0);
    }
}

static void oracle_returns_the_true_np(void **state)
{
    (void)state;
    char err[256];
    void *s = predictor_oracle.create(&gpu80, NULL, err, sizeof err);
    assert_non_null(s);
    struct predict_text t;
    predictor_oracle.explain(s, 0, &t); /* before its first epoch */
    assert_int_equal(t.n, 2);
    assert_string_equal(t.line[1], "no epoch predicted yet");
    struct gpu_kernel_counters c[3] = {{.sms = 40}, {.sms = 40}, {.sms = 0}};
    double truth[3] = {0.4321, 0.875, 0.5}; /* the third is past the mix */
    struct predict_input in = {EPOCH, 2, c, truth};
    struct predict_output out = {.np = {[2] = -1}};
    predictor_oracle.predict(s, &in, &out);
    assert_true(out.np[0] == truth[0] && out.np[1] == truth[1]);
    assert_true(out.np[2] == -1); /* nothing written past the mix */
    assert_int_equal(out.cls[0], KERNEL_CLASS_NONE);
    predictor_oracle.explain(s, 1, &t);
    assert_non_null(strstr(t.line[0], "PRIVATE-MODE TRUTH"));
    assert_string_equal(t.line[t.n - 1], "    = 0.8750");
    predictor_oracle.explain(s, 2, &t); /* a kernel past the mix */
    assert_string_equal(t.line[t.n - 1], "no epoch predicted yet");
    /* No truth, or a truth of 0 (a kernel that did nothing): NaN, not a number made up. */
    truth[0] = 0;
    predictor_oracle.predict(s, &in, &out);
    assert_true(isnan(out.np[0]) && out.np[1] == truth[1]);
    in.np_private = NULL;
    predictor_oracle.predict(s, &in, &out);
    assert_true(isnan(out.np[0]) && isnan(out.np[1]));
    predictor_oracle.destroy(s);
}

/* A compute-bound kernel on 40 SMs: IPC 60 of the 160 that 80 SMs could issue, little DRAM. */
static const struct gpu_kernel_counters compute_kernel = {
    .instructions = 6000000, .sms = 40, .row_accesses = 10000, .rbh = 0.5, .bandwidth_util = 0.01};
/* A memory-bound kernel on 40 SMs: IPC 4, 200000 row accesses, RBH 0.6, 45 % of peak. */
static const struct gpu_kernel_counters memory_kernel = {
    .instructions = 400000, .sms = 40, .row_accesses = 200000, .rbh = 0.6, .bandwidth_util = 0.45};

static void *hsm_with(double c1, double c2)
{
    struct predict_model m = {.path = "test", .coef = {c1, c2}, .ncoef = 2};
    char err[256];
    void *s = predictor_hsm.create(&gpu80, &m, err, sizeof err);
    assert_non_null(s);
    return s;
}

static void hsm_hand_computed(void **state)
{
    (void)state;
    struct hsm_demand d;
    /* I_max = 80 x 2 x 1e5 = 1.6e7. Compute: B_d = (1.6e7 / 6e6) x 10000 x 64 B x 1.4e9 / 1e5
     * = 23.893 GB/s; B_p = 900 x (0.5 x 0.5 + 0.3) = 495 GB/s: compute; NP^ = 40 / 80. */
    hsm_classify(&gpu80, &compute_kernel, EPOCH, 0.5, 0.3, &d);
    assert_close(d.i_max, 1.6e7, 1e-6);
    assert_close(d.demand_gbs, 1.6e7 / 6e6 * 8.96, 1e-9);
    assert_close(d.potential_gbs, 495, 1e-9);
    assert_int_equal(d.cls, KERNEL_CLASS_COMPUTE);
    /* Memory: B_d = 40 x 200000 x 64 x 14000 / 1e9 = 7168 GB/s > 900 x 0.6 = 540;
     * NP^ = 0.45 / (0.5 x 0.6 + 0.3) = 0.75. */
    hsm_classify(&gpu80, &memory_kernel, EPOCH, 0.5, 0.3, &d);
    assert_close(d.demand_gbs, 7168, 1e-9);
    assert_close(d.potential_gbs, 540, 1e-9);
    assert_int_equal(d.cls, KERNEL_CLASS_MEMORY);

    void *s = hsm_with(0.5, 0.3);
    struct gpu_kernel_counters c[2] = {compute_kernel, memory_kernel};
    struct predict_input in = {EPOCH, 2, c, NULL};
    struct predict_output out;
    predictor_hsm.predict(s, &in, &out);
    assert_close(out.np[0], 0.5, 1e-12);
    assert_close(out.np[1], 0.75, 1e-12);
    assert_int_equal(out.cls[0], KERNEL_CLASS_COMPUTE);
    assert_int_equal(out.cls[1], KERNEL_CLASS_MEMORY);
    struct predict_text t;
    predictor_hsm.explain(s, 1, &t);
    int saw_bd = 0, saw_np = 0;
    for (unsigned i = 0; i < t.n; i++) {
        saw_bd |= strstr(t.line[i], "B_d =") && strstr(t.line[i], "7168.0 GB/s");
        saw_np |= strstr(t.line[i], "NP^ = B_k / (c1 x RBH + c2) = 0.450 / 0.600 = 0.750") != NULL;
    }
    assert_true(saw_bd && saw_np);
    predictor_hsm.destroy(s);
}

static void hsm_classifier_boundary(void **state)
{
    (void)state;
    /* Every instruction I_max could issue (ratio 1), 500000 row accesses: B_d = 500000 x 64 x
     * 14000 / 1e9 = 448 GB/s exactly; c1 = 0, c2 = 0.5 on 896 GB/s: B_p = 448 too. Equal is
     * not "exceeds": compute; one more access tips it to memory. */
    struct predict_gpu g = gpu80;
    g.peak_gbs = 896;
    struct gpu_kernel_counters c = {.instructions = 16000000, .sms = 80, .row_accesses = 500000};
    struct hsm_demand d;
    hsm_classify(&g, &c, EPOCH, 0, 0.5, &d);
    assert_true(d.demand_gbs == 448 && d.potential_gbs == 448);
    assert_int_equal(d.cls, KERNEL_CLASS_COMPUTE);
    c.row_accesses++;
    hsm_classify(&g, &c, EPOCH, 0, 0.5, &d);
    assert_int_equal(d.cls, KERNEL_CLASS_MEMORY);
    /* No instructions: unbounded demand, memory-bound. */
    struct gpu_kernel_counters idle = {0};
    hsm_classify(&g, &idle, EPOCH, 0, 0.5, &d);
    assert_int_equal(d.cls, KERNEL_CLASS_MEMORY);
}

static void hsm_np_at_is_linear_through_origin(void **state)
{
    (void)state;
    void *s = hsm_with(0.5, 0.3);
    assert_true(isnan(predictor_hsm.np_at(s, 0, 10))); /* nothing predicted yet */
    struct gpu_kernel_counters c[2] = {compute_kernel, memory_kernel};
    struct predict_input in = {EPOCH, 2, c, NULL};
    struct predict_output out;
    predictor_hsm.predict(s, &in, &out);
    for (unsigned k = 0; k < 2; k++) {
        assert_close(predictor_hsm.np_at(s, k, 40), out.np[k], 1e-12);
        assert_close(predictor_hsm.np_at(s, k, 0), 0, 1e-12);
        double g = out.np[k] / 40;
        assert_close(predictor_hsm.np_at(s, k, 20), 20 * g, 1e-12);
        assert_close(predictor_hsm.np_at(s, k, 60), 3 * predictor_hsm.np_at(s, k, 20), 1e-12);
    }
    /* Past the mix: no what-if, and explain says there is no prediction. */
    assert_true(isnan(predictor_hsm.np_at(s, 2, 20)));
    struct predict_text t;
    predictor_hsm.explain(s, 2, &t);
    assert_int_equal(t.n, 1);
    assert_string_equal(t.line[0], "HSM: no epoch predicted yet");
    /* A kernel that held no SM in the epoch (one that finished before it), or one that left
     * the mix since: no what-if either. */
    c[1].sms = 0;
    predictor_hsm.predict(s, &in, &out);
    assert_true(isnan(predictor_hsm.np_at(s, 1, 20)));
    c[1].sms = 40;
    predictor_hsm.predict(s, &in, &out);
    in.nkernels = 1;
    predictor_hsm.predict(s, &in, &out);
    assert_true(isnan(predictor_hsm.np_at(s, 1, 20)));
    predictor_hsm.destroy(s);
}

static void hsm_refuses_unusable_coefficients(void **state)
{
    (void)state;
    struct predict_model m = {.path = "m.cfg", .coef = {-0.5, 0.3}, .ncoef = 2};
    char err[256];
    assert_null(predictor_hsm.create(&gpu80, &m, err, sizeof err));
    assert_non_null(strstr(err, "m.cfg"));
    assert_null(predictor_hsm.create(&gpu80, NULL, err, sizeof err));
    /* A falling line is usable while it stays above zero up to RBH 1 (c1 + c2 > 0)... */
    struct predict_model falling = {.path = "f.cfg", .coef = {-0.2, 0.3}, .ncoef = 2};
    void *s = predictor_hsm.create(&gpu80, &falling, err, sizeof err);
    assert_non_null(s);
    predictor_hsm.destroy(s);
    /* ...and not when it reaches zero there, or when it starts at zero. */
    struct predict_model to_zero = {.path = "z.cfg", .coef = {-0.3, 0.3}, .ncoef = 2};
    assert_null(predictor_hsm.create(&gpu80, &to_zero, err, sizeof err));
    struct predict_model from_zero = {.path = "o.cfg", .coef = {0.5, 0}, .ncoef = 2};
    assert_null(predictor_hsm.create(&gpu80, &from_zero, err, sizeof err));
}

static void least_squares_on_known_points(void **state)
{
    (void)state;
    double x[] = {0.1, 0.3, 0.5, 0.9}, y[4];
    for (int i = 0; i < 4; i++)
        y[i] = 0.4 * x[i] + 0.35;
    double c1, c2, r2;
    assert_int_equal(hsm_fit_line(x, y, 4, &c1, &c2, &r2), 0);
    assert_close(c1, 0.4, 1e-12);
    assert_close(c2, 0.35, 1e-12);
    assert_close(r2, 1, 1e-12);
    /* Two points off the line by +-0.1 around x = 0.5: slope unchanged, R^2 below 1. */
    double x2[] = {0, 0.5, 0.5, 1}, y2[] = {0.35, 0.65, 0.45, 0.75};
    assert_int_equal(hsm_fit_line(x2, y2, 4, &c1, &c2, &r2), 0);
    assert_close(c1, 0.4, 1e-12);
    assert_close(c2, 0.35, 1e-12);
    assert_close(r2, 1 - 0.02 / 0.1, 1e-12);
    /* Every point off the line, the first one too: c1 = 0.4 / 1, c2 = 0.6 - 0.4 * 0.5,
     * residuals -+0.1, SSE 0.04 against SST 0.2. */
    double x3[] = {0, 0, 1, 1}, y3[] = {0.3, 0.5, 0.7, 0.9};
    assert_int_equal(hsm_fit_line(x3, y3, 4, &c1, &c2, &r2), 0);
    assert_close(c1, 0.4, 1e-12);
    assert_close(c2, 0.4, 1e-12);
    assert_close(r2, 0.8, 1e-12);
    assert_int_equal(hsm_fit_line(x, y, 1, &c1, &c2, &r2), -1);
    double same[] = {0.5, 0.5};
    assert_int_equal(hsm_fit_line(same, y, 2, &c1, &c2, &r2), -1);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void model_file_messages(void **state)
{
    (void)state;
    char dir[] = "/tmp/corun-predict-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128];
    snprintf(path, sizeof path, "%s/hsm-hbm80.cfg", dir);
    struct modelfile m;
    struct diag d;

    /* Missing: names the file and the command that regenerates it. */
    diag_init(&d);
    assert_int_equal(modelfile_load(path, "hsm", "hbm80", &m, &d), -1);
    assert_true(test_diag_has(&d, path, NULL));
    assert_true(test_diag_has(&d, path, "corun train hsm --gpu hbm80", NULL));
    diag_done(&d);

    /* A bad value on line 3: file:line, the setting, and the command. */
    char where[160];
    snprintf(where, sizeof where, "%s:3:", path);
    write_text(path, "model = \"hsm\";\ngpu = \"hbm80\";\nc1 = \"abc\";\nc2 = 0.3;\n");
    diag_init(&d);
    assert_int_equal(modelfile_load(path, "hsm", "hbm80", &m, &d), -1);
    assert_true(test_diag_has(&d, where, "c1", NULL));
    assert_true(test_diag_has(&d, "corun train hsm --gpu hbm80", NULL));
    diag_done(&d);

    /* Trained for another preset, in a file from before the SM count was recorded: it loads;
     * the warning names both presets and says the SM count is unknown. */
    write_text(path, "model = \"hsm\";\ngpu = \"themis60\";\nc1 = 0.5;\nc2 = 0.3;\n");
    diag_init(&d);
    assert_int_equal(modelfile_load(path, "hsm", "hbm80", &m, &d), 0);
    assert_int_equal(m.sms, 0);
    char warning[512];
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 80, NULL, NULL, warning, sizeof warning), 1);
    assert_non_null(strstr(warning, path));
    assert_non_null(strstr(warning, "training configuration unknown"));
    assert_non_null(strstr(warning, "trained on themis60"));
    assert_non_null(strstr(warning, "used on hbm80 with 80 SMs"));
    assert_non_null(strstr(warning, "corun train hsm --gpu hbm80"));
    modelfile_done(&m);
    diag_done(&d);

    /* An SM count that is not a count: refused at its line. */
    write_text(path, "model = \"hsm\";\ngpu = \"hbm80\";\nsms = -3;\nc1 = 0.5;\nc2 = 0.3;\n");
    snprintf(where, sizeof where, "%s:3:", path);
    diag_init(&d);
    assert_int_equal(modelfile_load(path, "hsm", "hbm80", &m, &d), -1);
    assert_true(test_diag_has(&d, where, "sms", NULL));
    diag_done(&d);

    /* HSM divides by c1 * RBH + c2: a line that reaches 0 at RBH 1 (c1 + c2 = 0), or starts
     * at 0 (c2 = 0), is refused at c2's line; one just above it loads. */
    static const struct {
        const char *c1, *c2;
        int rc;
    } lines[] = {{"-0.3", "0.3", -1}, {"0.5", "0.0", -1}, {"-0.29", "0.3", 0}};
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        char text[160];
        snprintf(text, sizeof text, "model = \"hsm\";\ngpu = \"hbm80\";\nc1 = %s;\nc2 = %s;\n",
                 lines[i].c1, lines[i].c2);
        write_text(path, text);
        diag_init(&d);
        int rc = modelfile_load(path, "hsm", "hbm80", &m, &d);
        if (rc != lines[i].rc)
            fail_msg("c1 = %s, c2 = %s: %d", lines[i].c1, lines[i].c2, rc);
        snprintf(where, sizeof where, "%s:4:", path);
        if (rc != 0)
            assert_true(test_diag_has(&d, where, "expected c2 > 0 and c1 + c2 > 0", NULL));
        else
            modelfile_done(&m);
        diag_done(&d);
    }

    /* Written, then loaded back. */
    struct modelfile w = {
        .model = "hsm", .gpu = "hbm80", .sms = 80, .c1 = 0.61, .c2 = 0.32, .r2 = 0.9, .points = 10};
    char err[256];
    assert_int_equal(modelfile_write(path, &w, "a comment\nRegenerate with: x", err, sizeof err),
                     0);
    diag_init(&d);
    assert_int_equal(modelfile_load(path, "hsm", "hbm80", &m, &d), 0);
    assert_close(m.c1, 0.61, 1e-9);
    assert_close(m.c2, 0.32, 1e-9);
    assert_int_equal(m.points, 10);
    assert_int_equal(m.sms, 80);
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 80, NULL, NULL, warning, sizeof warning), 0);
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 16, NULL, NULL, warning, sizeof warning), 1);
    assert_non_null(strstr(warning, "trained on hbm80 with 80 SMs, used on hbm80 with 16 SMs"));
    modelfile_done(&m);
    diag_done(&d);
    unlink(path);
    rmdir(dir);
}

/* The names in dir, sorted and joined by spaces, into out. */
static void list_dir(const char *dir, char *out, size_t len)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    assert_true(n >= 0);
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.' || strlen(names[i]->d_name) > 2)
            snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? " " : "",
                     names[i]->d_name);
        free(names[i]);
    }
    free(names);
}

/* The model went first to the fixed PATH.tmp: a file of that name was overwritten, and two
 * writers shared one. It goes to a name of its own, removed when the write fails. */
static void model_write_leaves_its_neighbours(void **state)
{
    (void)state;
    char dir[] = "/tmp/corun-predict-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[128], tmp[140], sub[140], names[256];
    snprintf(path, sizeof path, "%s/m.cfg", dir);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    write_text(tmp, "mine\n");
    struct modelfile w = {.model = "hsm", .gpu = "hbm80", .c1 = 0.61, .c2 = 0.32, .points = 10};
    char err[256];
    assert_int_equal(modelfile_write(path, &w, NULL, err, sizeof err), 0);
    char kept[16] = "";
    FILE *fp = fopen(tmp, "r");
    assert_non_null(fp);
    assert_int_equal(fread(kept, 1, sizeof kept - 1, fp), 5);
    fclose(fp);
    assert_string_equal(kept, "mine\n");
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "m.cfg m.cfg.tmp");

    /* A rename that fails (over a directory that is not empty) leaves no temporary file. */
    unlink(path);
    assert_int_equal(mkdir(path, 0700), 0);
    snprintf(sub, sizeof sub, "%s/x", path);
    write_text(sub, "x\n");
    assert_int_equal(modelfile_write(path, &w, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "m.cfg: cannot write"));
    list_dir(dir, names, sizeof names);
    assert_string_equal(names, "m.cfg m.cfg.tmp");
    unlink(sub);
    rmdir(path);
    unlink(tmp);
    rmdir(dir);
}

static void shipped_hbm80_model_loads(void **state)
{
    (void)state;
    const char *datadir = getenv("CORUN_DATADIR");
    if (!datadir)
        skip();
    char *path = modelfile_path(datadir, "hsm", "hbm80");
    struct modelfile m;
    struct diag d;
    diag_init(&d);
    int rc = modelfile_load(path, "hsm", "hbm80", &m, &d);
    if (rc != 0)
        diag_print(&d, stderr);
    assert_int_equal(rc, 0);
    assert_true(m.points >= 2);
    char warning[512];
    /* The shipped file records what it was trained on: no warning on the preset itself, nor on
     * the preset as its file gives it; one naming the settings of a GPU that changes some
     * (run --set gpu.llc.latency_cycles=240), and the SM count's alone for another count. */
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 80, NULL, NULL, warning, sizeof warning), 0);
    struct gpu_config cfg;
    test_preset("hbm80", &cfg);
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 80, &cfg, datadir, warning, sizeof warning),
        0);
    assert_string_equal(warning, "");
    char want[160];
    snprintf(want, sizeof want,
             "hsm model trained on hbm80 as its preset gives it, used with 2 of its settings "
             "changed (gpu.llc.latency_cycles %u -> %u, gpu.order_free",
             cfg.llc.latency_cycles, 2 * cfg.llc.latency_cycles);
    cfg.llc.latency_cycles *= 2;
    cfg.order_free = !cfg.order_free;
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 80, &cfg, datadir, warning, sizeof warning),
        1);
    assert_non_null(strstr(warning, want));
    assert_non_null(strstr(warning, path));
    cfg.sms = 16;
    assert_int_equal(
        modelfile_training_warning(&m, path, "hbm80", 16, &cfg, datadir, warning, sizeof warning),
        1);
    assert_non_null(strstr(warning, "trained on hbm80 with 80 SMs, used on hbm80 with 16 SMs"));
    modelfile_done(&m);
    diag_done(&d);
    free(path);
}

/* train_hsm's progress: the calls, the last kernel named and the last count. */
struct train_seen {
    size_t calls, done, total;
    char last[64];
};

static void train_progress(void *user, const char *kernel, size_t done, size_t total)
{
    struct train_seen *t = user;
    t->calls++;
    t->done = done;
    t->total = total;
    snprintf(t->last, sizeof t->last, "%s", kernel);
}

/* HSM's line trained on a preset: one point per memory-bound profile of the paper that
 * targets it (Themis' on themis60; HSM's on hbm80, and on a preset no paper targets), each its
 * RBH and bandwidth alone on every SM, and the least-squares line through them. Progress names
 * each kernel, then ends at n of n with no name. */
static void train_fits_the_preset_s_own_kernels(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    static const struct {
        const char *gpu;
        int paper;
    } cases[] = {{"themis60", KERNEL_PAPER_THEMIS}, {"gddr5_40", KERNEL_PAPER_HSM}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        struct diag d;
        diag_init(&d);
        struct train_hsm_result r;
        struct train_seen seen = {0};
        if (train_hsm(datadir, cases[c].gpu, 2000, train_progress, &seen, &r, &d) != 0)
            fail_msg("train hsm on %s: %s", cases[c].gpu, d.count ? d.msgs[0] : "?");
        assert_true(r.npoints >= 2);
        assert_string_equal(r.gpu, cases[c].gpu);
        printf("  %s: %zu kernels, utilization = %.3f RBH + %.3f\n", r.gpu, r.npoints, r.c1, r.c2);
        double x[64], y[64], c1, c2, r2;
        assert_true(r.npoints <= 64);
        for (size_t i = 0; i < r.npoints; i++) {
            struct kernel_profile p;
            assert_int_equal(preset_kernel_load(datadir, r.points[i].kernel, &p, &d), 0);
            if (p.paper != cases[c].paper || p.target_class != KERNEL_CLASS_MEMORY)
                fail_msg("%s: trained on %s, not a memory-bound kernel of its paper", cases[c].gpu,
                         r.points[i].kernel);
            kernel_profile_done(&p);
            x[i] = r.points[i].rbh;
            y[i] = r.points[i].utilization;
        }
        assert_int_equal(hsm_fit_line(x, y, r.npoints, &c1, &c2, &r2), 0);
        assert_true(c1 == r.c1 && c2 == r.c2 && r2 == r.r2);
        assert_int_equal(seen.calls, r.npoints + 1);
        assert_int_equal(seen.done, r.npoints);
        assert_int_equal(seen.total, r.npoints);
        assert_string_equal(seen.last, "");
        train_hsm_done(&r);
        diag_done(&d);
    }
    free(datadir);
}

/* An explanation line longer than a line holds is cut between characters: a kernel named in
 * three-byte characters (日本語) ends whole, not in a character's first byte. */
static void explanation_lines_end_whole(void **state)
{
    (void)state;
    struct predict_text t = {0};
    char name[200] = "";
    for (int i = 0; i < 40; i++)
        strcat(name, "\u65e5");
    for (int pad = 0; pad < 3; pad++) /* each of the three places the cut can fall */
        predict_text_add(&t, "%.*skernel %s", pad, "xx", name);
    assert_int_equal(t.n, 3);
    for (unsigned i = 0; i < t.n; i++) {
        size_t n = strlen(t.line[i]);
        assert_true(n < PREDICT_EXPLAIN_WIDTH && n >= PREDICT_EXPLAIN_WIDTH - 3);
        assert_int_equal((n - (i + strlen("kernel "))) % 3, 0); /* whole characters only */
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registry_lists_each_once_and_only_oracle_sees_truth),
        cmocka_unit_test(oracle_returns_the_true_np),
        cmocka_unit_test(hsm_hand_computed),
        cmocka_unit_test(hsm_classifier_boundary),
        cmocka_unit_test(hsm_np_at_is_linear_through_origin),
        cmocka_unit_test(hsm_refuses_unusable_coefficients),
        cmocka_unit_test(least_squares_on_known_points),
        cmocka_unit_test(train_fits_the_preset_s_own_kernels),
        cmocka_unit_test(model_file_messages),
        cmocka_unit_test(explanation_lines_end_whole),
        cmocka_unit_test(model_write_leaves_its_neighbours),
        cmocka_unit_test(shipped_hbm80_model_loads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
