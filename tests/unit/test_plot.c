/* Unit tests: plot — a run with gaps (a kernel joining late, epochs without a prediction,
 * undefined metrics, idle and gated SMs) draws as PNG and SVG; bad names and sizes are
 * refused without a file; a kernel's NP line spans the epochs as its partition cells do. An
 * accelerator run (a query that never completed, one query of another application, a batch
 * application of two processes) draws as PNG and SVG; one without tasks is refused. A small
 * picture keeps its y labels apart and its titles inside it. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cairo.h>
#include <cmocka.h>
#include <math.h>

#include "corun/plot.h"

#define N   6
#define SMS 8

static double np_a[N] = {0.5, 0.6, 0.7, NAN, 0.8, 0.9};
static double np_b[N] = {NAN, NAN, 0.4, 0.45, 0.5, INFINITY};
static double pred_a[N] = {NAN, NAN, 0.65, 0.7, 0.75, 0.8};
static double fair[N] = {NAN, NAN, 0.5, 0.6, 0.7, 0.8};
static double stp[N] = {0.5, 0.6, 1.1, 1.2, 1.3, 1.4};
static int owner[N * SMS];

static void make(struct plot_data *d)
{
    memset(d, 0, sizeof *d);
    d->title = "test pair";
    d->nepochs = N;
    d->nkernels = 2;
    d->name[0] = "lbm";
    d->name[1] = "bino";
    d->np_true[0] = np_a;
    d->np_true[1] = np_b;
    d->np_pred[0] = pred_a;
    d->np_pred[1] = NULL;
    d->fairness = fair;
    d->stp = stp;
    d->sms = SMS;
    for (int i = 0; i < N * SMS; i++)
        owner[i] = i % SMS < 4 ? 0 : i % SMS < 6 ? 1 : i % SMS == 6 ? GPU_SM_IDLE : GPU_SM_GATED;
    d->owner = owner;
}

/* path is a PNG of width x height (its signature and IHDR). */
static void expect_png(const char *path, unsigned width, unsigned height)
{
    FILE *f = fopen(path, "rb");
    unsigned char head[24];
    assert_non_null(f);
    assert_int_equal(fread(head, 1, sizeof head, f), sizeof head);
    fclose(f);
    assert_memory_equal(head, "\x89PNG\r\n\x1a\n", 8);
    assert_int_equal((head[16] << 24) | (head[17] << 16) | (head[18] << 8) | head[19], width);
    assert_int_equal((head[20] << 24) | (head[21] << 16) | (head[22] << 8) | head[23], height);
}

/* path is an SVG of width x height. */
static void expect_svg(const char *path, unsigned width, unsigned height)
{
    FILE *f = fopen(path, "r");
    char text[256] = "", box[64];
    assert_non_null(f);
    assert_true(fread(text, 1, sizeof text - 1, f) > 100);
    fclose(f);
    assert_non_null(strstr(text, "<svg"));
    snprintf(box, sizeof box, "viewBox=\"0 0 %u %u\"", width, height);
    assert_non_null(strstr(text, box));
}

static void test_png_and_svg(void **state)
{
    (void)state;
    struct plot_data d;
    make(&d);
    char err[256] = "", dir[] = "/tmp/corun-plot-XXXXXX", png[64], svg[64];
    assert_non_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/p.png", dir);
    snprintf(svg, sizeof svg, "%s/p.svg", dir);
    if (plot_write(&d, png, 640, 480, err, sizeof err) != 0)
        fail_msg("%s", err);
    expect_png(png, 640, 480);
    if (plot_write(&d, svg, 640, 480, err, sizeof err) != 0)
        fail_msg("%s", err);
    expect_svg(svg, 640, 480);
    /* Drawn again over them, each where it cannot be written whole (a file size limit of
     * 4 KiB, as a full disk): refused, and the picture there is as it was (it was cut short
     * and removed), with nothing else left in the directory. */
    struct rlimit old, small = {4096, 4096};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small.rlim_max = old.rlim_max;
    void (*was)(int) = signal(SIGXFSZ, SIG_IGN);
    struct stat before[2], after;
    const char *both[2] = {png, svg};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(stat(both[i], &before[i]), 0);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
        int rc = plot_write(&d, both[i], 640, 480, err, sizeof err);
        assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
        assert_int_equal(rc, -1);
        assert_non_null(strstr(err, "cannot write the picture"));
        assert_int_equal(stat(both[i], &after), 0);
        assert_int_equal(after.st_size, before[i].st_size);
    }
    signal(SIGXFSZ, was);
    expect_png(png, 640, 480);
    expect_svg(svg, 640, 480);
    unlink(png);
    unlink(svg);
    assert_int_equal(rmdir(dir), 0); /* empty: no part left */
}

/* Pixels of the PNG at path, in its columns [x0, width), that are not white. */
static long png_ink_from(const char *path, int x0)
{
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    cairo_surface_flush(s);
    const unsigned char *px = cairo_image_surface_get_data(s);
    int w = cairo_image_surface_get_width(s), h = cairo_image_surface_get_height(s);
    int stride = cairo_image_surface_get_stride(s);
    long n = 0;
    for (int y = 0; y < h; y++)
        for (int x = x0; x < w; x++)
            n += (*(const uint32_t *)(px + (size_t)y * stride + 4 * (size_t)x) & 0xffffff) !=
                 0xffffff;
    cairo_surface_destroy(s);
    return n;
}

/* The columns [x0, width) of the PNG at path hold only white pixels. */
static bool png_blank_from(const char *path, int x0)
{
    return png_ink_from(path, x0) == 0;
}

/* Long kernel names: the legends widen the right margin instead of running off the picture
 * (at the default 1200 pixels, "B teach-compute" reached the edge once). */
static void test_legend_fits(void **state)
{
    (void)state;
    struct plot_data d;
    make(&d);
    d.name[0] = "teach-compute";
    d.name[1] = "a-kernel-with-a-long-name";
    char err[256] = "", dir[] = "/tmp/corun-plot-XXXXXX", png[64];
    assert_non_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/p.png", dir);
    if (plot_write(&d, png, 1200, 900, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(png_blank_from(png, 1200 - 6));
    unlink(png);
    rmdir(dir);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* In a small picture the y labels keep a line's height between them (at 320 x 240 the NP
 * panel, 32 pixels tall, had six of them on top of each other): the rows of the glyphs cairo's
 * SVG draws left of column 30 (the y labels; the epoch labels start at 33), below the title,
 * are at least a font size (9 pixels there: the left margin is 4 of them) apart. */
static void test_small_labels_apart(void **state)
{
    (void)state;
    struct plot_data d;
    make(&d);
    char err[256] = "", dir[] = "/tmp/corun-plot-XXXXXX", svg[64];
    assert_non_null(mkdtemp(dir));
    snprintf(svg, sizeof svg, "%s/p.svg", dir);
    if (plot_write(&d, svg, 320, 240, err, sizeof err) != 0)
        fail_msg("%s", err);
    FILE *f = fopen(svg, "r");
    assert_non_null(f);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[len] = '\0';
    double rows[512];
    size_t n = 0;
    for (const char *u = text; (u = strstr(u, "<use xlink:href=\"#glyph")) && n < 512; u++) {
        const char *xs = strstr(u, " x=\""), *ys = strstr(u, " y=\"");
        assert_non_null(xs);
        assert_non_null(ys);
        double x = atof(xs + 4), y = atof(ys + 4);
        if (x < 30 && y > 24)
            rows[n++] = y;
    }
    assert_true(n >= 6); /* at least two labels in each of the three panels */
    qsort(rows, n, sizeof rows[0], by_value);
    for (size_t i = 1; i < n; i++)
        if (rows[i] - rows[i - 1] > 0.01 && rows[i] - rows[i - 1] < 9)
            fail_msg("y labels %.1f and %.1f pixels down are %.1f apart", rows[i - 1], rows[i],
                     rows[i] - rows[i - 1]);
    unlink(svg);
    rmdir(dir);
}

static void test_refused(void **state)
{
    (void)state;
    struct plot_data d;
    make(&d);
    char err[256] = "";
    const char *jpg = "/tmp/corun-plot-refused.jpg";
    assert_int_equal(plot_write(&d, jpg, 640, 480, err, sizeof err), -2);
    assert_string_equal(err, "/tmp/corun-plot-refused.jpg: expected a file name ending in .svg or "
                             ".png");
    assert_int_equal(plot_write(&d, "/tmp/corun-plot-refused.png", 100, 480, err, sizeof err), -2);
    assert_non_null(strstr(err, "a size of 100x480; expected 200 to 10000"));
    d.nepochs = 0;
    assert_int_equal(plot_write(&d, "/tmp/corun-plot-refused.png", 640, 480, err, sizeof err), -2);
    assert_non_null(strstr(err, "no epochs"));
    struct stat st;
    assert_int_not_equal(stat("/tmp/corun-plot-refused.png", &st), 0);
    d.nepochs = N;
    assert_int_equal(plot_write(&d, "/nonexistent/dir/p.png", 640, 480, err, sizeof err), -2);
    assert_non_null(strstr(err, "/nonexistent/dir/p.png: cannot write the picture"));
}

/* Two applications: gmm (LS, 3 queries, the last never completed) and md (batch, two
 * processes); a copy and a kernel of each kind. */
static void make_accel(struct accel_record *r, struct accel_app_rec *apps,
                       struct accel_query_rec *queries, struct accel_task_rec *tasks)
{
    memset(r, 0, sizeof *r);
    r->scenario_name = "gmm beside md";
    r->gpu_preset = "k40";
    r->predictor = "prophet";
    r->sim_ms = 0.5;
    r->complete = 1;
    r->napps = 2;
    apps[0] = (struct accel_app_rec){
        .name = "gmm", .role = ACCEL_LS, .instances = 1, .qos_target = 1.5, .solo_p99_ms = 0.1};
    apps[1] = (struct accel_app_rec){.name = "md", .role = ACCEL_BATCH, .instances = 2};
    memcpy(r->app, apps, 2 * sizeof *apps);
    queries[0] = (struct accel_query_rec){0, 0, 0.12, 0.1};
    queries[1] = (struct accel_query_rec){0, 1, 0.2, NAN};
    queries[2] = (struct accel_query_rec){0, 2, INFINITY, 0.3};
    r->nqueries = 3;
    r->queries = queries;
    tasks[0] = (struct accel_task_rec){
        .app = 0, .proc = 0, .kind = ACCEL_H2D, .issued_ns = 0, .start_ns = 0, .end_ns = 20000};
    tasks[1] = (struct accel_task_rec){.app = 0,
                                       .proc = 0,
                                       .kind = ACCEL_KERNEL,
                                       .issued_ns = 20000,
                                       .start_ns = 25000,
                                       .end_ns = 90000};
    tasks[2] = (struct accel_task_rec){
        .app = 1, .proc = 2, .kind = ACCEL_D2H, .issued_ns = 1e5, .start_ns = 1e5, .end_ns = 4e5};
    tasks[3] = (struct accel_task_rec){
        .app = 1, .proc = 1, .kind = ACCEL_KERNEL, .issued_ns = 0, .start_ns = 1000, .end_ns = 5e5};
    tasks[4] = (struct accel_task_rec){.app = 1,
                                       .proc = 1,
                                       .kind = ACCEL_KERNEL,
                                       .issued_ns = 0,
                                       .start_ns = NAN,
                                       .end_ns = NAN}; /* not drawn */
    r->ntasks = 5;
    r->tasks = tasks;
}

static void test_accel(void **state)
{
    (void)state;
    struct accel_record r;
    struct accel_app_rec apps[2];
    struct accel_query_rec queries[3];
    struct accel_task_rec tasks[5];
    make_accel(&r, apps, queries, tasks);
    char err[256] = "", dir[] = "/tmp/corun-plot-XXXXXX", png[64], svg[64];
    assert_non_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/a.png", dir);
    snprintf(svg, sizeof svg, "%s/a.svg", dir);
    if (plot_accel_write(&r, png, 800, 600, err, sizeof err) != 0)
        fail_msg("%s", err);
    expect_png(png, 800, 600);
    /* A query that never completed (INFINITY) is a cross at the top, named in the caption; one
     * not run yet (NaN: a run saved part way) is not drawn (it was a cross too). */
    long starved = png_ink_from(png, 0);
    queries[2].latency_ms = NAN;
    if (plot_accel_write(&r, png, 800, 600, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(png_ink_from(png, 0) < starved);
    queries[2].latency_ms = INFINITY;
    /* A small picture's titles are drawn smaller to end before its right edge (they ran off it:
     * the timeline's caption at any width under about 1,000 pixels). */
    if (plot_accel_write(&r, png, 320, 240, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(png_blank_from(png, 320 - 3));
    /* A long application name widens the legend's margin ("bfs-ex (batch)" ran off once). */
    r.app[1].name = "a-batch-application";
    if (plot_accel_write(&r, png, 1200, 900, err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_true(png_blank_from(png, 1200 - 6));
    r.app[1].name = "md";
    if (plot_accel_write(&r, svg, 640, 480, err, sizeof err) != 0)
        fail_msg("%s", err);
    expect_svg(svg, 640, 480);
    unlink(png);
    unlink(svg);
    r.ntasks = 0;
    assert_int_equal(plot_accel_write(&r, png, 800, 600, err, sizeof err), -2);
    assert_non_null(strstr(err, "a.png: the run has no tasks to draw"));
    r.ntasks = 5;
    assert_int_equal(plot_accel_write(&r, "/tmp/corun-plot-refused.gif", 800, 600, err, sizeof err),
                     -2);
    assert_non_null(strstr(err, "expected a file name ending in .svg or .png"));
    struct stat st;
    assert_int_not_equal(stat(png, &st), 0);
    rmdir(dir);
}

/* The longest run, in any row of [y0, y1), of pixels within 40 of rgb in each channel. */
static int longest_run(cairo_surface_t *s, int y0, int y1, const int rgb[3])
{
    const unsigned char *px = cairo_image_surface_get_data(s);
    int w = cairo_image_surface_get_width(s), stride = cairo_image_surface_get_stride(s);
    int best = 0;
    for (int y = y0; y < y1; y++)
        for (int x = 0, run = 0; x < w; x++) {
            uint32_t v = *(const uint32_t *)(px + (size_t)y * stride + 4 * (size_t)x);
            int c[3] = {(int)(v >> 16 & 0xff), (int)(v >> 8 & 0xff), (int)(v & 0xff)};
            bool near = true;
            for (int i = 0; i < 3; i++)
                near &= abs(c[i] - rgb[i]) <= 40;
            run = near ? run + 1 : 0;
            best = run > best ? run : best;
        }
    return best;
}

/* d drawn as a PNG of width x height, read back (the file removed). */
static cairo_surface_t *drawn(const struct plot_data *d, unsigned width, unsigned height)
{
    char err[256] = "", dir[] = "/tmp/corun-plot-XXXXXX", png[64];
    assert_non_null(mkdtemp(dir));
    snprintf(png, sizeof png, "%s/p.png", dir);
    if (plot_write(d, png, width, height, err, sizeof err) != 0)
        fail_msg("%s", err);
    cairo_surface_t *s = cairo_image_surface_create_from_png(png);
    assert_int_equal(cairo_surface_status(s), CAIRO_STATUS_SUCCESS);
    cairo_surface_flush(s);
    unlink(png);
    rmdir(dir);
    return s;
}

/* The data where it belongs: a kernel whose NP is 0.5 in every epoch draws a line across the
 * NP panel from the middle of the first epoch's column in the partition panel (which it holds
 * whole) to the middle of the last's, so a point lines up with its epoch's column (the points
 * ran edge to edge, the columns' labels in their middles). At 600 x 600 (font 10), the NP panel
 * spans rows 40 to 187 and the partition panel rows 414 to 560. */
static void test_np_spans_the_epochs(void **state)
{
    (void)state;
    static double half[N] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, one[N] = {1, 1, 1, 1, 1, 1};
    static int all_a[N * SMS];
    struct plot_data d;
    make(&d);
    d.nkernels = 1;
    d.np_true[0] = half;
    d.np_pred[0] = NULL;
    d.fairness = one;
    d.stp = half;
    d.owner = all_a;
    cairo_surface_t *s = drawn(&d, 600, 600);
    const int a[3] = {0, 153, 191}; /* kernel A's colour */
    int line = longest_run(s, 40, 187, a), cells = longest_run(s, 414, 560, a);
    cairo_surface_destroy(s);
    printf("  NP line %d pixels, partition cells %d\n", line, cells);
    assert_true(cells > 300);
    assert_true(abs(line - cells * (N - 1) / N) <= 4);
}

/* The pixels of rows [y0, y1), columns [x0, x1), within 40 of rgb in each channel. */
static long count_near(cairo_surface_t *s, int x0, int x1, int y0, int y1, const int rgb[3])
{
    const unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    long n = 0;
    for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
            uint32_t v = *(const uint32_t *)(px + (size_t)y * stride + 4 * (size_t)x);
            int c[3] = {(int)(v >> 16 & 0xff), (int)(v >> 8 & 0xff), (int)(v & 0xff)};
            n += abs(c[0] - rgb[0]) <= 40 && abs(c[1] - rgb[1]) <= 40 && abs(c[2] - rgb[2]) <= 40;
        }
    return n;
}

/* A one-epoch run draws dots, and a value equal to another's still shows: the first series
 * drawn is the larger dot (STP's dot hid fairness's, both 1 for two kernels at 0.5 each, and
 * kernel B's hid kernel A's). At 600 x 600 (font 10) the NP panel spans rows 40 to 187, the
 * fairness and STP panel rows 227 to 374. */
static void test_one_epoch_dots_show(void **state)
{
    (void)state;
    static double half[1] = {0.5}, one[1] = {1};
    static int split[SMS];
    for (int s = 0; s < SMS; s++)
        split[s] = s < SMS / 2 ? 0 : 1;
    struct plot_data d;
    make(&d);
    d.nepochs = 1;
    d.np_true[0] = d.np_true[1] = half;
    d.np_pred[0] = NULL;
    d.fairness = d.stp = one;
    d.owner = split;
    cairo_surface_t *s = drawn(&d, 600, 600);
    const int a[3] = {0, 153, 191}, red[3] = {204, 25, 25};
    /* The dots are in the middle of the panels, which span columns 40 to 480; the legends'
     * lines are right of them. */
    long a_px = count_near(s, 200, 320, 40, 187, a),
         red_px = count_near(s, 200, 320, 227, 374, red);
    cairo_surface_destroy(s);
    printf("  pixels of kernel A's colour %ld, of fairness's red %ld\n", a_px, red_px);
    assert_true(a_px >= 10);
    assert_true(red_px >= 10);
}

/* The text groups of an SVG cairo drew (a group per label), each its first and last glyph's x
 * and its row; at most max. */
struct text_group {
    double first, last, y;
};

static size_t svg_text_groups(const char *path, struct text_group *g, size_t max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text - 1, f), n = 0;
    fclose(f);
    text[len] = '\0';
    for (char *at = text; (at = strstr(at, "<g style=")) && n < max; at++) {
        char *end = strstr(at, "</g>");
        assert_non_null(end);
        *end = '\0';
        bool any = false;
        for (const char *u = at; (u = strstr(u, "<use xlink:href=\"#glyph")); u++) {
            double x = atof(strstr(u, " x=\"") + 4), y = atof(strstr(u, " y=\"") + 4);
            if (!any)
                g[n].first = x;
            g[n].last = x;
            g[n].y = y;
            any = true;
        }
        n += any;
        at = end;
    }
    return n;
}

static int by_row_then_x(const void *a, const void *b)
{
    const struct text_group *x = a, *y = b;
    if (x->y != y->y)
        return (x->y > y->y) - (x->y < y->y);
    return (x->first > y->first) - (x->first < y->first);
}

/* The labels that share a row in path (the x axes' numbers: every other text has a row of its
 * own) are a font size apart at least, from one's last glyph to the next's first. */
static void expect_row_labels_apart(const char *path, double font)
{
    static struct text_group g[2048];
    size_t n = svg_text_groups(path, g, 2048), pairs = 0;
    qsort(g, n, sizeof g[0], by_row_then_x);
    for (size_t i = 1; i < n; i++) {
        if (g[i].y != g[i - 1].y)
            continue;
        pairs++;
        if (g[i].first - g[i - 1].last < font)
            fail_msg("%s: labels at x %.1f and %.1f, %.1f pixels down, are %.1f apart", path,
                     g[i - 1].last, g[i].first, g[i].y, g[i].first - g[i - 1].last);
    }
    assert_true(pairs >= 2);
}

/* A narrow picture's x labels keep apart: 14 epochs 200 pixels wide (labels every other epoch
 * ran into each other), and an accelerator run's milliseconds at 200 x 200 ("0 0.5 1 1.5 2"
 * touched). Font 9 at these heights. */
static void test_narrow_x_labels_apart(void **state)
{
    (void)state;
    enum { E = 14 };
    static double np[E], ones[E];
    static int own[E * SMS];
    for (int i = 0; i < E; i++)
        np[i] = 0.5, ones[i] = 1;
    struct plot_data d;
    make(&d);
    d.nepochs = E;
    d.np_true[0] = d.np_true[1] = np;
    d.np_pred[0] = NULL;
    d.fairness = d.stp = ones;
    d.owner = own;
    char err[256] = "", dir[] = "/tmp/corun-plot-XXXXXX", svg[64];
    assert_non_null(mkdtemp(dir));
    snprintf(svg, sizeof svg, "%s/p.svg", dir);
    if (plot_write(&d, svg, 200, 300, err, sizeof err) != 0)
        fail_msg("%s", err);
    expect_row_labels_apart(svg, 9);
    struct accel_record r;
    struct accel_app_rec apps[2];
    struct accel_query_rec queries[3];
    struct accel_task_rec tasks[5];
    make_accel(&r, apps, queries, tasks);
    if (plot_accel_write(&r, svg, 200, 200, err, sizeof err) != 0)
        fail_msg("%s", err);
    expect_row_labels_apart(svg, 9);
    unlink(svg);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_png_and_svg),         cmocka_unit_test(test_refused),
        cmocka_unit_test(test_legend_fits),         cmocka_unit_test(test_accel),
        cmocka_unit_test(test_np_spans_the_epochs), cmocka_unit_test(test_small_labels_apart),
        cmocka_unit_test(test_one_epoch_dots_show), cmocka_unit_test(test_narrow_x_labels_apart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
