/* view_accel_lat — the accelerator view's latency panel (per LS application: the queries'
 * p50 and p99 against the QoS target, the predictor's forecast beside them, a histogram of
 * the latencies with the target marked) and its system panel (the GPU's and the link's busy
 * time, the batch applications' passes). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui_accel.h"

#define HIST_LABEL 8 /* "  latency" column before the histogram */

int view_accel_latency_rows(const struct tui_accel *t)
{
    int n = 0;
    for (unsigned a = 0; a < t->rec.napps; a++)
        n += t->rec.app[a].role == ACCEL_LS;
    return 5 * (n ? n : 1);
}

static bool forecast(const struct accel_record *r)
{
    return r->predictor && strcmp(r->predictor, "none") != 0;
}

/* Latencies of application a (measured or forecast) and the column of each in a histogram of
 * cols bins over [0, top): bins[c] counts them. Returns how many were counted. */
static unsigned histogram(const struct accel_record *r, unsigned a, bool predicted, double top,
                          unsigned *bins, int cols)
{
    memset(bins, 0, (size_t)cols * sizeof(*bins));
    unsigned n = 0;
    for (size_t i = 0; i < r->nqueries; i++) {
        const struct accel_query_rec *q = &r->queries[i];
        double v = predicted ? q->predicted_ms : q->latency_ms;
        if (q->app != a || isnan(v))
            continue;
        int c = (int)(v / top * cols);
        bins[c < cols ? c : cols - 1]++;
        n++;
    }
    return n;
}

static void draw_histogram(const struct tui_style *st, WINDOW *w, int y, const unsigned *bins,
                           int cols, attr_t a)
{
    unsigned max = 0;
    for (int c = 0; c < cols; c++)
        max = bins[c] > max ? bins[c] : max;
    wattron(w, a);
    for (int c = 0; c < cols; c++)
        mvwaddstr(w, y, HIST_LABEL + c,
                  bins[c] ? tui_level(st, 0.125 + 0.875 * bins[c] / (double)max) : " ");
    wattroff(w, a);
}

/* A latency in ms as corun show prints it (accel_ms_text: under 0.01 ms to three significant
 * digits, not 0.000) into buf, or the style's dash when there is none yet (NaN: no query
 * answered; it read "nan"). */
static const char *latency(const struct tui_style *st, char *buf, size_t n, double ms)
{
    if (isnan(ms))
        return st->dash;
    return accel_ms_text(buf, n, ms);
}

/* The forecast's row: its p50 and p99, and, once a query has been measured, its error against
 * the measured p99 and its verdict (before, it read "err 0.0%  met" of nothing measured). */
static void draw_forecast(const struct tui_accel *t, WINDOW *w, int y,
                          const struct accel_app_rec *x)
{
    const struct tui_style *st = &t->style;
    bool measured = !isnan(x->p99_ms) && !isnan(x->pred_error);
    char err[32], p50[32], p99[32];
    if (measured)
        snprintf(err, sizeof err, "%.1f%%", 100 * x->pred_error);
    tui_print(w, y, 0, "%s  p50 %s  p99 %s  err %s%s%s", t->rec.predictor,
              accel_ms_text(p50, sizeof p50, x->pred_p50_ms),
              accel_ms_text(p99, sizeof p99, x->pred_p99_ms), measured ? err : st->dash,
              measured ? "  " : "",
              !measured         ? ""
              : x->pred_qos_met ? "met"
                                : "violated");
}

static int draw_app(const struct tui_accel *t, WINDOW *w, int y, unsigned a)
{
    const struct tui_style *st = &t->style;
    const struct accel_record *r = &t->rec;
    const struct accel_app_rec *x = &r->app[a];
    int width = getmaxx(w);
    double target = x->qos_target * x->solo_p99_ms;
    unsigned total = 0;
    for (size_t i = 0; i < r->nqueries; i++)
        total += r->queries[i].app == a;
    attr_t c = st->kernel[a % GPU_MAX_KERNELS];
    wattron(w, c | A_BOLD);
    tui_print_cols(w, y, 0, 8, x->name);
    wattroff(w, c | A_BOLD);
    char p50[32], p99[32];
    tui_print(w, y, 9, "%u/%u done  p50 %s  p99 %s ms", x->queries, total,
              latency(st, p50, sizeof p50, x->p50_ms), latency(st, p99, sizeof p99, x->p99_ms));
    /* The solo p99 comes from the solo runs: before them there is no target in ms (it read
     * 0.000 ms). */
    int at = x->solo_p99_ms > 0
                 ? tui_print(w, y + 1, 0, "target   %s ms = %.2fx solo  ",
                             accel_ms_text(p50, sizeof p50, target), x->qos_target)
                 : tui_print(w, y + 1, 0, "target   %.2fx solo (ms once it has run alone)  ",
                             x->qos_target);
    if (x->queries) {
        wattron(w, x->qos_met ? st->strong : st->key);
        tui_print(w, y + 1, at, "%s %.2fx", x->qos_met ? "met" : "VIOLATED",
                  x->solo_p99_ms > 0 ? x->p99_ms / x->solo_p99_ms : 0);
        wattroff(w, x->qos_met ? st->strong : st->key);
    }
    if (forecast(r) && !isnan(x->pred_p99_ms))
        draw_forecast(t, w, y + 2, x);
    else
        tui_print(w, y + 2, 0, "forecast none%s",
                  !t->live      ? ""
                  : width >= 60 ? " (p: prophet, sequential, bubble, prophet-even)"
                                : " (p picks a predictor)");
    double top = fmax(x->p99_ms, target);
    for (size_t i = 0; i < r->nqueries; i++)
        if (r->queries[i].app == a) {
            if (!isnan(r->queries[i].latency_ms))
                top = fmax(top, r->queries[i].latency_ms);
            if (!isnan(r->queries[i].predicted_ms))
                top = fmax(top, r->queries[i].predicted_ms);
        }
    top = top > 0 ? top * 1.05 : 1;
    /* The scale's end after the histogram: 11 columns, or as many as its label takes (a
     * latency under 0.01 ms has up to nine characters). */
    char end[40];
    snprintf(end, sizeof end, "%s ms", accel_ms_text(p50, sizeof p50, top));
    int room = (int)strlen(end) + 1;
    int cols = width - HIST_LABEL - (room > 11 ? room : 11);
    if (cols < 8)
        return 5;
    unsigned bins[512];
    if (cols > 512)
        cols = 512;
    tui_print(w, y + 3, 0, "measured");
    histogram(r, a, false, top, bins, cols);
    draw_histogram(st, w, y + 3, bins, cols, c);
    /* The last row: the target (T) and the forecast p99 (f) on the histogram's scale. */
    wattron(w, st->dim);
    tui_print(w, y + 4, HIST_LABEL - 2, "0");
    tui_print(w, y + 4, HIST_LABEL + cols + 1, "%s", end);
    wattroff(w, st->dim);
    if (forecast(r) && !isnan(x->pred_p99_ms)) {
        int fc = (int)(x->pred_p99_ms / top * cols);
        tui_print(w, y + 4, HIST_LABEL + (fc < cols ? fc : cols - 1), "f");
    }
    if (target > 0) {
        int tc = (int)(target / top * cols);
        wattron(w, st->key);
        tui_print(w, y + 4, HIST_LABEL + (tc < cols ? tc : cols - 1), "T");
        wattroff(w, st->key);
    }
    return 5;
}

/* The latest queries completed, each measured beside its forecast, in the rows left. */
static void draw_queries(const struct tui_accel *t, WINDOW *w, int y)
{
    const struct tui_style *st = &t->style;
    const struct accel_record *r = &t->rec;
    int rows = getmaxy(w) - y - 1;
    if (rows < 1)
        return;
    size_t done = 0;
    for (size_t i = 0; i < r->nqueries; i++)
        done += !isnan(r->queries[i].latency_ms);
    wattron(w, st->dim);
    tui_print(w, y++, 0, "query         measured  forecast (ms)  ratio");
    wattroff(w, st->dim);
    size_t skip = done > (size_t)rows ? done - (size_t)rows : 0, seen = 0;
    for (size_t i = 0; i < r->nqueries; i++) {
        const struct accel_query_rec *q = &r->queries[i];
        if (isnan(q->latency_ms) || seen++ < skip)
            continue;
        wattron(w, st->kernel[q->app % GPU_MAX_KERNELS]);
        tui_print_cols(w, y, 0, 8, r->app[q->app].name);
        wattroff(w, st->kernel[q->app % GPU_MAX_KERNELS]);
        char ms[32], pred[32];
        accel_ms_text(ms, sizeof ms, q->latency_ms);
        if (isnan(q->predicted_ms))
            tui_print(w, y++, 9, "%-4u %9s %*s", q->query + 1, ms,
                      9 + (int)strlen(st->dash) - tui_columns(st->dash), st->dash);
        else
            tui_print(w, y++, 9, "%-4u %9s %9s       %5.2fx", q->query + 1, ms,
                      accel_ms_text(pred, sizeof pred, q->predicted_ms),
                      q->latency_ms > 0 ? q->predicted_ms / q->latency_ms : 0);
    }
}

void view_accel_latency(const struct tui_accel *t, WINDOW *w)
{
    int y = 0, rows = getmaxy(w);
    for (unsigned a = 0; a < t->rec.napps && y + 2 <= rows; a++)
        if (t->rec.app[a].role == ACCEL_LS)
            y += draw_app(t, w, y, a);
    if (y == 0)
        tui_print(w, 0, 0, "no LS application: nothing has a latency target");
    else
        draw_queries(t, w, y);
}

void view_accel_system(const struct tui_accel *t, WINDOW *w)
{
    const struct tui_style *st = &t->style;
    const struct accel_record *r = &t->rec;
    int cols = getmaxx(w), rows = getmaxy(w), bar = cols - 18;
    const char *names[3] = {"GPU busy", "PCIe H2D", "PCIe D2H"};
    const double v[3] = {r->gpu_util, r->h2d_busy, r->d2h_busy};
    for (int i = 0; i < 3; i++) {
        tui_print(w, i, 0, "%s", names[i]);
        if (bar > 3)
            tui_bar(st, w, i, 9, bar, v[i]);
        tui_print_right(w, i, cols, "%5.1f%%", 100 * v[i]);
    }
    int y = 3;
    char sim[32];
    tui_print(w, y++, 0, "simulated %s ms", accel_ms_text(sim, sizeof sim, r->sim_ms));
    tui_print(w, y++, 0, "%.2f M cycles, %llu tasks", r->cycles / 1e6,
              (unsigned long long)r->tasks_done);
    for (unsigned a = 0; a < r->napps && y < rows; a++)
        if (r->app[a].role == ACCEL_BATCH) {
            wattron(w, st->kernel[a % GPU_MAX_KERNELS]);
            tui_print_cols(w, y, 0, 8, r->app[a].name);
            wattroff(w, st->kernel[a % GPU_MAX_KERNELS]);
            tui_print(w, y++, 9, "x%u  %llu pass%s", r->app[a].instances,
                      (unsigned long long)r->app[a].passes, r->app[a].passes == 1 ? "" : "es");
        }
}
