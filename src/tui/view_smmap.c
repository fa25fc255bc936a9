/* view_smmap — one cell per SM, lettered and coloured by its owner; idle and power-gated SMs
 * have their own glyphs. The letter alone tells owners apart without colour. */
#include <stdio.h>

#include "tui_internal.h"

/* The partition on screen: the current one while live, the shown epoch's in a replay. */
static const int *partition(const struct tui *t)
{
    const struct tui_epoch *e = tui_shown(t);
    return t->live || !e ? t->owner : e->owner;
}

static void draw_cell(const struct tui *t, WINDOW *w, int y, int x, int owner)
{
    const struct tui_style *st = &t->style;
    if (owner >= 0) {
        wattron(w, st->cell[owner]);
        tui_print(w, y, x, "%c", tui_kernel_letter((unsigned)owner));
        wattroff(w, st->cell[owner]);
    } else {
        attr_t a = owner == GPU_SM_GATED ? st->gated : st->idle;
        wattron(w, a);
        tui_print(w, y, x, "%s", owner == GPU_SM_GATED ? st->gated_sm : st->idle_sm);
        wattroff(w, a);
    }
}

static void draw_legend(const struct tui *t, WINDOW *w, int y, const int *owner)
{
    unsigned count[GPU_MAX_KERNELS] = {0}, idle = 0, gated = 0;
    for (unsigned i = 0; i < t->sms; i++) {
        if (owner[i] >= 0 && owner[i] < GPU_MAX_KERNELS)
            count[owner[i]]++;
        else if (owner[i] == GPU_SM_GATED)
            gated++;
        else
            idle++;
    }
    /* The kernels in the mix shown; one that left it is listed only while it holds SMs. */
    bool in[GPU_MAX_KERNELS];
    tui_mix_shown(t, in);
    int x = 0;
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++) {
        if (!in[k] && !count[k])
            continue;
        draw_cell(t, w, y, x, (int)k);
        x += 1 + tui_print(w, y, x + 1, " %u ", count[k]);
    }
    /* Idle and gated SMs are listed only when there are some, to keep the line short; their
     * words go when the line would be cut (the glyphs still tell them apart). */
    int need = x;
    if (idle)
        need += 1 + snprintf(NULL, 0, " %u idle%s", idle, gated ? " " : "");
    if (gated)
        need += 1 + snprintf(NULL, 0, " %u gated", gated);
    bool words = need <= getmaxx(w);
    if (idle) {
        draw_cell(t, w, y, x, GPU_SM_IDLE);
        x += 1 + tui_print(w, y, x + 1, words ? " %u idle " : " %u ", idle);
    }
    if (gated) {
        draw_cell(t, w, y, x, GPU_SM_GATED);
        tui_print(w, y, x + 1, words ? " %u gated" : " %u", gated);
    }
}

static void draw(const struct tui *t, WINDOW *w)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    const int *owner = partition(t);
    unsigned n = t->sms;
    if (n == 0 || cols < 1)
        return;
    /* As few rows as the width allows, then equal rows; a gap between cells when it fits. */
    unsigned nrows = (n + (unsigned)cols - 1) / (unsigned)cols;
    unsigned per_row = (n + nrows - 1) / nrows;
    int step = per_row * 2 <= (unsigned)cols ? 2 : 1;
    for (unsigned i = 0; i < n; i++) {
        int y = (int)(i / per_row), x = (int)(i % per_row) * step;
        if (y >= rows)
            break;
        draw_cell(t, w, y, x, owner[i]);
    }
    if ((int)nrows < rows)
        draw_legend(t, w, rows - 1, owner);
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    (void)cols;
    snprintf(buf, n, "SM map, %u SMs, now", t->sms); /* owners now; the table: means */
}

const struct tui_view tui_view_smmap = {
    .title = "SM map",
    .deps = TUI_CH_EPOCH,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
};
