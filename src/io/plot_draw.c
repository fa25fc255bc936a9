/* plot_draw — what a run's pictures share: the palette, a panel's coordinates, text that
 * keeps inside the picture, and the cairo surface a picture is painted on, SVG or PNG. */
#define _XOPEN_SOURCE 700 /* realpath */
#include "plot_draw.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/util.h"

const double plot_palette[GPU_MAX_KERNELS][3] = {
    {0.00, 0.60, 0.75}, {0.85, 0.60, 0.00}, {0.20, 0.65, 0.20}, {0.75, 0.20, 0.65},
    {0.85, 0.20, 0.20}, {0.20, 0.30, 0.80}, {0.45, 0.45, 0.45}, {0.55, 0.35, 0.15},
};

double plot_x_of(const struct panel *p, unsigned n, double epoch)
{
    return p->x + p->w * (n > 1 ? epoch / (n - 1) : 0.5);
}

double plot_y_of(const struct panel *p, double v)
{
    return p->y + p->h * (1 - v / p->y_max);
}

/* step, doubled until the y labels it puts on panel p are at least 1.5 font sizes apart
 * (a small picture's labels overlapped). */
double plot_y_step_spaced(const struct panel *p, double step, double font)
{
    for (int i = 0; i < 30 && p->y_max > 0 && p->h > 0 && step / p->y_max * p->h < 1.5 * font;
         i++) /* bounded: a panel of no height must not loop */
        step *= 2;
    return step;
}

/* step, doubled until x labels as wide as `widest`, px_per_unit apart per unit of step, have a
 * font size between them (a small picture's ran into each other). */
double plot_x_step_spaced(double px_per_unit, double step, double widest, double font)
{
    for (int i = 0; i < 30 && px_per_unit > 0 && step * px_per_unit < widest + font; i++)
        step *= 2;
    return step;
}

void plot_text(cairo_t *cr, double x, double y, double size, const char *s)
{
    cairo_set_font_size(cr, size);
    cairo_move_to(cr, x, y);
    cairo_show_text(cr, s);
}

/* A right margin of at least `least` that holds legend labels as wide as `widest` drawn 3.4
 * font sizes into it, but no more than half the picture. */
double plot_legend_margin(double font, double least, double widest, double width)
{
    double m = font * 4 + widest;
    m = m > least ? m : least;
    return m < width / 2 ? m : width / 2;
}

double plot_label_width(cairo_t *cr, double font, const char *s)
{
    cairo_text_extents_t ext;
    cairo_set_font_size(cr, font);
    cairo_text_extents(cr, s, &ext);
    return ext.x_advance;
}

/* s centred on x. */
void plot_text_centred(cairo_t *cr, double x, double y, double size, const char *s)
{
    plot_text(cr, x - plot_label_width(cr, size, s) / 2, y, size, s);
}

/* A title or legend label from x, at size, smaller when that would run past edge (a small
 * picture's were cut at its right side). */
void plot_title_text(cairo_t *cr, double x, double y, double size, double edge, const char *s)
{
    /* Measured again after each cut: hinted glyphs do not shrink in proportion. */
    for (int i = 0; i < 8; i++) {
        double w = plot_label_width(cr, size, s);
        if (w <= edge - x || w <= 0)
            break;
        size *= (edge - x) / w * 0.98;
    }
    plot_text(cr, x, y, size, s);
}

/* Whether s ends in end, in either case (A.SVG is an SVG too), after a name. */
static bool ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), m = strlen(end);
    return n > m && s[n - m - 1] != '/' && strcasecmp(s + n - m, end) == 0;
}

/* path's kind and the size, checked before anything is drawn: -1 with a message. */
int plot_check_target(const char *path, unsigned width, unsigned height, bool *svg, char *err,
                      size_t errlen)
{
    *svg = ends_with(path, ".svg");
    if (!*svg && !ends_with(path, ".png")) {
        const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
        if (strcasecmp(base, ".svg") == 0 || strcasecmp(base, ".png") == 0)
            snprintf(err, errlen, "%s: no name before its %s; expected NAME.svg or NAME.png", path,
                     base);
        else
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
 * sans-serif text of a size that follows the height. The picture is drawn into a file beside
 * path's (a link's target's) and renamed over it once whole, so that a picture that fails
 * (a full disk) leaves the one there as it was: written in place, it was cut short and then
 * removed. */
int plot_render(const char *path, bool svg, unsigned width, unsigned height,
                void (*paint)(cairo_t *cr, const void *ctx, double width, double height,
                              double font),
                const void *ctx, char *err, size_t errlen)
{
    struct stat before;
    bool existed = stat(path, &before) == 0 && S_ISREG(before.st_mode);
    /* A file there that corun cannot write is left alone, as writing it in place did. */
    if (existed && access(path, W_OK) != 0) {
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, strerror(errno));
        return -1;
    }
    char *real = existed ? realpath(path, NULL) : NULL;
    const char *target = real ? real : path;
    char *part = xasprintf("%s.part-%ld", target, (long)getpid());
    cairo_surface_t *s =
        svg ? cairo_svg_surface_create(part, width, height)
            : cairo_image_surface_create(CAIRO_FORMAT_RGB24, (int)width, (int)height);
    cairo_status_t st = cairo_surface_status(s);
    /* The size asked for is in pixels, as a PNG's is: cairo's SVG says points by default
     * (1200 pt, 1600 px at 96 dpi). */
    if (svg && st == CAIRO_STATUS_SUCCESS)
        cairo_svg_surface_set_document_unit(s, CAIRO_SVG_UNIT_PX);
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
        st = cairo_surface_write_to_png(s, part);
    cairo_surface_finish(s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    /* cairo and fontconfig keep fonts and their configuration for the life of the process; a
     * picture is drawn once, so give them back (leak checkers count them otherwise). */
    cairo_debug_reset_static_data();
    FcFini();
    int rc = 0;
    if (st != CAIRO_STATUS_SUCCESS) {
        /* cairo says only "error while writing to output stream": a directory that is
         * missing or not writable is the common cause, and the system can name it. */
        const char *why = cairo_status_to_string(st);
        char *dir = xstrdup(target);
        if (st == CAIRO_STATUS_WRITE_ERROR && access(dirname(dir), W_OK) != 0)
            why = strerror(errno);
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, why);
        free(dir);
        rc = -1;
    } else if ((existed && chmod(part, before.st_mode & 07777) != 0) || rename(part, target) != 0) {
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc != 0)
        unlink(part); /* cut short, or not in its place: the file there is as it was */
    free(part);
    free(real);
    return rc;
}
