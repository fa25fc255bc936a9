/* tui_chart — a scatter chart of a few series in a window, one column per point. Letters rather
 * than lines mark the points: they survive monochrome and ASCII terminals and a text capture,
 * and a second glyph per kernel (its predicted NP) can join the same axes. */
#include <math.h>

#include "tui_internal.h"

static int row_of(double v, double y_max, int rows)
{
    int r = (int)lround((1.0 - v / y_max) * (rows - 1));
    if (r < 0)
        r = 0;
    if (r > rows - 1)
        r = rows - 1;
    return r;
}

void tui_chart(const struct tui_style *st, WINDOW *w, const struct tui_series *series,
               unsigned nseries, unsigned npoints, double y_max)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    int plot_cols = cols - TUI_CHART_LABEL_COLS;
    if (rows < 2 || plot_cols < 1 || !(y_max > 0) || !isfinite(y_max))
        return; /* an infinite or NaN scale has no round labels to find */
    const char *axis = st->utf8 ? "┤" : "|";
    const char *rule = st->utf8 ? "│" : "|";
    wattron(w, st->dim);
    for (int r = 0; r < rows; r++)
        tui_print(w, r, TUI_CHART_LABEL_COLS - 1, "%s", rule);
    /* Labels at round values (multiples of 0.25, 0.5 or 1), at least two rows apart. */
    double step = 0.25;
    while ((rows - 1) * step / y_max < 2 && step < y_max)
        step *= 2;
    for (int r = 0; r < rows && r * step <= y_max + 1e-9; r++)
        tui_print(w, row_of(r * step, y_max, rows), 0, "%4.2f%s", r * step, axis);
    wattroff(w, st->dim);
    /* Oldest at the left; when they do not all fit, the newest plot_cols. */
    unsigned first = npoints > (unsigned)plot_cols ? npoints - (unsigned)plot_cols : 0;
    for (unsigned s = 0; s < nseries; s++) {
        wattron(w, series[s].attr);
        for (unsigned i = first; i < npoints; i++) {
            double v = series[s].values[i];
            if (!(v >= 0) || !isfinite(v))
                continue;
            int x = TUI_CHART_LABEL_COLS + (int)(i - first);
            mvwaddch(w, row_of(v, y_max, rows), x, (chtype)(unsigned char)series[s].glyph);
        }
        wattroff(w, series[s].attr);
    }
}
