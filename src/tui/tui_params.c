/* tui_params — the parameter editor (e): the session's editable parameters with their values,
 * valid ranges and help, as the worker last published them. Enter edits the highlighted one in
 * an input field; the worker sets it at the next epoch boundary, validated as a scenario file
 * is. An accepted value is logged (a "parameter" event) and shows in the list; a refused one
 * opens the field again with the text typed and why under it (a dialog once the editor is
 * closed), and the old value stays. Where the screen cuts the
 * valid values, the highlighted row's show whole below the rows, with its help. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"
#include "tui_internal.h"

#define VALUE_W 12

struct list {
    struct tui_param p[TUI_MAX_PARAMS];
    unsigned n;
    int key_w; /* the longest key */
};

static void fetch(const struct tui *t, struct list *l)
{
    size_t n = tui_worker_params(t->worker, l->p, TUI_MAX_PARAMS);
    l->n = (unsigned)(n < TUI_MAX_PARAMS ? n : TUI_MAX_PARAMS);
    l->key_w = 9; /* "Parameter" */
    for (unsigned i = 0; i < l->n; i++) {
        int c = tui_columns(l->p[i].key);
        l->key_w = c > l->key_w ? c : l->key_w;
    }
}

void tui_params_editor(struct tui *t)
{
    struct list l;
    fetch(t, &l);
    if (!l.n) {
        tui_message(t, "Parameters", "this run has no parameters to change.");
        return;
    }
    /* On the parameter edited last, if any. */
    t->menu_sel = 0;
    for (unsigned i = 0; i < l.n; i++)
        if (strcmp(l.p[i].key, t->param_key) == 0)
            t->menu_sel = i;
    tui_open_overlay(t, &tui_overlay_params);
}

/* The column of the valid values in an interior of the list's. */
static int range_x(const struct list *l)
{
    return 1 + l->key_w + 2 + VALUE_W + 2;
}

/* Whether some row's valid values are cut in an interior cols wide: then the highlighted
 * row's show whole, with its help, on two lines below the rows. */
static bool ranges_cut(const struct list *l, int cols)
{
    for (unsigned i = 0; i < l->n; i++)
        if (range_x(l) + tui_columns(l->p[i].range) > cols)
            return true;
    return false;
}

static void size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    struct list l;
    fetch(t, &l);
    *w = 76;
    for (unsigned i = 0; i < l.n; i++) {
        int need = range_x(&l) + tui_columns(l.p[i].range) + 2;
        *w = need > *w ? need : *w;
    }
    *w = *w > cols - 2 ? cols - 2 : *w;
    /* Frame, the column titles, the rows, a gap, the help of the highlighted row (two lines
     * when the valid values are cut) and the hint. */
    *h = (int)l.n + 6 + ranges_cut(&l, *w - 2);
    *h = *h > rows - 2 ? rows - 2 : *h;
}

static void draw(const struct tui *t, WINDOW *w)
{
    struct list l;
    fetch(t, &l);
    int vx = l.key_w + 2, rx = vx + VALUE_W + 2, help_rows = 1 + ranges_cut(&l, getmaxx(w));
    wattron(w, A_BOLD);
    tui_print(w, 0, 1, "Parameter");
    tui_print(w, 0, 1 + vx, "Value");
    tui_print(w, 0, 1 + rx, "Valid values");
    wattroff(w, A_BOLD);
    /* The highlighted row stays in view; a long list scrolls under it. */
    int visible = getmaxy(w) - 3 - help_rows;
    unsigned sel = t->menu_sel < l.n ? t->menu_sel : 0;
    unsigned top = visible > 0 && sel >= (unsigned)visible ? sel - (unsigned)visible + 1 : 0;
    for (unsigned i = top; i < l.n && (int)(i - top) < visible; i++) {
        int y = 1 + (int)(i - top);
        if (i == sel) {
            wattron(w, A_REVERSE);
            mvwhline(w, y, 0, ' ', getmaxx(w));
        }
        tui_print(w, y, 1, "%s", l.p[i].key);
        wattron(w, A_BOLD);
        tui_print(w, y, 1 + vx, "%.*s", VALUE_W, l.p[i].value);
        wattroff(w, A_BOLD);
        /* A cut range ends in an ellipsis; the highlighted row's shows whole below. */
        tui_print_fit(&t->style, w, y, 1 + rx, getmaxx(w) - 1 - rx, l.p[i].range);
        if (i == sel)
            wattroff(w, A_REVERSE);
    }
    int bottom = getmaxy(w) - 1;
    if (help_rows == 1) {
        tui_print(w, bottom - 1, 1, "%s", l.n ? l.p[sel].help : "");
    } else if (l.n) {
        WINDOW *area = derwin(w, help_rows, getmaxx(w) - 2, bottom - help_rows, 1);
        char *text = xasprintf("%s; valid: %s", l.p[sel].help, l.p[sel].range);
        if (area)
            tui_wrap(area, 0, 0, text, getmaxx(w) - 2); /* the area ends it at its last row */
        free(text);
        if (area)
            delwin(area);
    }
    wattron(w, t->style.dim);
    tui_print(w, bottom, 1, "Enter edits (from the next epoch boundary), Esc closes");
    wattroff(w, t->style.dim);
}

static int accept_value(struct tui *t, const char *input)
{
    /* The value without the blanks around it (the log read "set qos_upper= 0.5"). */
    char text[512];
    while (*input == ' ' || *input == '\t')
        input++;
    snprintf(text, sizeof text, "%s", input);
    for (size_t n = strlen(text); n && (text[n - 1] == ' ' || text[n - 1] == '\t'); n--)
        text[n - 1] = '\0';
    if (!*text) {
        snprintf(t->prompt.error, sizeof t->prompt.error, "enter a value for %s", t->param_key);
        t->overlay_dirty = true;
        return TUI_R_HANDLED;
    }
    /* Back to the list, which shows the value once the worker has taken it. */
    tui_open_overlay(t, &tui_overlay_params);
    snprintf(t->param_text, sizeof t->param_text, "%s", text);
    tui_worker_set_param(t->worker, t->param_key, text);
    if (t->busy)
        tui_log(t, "%s=%s from the next epoch boundary", t->param_key, text);
    return TUI_R_HANDLED;
}

static void edit(struct tui *t, const struct tui_param *p, const char *text)
{
    snprintf(t->param_key, sizeof t->param_key, "%s", p->key);
    char label[96];
    snprintf(label, sizeof label, "%.40s (%.50s):", p->key, p->range);
    tui_prompt_open(t, "Set parameter", label, text, accept_value);
}

bool tui_params_refused(struct tui *t, const char *why)
{
    bool open = t->overlay == &tui_overlay_params && t->param_text[0];
    char text[sizeof t->param_text];
    snprintf(text, sizeof text, "%s", t->param_text);
    t->param_text[0] = '\0';
    if (!open)
        return false;
    struct list l;
    fetch(t, &l);
    for (unsigned i = 0; i < l.n; i++)
        if (strcmp(l.p[i].key, t->param_key) == 0) {
            edit(t, &l.p[i], text);
            snprintf(t->prompt.error, sizeof t->prompt.error, "%s", why);
            return true;
        }
    return false;
}

static int key(struct tui *t, int ch)
{
    struct list l;
    fetch(t, &l);
    if (ch == 27 || ch == 'q' || ch == 'e' || !l.n) {
        tui_open_overlay(t, NULL);
    } else if (ch == KEY_UP) {
        t->menu_sel = t->menu_sel > 0 ? t->menu_sel - 1 : l.n - 1;
        t->overlay_dirty = true;
    } else if (ch == KEY_DOWN) {
        t->menu_sel = (t->menu_sel + 1) % l.n;
        t->overlay_dirty = true;
    } else if (ch == KEY_HOME || ch == KEY_END) { /* Home did nothing */
        t->menu_sel = ch == KEY_HOME ? 0 : l.n - 1;
        t->overlay_dirty = true;
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        const struct tui_param *p = &l.p[t->menu_sel < l.n ? t->menu_sel : 0];
        edit(t, p, p->value);
    }
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_params = {
    .title = "Parameters",
    .size = size,
    .draw = draw,
    .key = key,
};
