/* view_chart — every kernel's true NP over the epochs on shared axes, and the predictor's NP as
 * a second series per kernel (its lowercase letter; none in epochs without a predictor), so
 * that true and predicted can be read against each other. The x axis spans the run's planned
 * epochs (or all done, past them) over the width; a legend on the bottom row names the glyphs.
 * A kernel has no point in epochs it was not in the mix (before it joined, after it left); one
 * that left stays in the legend while its earlier points are drawn. */
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

/* The x range: live, the scenario's epochs, or every epoch done when a run went past them; in a
 * replay, the epochs of the file. */
static unsigned span(const struct tui *t)
{
    unsigned n = t->live ? t->sc->epochs : t->nepochs;
    return t->nepochs > n ? t->nepochs : (n ? n : 1);
}

/* Predictions far off the scale would squash the true values into the bottom rows: the axis
 * stops here, and such points sit on the top row. */
#define Y_MAX_CAP 2.0

/* The bottom row: the letter of each kernel in[k], with its name when there is room, and what
 * the lower case and TUI_CHART_SEVERAL mean. */
static void legend(const struct tui *t, WINDOW *w, int y, unsigned nk, const bool *in,
                   bool predicted, bool several)
{
    int cols = getmaxx(w), need = 0;
    for (unsigned k = 0; k < nk; k++)
        if (in[k])
            need += 3 + tui_columns(tui_kernel_name(t, k));
    bool names = need + 30 <= cols;
    int x = 0;
    for (unsigned k = 0; k < nk; k++) {
        if (!in[k])
            continue;
        wattron(w, t->style.kernel[k]);
        x += tui_print(w, y, x, "%c", tui_kernel_letter(k));
        wattroff(w, t->style.kernel[k]);
        x += tui_print(w, y, x, names ? " %s  " : " ", tui_kernel_name(t, k));
    }
    wattron(w, t->style.dim);
    x += tui_print(w, y, x, names ? "true NP  " : "true  ");
    wattroff(w, t->style.dim);
    if (predicted) {
        /* The lower-case letters, drawn as their series are. */
        for (unsigned k = 0; k < nk; k++) {
            if (!in[k])
                continue;
            wattron(w, t->style.kernel[k] | t->style.dim);
            x += tui_print(w, y, x, "%c ", tolower((unsigned char)tui_kernel_letter(k)));
            wattroff(w, t->style.kernel[k] | t->style.dim);
        }
        wattron(w, t->style.dim);
        x += tui_print(w, y, x, "predicted  ");
        wattroff(w, t->style.dim);
    }
    if (several) {
        wattron(w, t->style.dim);
        tui_print(w, y, x, "%c several", TUI_CHART_SEVERAL);
        wattroff(w, t->style.dim);
    }
}

/* The scenario's own narrative (its `lesson` setting), for a live run before its first epoch
 * while the mix is still the one it describes, outside a lesson (whose panel narrates); NULL
 * when there is none to show. */
static const char *about(const struct tui *t)
{
    if (!t->live || t->lesson || !t->sc || !t->sc->lesson || !t->sc->lesson[0] ||
        t->mix.pending[0] || t->mix.n != t->attached_kernels)
        return NULL;
    for (unsigned k = 0; k < t->mix.n; k++)
        if (!t->mix.in_mix[k])
            return NULL;
    return t->sc->lesson;
}

/* Before the first epoch: the scenario's narrative when it has one (where it does not fit, a
 * pointer to the help, which has it), and how to start. */
static void draw_empty(const struct tui *t, WINDOW *w)
{
    int y = getmaxy(w) / 2, cols = getmaxx(w) - 4;
    const char *text = about(t);
    int rows = text ? tui_wrap(NULL, 0, 0, text, cols) : 0;
    if (text && rows + 3 <= getmaxy(w)) {
        wattron(w, A_BOLD);
        tui_print(w, 0, 2, "About this scenario");
        wattroff(w, A_BOLD);
        tui_wrap(w, 1, 2, text, cols);
        y = rows + 2;
    } else if (text && y >= 1) {
        tui_print(w, y - 1, 2, "About this scenario: ? shows it");
    }
    wattron(w, t->style.dim);
    /* A replay steps nothing (Space there says so): a run file of no epochs is branched. */
    tui_print(w, y, 2,
              t->live ? "no epochs yet: Space steps one" : "no epochs in the run file: b branches");
    wattroff(w, t->style.dim);
}

static void draw(const struct tui *t, WINDOW *w)
{
    unsigned n = charted(t);
    if (n == 0) {
        draw_empty(t, w);
        return;
    }
    /* Every kernel the run has had by the epoch shown (the count only grows). */
    unsigned nk = t->epochs[n - 1].e.nkernels;
    nk = nk < GPU_MAX_KERNELS ? nk : GPU_MAX_KERNELS;
    /* values: true NP of every kernel, then predicted (-1: none). */
    double *values = xmalloc(2 * (size_t)nk * n * sizeof(*values));
    double *pred = values + (size_t)nk * n;
    double y_max = 1.0;
    /* The legend names the kernels in the mix shown and any other with points drawn (one that
     * left the mix keeps its earlier epochs' points). */
    bool listed[GPU_MAX_KERNELS];
    tui_mix_shown(t, listed);
    for (unsigned k = 0; k < nk; k++)
        for (unsigned i = 0; i < n; i++) {
            const struct session_epoch *e = &t->epochs[i].e;
            bool in = k < e->nkernels && e->k[k].in_mix;
            /* Predict, then reveal: hidden true values have no point yet. */
            double v = in && !tui_hidden(t, i) ? e->k[k].np_true : -1;
            double p = in ? e->k[k].np_pred : -1;
            if (!e->predictor[0] || !isfinite(p))
                p = -1;
            if (!isfinite(v))
                v = -1;
            values[(size_t)k * n + i] = v;
            pred[(size_t)k * n + i] = p;
            if (v > y_max)
                y_max = v;
            if (p > y_max)
                y_max = p;
            if (v >= 0 || p >= 0)
                listed[k] = true;
        }
    /* Round the top up to a quarter so the labels stay short and steady. */
    y_max = y_max > Y_MAX_CAP ? Y_MAX_CAP : ceil(y_max * 4) / 4;
    bool predicted = false;
    for (size_t i = 0; i < (size_t)nk * n && !predicted; i++)
        predicted = pred[i] >= 0;
    struct tui_series series[2 * GPU_MAX_KERNELS];
    unsigned ns = 0;
    /* Series take the columns of an epoch's slot in order: the selected kernel's true NP
     * first, then the others', then the predictions in the same order. */
    unsigned order[GPU_MAX_KERNELS], no = 0;
    if (t->selected < nk)
        order[no++] = t->selected;
    for (unsigned k = 0; k < nk; k++)
        if (k != t->selected)
            order[no++] = k;
    for (unsigned i = 0; i < no; i++) {
        unsigned k = order[i];
        attr_t a = t->style.kernel[k] | (k == t->selected ? A_UNDERLINE : 0);
        series[ns++] = (struct tui_series){values + (size_t)k * n, tui_kernel_letter(k), a};
    }
    for (unsigned i = 0; i < no; i++) {
        unsigned k = order[i];
        series[ns++] = (struct tui_series){pred + (size_t)k * n,
                                           (char)tolower((unsigned char)tui_kernel_letter(k)),
                                           t->style.kernel[k] | t->style.dim};
    }
    int rows = getmaxy(w) - 1;
    bool several = tui_chart(&t->style, w, rows, series, ns, n, span(t), y_max);
    legend(t, w, rows, nk, listed, predicted, several);
    free(values);
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    unsigned last = charted(t);
    if (last == 0) {
        snprintf(buf, n, "NP history");
        return;
    }
    (void)cols;
    snprintf(buf, n, "NP history, epochs 1-%u of %u", last, span(t));
}

const struct tui_view tui_view_chart = {
    .title = "NP history",
    .deps = TUI_CH_EPOCH | TUI_CH_SELECT | TUI_CH_FOCUS,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
};
