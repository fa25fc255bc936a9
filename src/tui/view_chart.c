/* view_chart — every kernel's true NP over the epochs, one column per epoch, on shared axes,
 * and the predictor's NP as a second series per kernel (its lowercase letter; none in epochs
 * without a predictor), so that true and predicted can be read against each other. A kernel
 * has no point in epochs it was not in the mix (before it joined, after it left). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "corun/util.h"
#include "tui_internal.h"

/* Epochs the chart covers: all of a live run, a replay's up to the one shown. */
static unsigned charted(const struct tui *t)
{
    const struct tui_epoch *e = tui_shown(t);
    return e ? e->e.index + 1 : 0;
}

static void draw(const struct tui *t, WINDOW *w)
{
    unsigned n = charted(t);
    if (n == 0) {
        wattron(w, t->style.dim);
        tui_print(w, getmaxy(w) / 2, 2, "no epochs yet: Space steps one");
        wattroff(w, t->style.dim);
        return;
    }
    /* Every kernel the run has had by the epoch shown (the count only grows). */
    unsigned nk = t->epochs[n - 1].e.nkernels;
    nk = nk < GPU_MAX_KERNELS ? nk : GPU_MAX_KERNELS;
    /* values: true NP of every kernel, then predicted (-1: none). */
    double *values = xmalloc(2 * (size_t)nk * n * sizeof(*values));
    double *pred = values + (size_t)nk * n;
    double y_max = 1.0;
    for (unsigned k = 0; k < nk; k++)
        for (unsigned i = 0; i < n; i++) {
            const struct session_epoch *e = &t->epochs[i].e;
            bool in = k < e->nkernels && e->k[k].in_mix;
            double v = in ? e->k[k].np_true : -1, p = in ? e->k[k].np_pred : -1;
            if (!e->predictor[0] || isnan(p))
                p = -1;
            if (isnan(v))
                v = -1;
            values[(size_t)k * n + i] = v;
            pred[(size_t)k * n + i] = p;
            if (v > y_max)
                y_max = v;
            if (p > y_max)
                y_max = p;
        }
    /* Round the top up to a quarter so the labels stay short and steady. */
    y_max = ceil(y_max * 4) / 4;
    struct tui_series series[2 * GPU_MAX_KERNELS];
    unsigned ns = 0;
    /* Predictions first, so that a true value is on top where the two meet. */
    for (unsigned k = 0; k < nk; k++)
        series[ns++] = (struct tui_series){pred + (size_t)k * n,
                                           (char)tolower((unsigned char)tui_kernel_letter(k)),
                                           t->style.kernel[k] | t->style.dim};
    /* The selected kernel last, so its points are on top where two kernels meet. */
    for (unsigned k = 0; k < nk; k++) {
        if (k == t->selected)
            continue;
        series[ns++] =
            (struct tui_series){values + (size_t)k * n, tui_kernel_letter(k), t->style.kernel[k]};
    }
    unsigned s = t->selected;
    if (s < nk)
        series[ns++] = (struct tui_series){values + (size_t)s * n, tui_kernel_letter(s),
                                           t->style.kernel[s] | A_UNDERLINE};
    tui_chart(&t->style, w, series, ns, n, y_max);
    free(values);
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    unsigned last = charted(t);
    if (last == 0) {
        snprintf(buf, n, "NP history");
        return;
    }
    /* The chart shows the newest epochs that fit. */
    unsigned fit = cols > TUI_CHART_LABEL_COLS ? (unsigned)(cols - TUI_CHART_LABEL_COLS) : 1;
    unsigned first = last > fit ? last - fit + 1 : 1;
    snprintf(buf, n, "NP history, epochs %u-%u", first, last);
}

const struct tui_view tui_view_chart = {
    .title = "NP history",
    .deps = TUI_CH_EPOCH | TUI_CH_SELECT | TUI_CH_FOCUS,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
};
