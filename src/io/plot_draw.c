/* plot_draw — what a run's pictures share: the palette, a panel's coordinates, text that
 * keeps inside the picture, and the cairo surface a picture is painted on, SVG or PNG. */
#include "plot_draw.h"

#include <cairo-svg.h>
#include <cairo.h>
#include <errno.h>
#include <fcntl.h>
#include <fontconfig/fontconfig.h>
#include <libgen.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/tempfile.h"
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
        return -2;
    }
    struct stat st;
    /* A link is neither followed nor replaced, as run --out and export treat one: drawn over,
     * a dangling link became a picture where the link was, and a live one sent the picture
     * to wherever it pointed. */
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        snprintf(err, errlen,
                 "%s: a symbolic link, not followed; expected the picture's file name (remove "
                 "the link, or draw to another name)",
                 path);
        return -2;
    }
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: a directory; expected the picture's file name", path);
        return -2;
    }
    if (width < 200 || width > 10000 || height < 200 || height > 10000) {
        snprintf(err, errlen, "%s: a size of %ux%u; expected 200 to 10000 each way", path, width,
                 height);
        return -2;
    }
    return 0;
}

/* A picture as it is drawn: the bytes cairo streams out, in memory. */
struct picture {
    unsigned char *data;
    size_t len, cap;
};

static cairo_status_t append(void *closure, const unsigned char *data, unsigned int length)
{
    struct picture *p = closure;
    if (p->len + length > p->cap) {
        p->cap = (p->len + length) * 2;
        p->data = xrealloc(p->data, p->cap);
    }
    memcpy(p->data + p->len, data, length);
    p->len += length;
    return CAIRO_STATUS_SUCCESS;
}

/* paint(...) on a white page, in black sans-serif text of a size that follows the height, as
 * the bytes of an SVG or a PNG in *out; the cairo status. */
static cairo_status_t draw_picture(bool svg, unsigned width, unsigned height,
                                   void (*paint)(cairo_t *cr, const void *ctx, double width,
                                                 double height, double font),
                                   const void *ctx, struct picture *out)
{
    cairo_surface_t *s =
        svg ? cairo_svg_surface_create_for_stream(append, out, width, height)
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
        st = cairo_surface_write_to_png_stream(s, append, out);
    cairo_surface_finish(s);
    if (st == CAIRO_STATUS_SUCCESS)
        st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    /* cairo and fontconfig keep fonts and their configuration for the life of the process; a
     * picture is drawn once, so give them back (leak checkers count them otherwise). */
    cairo_debug_reset_static_data();
    FcFini();
    return st;
}

/* All of p to fd at its start: 0, or -1 with errno. */
static int write_all(int fd, const struct picture *p)
{
    for (size_t done = 0; done < p->len;) {
        ssize_t n = pwrite(fd, p->data + done, p->len - done, (off_t)done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n == 0 ? (errno = EIO, -1) : -1;
        done += (size_t)n;
    }
    return 0;
}

/* A full disk, a spent quota or size limit is a failure while writing (-1); any other reason
 * (no such directory, no permission) lies in the name given (-2). */
static int failed(int e)
{
    return e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO ? -1 : -2;
}

/* p over path, a picture there that its directory will not let corun replace, though the file
 * itself can be written. Its room is taken first (a full disk leaves it as it was), and
 * signals wait until it is written whole. */
static int put_in_place(const char *path, const struct picture *p, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, strerror(e));
        return failed(e);
    }
    int e = p->len ? posix_fallocate(fd, 0, (off_t)p->len) : 0;
    if (e == EOPNOTSUPP || e == EINVAL)
        e = 0; /* a file system that cannot say: write and see */
    if (e != 0) {
        close(fd);
        snprintf(err, errlen, "%s: cannot write the picture: %s; the picture there is as it was",
                 path, strerror(e));
        return failed(e);
    }
    sigset_t all, before;
    sigfillset(&all);
    sigprocmask(SIG_BLOCK, &all, &before);
    if (write_all(fd, p) != 0 || ftruncate(fd, (off_t)p->len) != 0)
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    sigprocmask(SIG_SETMASK, &before, NULL);
    if (e != 0) {
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, strerror(e));
        return -1;
    }
    return 0;
}

/* p into a new file beside path, renamed over it once whole (mode kept), so that a picture
 * that fails leaves the one there as it was. 1 when the directory will not take a new file
 * but path is a picture corun can write (put_in_place then), else 0 or a failure. */
static int put_beside(const char *path, const struct stat *before, const struct picture *p,
                      char *err, size_t errlen)
{
    char *part = NULL;
    int fd = -1;
    for (unsigned n = 0; fd < 0 && n <= 100; n++) {
        free(part);
        part = tempfile_name(path, "part", n);
        fd = open(part, O_WRONLY | O_CREAT | O_EXCL, 0666);
        if (fd < 0 && errno != EEXIST)
            break;
    }
    if (fd < 0) {
        int e = errno;
        free(part);
        if (before && (e == EACCES || e == EPERM))
            return 1;
        char *copy = xstrdup(path);
        snprintf(err, errlen, "%s: cannot write the picture: %s (making a file in %s)", path,
                 strerror(e), dirname(copy));
        free(copy);
        return failed(e);
    }
    int rc = 0, e = 0;
    if (write_all(fd, p) != 0 || (before && fchmod(fd, before->st_mode & 07777) != 0))
        e = errno;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e == 0 && rename(part, path) != 0)
        e = errno;
    if (e != 0) {
        snprintf(err, errlen, "%s: cannot write the picture: %s%s", path, strerror(e),
                 before ? "; the picture there is as it was" : "");
        unlink(part); /* cut short, or not in its place */
        rc = failed(e);
    }
    free(part);
    return rc;
}

int plot_render(const char *path, bool svg, unsigned width, unsigned height,
                void (*paint)(cairo_t *cr, const void *ctx, double width, double height,
                              double font),
                const void *ctx, char *err, size_t errlen)
{
    struct stat before;
    bool existed = lstat(path, &before) == 0 && S_ISREG(before.st_mode);
    /* A file there that corun cannot write is left alone, as writing it in place would. */
    if (existed && access(path, W_OK) != 0) {
        snprintf(err, errlen, "%s: cannot write the picture: %s", path, strerror(errno));
        return -2;
    }
    struct picture p = {0};
    cairo_status_t st = draw_picture(svg, width, height, paint, ctx, &p);
    int rc = 0;
    if (st != CAIRO_STATUS_SUCCESS) {
        snprintf(err, errlen, "%s: cannot draw the picture: %s", path, cairo_status_to_string(st));
        rc = -1;
    } else {
        rc = put_beside(path, existed ? &before : NULL, &p, err, errlen);
        if (rc == 1)
            rc = put_in_place(path, &p, err, errlen);
    }
    free(p.data);
    return rc;
}
