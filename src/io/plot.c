/* plot — a spatial run's picture drawn with cairo: three panels stacked, sharing the epoch
 * axis (NP history, fairness and STP, the SM partition), each with a title and its legend;
 * colours follow the kernel's index as in the workbench, predicted NP is dashed. */
#include "corun/plot.h"

#include <math.h>
#include <stdio.h>

#include "plot_draw.h"

/* x of epoch i (from 0) of n in p: the middle of its column, as the partition panel draws it,
 * so that a point lines up with its epoch's column below (the points ran edge to edge). */
static double epoch_x(const struct panel *p, unsigned n, unsigned i)
{
    return p->x + p->w * (i + 0.5) / n;
}

/* Epoch numbers under p, at most 10 and a font size apart at least (the numbers of a
 * narrow picture ran into each other), each centred on its column. */
static void epoch_labels(cairo_t *cr, const struct panel *p, unsigned n, double font)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%u", n);
    double step = plot_x_step_spaced(p->w / n, n > 10 ? (n + 9) / 10 : 1,
                                     plot_label_width(cr, font, buf), font);
    unsigned every = step < n ? (unsigned)step : n; /* the first epoch's alone */
    for (unsigned i = 0; i < n; i += every) {
        snprintf(buf, sizeof buf, "%u", i + 1);
        plot_text_centred(cr, epoch_x(p, n, i), p->y + p->h + font * 1.2, font, buf);
    }
}

/* The frame, the y labels at nice steps and the epoch labels below. */
static void axes(cairo_t *cr, const struct panel *p, unsigned n, const char *title, double font)
{
    cairo_set_source_rgb(cr, 0, 0, 0);
    cairo_set_line_width(cr, 1);
    cairo_rectangle(cr, p->x, p->y, p->w, p->h);
    cairo_stroke(cr);
    plot_title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge, title);
    double step = plot_y_step_spaced(p,
                                     p->y_max <= 1.5 ? 0.25
                                     : p->y_max <= 3 ? 0.5
                                                     : ceil(p->y_max / 6),
                                     font);
    char buf[32];
    for (double v = 0; v <= p->y_max + 1e-9; v += step) {
        double y = plot_y_of(p, v);
        cairo_set_source_rgb(cr, 0.85, 0.85, 0.85);
        cairo_move_to(cr, p->x, y);
        cairo_line_to(cr, p->x + p->w, y);
        cairo_stroke(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        snprintf(buf, sizeof buf, "%.2f", v);
        plot_text(cr, p->x - font * 3, y + font * 0.35, font, buf);
    }
    epoch_labels(cr, p, n, font);
}

/* A polyline through the finite values; gaps where a value is missing. A single point (a
 * kernel in one epoch only) is a dot of radius dot, or a ring: a series drawn after another
 * gives a smaller dot, so that equal values do not hide the one drawn first (a one-epoch run's
 * STP dot hid its fairness dot). */
static void line(cairo_t *cr, const struct panel *p, unsigned n, const double *v, double dot,
                 bool ring)
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
            cairo_line_to(cr, epoch_x(p, n, i), plot_y_of(p, y));
        else
            cairo_move_to(cr, epoch_x(p, n, i), plot_y_of(p, y));
        pen = true;
    }
    cairo_stroke(cr);
    for (unsigned i = 0; i < n; i++)
        if (isfinite(v[i]) && (i == 0 || !isfinite(v[i - 1])) &&
            (i + 1 == n || !isfinite(v[i + 1]))) {
            double y = v[i] > p->y_max ? p->y_max : v[i] < 0 ? 0 : v[i];
            cairo_new_sub_path(cr);
            cairo_arc(cr, epoch_x(p, n, i), plot_y_of(p, y), dot, 0, 2 * 3.14159265358979);
            if (ring)
                cairo_stroke(cr);
            else
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
    plot_title_text(cr, x + font * 2.4, y, font, edge, label);
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
        const double *c = plot_palette[k];
        cairo_set_source_rgb(cr, c[0], c[1], c[2]);
        cairo_set_line_width(cr, 2);
        double dot = 2.5 + 1.5 * (d->nkernels - 1 - k);
        line(cr, p, d->nepochs, d->np_true[k], dot, false);
        if (d->np_pred[k]) {
            cairo_set_dash(cr, dash, 2, 0);
            line(cr, p, d->nepochs, d->np_pred[k], dot + 2, true);
            cairo_set_dash(cr, NULL, 0, 0);
        }
    }
    double x = p->x + p->w + font;
    for (unsigned k = 0; k < d->nkernels; k++) {
        char label[64];
        snprintf(label, sizeof label, "%c %s", 'A' + k, d->name[k]);
        legend_entry(cr, x, p->y + font * (1.5 + 1.5 * k), font, p->edge, plot_palette[k], false,
                     label);
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
    line(cr, p, d->nepochs, d->fairness, 4.5, false);
    cairo_set_source_rgb(cr, 0, 0, 0);
    line(cr, p, d->nepochs, d->stp, 2.5, false);
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
    plot_title_text(cr, p->x, p->y - font * 0.6, font * 1.1, p->edge, title);
    double cw = p->w / d->nepochs, ch = p->h / d->sms;
    for (unsigned i = 0; i < d->nepochs; i++)
        for (unsigned s = 0; s < d->sms; s++) {
            int o = d->owner[(size_t)i * d->sms + s];
            if (o >= 0 && o < GPU_MAX_KERNELS)
                cairo_set_source_rgb(cr, plot_palette[o][0], plot_palette[o][1],
                                     plot_palette[o][2]);
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
    epoch_labels(cr, p, d->nepochs, font);
    plot_text(cr, p->x + p->w / 2 - font * 1.5, p->y + p->h + font * 2.5, font, "epoch");
    double x = p->x + p->w + font;
    for (unsigned k = 0; k < d->nkernels; k++) {
        cairo_set_source_rgb(cr, plot_palette[k][0], plot_palette[k][1], plot_palette[k][2]);
        cairo_rectangle(cr, x, p->y + font * (0.6 + 1.5 * k), font * 2, font);
        cairo_fill(cr);
        cairo_set_source_rgb(cr, 0, 0, 0);
        char label[64];
        snprintf(label, sizeof label, "%c %s", 'A' + k, d->name[k]);
        plot_title_text(cr, x + font * 2.4, p->y + font * (1.5 + 1.5 * k), font, p->edge, label);
    }
}

static void draw(cairo_t *cr, const void *ctx, double width, double height, double font)
{
    const struct plot_data *d = ctx;
    plot_title_text(cr, font * 4, font * 1.8, font * 1.4, width - font, d->title);
    /* The legends start 3.4 font sizes into the right margin: make it hold the widest. */
    double widest = plot_label_width(cr, font, "predicted");
    for (unsigned k = 0; k < d->nkernels; k++) {
        char label[64];
        snprintf(label, sizeof label, "%c %s", 'A' + k, d->name[k]);
        double w = plot_label_width(cr, font, label);
        widest = w > widest ? w : widest;
    }
    double left = font * 4, right = plot_legend_margin(font, font * 12, widest, width);
    double top = font * 4, gap = font * 4;
    double h = (height - top - gap * 3) / 3;
    struct panel p = {left, top, width - left - right, h, 1, width - font};
    np_panel(cr, d, &p, font);
    p.y += h + gap;
    system_panel(cr, d, &p, font);
    p.y += h + gap;
    partition_panel(cr, d, &p, font);
}

int plot_write(const struct plot_data *d, const char *path, unsigned width, unsigned height,
               char *err, size_t errlen)
{
    bool svg;
    if (plot_check_target(path, width, height, &svg, err, errlen) != 0)
        return -2;
    if (d->nepochs == 0 || d->nkernels == 0 || d->sms == 0) {
        snprintf(err, errlen, "%s: the run has no epochs to draw", path);
        return -2;
    }
    return plot_render(path, svg, width, height, draw, d, err, errlen);
}
