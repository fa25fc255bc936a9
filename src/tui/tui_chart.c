/* tui_chart — a scatter chart of a few series in a window. Letters rather than lines mark the
 * points: they survive monochrome and ASCII terminals and a text capture, and a second glyph
 * per kernel (its predicted NP) can join the same axes.
 *
 * The x axis spans a fixed number of points over the whole width (a run's planned epochs), so
 * each point gets a slot of one or more columns. Points of one slot that fall in the same cell
 * are set side by side within the slot; when the slot has no free column left, the cell shows
 * TUI_CHART_SEVERAL, which the legend explains. Values that are negative, NaN or infinite are
 * not drawn. */
#include <math.h>
#include <stdlib.h>

#include "corun/util.h"
#include "tui_internal.h"

static int row_of(double v, double y_max, int rows)
{
    double r = (1.0 - v / y_max) * (rows - 1);
    if (!(r >= 0))
        return 0;
    if (r > rows - 1)
        return rows - 1;
    return (int)lround(r);
}

/* Columns [*x0, *x0 + *width) of point i when span points fill plot_cols. */
static void slot_of(unsigned i, unsigned span, int plot_cols, int *x0, int *width)
{
    int a = (int)((unsigned long long)i * (unsigned)plot_cols / span);
    int b = (int)((unsigned long long)(i + 1) * (unsigned)plot_cols / span);
    *x0 = TUI_CHART_LABEL_COLS + a;
    *width = b > a ? b - a : 1;
}

static void draw_axis(const struct tui_style *st, WINDOW *w, int rows, double y_max)
{
    if (rows < 2 || !(y_max > 0) || !isfinite(y_max))
        return; /* an infinite or NaN scale has no round labels to find */
    const char *axis = st->utf8 ? "┤" : "|";
    const char *rule = st->utf8 ? "│" : "|";
    wattron(w, st->dim);
    for (int r = 0; r < rows; r++)
        tui_print(w, r, TUI_CHART_LABEL_COLS - 1, "%s", rule);
    /* Labels at round values (multiples of 0.25, 0.5 or 1), at least two rows apart; a step
     * count bounds the loop whatever y_max is. */
    double step = 0.25;
    for (int i = 0; i < 64 && (rows - 1) * step / y_max < 2 && step < y_max; i++)
        step *= 2;
    bool top = false;
    for (int i = 0; i <= rows && i * step <= y_max + 1e-9; i++) {
        int r = row_of(i * step, y_max, rows);
        top = top || r == 0;
        tui_print(w, r, 0, "%4.2f%s", i * step, axis);
    }
    /* The top row says how high the scale goes when no round label falls there (1.50 above a
     * last label of 1.00 in a short chart): points drawn above the last label are read on it. */
    if (!top)
        tui_print(w, 0, 0, "%4.2f%s", y_max, axis);
    wattroff(w, st->dim);
}

/* What a cell of the plot holds: the glyph drawn there and the point it belongs to. */
struct cell {
    char glyph;
    unsigned point;
};

bool tui_chart(const struct tui_style *st, WINDOW *w, int rows, const struct tui_series *series,
               unsigned nseries, unsigned npoints, unsigned span, double y_max)
{
    int cols = getmaxx(w);
    int plot_cols = cols - TUI_CHART_LABEL_COLS;
    if (rows > getmaxy(w))
        rows = getmaxy(w);
    if (rows < 2 || plot_cols < 1 || !(y_max > 0) || !isfinite(y_max))
        return false;
    draw_axis(st, w, rows, y_max);
    if (span < npoints)
        span = npoints;
    if (span == 0)
        return false;
    struct cell *grid = xcalloc((size_t)rows * (size_t)cols, sizeof(*grid));
    bool several = false;
    for (unsigned s = 0; s < nseries; s++) {
        wattron(w, series[s].attr);
        for (unsigned i = 0; i < npoints; i++) {
            double v = series[s].values[i];
            if (!(v >= 0) || !isfinite(v))
                continue;
            int y = row_of(v, y_max, rows), x0, width;
            slot_of(i, span, plot_cols, &x0, &width);
            struct cell *row = grid + (size_t)y * (size_t)cols;
            /* A cell of an earlier point (more points than columns) is simply drawn over. */
            int x = -1;
            for (int c = x0; c < x0 + width && c < cols && x < 0; c++)
                if (!row[c].glyph || row[c].point != i + 1)
                    x = c;
            chtype g = (chtype)(unsigned char)series[s].glyph;
            if (x < 0) {
                x = x0 + width - 1 < cols ? x0 + width - 1 : cols - 1;
                g = TUI_CHART_SEVERAL;
                several = true;
            }
            row[x] = (struct cell){(char)g, i + 1};
            mvwaddch(w, y, x, g);
        }
        wattroff(w, series[s].attr);
    }
    free(grid);
    return several;
}
