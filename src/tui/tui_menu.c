/* tui_menu — the predictor menu (p): "none" and every predictor of the registry, each with its
 * one-line summary, the active one marked. Choosing one asks the worker, which switches at the
 * next epoch boundary; the outcome lands in the event log. */
#include <stdio.h>
#include <string.h>

#include "corun/predict.h"
#include "tui_internal.h"

#define SUMMARY_X 14

/* Rows: "none", then the registry in its order. */
static unsigned menu_rows(void)
{
    return (unsigned)predict_registry_count() + 1;
}

static const char *row_name(unsigned i)
{
    return i == 0 ? "none" : predict_registry_at(i - 1)->name;
}

static const char *row_summary(unsigned i)
{
    if (i == 0)
        return "no prediction: NP pred and Error show a dash";
    return predict_registry_at(i - 1)->summary;
}

void tui_predictor_menu(struct tui *t)
{
    t->menu_sel = 0;
    for (unsigned i = 0; i < menu_rows(); i++)
        if (strcmp(row_name(i), t->predictor) == 0)
            t->menu_sel = i;
    tui_open_overlay(t, &tui_overlay_predictor);
}

static void size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    (void)t;
    /* Frame, the rows, a gap and the hint line. */
    *h = (int)menu_rows() + 4;
    /* Wide enough for the longest summary, when the screen is. */
    *w = 76;
    for (unsigned i = 0; i < menu_rows(); i++) {
        int need = SUMMARY_X + tui_columns(row_summary(i)) + 3;
        if (need > *w)
            *w = need;
    }
    if (*h > rows - 2)
        *h = rows - 2;
    if (*w > cols - 2)
        *w = cols - 2;
}

static void draw(const struct tui *t, WINDOW *w)
{
    for (unsigned i = 0; i < menu_rows(); i++) {
        const char *name = row_name(i);
        bool sel = i == t->menu_sel;
        if (sel) {
            wattron(w, A_REVERSE);
            mvwhline(w, (int)i, 0, ' ', getmaxx(w));
        }
        const char *mark = strcmp(name, t->predictor) == 0 ? "*" : " ";
        wattron(w, A_BOLD);
        tui_print(w, (int)i, 0, "%u %s %-8s", i, mark, name);
        wattroff(w, A_BOLD);
        tui_print(w, (int)i, SUMMARY_X, "%s", row_summary(i));
        if (sel)
            wattroff(w, A_REVERSE);
    }
    wattron(w, t->style.dim);
    tui_print(w, getmaxy(w) - 1, 1,
              "Enter or 0-9 chooses (from the next epoch), Esc cancels; * active");
    wattroff(w, t->style.dim);
}

static int choose(struct tui *t, unsigned i)
{
    const char *name = row_name(i);
    tui_open_overlay(t, NULL);
    tui_worker_set_predictor(t->worker, name);
    if (t->busy)
        tui_log(t, "predictor %s from the next epoch boundary", name);
    return TUI_R_HANDLED;
}

static int key(struct tui *t, int ch)
{
    unsigned n = menu_rows();
    if (ch == 27 || ch == 'q' || ch == 'p') {
        tui_open_overlay(t, NULL);
    } else if (ch == KEY_UP) {
        t->menu_sel = t->menu_sel > 0 ? t->menu_sel - 1 : n - 1;
        t->overlay_dirty = true;
    } else if (ch == KEY_DOWN) {
        t->menu_sel = (t->menu_sel + 1) % n;
        t->overlay_dirty = true;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        return choose(t, t->menu_sel);
    } else if (ch >= '0' && ch <= '9' && (unsigned)(ch - '0') < n) {
        return choose(t, (unsigned)(ch - '0'));
    }
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_predictor = {
    .title = "Predictor",
    .size = size,
    .draw = draw,
    .key = key,
};
