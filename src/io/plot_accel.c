/* plot_accel — an accelerator run's picture drawn with cairo: its tasks over time by process,
 * and its LS queries' latencies against the QoS bound; colours follow the application's index. */
#include "corun/plot.h"

#include <math.h>
#include <stdio.h>

#include "plot_draw.h"

static const double *app_colour(unsigned app)
{
    return plot_palette[app % GPU_MAX_KERNELS];
}

/* A step of 1, 2 or 5 times a power of ten that cuts 0..max into 4 to 10 parts. */
static double nice_step(double max)
{
    double p = pow(10, floor(log10(max > 0 ? max : 1))), steps[] = {0.1, 0.2, 0.5, 1, 2, 5};
    for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
        if (max / (steps[i] * p) <= 10)
            return steps[i] * p;
    return 10 * p;
}

/* x ticks from first to max under panel p, labelled with the unit (whole: steps of at least
 * 1, for counts), a font size apart at least. */
static void x_ticks(cairo_t *cr, const struct panel *p, double max, double first, bool whole,
                    const char *unit, double font)
{
    char buf[32];
    if (max <= first) { /* one value: in the middle, as x_of puts it */
        snprintf(buf, sizeof buf, "%g", first);
        plot_text_centred(cr, p->x + p->w / 2, p->y + p->h + font * 1.3, font, buf);
        plot_text(cr, p->x + p->w / 2 - font, p->y + p->h + font * 2.6, font, unit);
        return;
    }
    double step = nice_step(max - first), widest = 0;
    if (whole && step < 1)
        step = 1;
    for (double v = first; v <= max + 1e-9 * max; v += step) {
        snprintf(buf, sizeof buf, "%g", v);
        double w = plot_label_width(cr, font, buf);
        widest = w > widest ? w : widest;
    }
    step = plot_x_step_spaced(p->w / (max - first), step, widest, font);
    for (double v = first; v <= max + 1e-9 * max; v += step) {
        double x = p->x + p->w * (v - first) / (max - first);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, x, p->y + p->h);
        cairo_line_to(cr, x, p->y + p->h + font * 0.3);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%g", v);
        plot_text_centred(cr, x, p->y + p->h + font * 1.3, font, buf);
    }
    plot_text(cr, p->x + p->w / 2 - font, p->y + p->h + font * 2.6, font, unit);
}

static double tint(double c, double by)
{
    return c + (1 - c) * by;
}

/* One row per process (its application's colour: kernels solid over the row, host-to-device
 * copies light in its upper half, device-to-host copies light in its lower half). */
static void timeline_panel(cairo_t *cr, const struct accel_record *r, struct panel *p, double font)
{
    /* The processes that ran a task, in process order (the reader holds proc below
     * ACCEL_MAX_APPS), each with its row and application. */
    int row_of[ACCEL_MAX_APPS];
    unsigned nprocs = 0, proc_app[ACCEL_MAX_APPS] = {0};
    double t_end = 0;
    for (unsigned q = 0; q < ACCEL_MAX_APPS; q++)
        row_of[q] = -1;
    for (size_t i = 0; i < r->ntasks; i++) {
        const struct accel_task_rec *t = &r->tasks[i];
        if (isfinite(t->end_ns) && t->end_ns > t_end)
            t_end = t->end_ns;
        if (t->proc < ACCEL_MAX_APPS && row_of[t->proc] < 0) {
            row_of[t->proc] = 0;
            proc_app[t->proc] = t->app;
        }
    }
    for (unsigned q = 0; q < ACCEL_MAX_APPS; q++)
        if (row_of[q] >= 0) /* marked above */
            row_of[q] = (int)nprocs++;
    double ms = t_end / 1e6 > 0 ? t_end / 1e6 : 1;
    cairo_set_source_rgb(cr, 0, 0, 0);
    plot_title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge,
                    "Tasks over time, one row per process (solid: kernels; light: copies, host to "
                    "device above, device to host below)");
    double rh = nprocs ? p->h / nprocs : p->h;
    for (size_t i = 0; i < r->ntasks; i++) {
        const struct accel_task_rec *t = &r->tasks[i];
        double t0 = t->kind == ACCEL_KERNEL ? t->start_ns : t->issued_ns;
        if (!isfinite(t0) || !isfinite(t->end_ns))
            continue;
        if (t->proc >= ACCEL_MAX_APPS)
            continue;
        int row = row_of[t->proc];
        const double *c = app_colour(t->app);
        double by = t->kind == ACCEL_KERNEL ? 0 : 0.55;
        cairo_set_source_rgb(cr, tint(c[0], by), tint(c[1], by), tint(c[2], by));
        double x0 = p->x + p->w * t0 / 1e6 / ms, x1 = p->x + p->w * t->end_ns / 1e6 / ms;
        double y = p->y + row * rh + rh * 0.1, h = rh * 0.8;
        if (t->kind == ACCEL_H2D)
            h /= 2;
        else if (t->kind == ACCEL_D2H) {
            y += h / 2;
            h /= 2;
        }
        cairo_rectangle(cr, x0, y, x1 - x0 > 0.5 ? x1 - x0 : 0.5, h);
        cairo_fill(cr);
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    unsigned seen[ACCEL_MAX_APPS] = {0};
    for (unsigned q = 0; q < ACCEL_MAX_APPS; q++) {
        if (row_of[q] < 0)
            continue;
        unsigned a = proc_app[q];
        int row = row_of[q];
        char label[64];
        const char *name = a < r->napps ? r->app[a].name : "?";
        if (a < r->napps && r->app[a].instances > 1)
            snprintf(label, sizeof label, "%s %u", name, ++seen[a % ACCEL_MAX_APPS]);
        else
            snprintf(label, sizeof label, "%s", name);
        plot_text(cr, p->x - font * 5.5, p->y + row * rh + rh / 2 + font * 0.35, font * 0.9, label);
    }
    x_ticks(cr, p, ms, 0, false, "ms", font);
}

/* Each LS query's latency in arrival order, the QoS bound (target x solo p99) dashed, the
 * forecast as rings; a query that never completed as a cross on the top edge. */
static void latency_panel(cairo_t *cr, const struct accel_record *r, struct panel *p, double font)
{
    unsigned most = 1;
    double top = 0;
    for (size_t i = 0; i < r->nqueries; i++) {
        const struct accel_query_rec *q = &r->queries[i];
        if (q->query + 1 > most)
            most = q->query + 1;
        if (isfinite(q->latency_ms) && q->latency_ms > top)
            top = q->latency_ms;
        if (isfinite(q->predicted_ms) && q->predicted_ms > top)
            top = q->predicted_ms;
    }
    for (unsigned a = 0; a < r->napps; a++) {
        double bound = r->app[a].qos_target * r->app[a].solo_p99_ms;
        if (r->app[a].role == ACCEL_LS && isfinite(bound) && bound > top)
            top = bound;
    }
    p->y_max = top > 0 ? top * 1.1 : 1;
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    bool forecast = false, starved = false; /* rings and crosses only when there are some */
    for (size_t i = 0; i < r->nqueries; i++) {
        forecast |= isfinite(r->queries[i].predicted_ms) != 0;
        starved |= isinf(r->queries[i].latency_ms) != 0;
    }
    char caption[160];
    snprintf(caption, sizeof caption,
             "LS query latency, ms (dots: measured, %sdashed: the QoS bound%s)",
             forecast ? "rings: forecast, " : "", starved ? ", x: never completed" : "");
    plot_title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge, caption);
    if (r->nqueries == 0) { /* batch applications only */
        plot_text(cr, p->x + p->w / 2 - font * 6, p->y + p->h / 2, font,
                  "no LS queries in this run");
        return;
    }
    char buf[32];
    double step = plot_y_step_spaced(p, nice_step(p->y_max), font);
    for (double v = 0; v <= p->y_max + 1e-12; v += step) {
        snprintf(buf, sizeof buf, "%g", v);
        plot_text(cr, p->x - font * 3, plot_y_of(p, v) + font * 0.35, font, buf);
    }
    static const double dash[] = {6, 4};
    for (unsigned a = 0; a < r->napps; a++) {
        double bound = r->app[a].qos_target * r->app[a].solo_p99_ms;
        if (r->app[a].role != ACCEL_LS || !isfinite(bound))
            continue;
        const double *c = app_colour(a);
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, p->x, plot_y_of(p, bound));
        cairo_line_to(cr, p->x + p->w, plot_y_of(p, bound));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    for (size_t i = 0; i < r->nqueries; i++) {
        const struct accel_query_rec *q = &r->queries[i];
        const double *c = app_colour(q->app);
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        double x = plot_x_of(p, most, q->query);
        if (isfinite(q->latency_ms)) {
            cairo_arc(cr, x, plot_y_of(p, q->latency_ms), 3, 0, 2 * 3.14159265358979);
            cairo_fill(cr);
        } else if (isinf(q->latency_ms)) { /* starved; NaN: not run yet (a run part way) */
            cairo_move_to(cr, x - 4, p->y - 4);
            cairo_line_to(cr, x + 4, p->y + 4);
            cairo_move_to(cr, x - 4, p->y + 4);
            cairo_line_to(cr, x + 4, p->y - 4);
            cairo_stroke(cr);
        }
        if (isfinite(q->predicted_ms)) {
            cairo_arc(cr, x, plot_y_of(p, q->predicted_ms > p->y_max ? p->y_max : q->predicted_ms),
                      5, 0, 2 * 3.14159265358979);
            cairo_stroke(cr);
        }
    }
    cairo_set_source_rgb(cr, 0, 0, 0);
    x_ticks(cr, p, most, 1, true, "query", font);
}

static void paint_accel(cairo_t *cr, const void *ctx, double width, double height, double font)
{
    const struct accel_record *r = ctx;
    char title[256];
    snprintf(title, sizeof title, "%s (%s, predictor %s): %.3f ms simulated%s", r->scenario_name,
             r->gpu_preset, r->predictor ? r->predictor : "none", r->sim_ms,
             r->complete ? "" : ", saved part way");
    plot_title_text(cr, font * 4, font * 1.8, font * 1.4, width - font, title);
    double widest = 0;
    for (unsigned a = 0; a < r->napps; a++) {
        char label[64];
        snprintf(label, sizeof label, "%s (%s)", r->app[a].name,
                 r->app[a].role == ACCEL_LS ? "LS" : "batch");
        double w = plot_label_width(cr, font, label);
        widest = w > widest ? w : widest;
    }
    double left = font * 6, right = plot_legend_margin(font, font * 10, widest, width);
    double top = font * 4, gap = font * 4.5;
    double h = height - top - gap * 2;
    struct panel tl = {left, top, width - left - right, h * 0.6, 1, width - font};
    timeline_panel(cr, r, &tl, font);
    struct panel lat = {left, top + h * 0.6 + gap, width - left - right, h * 0.4, 1, width - font};
    latency_panel(cr, r, &lat, font);
    double x = tl.x + tl.w + font;
    for (unsigned a = 0; a < r->napps; a++) {
        char label[64];
        snprintf(label, sizeof label, "%s (%s)", r->app[a].name,
                 r->app[a].role == ACCEL_LS ? "LS" : "batch");
        const double *c = app_colour(a);
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_rectangle(cr, x, tl.y + font * (0.6 + 1.5 * a), font * 2, font);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        plot_title_text(cr, x + font * 2.4, tl.y + font * (1.5 + 1.5 * a), font, tl.edge, label);
    }
}

int plot_accel_write(const struct accel_record *r, const char *path, unsigned width,
                     unsigned height, char *err, size_t errlen)
{
    bool svg;
    if (plot_check_target(path, width, height, &svg, err, errlen) != 0)
        return -2;
    if (r->ntasks == 0) {
        snprintf(err, errlen, "%s: the run has no tasks to draw", path);
        return -2;
    }
    return plot_render(path, svg, width, height, paint_accel, r, err, errlen);
}
