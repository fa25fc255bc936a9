/* plot — a run's pictures drawn with cairo. A spatial run: three panels stacked, sharing the
 * epoch axis (NP history, fairness and STP, the SM partition), each with a title and its
 * legend; colours follow the kernel's index as in the workbench, predicted NP is dashed. An
 * accelerator run: its tasks over time by process, and its LS queries' latencies against the
 * QoS bound; colours follow the application's index. */
#include "corun/plot.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/util.h"

static const double palette[GPU_MAX_KERNELS][3] = {
    {0.00, 0.60, 0.75}, {0.85, 0.60, 0.00}, {0.20, 0.65, 0.20}, {0.75, 0.20, 0.65},
    {0.85, 0.20, 0.20}, {0.20, 0.30, 0.80}, {0.45, 0.45, 0.45}, {0.55, 0.35, 0.15},
};

struct panel {
    double x, y, w, h; /* the plotting area */
    double y_max;
    double edge; /* the picture's right edge: where its titles and legends must end */
};

static double x_of(const struct panel *p, unsigned n, double epoch)
{
    return p->x + p->w * (n > 1 ? epoch / (n - 1) : 0.5);
}

static double y_of(const struct panel *p, double v)
{
    return p->y + p->h * (1 - v / p->y_max);
}

/* step, doubled until the y labels it puts on panel p are at least 1.5 font sizes apart
 * (a small picture's labels overlapped). */
static double y_step_spaced(const struct panel *p, double step, double font)
{
    for (int i = 0; i < 30 && p->y_max > 0 && p->h > 0 && step / p->y_max * p->h < 1.5 * font;
         i++) /* bounded: a panel of no height must not loop */
        step *= 2;
    return step;
}

static void text(cairo_t *cr, double x, double y, double size, const char *s)
{
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* A right margin of at least `least` that holds legend labels as wide as `widest` drawn 3.4
 * font sizes into it, but no more than half the picture. */
static double legend_margin(double font, double least, double widest, double width)
{
    double m = font * 4 + widest;
    m = m > least ? m : least;
    return m < width / 2 ? m : width / 2;
}

static double label_width(cairo_t *cr, double font, const char *s)
{
    cairo_text_extents_t ext;
    cairo_set_font_size(cr, font);
    cairo_text_extents(cr, s, &ext);
    return ext.x_advance;
}

/* A title or legend label from x, at size, smaller when that would run past edge (a small
 * picture's were cut at its right side). */
static void title_text(cairo_t *cr, double x, double y, double size, double edge, const char *s)
{
    /* Measured again after each cut: hinted glyphs do not shrink in proportion. */
    for (int i = 0; i < 8; i++) {
        double w = label_width(cr, size, s);
        if (w <= edge - x || w <= 0)
            break;
        size *= (edge - x) / w * 0.98;
    }
    text(cr, x, y, size, s);
}

/* The frame, the y labels at nice steps and the epoch labels below. */
static void axes(cairo_t *cr, const struct panel *p, unsigned n, const char *title, double font)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge, title);
    double step = y_step_spaced(p,
                                p->y_max <= 1.5 ? 0.25
                                : p->y_max <= 3 ? 0.5
                                                : ceil(p->y_max / 6),
                                font);
    char buf[32];
    for (double v = 0; v <= p->y_max + 1e-9; v += step) {
        double y = y_of(p, v);
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, p->x, y);
        cairo_line_to(cr, p->x + p->w, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "%.2f", v);
        text(cr, p->x - font * 3, y + font * 0.35, font, buf);
    }
    unsigned every = n > 10 ? (n + 9) / 10 : 1;
    for (unsigned i = 0; i < n; i += every) {
        snprintf(buf, sizeof buf, "%u", i + 1);
        text(cr, x_of(p, n, i) - font * 0.3, p->y + p->h + font * 1.2, font, buf);
    }
}

/* A polyline through the finite values; gaps where a value is missing. */
static void line(cairo_t *cr, const struct panel *p, unsigned n, const double *v)
{
    bool pen = false;
    for (unsigned i = 0; i < n; i++) {
        double y = v[i];
        if (!isfinite(y)) {
            pen = false;
            continue;
        }
        y = y > p->y_max ? p->y_max : y < 0 ? 0 : y;
        if (pen)
            cairo_line_to(cr, x_of(p, n, i), y_of(p, y));
        else
            cairo_move_to(cr, x_of(p, n, i), y_of(p, y));
        pen = true;
    }
    cairo_stroke(cr);
    /* Single points (a kernel in one epoch only) as dots. */
    for (unsigned i = 0; i < n; i++)
        if (isfinite(v[i]) && (i == 0 || !isfinite(v[i - 1])) &&
            (i + 1 == n || !isfinite(v[i + 1]))) {
            cairo_arc(cr, x_of(p, n, i), y_of(p, v[i] > p->y_max ? p->y_max : v[i]), 2.5, 0,
                      2 * 3.14159265358979);
            cairo_fill(cr);
        }
}

static double max_of(const double *v, unsigned n, double at_least)
{
    double m = at_least;
    for (unsigned i = 0; i < n; i++)
        if (isfinite(v[i]) && v[i] > m)
            m = v[i];
    return m;
}

static void legend_entry(cairo_t *cr, double x, double y, double font, double edge,
                         const double rgb[3], bool dashed, const char *label)
{
    static const double dash[] = {6, 4};
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_set_line_width(cr, 2);
    cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
    cairo_move_to(cr, x, y - font * 0.35);
    cairo_line_to(cr, x + font * 2, y - font * 0.35);
    cairo_stroke(cr);
    cairo_set_dash(cr, NULL, 0, 0);
    cairo_set_source_rgb(cr, 0, 0, 0);
    title_text(cr, x + font * 2.4, y, font, edge, label);
}

static void np_panel(cairo_t *cr, const struct plot_data *d, struct panel *p, double font)
{
    double m = 1;
    for (unsigned k = 0; k < d->nkernels; k++) {
        m = max_of(d->np_true[k], d->nepochs, m);
        if (d->np_pred[k])
            m = max_of(d->np_pred[k], d->nepochs, m);
    }
    p->y_max = m > 2 ? 2 : ceil(m * 4) / 4;
    /* A run without a predictor has no dashed line to explain. */
    bool predicted = false;
    for (unsigned k = 0; k < d->nkernels; k++)
        for (unsigned i = 0; d->np_pred[k] && i < d->nepochs; i++)
            predicted |= isfinite(d->np_pred[k][i]) != 0;
    axes(cr, p, d->nepochs,
         predicted ? "Normalized progress (solid: true, dashed: predicted)"
                   : "Normalized progress (true)",
         font);
    static const double dash[] = {6, 4};
    for (unsigned k = 0; k < d->nkernels; k++) {
        const double *c = palette[k];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, 2);
        line(cr, p, d->nepochs, d->np_true[k]);
        if (d->np_pred[k]) {
            cairo_set_dash(cr, dash, 2, 0);
            line(cr, p, d->nepochs, d->np_pred[k]);
            cairo_set_dash(cr, NULL, 0, 0);
        }
    }
    double x = p->x + p->w + font;
    for (unsigned k = 0; k < d->nkernels; k++) {
        char label[64];
        snprintf(label, sizeof label, "%c %s", 'A' + k, d->name[k]);
        legend_entry(cr, x, p->y + font * (1.5 + 1.5 * k), font, p->edge, palette[k], false, label);
    }
    static const double grey[3] = {0.3, 0.3, 0.3};
    if (predicted)
        legend_entry(cr, x, p->y + font * (1.5 + 1.5 * d->nkernels), font, p->edge, grey, true,
                     "predicted");
}

static void system_panel(cairo_t *cr, const struct plot_data *d, struct panel *p, double font)
{
    double m = max_of(d->stp, d->nepochs, 1);
    p->y_max = ceil(m * 2) / 2;
    axes(cr, p, d->nepochs, "Fairness and STP", font);
    static const double black[3] = {0, 0, 0}, red[3] = {0.8, 0.1, 0.1};
    cairo_set_line_width(cr, 2);
    cairo_set_source_rgb(cr, red[0], red[1], red[2]);
    line(cr, p, d->nepochs, d->fairness);
    cairo_set_source_rgb(cr, 0, 0, 0);
    line(cr, p, d->nepochs, d->stp);
    double x = p->x + p->w + font;
    legend_entry(cr, x, p->y + font * 1.5, font, p->edge, red, false, "fairness");
    legend_entry(cr, x, p->y + font * 3, font, p->edge, black, false, "STP");
}

/* One column per epoch, one row per SM, in its owner's colour (idle white, gated grey). */
static void partition_panel(cairo_t *cr, const struct plot_data *d, struct panel *p, double font)
{
    p->y_max = d->sms;
    cairo_set_source_rgb(cr, 0, 0, 0);
    char title[64];
    snprintf(title, sizeof title, "SM partition, %u SMs (one column per epoch)", d->sms);
    title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge, title);
    double cw = p->w / d->nepochs, ch = p->h / d->sms;
    for (unsigned i = 0; i < d->nepochs; i++)
        for (unsigned s = 0; s < d->sms; s++) {
            int o = d->owner[(size_t)i * d->sms + s];
            if (o >= 0 && o < GPU_MAX_KERNELS)
                cairo_set_source_rgb(cr, palette[o][0], palette[o][1], palette[o][2]);
            else if (o == GPU_SM_GATED)
                cairo_set_source_rgb(cr, 0.6, 0.6, 0.6);
            else
                cairo_set_source_rgb(cr, 1, 1, 1);
            cairo_rectangle(cr, p->x + i * cw, p->y + s * ch, cw + 0.5, ch + 0.5);
            cairo_fill(cr);
        }
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    char buf[32];
    unsigned every = d->nepochs > 10 ? (d->nepochs + 9) / 10 : 1;
    for (unsigned i = 0; i < d->nepochs; i += every) {
        snprintf(buf, sizeof buf, "%u", i + 1);
        text(cr, p->x + (i + 0.5) * cw - font * 0.3, p->y + p->h + font * 1.2, font, buf);
    }
    text(cr, p->x + p->w / 2 - font * 1.5, p->y + p->h + font * 2.5, font, "epoch");
    double x = p->x + p->w + font;
    for (unsigned k = 0; k < d->nkernels; k++) {
        cairo_set_source_rgb(cr, palette[k][0], palette[k][1], palette[k][2]);
        cairo_rectangle(cr, x, p->y + font * (0.6 + 1.5 * k), font * 2, font);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char label[64];
        snprintf(label, sizeof label, "%c %s", 'A' + k, d->name[k]);
        title_text(cr, x + font * 2.4, p->y + font * (1.5 + 1.5 * k), font, p->edge, label);
    }
}

static void draw(cairo_t *cr, const void *ctx, double width, double height, double font)
{
    const struct plot_data *d = ctx;
    title_text(cr, font * 4, font * 1.8, font * 1.4, width - font, d->title);
    /* The legends start 3.4 font sizes into the right margin: make it hold the widest. */
    double widest = label_width(cr, font, "predicted");
    for (unsigned k = 0; k < d->nkernels; k++) {
        char label[64];
        snprintf(label, sizeof label, "%c %s", 'A' + k, d->name[k]);
        double w = label_width(cr, font, label);
        widest = w > widest ? w : widest;
    }
    double left = font * 4, right = legend_margin(font, font * 12, widest, width);
    double top = font * 4, gap = font * 4;
    double h = (height - top - gap * 3) / 3;
    struct panel p = {left, top, width - left - right, h, 1, width - font};
    np_panel(cr, d, &p, font);
    p.y += h + gap;
    system_panel(cr, d, &p, font);
    p.y += h + gap;
    partition_panel(cr, d, &p, font);
}

static bool ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n > m && strcmp(s + n - m, end) == 0;
}

/* path's kind and the size, checked before anything is drawn: -1 with a message. */
static int check_target(const char *path, unsigned width, unsigned height, bool *svg, char *err,
                        size_t errlen)
{
    *svg = ends_with(path, ".svg");
    if (!*svg && !ends_with(path, ".png")) {
        snprintf(err, errlen, "%s: expected a file name ending in .svg or .png", path);
        return -1;
    }
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: a directory; expected the picture's file name", path);
        return -1;
    }
    if (width < 200 || width > 10000 || height < 200 || height > 10000) {
        snprintf(err, errlen, "%s: a size of %ux%u; expected 200 to 10000 each way", path, width,
                 height);
        return -1;
    }
    return 0;
}

/* paint(cr, ctx, width, height, font) into path, an SVG or a PNG, on a white page in black
 * sans-serif text of a size that follows the height. */
static int render(const char *path, bool svg, unsigned width, unsigned height,
                  void (*paint)(cairo_t *cr, const void *ctx, double width, double height,
                                double font),
                  const void *ctx, char *err, size_t errlen)
{
    /* A file there that corun cannot write is left alone if the picture fails: cairo could
     * not open it, so it is as it was. */
    struct stat before;
    bool ours = lstat(path, &before) != 0 || (S_ISREG(before.st_mode) && access(path, W_OK) == 0);
    cairo_surface_t *s =
        svg ? cairo_svg_surface_create(path, width, height)
            : cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
    cairo_status_t st = cairo_surface_status(s);
    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(s);
        cairo_set_source_rgb(cr, 1, 1, 1);
        cairo_paint(cr);
        cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
        cairo_set_source_rgb(cr, 0, 0, 0);
        paint(cr, ctx, width, height, height / 60 < 9 ? 9 : height / 60);
        st = cairo_status(cr);
        cairo_destroy(cr);
    }
    if (st == CAIRO_STATUS_SUCCESS && !svg)
        st = cairo_surface_write_to_png(s, path);
    cairo_surface_finish(s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    /* cairo and fontconfig keep fonts and their configuration for the life of the process; a
     * picture is drawn once, so give them back (leak checkers count them otherwise). */
    cairo_debug_reset_static_data();
    FcFini();
    if (st != CAIRO_STATUS_SUCCESS) {
        /* cairo says only "error while writing to output stream": a directory that is
         * missing or not writable, or a file there that cannot be written, is the common
         * cause, and the system can name it. */
        const char *why = cairo_status_to_string(st);
        char *dir = xstrdup(path);
        if (st == CAIRO_STATUS_WRITE_ERROR &&
            (access(dirname(dir), W_OK) != 0 || (!ours && access(path, W_OK) != 0)))
            why = strerror(errno);
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, why);
        free(dir);
        if (st == CAIRO_STATUS_WRITE_ERROR && ours)
            unlink(path); /* cut short: not a picture to take for this run's */
        return -1;
    }
    return 0;
}

int plot_write(const struct plot_data *d, const char *path, unsigned width, unsigned height,
               char *err, size_t errlen)
{
    bool svg;
    if (check_target(path, width, height, &svg, err, errlen) != 0)
        return -1;
    if (d->nepochs == 0 || d->nkernels == 0 || d->sms == 0) {
        snprintf(err, errlen, "%s: the run has no epochs to draw", path);
        return -1;
    }
    return render(path, svg, width, height, draw, d, err, errlen);
}

/* ---- an accelerator run ---- */

static const double *app_colour(unsigned app)
{
    return palette[app % GPU_MAX_KERNELS];
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
 * 1, for counts). */
static void x_ticks(cairo_t *cr, const struct panel *p, double max, double first, bool whole,
                    const char *unit, double font)
{
    char buf[32];
    if (max <= first) { /* one value: in the middle, as x_of puts it */
        snprintf(buf, sizeof buf, "%g", first);
        text(cr, p->x + p->w / 2 - font * 0.3, p->y + p->h + font * 1.3, font, buf);
        text(cr, p->x + p->w / 2 - font, p->y + p->h + font * 2.6, font, unit);
        return;
    }
    double step = nice_step(max - first);
    if (whole && step < 1)
        step = 1;
    for (double v = first; v <= max + 1e-9 * max; v += step) {
        double x = p->x + p->w * (v - first) / (max - first);
        cairo_set_source_rgb(cr, 0, 0, 0);
        cairo_move_to(cr, x, p->y + p->h);
        cairo_line_to(cr, x, p->y + p->h + font * 0.3);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%g", v);
        text(cr, x - font * 0.3, p->y + p->h + font * 1.3, font, buf);
    }
    text(cr, p->x + p->w / 2 - font, p->y + p->h + font * 2.6, font, unit);
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
    title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge,
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
        text(cr, p->x - font * 5.5, p->y + row * rh + rh / 2 + font * 0.35, font * 0.9, label);
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
    title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge, caption);
    if (r->nqueries == 0) { /* batch applications only */
        text(cr, p->x + p->w / 2 - font * 6, p->y + p->h / 2, font, "no LS queries in this run");
        return;
    }
    char buf[32];
    double step = y_step_spaced(p, nice_step(p->y_max), font);
    for (double v = 0; v <= p->y_max + 1e-12; v += step) {
        snprintf(buf, sizeof buf, "%g", v);
        text(cr, p->x - font * 3, y_of(p, v) + font * 0.35, font, buf);
    }
    static const double dash[] = {6, 4};
    for (unsigned a = 0; a < r->napps; a++) {
        double bound = r->app[a].qos_target * r->app[a].solo_p99_ms;
        if (r->app[a].role != ACCEL_LS || !isfinite(bound))
            continue;
        const double *c = app_colour(a);
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_dash(cr, dash, 2, 0);
        cairo_move_to(cr, p->x, y_of(p, bound));
        cairo_line_to(cr, p->x + p->w, y_of(p, bound));
        cairo_stroke(cr);
        cairo_set_dash(cr, NULL, 0, 0);
    }
    for (size_t i = 0; i < r->nqueries; i++) {
        const struct accel_query_rec *q = &r->queries[i];
        const double *c = app_colour(q->app);
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        double x = x_of(p, most, q->query);
        if (isfinite(q->latency_ms)) {
            cairo_arc(cr, x, y_of(p, q->latency_ms), 3, 0, 2 * 3.14159265358979);
            cairo_fill(cr);
        } else if (isinf(q->latency_ms)) { /* starved; NaN: not run yet (a run part way) */
            cairo_move_to(cr, x - 4, p->y - 4);
            cairo_line_to(cr, x + 4, p->y + 4);
            cairo_move_to(cr, x - 4, p->y + 4);
            cairo_line_to(cr, x + 4, p->y - 4);
            cairo_stroke(cr);
        }
        if (isfinite(q->predicted_ms)) {
            cairo_arc(cr, x, y_of(p, q->predicted_ms > p->y_max ? p->y_max : q->predicted_ms), 5, 0,
                      2 * 3.14159265358979);
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
    title_text(cr, font * 4, font * 1.8, font * 1.4, width - font, title);
    double widest = 0;
    for (unsigned a = 0; a < r->napps; a++) {
        char label[64];
        snprintf(label, sizeof label, "%s (%s)", r->app[a].name,
                 r->app[a].role == ACCEL_LS ? "LS" : "batch");
        double w = label_width(cr, font, label);
        widest = w > widest ? w : widest;
    }
    double left = font * 6, right = legend_margin(font, font * 10, widest, width);
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
        title_text(cr, x + font * 2.4, tl.y + font * (1.5 + 1.5 * a), font, tl.edge, label);
    }
}

int plot_accel_write(const struct accel_record *r, const char *path, unsigned width,
                     unsigned height, char *err, size_t errlen)
{
    bool svg;
    if (check_target(path, width, height, &svg, err, errlen) != 0)
        return -1;
    if (r->ntasks == 0) {
        snprintf(err, errlen, "%s: the run has no tasks to draw", path);
        return -1;
    }
    return render(path, svg, width, height, paint_accel, r, err, errlen);
}
