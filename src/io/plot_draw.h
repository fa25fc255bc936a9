/* plot_draw — the drawing helpers the pictures of plot.c and plot_accel.c share (private to
 * src/io). */
#ifndef CORUN_PLOT_DRAW_H
#define CORUN_PLOT_DRAW_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>

#include "corun/gpu.h"

/* A kernel's (spatial) or an application's (accelerator) colour, by its index. */
extern const double plot_palette[GPU_MAX_KERNELS][3];

struct panel {
    double x, y, w, h; /* the plotting area */
    double y_max;
    double edge; /* the picture's right edge: where its titles and legends must end */
};

/* x of epoch (0 to n - 1) in p; the middle for a single epoch. y of value v in p, 0 at the
 * bottom and p->y_max at the top. */
double plot_x_of(const struct panel *p, unsigned n, double epoch);
double plot_y_of(const struct panel *p, double v);

/* step, doubled until the y labels it puts on panel p are at least 1.5 font sizes apart. */
double plot_y_step_spaced(const struct panel *p, double step, double font);

/* step, doubled until x labels as wide as `widest`, px_per_unit apart per unit of step, are a
 * font size apart. */
double plot_x_step_spaced(double px_per_unit, double step, double widest, double font);

/* s at (x, y) in size; centred on x. */
void plot_text(cairo_t *cr, double x, double y, double size, const char *s);
void plot_text_centred(cairo_t *cr, double x, double y, double size, const char *s);

/* A right margin of at least `least` that holds legend labels as wide as `widest`, but no more
 * than half the picture's width. */
double plot_legend_margin(double font, double least, double widest, double width);

/* How wide s is drawn in font. */
double plot_label_width(cairo_t *cr, double font, const char *s);

/* s from x at size, made smaller where it would run past edge. */
void plot_title_text(cairo_t *cr, double x, double y, double size, double edge, const char *s);

/* path's kind (*svg: .svg, else .png) and the size checked before anything is drawn: 0, or -2
 * with a message naming path (a directory or a symbolic link there is refused too). */
int plot_check_target(const char *path, unsigned width, unsigned height, bool *svg, char *err,
                      size_t errlen);

/* paint(cr, ctx, width, height, font) into path on a white page: drawn in memory, then written
 * beside path and renamed over it, or, where path's directory takes no new file but path can
 * be written, over it in place once there is room for it. 0; -2 with a message for a path
 * that cannot be written; -1 for a failure while writing, the file there left as it was. */
int plot_render(const char *path, bool svg, unsigned width, unsigned height,
                void (*paint)(cairo_t *cr, const void *ctx, double width, double height,
                              double font),
                const void *ctx, char *err, size_t errlen);

#endif
