/* plot — a run's pictures drawn with cairo: three panels stacked, sharing the epoch axis (NP
 * history, fairness and STP, the SM partition), each with a title and its legend. Colours
 * follow the kernel's index as in the workbench; predicted NP is dashed. */
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
#include <unistd.h>

#include "corun/util.h"

static const double palette[GPU_MAX_KERNELS][3] = {
    {0.00, 0.60, 0.75}, {0.85, 0.60, 0.00}, {0.20, 0.65, 0.20}, {0.75, 0.20, 0.65},
    {0.85, 0.20, 0.20}, {0.20, 0.30, 0.80}, {0.45, 0.45, 0.45}, {0.55, 0.35, 0.15},
};

struct panel {
    double x, y, w, h; /* the plotting area */
    double y_max;
};

static double x_of(const struct panel *p, unsigned n, double epoch)
{
    return p->x + p->w * (n > 1 ? epoch / (n - 1) : 0.5);
}

static double y_of(const struct panel *p, double v)
{
    return p->y + p->h * (1 - v / p->y_max);
}

static void text(cairo_t *cr, double x, double y, double size, const char *s)
{
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* The frame, the y labels at nice steps and the epoch labels below. */
static void axes(cairo_t *cr, const struct panel *p, unsigned n, const char *title, double font)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    text(cr, p->x, p->y - font * 0.6, font * 1.1, title);
    double step = p->y_max <= 1.5 ? 0.25 : p->y_max <= 3 ? 0.5 : ceil(p->y_max / 6);
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

static void legend_entry(cairo_t *cr, double x, double y, double font, const double rgb[3],
                         bool dashed, const char *label)
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
    text(cr, x + font * 2.4, y, font, label);
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
    axes(cr, p, d->nepochs, "Normalized progress (solid: true, dashed: predicted)", font);
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
        legend_entry(cr, x, p->y + font * (1.5 + 1.5 * k), font, palette[k], false, label);
    }
    static const double grey[3] = {0.3, 0.3, 0.3};
    legend_entry(cr, x, p->y + font * (1.5 + 1.5 * d->nkernels), font, grey, true, "predicted");
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
    legend_entry(cr, x, p->y + font * 1.5, font, red, false, "fairness");
    legend_entry(cr, x, p->y + font * 3, font, black, false, "STP");
}

/* One column per epoch, one row per SM, in its owner's colour (idle white, gated grey). */
static void partition_panel(cairo_t *cr, const struct plot_data *d, struct panel *p, double font)
{
    p->y_max = d->sms;
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, p->x, p->y - font * 0.6, font * 1.1, "SM partition (one column per epoch)");
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
    snprintf(buf, sizeof buf, "%u SMs", d->sms);
    text(cr, p->x - font * 3, p->y + font, font, buf);
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
        text(cr, x + font * 2.4, p->y + font * (1.5 + 1.5 * k), font, label);
    }
}

static void draw(cairo_t *cr, const struct plot_data *d, double width, double height)
{
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    double font = height / 60 < 9 ? 9 : height / 60;
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, font * 4, font * 1.8, font * 1.4, d->title);
    double left = font * 4, right = font * 12, top = font * 4, gap = font * 4;
    double h = (height - top - gap * 3) / 3;
    struct panel p = {left, top, width - left - right, h, 1};
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

int plot_write(const struct plot_data *d, const char *path, unsigned width, unsigned height,
               char *err, size_t errlen)
{
    bool svg = ends_with(path, ".svg"), png = ends_with(path, ".png");
    if (!svg && !png) {
        snprintf(err, errlen, "%s: expected a file name ending in .svg or .png", path);
        return -1;
    }
    if (width < 200 || width > 10000 || height < 200 || height > 10000) {
        snprintf(err, errlen, "%s: a size of %ux%u; expected 200 to 10000 each way", path, width,
                 height);
        return -1;
    }
    if (d->nepochs == 0 || d->nkernels == 0 || d->sms == 0) {
        snprintf(err, errlen, "%s: the run has no epochs to draw", path);
        return -1;
    }
    cairo_surface_t *s =
        svg ? cairo_svg_surface_create(path, width, height)
            : cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
    cairo_status_t st = cairo_surface_status(s);
    if (st == CAIRO_STATUS_SUCCESS) {
        cairo_t *cr = cairo_create(s);
        draw(cr, d, width, height);
        st = cairo_status(cr);
        cairo_destroy(cr);
    }
    if (st == CAIRO_STATUS_SUCCESS && png)
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
         * missing or not writable is the common cause, and the system can name it. */
        const char *why = cairo_status_to_string(st);
        char *dir = xstrdup(path);
        if (st == CAIRO_STATUS_WRITE_ERROR && access(dirname(dir), W_OK) != 0)
            why = strerror(errno);
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, why);
        free(dir);
        return -1;
    }
    return 0;
}
