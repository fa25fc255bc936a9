/* tui_menu — the menus generated from the registries: the predictor menu (p: "none" and every
 * predictor) and the allocator menu (a: every allocator, those that decide from the
 * predictor's NP marked), each row with its one-line summary and the active one marked; where
 * the screen cuts summaries (an ellipsis shows it), the chosen row's is shown whole below the
 * rows.
 * Choosing one asks the worker, which switches at the next epoch boundary; the session's event
 * lands in the event log, a refusal in a dialog. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/alloc.h"
#include "corun/predict.h"
#include "corun/util.h"
#include "tui_internal.h"

/* One menu: its rows, what marks them and what choosing one does. */
struct menu {
    unsigned (*rows)(void);
    const char *(*name)(unsigned i);
    const char *(*summary)(unsigned i);
    const char *tag;             /* the mark of rows for which has_tag is true */
    bool (*has_tag)(unsigned i); /* NULL: no row is marked */
    const char *(*active)(const struct tui *t);
    void (*choose)(struct tui *t, const char *name);
    int close_key;
    const char *hint;
};

/* ---- the predictor menu: "none", then the registry in its order ---- */

static unsigned predictor_rows(void)
{
    return (unsigned)predict_registry_count() + 1;
}

static const char *predictor_name(unsigned i)
{
    return i == 0 ? "none" : predict_registry_at(i - 1)->name;
}

static const char *predictor_summary(unsigned i)
{
    if (i == 0)
        return "no prediction: NP pred and Error show a dash";
    return predict_registry_at(i - 1)->summary;
}

static const char *predictor_active(const struct tui *t)
{
    return t->predictor;
}

static void predictor_choose(struct tui *t, const char *name)
{
    tui_worker_set_predictor(t->worker, name);
    if (t->busy)
        tui_log(t, "predictor %s from the next epoch boundary", name);
}

static const struct menu predictor_menu = {
    .rows = predictor_rows,
    .name = predictor_name,
    .summary = predictor_summary,
    .active = predictor_active,
    .choose = predictor_choose,
    .close_key = 'p',
    .hint = "Enter or 0-9 chooses (from the next epoch), Esc cancels; * active",
};

/* ---- the allocator menu: the registry in its order ---- */

static unsigned allocator_rows(void)
{
    return (unsigned)alloc_registry_count();
}

static const char *allocator_name(unsigned i)
{
    return alloc_registry_at(i)->name;
}

static const char *allocator_summary(unsigned i)
{
    return alloc_registry_at(i)->summary;
}

static bool allocator_uses_predictor(unsigned i)
{
    return alloc_registry_at(i)->uses_predictor;
}

static const char *allocator_active(const struct tui *t)
{
    return t->allocator;
}

static void allocator_choose(struct tui *t, const char *name)
{
    tui_worker_set_allocator(t->worker, name);
    if (t->busy)
        tui_log(t, "allocator %s from the next epoch boundary", name);
    const struct allocator_ops *ops = alloc_registry_find(name);
    if (ops && ops->uses_predictor && strcmp(t->predictor, "none") == 0)
        tui_log(t, "%s decides from a predictor's NP: p chooses one", name);
}

static const struct menu allocator_menu = {
    .rows = allocator_rows,
    .name = allocator_name,
    .summary = allocator_summary,
    .tag = "pred",
    .has_tag = allocator_uses_predictor,
    .active = allocator_active,
    .choose = allocator_choose,
    .close_key = 'a',
    .hint = "Enter or 0-9 chooses, Esc cancels; * active; pred: decides from NP pred",
};

/* ---- drawing and keys, shared ---- */

/* The column of the summaries: after the number, the mark, the longest name and the tag. */
static int summary_x(const struct menu *m)
{
    int name_w = 0;
    for (unsigned i = 0; i < m->rows(); i++) {
        int n = tui_columns(m->name(i));
        name_w = n > name_w ? n : name_w;
    }
    return 4 + name_w + 2 + (m->has_tag ? tui_columns(m->tag) + 2 : 0);
}

static void open_menu(struct tui *t, const struct menu *m, const struct tui_overlay *ov)
{
    t->menu_sel = 0;
    t->menu_note[0] = '\0';
    for (unsigned i = 0; i < m->rows(); i++)
        if (strcmp(m->name(i), m->active(t)) == 0)
            t->menu_sel = i;
    tui_open_overlay(t, ov);
}

/* Whether row i's summary is cut in a menu whose interior is cols wide. */
static bool summary_cut(const struct menu *m, unsigned i, int cols)
{
    return summary_x(m) + tui_columns(m->summary(i)) > cols;
}

/* Rows "name: summary" of row i takes, word-wrapped to cols - 1 columns. */
static int detail_lines(const struct menu *m, unsigned i, int cols)
{
    char *text = xasprintf("%s: %s", m->name(i), m->summary(i));
    int n = tui_wrap(NULL, 0, 0, text, cols - 1);
    free(text);
    return n;
}

/* At most this many lines of the chosen row's whole summary below the rows. */
#define MENU_DETAIL_MAX 3

static void menu_size(const struct menu *m, int rows, int cols, int *h, int *w)
{
    /* Frame, the rows, a gap and the hint line. */
    *h = (int)m->rows() + 4;
    /* Wide enough for the longest summary and the hint, when the screen is. */
    *w = tui_columns(m->hint) + 4;
    *w = *w > 76 ? *w : 76;
    for (unsigned i = 0; i < m->rows(); i++) {
        int need = summary_x(m) + tui_columns(m->summary(i)) + 3;
        *w = need > *w ? need : *w;
    }
    *w = *w > cols - 2 ? cols - 2 : *w;
    /* A narrow screen cuts summaries: the chosen row's is shown whole below the rows. */
    int detail = 0;
    for (unsigned i = 0; i < m->rows(); i++)
        if (summary_cut(m, i, *w - 2)) {
            int n = detail_lines(m, i, *w - 2);
            detail = n > detail ? n : detail;
        }
    if (detail)
        *h += (detail < MENU_DETAIL_MAX ? detail : MENU_DETAIL_MAX) + 1;
    *h = *h > rows - 2 ? rows - 2 : *h;
}

/* The chosen row's whole summary, from line y to the line before the hint. */
static void draw_detail(const struct menu *m, const struct tui *t, WINDOW *w, int y)
{
    int cols = getmaxx(w), last = getmaxy(w) - 2;
    if (!summary_cut(m, t->menu_sel, cols) || y > last)
        return;
    WINDOW *area = derwin(w, last - y + 1, cols - 1, y, 1); /* tui_wrap stops at its end */
    if (!area)
        return;
    char *text = xasprintf("%s: %s", m->name(t->menu_sel), m->summary(t->menu_sel));
    tui_wrap(area, 0, 0, text, cols - 1);
    free(text);
    delwin(area);
}

static void menu_draw(const struct menu *m, const struct tui *t, WINDOW *w)
{
    int sx = summary_x(m);
    const char *active = m->active(t);
    for (unsigned i = 0; i < m->rows(); i++) {
        const char *name = m->name(i);
        bool sel = i == t->menu_sel;
        if (sel) {
            wattron(w, A_REVERSE);
            mvwhline(w, (int)i, 0, ' ', getmaxx(w));
        }
        wattron(w, A_BOLD);
        tui_print(w, (int)i, 0, "%u %s %s", i, strcmp(name, active) == 0 ? "*" : " ", name);
        wattroff(w, A_BOLD);
        if (m->has_tag && m->has_tag(i))
            tui_print(w, (int)i, sx - tui_columns(m->tag) - 2, "%s", m->tag);
        tui_print_cut(&t->style, w, (int)i, sx, "%s", m->summary(i));
        if (sel)
            wattroff(w, A_REVERSE);
    }
    draw_detail(m, t, w, (int)m->rows() + 1);
    attr_t attr = t->menu_note[0] ? A_BOLD : t->style.dim;
    wattron(w, attr);
    tui_print(w, getmaxy(w) - 1, 1, "%s", t->menu_note[0] ? t->menu_note : m->hint);
    wattroff(w, attr);
}

static int menu_key(const struct menu *m, struct tui *t, int ch)
{
    unsigned n = m->rows();
    unsigned chosen = n;
    t->menu_note[0] = '\0';
    t->overlay_dirty = true;
    if (ch == 27 || ch == 'q' || ch == m->close_key) {
        tui_open_overlay(t, NULL);
    } else if (ch == KEY_UP) {
        t->menu_sel = t->menu_sel > 0 ? t->menu_sel - 1 : n - 1;
        t->overlay_dirty = true;
    } else if (ch == KEY_DOWN) {
        t->menu_sel = (t->menu_sel + 1) % n;
        t->overlay_dirty = true;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        chosen = t->menu_sel;
    } else if (ch >= '0' && ch <= '9' && (unsigned)(ch - '0') < n) {
        chosen = (unsigned)(ch - '0');
    } else if (ch > ' ' && ch < 127) { /* it did nothing, unsaid */
        snprintf(t->menu_note, sizeof t->menu_note, "%c: no such row (0 to %u); Esc closes", ch,
                 n - 1);
    }
    if (chosen < n) {
        tui_open_overlay(t, NULL);
        m->choose(t, m->name(chosen));
    }
    return TUI_R_HANDLED;
}

/* ---- the two overlays ---- */

void tui_predictor_menu(struct tui *t)
{
    open_menu(t, &predictor_menu, &tui_overlay_predictor);
}

static void predictor_size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    (void)t;
    menu_size(&predictor_menu, rows, cols, h, w);
}

static void predictor_draw(const struct tui *t, WINDOW *w)
{
    menu_draw(&predictor_menu, t, w);
}

static int predictor_key(struct tui *t, int ch)
{
    return menu_key(&predictor_menu, t, ch);
}

const struct tui_overlay tui_overlay_predictor = {
    .title = "Predictor",
    .size = predictor_size,
    .draw = predictor_draw,
    .key = predictor_key,
};

void tui_allocator_menu(struct tui *t)
{
    open_menu(t, &allocator_menu, &tui_overlay_allocator);
}

static void allocator_size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    (void)t;
    menu_size(&allocator_menu, rows, cols, h, w);
}

static void allocator_draw(const struct tui *t, WINDOW *w)
{
    menu_draw(&allocator_menu, t, w);
}

static int allocator_key(struct tui *t, int ch)
{
    return menu_key(&allocator_menu, t, ch);
}

const struct tui_overlay tui_overlay_allocator = {
    .title = "Allocator",
    .size = allocator_size,
    .draw = allocator_draw,
    .key = allocator_key,
};
