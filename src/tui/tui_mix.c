/* tui_mix — the mix editor (k): the kernels in the mix with their priority and SMs, and a row
 * that adds one from the library. Every change goes to the worker, which hands it to the
 * session; the session applies it at the next epoch boundary (until then the editor and the
 * header show it pending), and a refusal (an unknown kernel, the last one of the mix) comes
 * back as an outcome shown in a dialog. The add row opens the kernel picker (tui_picker.c); u
 * withdraws every change still pending. */
#include <stdio.h>
#include <string.h>

#include "corun/diag.h"
#include "corun/kernel.h"
#include "corun/preset.h"
#include "tui_internal.h"

#define NAME_W 14
#define PRIO_X (4 + NAME_W)
#define SMS_X  (PRIO_X + 10)

static const char hint[] = "Enter on + adds, d removes, h: priority high/low, u undoes, Esc closes";

/* The rows: the kernels in the mix now, by index; the add row follows them. */
static unsigned mix_rows(const struct tui *t, unsigned row[GPU_MAX_KERNELS])
{
    unsigned n = 0;
    for (unsigned k = 0; k < t->mix.n; k++)
        if (t->mix.in_mix[k])
            row[n++] = k;
    return n;
}

static unsigned owned_sms(const struct tui *t, unsigned k)
{
    unsigned n = 0;
    for (unsigned i = 0; i < t->sms; i++)
        n += t->owner[i] == (int)k;
    return n;
}

/* Kernel k's priority as the worker last published it into value ("?" when it has none). */
static const char *priority(const struct tui *t, unsigned k, char *value, size_t len)
{
    struct tui_param p[TUI_MAX_PARAMS];
    size_t n = tui_worker_params(t->worker, p, TUI_MAX_PARAMS);
    char key[48];
    snprintf(key, sizeof key, "kernels[%u].priority", k);
    snprintf(value, len, "?");
    for (size_t i = 0; i < n && i < TUI_MAX_PARAMS; i++)
        if (strcmp(p[i].key, key) == 0)
            snprintf(value, len, "%s", p[i].value);
    return value;
}

void tui_mix_editor(struct tui *t)
{
    t->menu_sel = 0;
    tui_open_overlay(t, &tui_overlay_mix);
}

static void size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    unsigned row[GPU_MAX_KERNELS];
    /* Frame, the column titles, the kernels, the add row, a gap, the pending line and the
     * hint. */
    *h = (int)mix_rows(t, row) + 7;
    *w = (int)sizeof hint + 5;
    *h = *h > rows - 2 ? rows - 2 : *h;
    *w = *w > cols - 2 ? cols - 2 : *w;
}

static void draw(const struct tui *t, WINDOW *w)
{
    unsigned row[GPU_MAX_KERNELS], n = mix_rows(t, row);
    unsigned sel = t->menu_sel <= n ? t->menu_sel : n;
    wattron(w, A_BOLD);
    tui_print(w, 0, 4, "Kernel");
    tui_print(w, 0, PRIO_X, "Priority");
    tui_print_right(w, 0, SMS_X + 5, "SMs");
    wattroff(w, A_BOLD);
    for (unsigned i = 0; i <= n; i++) {
        int y = 1 + (int)i;
        if (i == sel) {
            wattron(w, A_REVERSE);
            mvwhline(w, y, 0, ' ', getmaxx(w));
            tui_print(w, y, 0, ">");
        }
        if (i == n) {
            tui_print(w, y, 2, "+ add a kernel from the library");
        } else {
            unsigned k = row[i];
            char prio[64];
            wattron(w, t->style.kernel[k]);
            tui_print(w, y, 2, "%c", tui_kernel_letter(k));
            wattroff(w, t->style.kernel[k]);
            tui_print(w, y, 4, "%-*.*s", NAME_W - 1, NAME_W - 1, t->mix.name[k]);
            tui_print(w, y, PRIO_X, "%s", priority(t, k, prio, sizeof prio));
            tui_print_right(w, y, SMS_X + 5, "%u", owned_sms(t, k));
        }
        if (i == sel)
            wattroff(w, A_REVERSE);
    }
    int bottom = getmaxy(w) - 1;
    if (t->mix.pending[0]) {
        /* A long list of changes keeps its changes and shortens the when, then shows a cut. */
        char line[sizeof t->mix.pending + 64];
        snprintf(line, sizeof line, "Pending: %s (applied at the next epoch boundary)",
                 t->mix.pending);
        if (tui_columns(line) > getmaxx(w) - 1)
            snprintf(line, sizeof line, "Pending: %s (next epoch)", t->mix.pending);
        wattron(w, A_BOLD);
        tui_print_cut(&t->style, w, bottom - 1, 1, "%s", line);
        wattroff(w, A_BOLD);
    } else {
        tui_print(w, bottom - 1, 1, "No change pending.");
    }
    wattron(w, t->style.dim);
    tui_print(w, bottom, 1, "%s", hint);
    wattroff(w, t->style.dim);
}

static void toggle_priority(struct tui *t, unsigned k)
{
    char value[64];
    priority(t, k, value, sizeof value);
    snprintf(t->param_key, sizeof t->param_key, "kernels[%u].priority", k);
    tui_worker_set_param(t->worker, t->param_key, strcmp(value, "high") == 0 ? "low" : "high");
}

static int key(struct tui *t, int ch)
{
    unsigned row[GPU_MAX_KERNELS], n = mix_rows(t, row);
    unsigned sel = t->menu_sel <= n ? t->menu_sel : n;
    if (ch == 27 || ch == 'q' || ch == 'k') {
        tui_open_overlay(t, NULL);
        return TUI_R_HANDLED;
    }
    if (ch == KEY_UP) {
        t->menu_sel = sel > 0 ? sel - 1 : n;
    } else if (ch == KEY_DOWN) {
        t->menu_sel = sel < n ? sel + 1 : 0;
    } else if ((ch == '\n' || ch == '\r' || ch == KEY_ENTER) && sel == n) {
        tui_kernel_picker(t);
        return TUI_R_HANDLED;
    } else if ((ch == 'd' || ch == KEY_DC) && sel < n) {
        tui_worker_remove_kernel(t->worker, row[sel]);
    } else if (ch == 'h' && sel < n) {
        toggle_priority(t, row[sel]);
    } else if (ch == 'u') { /* the pending changes, all withdrawn: the mix stays */
        tui_worker_undo_mix(t->worker);
    }
    t->overlay_dirty = true;
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_mix = {
    .title = "Mix",
    .size = size,
    .draw = draw,
    .key = key,
};
