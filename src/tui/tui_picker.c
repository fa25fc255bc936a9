/* tui_picker — the kernel picker that the mix editor's add row opens: every library kernel
 * with the suite it comes from, the class its paper gives and its one-line description,
 * filtered as the user types (by name, suite, class or description; a name that starts with
 * the filter comes first). Enter adds the highlighted kernel at the next epoch boundary. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "corun/calibrate.h"
#include "corun/diag.h"
#include "corun/kernel.h"
#include "corun/preset.h"
#include "corun/util.h"
#include "tui_internal.h"

#define NAME_W  14 /* the longest name (teach-compute) and a space */
#define SUITE_W 10
#define CLASS_W 10

static bool contains(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; hay++)
        if (strncasecmp(hay, needle, n) == 0)
            return true;
    return !*needle;
}

/* The entries that match the filter, best first, into idx; returns how many. */
static unsigned matches(const struct tui *t, unsigned *idx)
{
    const char *f = t->picker_filter;
    unsigned n = 0;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < t->npicker; i++) {
            const struct tui_pick *p = &t->picker[i];
            bool first = strncasecmp(p->name, f, strlen(f)) == 0;
            bool any = contains(p->name, f) || contains(p->suite, f) || contains(p->cls, f) ||
                       contains(p->description, f);
            if (pass == 0 ? first : any && !first)
                idx[n++] = i;
        }
    return n;
}

static void load(struct tui *t)
{
    if (t->picker)
        return;
    struct name_list names;
    preset_kernel_names(t->datadir, &names);
    t->picker = xcalloc(names.count ? names.count : 1, sizeof(*t->picker));
    struct diag d;
    diag_init(&d);
    for (size_t i = 0; i < names.count; i++) {
        struct kernel_profile p;
        if (preset_kernel_load(t->datadir, names.names[i], &p, &d) != 0)
            continue; /* a broken profile is not offered; corun check names it */
        struct tui_pick *e = &t->picker[t->npicker++];
        snprintf(e->name, sizeof e->name, "%s", p.name);
        snprintf(e->suite, sizeof e->suite, "%s",
                 p.paper ? calibrate_paper_name(p.paper) : "built-in");
        snprintf(e->cls, sizeof e->cls, "%s",
                 p.target_class ? calibrate_class_name(p.target_class) : "-");
        snprintf(e->description, sizeof e->description, "%s", p.description ? p.description : "");
        kernel_profile_done(&p);
    }
    diag_done(&d);
    name_list_done(&names);
}

void tui_kernel_picker(struct tui *t)
{
    load(t);
    t->picker_filter[0] = '\0';
    t->picker_sel = 0;
    tui_open_overlay(t, &tui_overlay_picker);
}

static void size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    (void)t;
    *h = rows - 4 < 30 ? rows - 4 : 30;
    *w = cols - 4 < 120 ? cols - 4 : 120;
}

static void draw(const struct tui *t, WINDOW *w)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    unsigned *idx = xmalloc((t->npicker ? t->npicker : 1) * sizeof(*idx));
    unsigned n = matches(t, idx);
    tui_print(w, 0, 1, "Filter: %s_", t->picker_filter);
    tui_print_right(w, 0, cols - 1, "%u of %u", n, t->npicker);
    wattron(w, A_BOLD);
    tui_print(w, 1, 2, "%-*s%-*s%-*s%s", NAME_W, "Kernel", SUITE_W, "Suite", CLASS_W, "Class",
              "Description");
    wattroff(w, A_BOLD);
    int list_rows = rows - 3;
    unsigned sel = n && t->picker_sel >= n ? n - 1 : t->picker_sel;
    unsigned top = list_rows > 0 && sel >= (unsigned)list_rows ? sel - (unsigned)list_rows + 1 : 0;
    if (n == 0) {
        wattron(w, t->style.dim);
        tui_print(w, 2, 2, "no library kernel matches \"%s\"", t->picker_filter);
        wattroff(w, t->style.dim);
    }
    for (unsigned i = top; i < n && (int)(i - top) < list_rows; i++) {
        const struct tui_pick *p = &t->picker[idx[i]];
        int y = 2 + (int)(i - top);
        if (i == sel) {
            wattron(w, A_REVERSE);
            mvwhline(w, y, 0, ' ', cols);
            tui_print(w, y, 0, ">");
        }
        tui_print_cut(&t->style, w, y, 2, "%-*.*s%-*.*s%-*.*s%s", NAME_W, NAME_W - 1, p->name,
                      SUITE_W, SUITE_W - 1, p->suite, CLASS_W, CLASS_W - 1, p->cls, p->description);
        if (i == sel)
            wattroff(w, A_REVERSE);
    }
    wattron(w, t->style.dim);
    tui_print(w, rows - 1, 1, "type to filter, Up/Down choose, Enter adds, Esc goes back");
    wattroff(w, t->style.dim);
    free(idx);
}

static int key(struct tui *t, int ch)
{
    unsigned *idx = xmalloc((t->npicker ? t->npicker : 1) * sizeof(*idx));
    unsigned n = matches(t, idx);
    size_t len = strlen(t->picker_filter);
    if (ch == 27) {
        tui_open_overlay(t, &tui_overlay_mix);
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        if (n) {
            unsigned sel = t->picker_sel < n ? t->picker_sel : n - 1;
            tui_worker_add_kernel(t->worker, t->picker[idx[sel]].name);
            tui_open_overlay(t, &tui_overlay_mix);
        }
    } else if (ch == KEY_UP) {
        t->picker_sel = t->picker_sel > 0 ? t->picker_sel - 1 : 0;
    } else if (ch == KEY_DOWN) {
        t->picker_sel = n && t->picker_sel + 1 < n ? t->picker_sel + 1 : t->picker_sel;
    } else if (ch == KEY_NPAGE || ch == KEY_PPAGE) {
        unsigned page = 10;
        if (ch == KEY_PPAGE)
            t->picker_sel = t->picker_sel > page ? t->picker_sel - page : 0;
        else
            t->picker_sel = n && t->picker_sel + page < n ? t->picker_sel + page : (n ? n - 1 : 0);
    } else if (ch == KEY_BACKSPACE || ch == 127 || ch == 8) {
        if (len)
            t->picker_filter[len - 1] = '\0';
        t->picker_sel = 0;
    } else if (ch == ('u' & 0x1f)) {
        t->picker_filter[0] = '\0';
        t->picker_sel = 0;
    } else if (ch < 0x100 && isprint(ch) && len + 1 < sizeof t->picker_filter) {
        t->picker_filter[len] = (char)ch;
        t->picker_filter[len + 1] = '\0';
        t->picker_sel = 0;
    }
    free(idx);
    t->overlay_dirty = true;
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_picker = {
    .title = "Add a kernel",
    .size = size,
    .draw = draw,
    .key = key,
};
