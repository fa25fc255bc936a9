/* view_kernels — one row per kernel in the mix of the epoch shown (a kernel removed from the
 * mix, or not added yet, has no row; the letters stay those of the stable indices). Values that do
 * not exist yet (no predictor, no classifier, no QoS target) print as a dash rather than a guess.
 * QoS: a high-priority kernel's target before the first epoch, then whether its true NP met it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "corun/kernel.h"
#include "tui_internal.h"

/* The predicted class, short enough for its column. */
static const char *class_label(int cls)
{
    switch (cls) {
    case KERNEL_CLASS_COMPUTE: return "comp";
    case KERNEL_CLASS_MEMORY: return "mem";
    case KERNEL_CLASS_BALANCED: return "bal";
    default: return NULL;
    }
}

/* Widths of the columns after "> A name": SMs, IPC, NP true, NP pred, error, BW, RBH, class,
 * QoS. */
static const int col_w[] = {6, 7, 8, 8, 6, 9, 6, 7, 5};
/* SMs: the epoch's time-weighted mean (the SM map shows the owners now). */
static const char *const col_title[] = {"SMavg",   "IPC", "NP true", "NP pred", "Error",
                                        "BW GB/s", "RBH", "Class",   "QoS"};
#define NCOLS  (sizeof(col_w) / sizeof(col_w[0]))
#define NAME_X 3
#define NAME_W 12 /* the name column's width when the window has no room for more */

static unsigned owned_sms(const struct tui *t, unsigned k)
{
    unsigned n = 0;
    for (unsigned i = 0; i < t->sms; i++)
        n += t->owner[i] == (int)k;
    return n;
}

/* The name column: wide enough for the longest name of the mix (and a space) when the window
 * has room beside the other columns, else NAME_W. */
static int name_width(const struct tui *t, WINDOW *w, const bool *in)
{
    int cols = 0;
    for (unsigned c = 0; c < NCOLS; c++)
        cols += col_w[c];
    int room = getmaxx(w) - NAME_X - cols, want = NAME_W;
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        if (in[k] && (int)strlen(tui_kernel_name(t, k)) + 1 > want)
            want = (int)strlen(tui_kernel_name(t, k)) + 1;
    return want < room ? want : room > NAME_W ? room : NAME_W;
}

static void draw_row(const struct tui *t, WINDOW *w, int y, unsigned k, int name_w)
{
    const struct tui_style *st = &t->style;
    const struct tui_epoch *e = tui_shown(t);
    char v[NCOLS][24];
    for (unsigned c = 0; c < NCOLS; c++)
        snprintf(v[c], sizeof v[c], "%s", st->dash);
    double target = k < t->mix.n ? t->mix.qos_target[k] : 0;
    if (e) {
        const struct session_kernel_epoch *ke = &e->e.k[k];
        /* The verdict is the epoch's: a target changed since applies from the next one (it
         * turned a finished epoch's miss into met). */
        target = k < e->e.nkernels ? ke->qos_target : 0;
        snprintf(v[0], sizeof v[0], "%.1f", ke->c.sms);
        snprintf(v[1], sizeof v[1], "%.1f", ke->c.ipc);
        /* Predict, then reveal: the truth waits for the class's guesses. */
        bool hide = tui_hidden(t, e->e.index);
        if (hide)
            snprintf(v[2], sizeof v[2], "?");
        else if (ke->np_true >= 0)
            snprintf(v[2], sizeof v[2], "%.3f", ke->np_true);
        /* Only when a predictor was active in the epoch shown. */
        if (e->e.predictor[0] && !isnan(ke->np_pred))
            snprintf(v[3], sizeof v[3], "%.3f", ke->np_pred);
        if (e->e.predictor[0] && !isnan(ke->are) && !hide)
            /* ARE is a fraction: from 99.95 % on, no decimal, so "268%" fits the column
             * ("268.2%" ran into NP pred). */
            snprintf(v[4], sizeof v[4], ke->are < 0.9995 ? "%.1f%%" : "%.0f%%", ke->are * 100);
        const char *cls = e->e.predictor[0] ? class_label(ke->pred_class) : NULL;
        if (cls)
            snprintf(v[7], sizeof v[7], "%s", cls);
        snprintf(v[5], sizeof v[5], "%.1f", ke->c.bandwidth_gbs);
        snprintf(v[6], sizeof v[6], "%.3f", ke->c.rbh);
        /* A high-priority kernel's true NP against the NP it is to keep (one that made no
         * progress missed it). */
        if (target > 0)
            snprintf(v[8], sizeof v[8], "%s", hide ? "?" : ke->np_true >= target ? "met" : "miss");
    } else {
        /* Before the first epoch the partition, and the targets, are all there is to show. */
        snprintf(v[0], sizeof v[0], "%u", owned_sms(t, k));
        if (target > 0)
            snprintf(v[8], sizeof v[8], "%.2f", target);
    }
    bool sel = k == t->selected;
    bool focused = t->focus == TUI_V_KERNELS;
    attr_t row_attr = sel ? (focused ? A_REVERSE : A_BOLD) : 0;
    if (sel) {
        wattron(w, row_attr);
        mvwhline(w, y, 0, ' ', getmaxx(w));
        tui_print(w, y, 0, ">");
    }
    wattron(w, st->kernel[k]);
    tui_print(w, y, 1, "%c", tui_kernel_letter(k));
    wattroff(w, st->kernel[k]);
    wattron(w, row_attr);
    tui_print(w, y, NAME_X, "%-*.*s", name_w - 1, name_w - 1, tui_kernel_name(t, k));
    int x = NAME_X + name_w;
    for (unsigned c = 0; c < NCOLS; c++) {
        x += col_w[c];
        tui_print_right(w, y, x, "%s", v[c]);
    }
    wattroff(w, row_attr);
}

/* The kernels in the mix shown, in row[0..n), and the first of them a table of `fit` rows
 * shows: scrolled so that the selected kernel stays visible when they do not all fit. */
static unsigned rows_shown(const struct tui *t, int fit, unsigned row[GPU_MAX_KERNELS],
                           unsigned *top)
{
    bool in[GPU_MAX_KERNELS];
    unsigned n = 0, sel = 0;
    tui_mix_shown(t, in);
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        if (in[k]) {
            sel = k == t->selected ? n : sel;
            row[n++] = k;
        }
    *top = fit > 0 && sel >= (unsigned)fit ? sel - (unsigned)fit + 1 : 0;
    return n;
}

static void draw(const struct tui *t, WINDOW *w)
{
    int rows = getmaxy(w);
    bool in[GPU_MAX_KERNELS];
    unsigned row[GPU_MAX_KERNELS];
    tui_mix_shown(t, in);
    int name_w = name_width(t, w, in);
    wattron(w, A_BOLD);
    tui_print(w, 0, NAME_X, "Kernel");
    int x = NAME_X + name_w;
    for (unsigned c = 0; c < NCOLS; c++) {
        x += col_w[c];
        tui_print_right(w, 0, x, "%s", col_title[c]);
    }
    wattroff(w, A_BOLD);
    int fit = rows - 1;
    unsigned top, n = rows_shown(t, fit, row, &top);
    for (unsigned i = top; i < n && (int)(i - top) < fit; i++)
        draw_row(t, w, 1 + (int)(i - top), row[i], name_w);
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    (void)cols;
    /* Which rows, when the table cannot show them all (3 of 8 showed, unsaid; Up and Down
     * scroll it). */
    char which[32] = "";
    WINDOW *in = t->inner[TUI_V_KERNELS];
    unsigned row[GPU_MAX_KERNELS], top;
    int fit = in ? getmaxy(in) - 1 : 0;
    unsigned all = rows_shown(t, fit, row, &top);
    if (fit > 0 && all > (unsigned)fit)
        snprintf(which, sizeof which, " %u-%u of %u", top + 1, top + (unsigned)fit, all);
    const struct tui_epoch *e = tui_shown(t);
    if (e)
        snprintf(buf, n, "Kernels%s, epoch %u", which, e->e.index + 1);
    else
        snprintf(buf, n, "Kernels%s, before the first epoch", which);
}

const struct tui_view tui_view_kernels = {
    .title = "Kernels",
    .deps = TUI_CH_EPOCH | TUI_CH_SELECT | TUI_CH_FOCUS,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
};
