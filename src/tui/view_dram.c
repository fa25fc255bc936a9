/* view_dram — the memory system in the epoch shown: every channel's data-bus utilization as a
 * bar of its own, and the row-buffer hit rate and bandwidth of each kernel in its mix. */
#include <stdio.h>

#include "tui_internal.h"

static void draw_channels(const struct tui *t, WINDOW *w, const struct session_epoch *e, int *y)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    unsigned n = e->nchannels;
    if (n == 0) {
        /* Run files keep per-kernel figures only: say so rather than draw empty bars. */
        wattron(w, t->style.dim);
        tui_print(w, (*y)++, 0, "no per-channel data");
        if (!t->live)
            tui_print(w, (*y)++, 0, "(run files keep none)");
        wattroff(w, t->style.dim);
        return;
    }
    double sum = 0, max = 0;
    for (unsigned c = 0; c < n; c++) {
        sum += e->channel_util[c];
        if (e->channel_util[c] > max)
            max = e->channel_util[c];
    }
    tui_print(w, (*y)++, 0, "util mean %.0f%%, max %.0f%%", 100 * sum / n, 100 * max);
    /* One glyph per channel; a gap between them when the width allows. */
    unsigned nrows = (n + (unsigned)cols - 1) / (unsigned)cols;
    unsigned per_row = (n + nrows - 1) / nrows;
    int step = per_row * 2 <= (unsigned)cols ? 2 : 1;
    wattron(w, t->style.bar);
    for (unsigned c = 0; c < n; c++) {
        int yy = *y + (int)(c / per_row);
        if (yy >= rows)
            break;
        tui_print(w, yy, (int)(c % per_row) * step, "%s", tui_level(&t->style, e->channel_util[c]));
    }
    wattroff(w, t->style.bar);
    *y += (int)nrows;
}

static void draw(const struct tui *t, WINDOW *w)
{
    const struct tui_epoch *te = tui_shown(t);
    if (!te) {
        wattron(w, t->style.dim);
        tui_print(w, 0, 0, "no epochs yet");
        wattroff(w, t->style.dim);
        return;
    }
    const struct session_epoch *e = &te->e;
    int y = 0;
    draw_channels(t, w, e, &y);
    unsigned nkernels = e->nkernels < GPU_MAX_KERNELS ? e->nkernels : GPU_MAX_KERNELS, in = 0;
    for (unsigned k = 0; k < nkernels; k++)
        in += e->k[k].in_mix;
    /* The kernels past the last row were left out unsaid: when they do not all fit, the last
     * row says how many are not shown (the kernel table has their RBH and bandwidth), as the
     * accelerator's lanes do. */
    int rows = getmaxy(w), room = rows - y;
    unsigned fit = (int)in <= room ? in : room > 1 ? (unsigned)room - 1 : 0, shown = 0;
    for (unsigned k = 0; k < nkernels && shown < fit; k++) {
        if (!e->k[k].in_mix)
            continue;
        wattron(w, t->style.kernel[k]);
        tui_print(w, y, 0, "%c", tui_kernel_letter(k));
        wattroff(w, t->style.kernel[k]);
        tui_print(w, y++, 2, "RBH %.2f %6.0f GB/s", e->k[k].c.rbh, e->k[k].c.bandwidth_gbs);
        shown++;
    }
    if (shown < in) {
        int at = y < rows ? y : rows - 1; /* no row left: over the channels' last */
        wmove(w, at, 0);
        wclrtoeol(w);
        wattron(w, t->style.dim);
        tui_print(w, at, 0, "+%u more kernel%s", in - shown, in - shown == 1 ? "" : "s");
        wattroff(w, t->style.dim);
    }
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    (void)cols;
    snprintf(buf, n, "DRAM, %u channels", t->sc->gpu.dram.channels);
}

const struct tui_view tui_view_dram = {
    .title = "DRAM",
    .deps = TUI_CH_EPOCH,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
};
