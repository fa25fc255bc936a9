/* tui_help — the F1 / ? screen: every key of the key table and a reminder of what the numbers
 * mean. It is an overlay, drawn over the views, which keep updating underneath. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"
#include "corun/wrap.h"
#include "tui_accel.h"
#include "tui_internal.h"

/* Each note with the modes it applies in, as the keys have (enum tui_mode). */
static const struct {
    unsigned modes;
    const char *text;
} notes[] = {
    {TUI_M_ANY, "NP = private-mode cycles of the epoch's instructions / shared cycles."},
    {TUI_M_ANY, "Above 1: faster than its private-mode run over the same instructions."},
    {TUI_M_ANY,
     "SMavg: an epoch's time-weighted SMs; the SM map: owners now (dot idle, cross gated)."},
    {TUI_M_ANY, "STP = sum of NP; ANTT = mean 1/NP; fairness = min/max NP."},
    {TUI_M_ANY, "QoS: a high-priority kernel's NP met its target or missed. A dash: no value."},
    {TUI_M_LIVE, "Live: a run stops after the scenario's epochs; r goes on."},
};
#define NNOTES     (sizeof notes / sizeof notes[0])
#define LABEL_COLS 12

/* A line of a help: a key's label (on the first line of its text) or none, and one line of
 * text. */
struct help_line {
    const char *label;
    bool starts; /* the first line of a key's or a note's text */
    char text[160];
};

/* Appends text, filled to width columns, to out[n..max) as lines, the first with label; returns
 * the new count. */
static unsigned add_wrapped(struct help_line *out, unsigned n, unsigned max, const char *label,
                            const char *text, int width)
{
    char *wrapped = util_wrapped(text, width > 10 ? width : 10, true);
    const char *line = wrapped;
    for (bool first = true; *line && n < max; first = false, n++) {
        size_t len = strcspn(line, "\n");
        out[n].label = first ? label : NULL;
        out[n].starts = first;
        snprintf(out[n].text, sizeof out[n].text, "%.*s", (int)len, line);
        line += len + (line[len] == '\n');
    }
    free(wrapped);
    return n;
}

/* The main help's lines for an interior cols wide: each key of the mode with its text wrapped
 * beside it, then the mode's notes; *nkeys of them are the keys'. Returns how many, at most max. */
static unsigned help_lines(const struct tui *t, int cols, struct help_line *out, unsigned max,
                           unsigned *nkeys)
{
    unsigned n = 0;
    for (size_t i = 0; i < tui_nkeys; i++) {
        const struct tui_key *k = &tui_keys[i];
        if (k->label && tui_key_active(t, k))
            n = add_wrapped(out, n, max, tui_key_label(t, k), k->help, cols - 2 - LABEL_COLS);
    }
    *nkeys = n;
    for (size_t i = 0; i < NNOTES; i++)
        if (tui_modes_active(t, notes[i].modes))
            n = add_wrapped(out, n, max, NULL, notes[i].text, cols - 1);
    /* The scenario's own narrative (its `lesson` setting; a lesson's panel narrates its own). */
    if (!t->lesson && t->sc && t->sc->lesson && t->sc->lesson[0]) {
        char *about = xasprintf("This scenario: %s", t->sc->lesson);
        n = add_wrapped(out, n, max, NULL, about, cols - 1);
        free(about);
    }
    return n;
}

#define HELP_MAX_LINES 96

static void size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    /* Wide enough for every key's text on one line, when the screen is. */
    *w = 76;
    for (size_t i = 0; i < tui_nkeys; i++) {
        const struct tui_key *k = &tui_keys[i];
        int need = k->label && tui_key_active(t, k) ? 4 + LABEL_COLS + tui_columns(k->help) + 1 : 0;
        *w = need > *w ? need : *w;
    }
    if (*w > cols - 2)
        *w = cols - 2;
    /* Frame, heading and gap, the keys, a gap, the notes, a gap and the closing line; on a
     * short screen the heading and the gaps go first, then the help takes pages. */
    struct help_line lines[HELP_MAX_LINES];
    unsigned nkeys, n = help_lines(t, *w - 2, lines, HELP_MAX_LINES, &nkeys);
    *h = (int)n + 7;
    if (*h > rows - 2)
        *h = (int)n + 3;
    if (*h > rows - 2)
        *h = rows - 2;
}

/* Pages of an interior `rows` high (its last row is the closing line), none of them cutting a
 * key's or a note's text in two: *start[p] is the first line of page p. Returns how many (1:
 * it all fits, with the keys and the notes apart). */
#define HELP_MAX_PAGES 16

static unsigned paginate(const struct help_line *lines, unsigned n, int rows,
                         unsigned start[HELP_MAX_PAGES])
{
    start[0] = 0;
    if (rows - 1 >= (int)n + 1)
        return 1;
    unsigned per = rows > 2 ? (unsigned)rows - 1 : 1, pages = 1;
    for (unsigned i = 0, since = 0; i < n; i++, since++) {
        if (since < per && (!lines[i].starts || i == start[pages - 1]))
            continue;
        if (since < per) { /* an entry begins: does it end on this page? */
            unsigned end = i + 1;
            while (end < n && !lines[end].starts)
                end++;
            if (since + (end - i) <= per || end - i > per)
                continue;
        }
        if (pages == HELP_MAX_PAGES)
            break;
        start[pages++] = i;
        since = 0;
    }
    return pages;
}

static void draw(const struct tui *t, WINDOW *w)
{
    struct help_line lines[HELP_MAX_LINES];
    unsigned nkeys, n = help_lines(t, getmaxx(w), lines, HELP_MAX_LINES, &nkeys);
    int rows = getmaxy(w), y = 0;
    unsigned start[HELP_MAX_PAGES], pages = paginate(lines, n, rows, start);
    unsigned page = t->help_page % pages, from = start[page];
    unsigned to = page + 1 < pages ? start[page + 1] : n;
    /* The heading and the gaps where there is room for them. */
    bool roomy = pages == 1 && rows >= (int)n + 5;
    if (roomy) {
        wattron(w, A_BOLD);
        tui_print(w, y++, 1, "Keys");
        wattroff(w, A_BOLD);
        y++;
    }
    for (unsigned i = from; i < to; i++) {
        if (i == nkeys && roomy) /* a gap between the keys and the notes */
            y++;
        if (i >= nkeys) {
            wattron(w, t->style.dim);
            tui_print(w, y++, 1, "%s", lines[i].text);
            wattroff(w, t->style.dim);
            continue;
        }
        if (lines[i].label) {
            wattron(w, A_BOLD);
            tui_print(w, y, 2, "%s", lines[i].label);
            wattroff(w, A_BOLD);
        }
        tui_print(w, y++, 2 + LABEL_COLS, "%s", lines[i].text);
    }
    if (pages > 1)
        tui_print(w, rows - 1, 1, "Page %u of %u: Space turns the page, any other key closes.",
                  page + 1, pages);
    else
        tui_print(w, rows - 1, 1, "Press any key to close this help.");
}

static int key(struct tui *t, int ch)
{
    if (ch == ' ' && t->overlay_win) { /* the next page, when there are several */
        struct help_line lines[HELP_MAX_LINES];
        unsigned nkeys, start[HELP_MAX_PAGES];
        unsigned n = help_lines(t, getmaxx(t->overlay_win) - 2, lines, HELP_MAX_LINES, &nkeys);
        if (paginate(lines, n, getmaxy(t->overlay_win) - 2, start) > 1) {
            t->help_page++;
            t->overlay_dirty = true;
            return TUI_R_HANDLED;
        }
    }
    tui_open_overlay(t, NULL);
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_help = {
    .title = "Help",
    .size = size,
    .draw = draw,
    .key = key,
};

/* ---- the accelerator view's help (tui_accel.c) ---- */

static const char *const accel_notes[] = {
    "Timeline: a lane per process (LS application, batch instance), coloured;",
    "  kernels solid, '.' waiting for SMs, '>' '<' copies to / from the GPU.",
    "Latency: p50/p99 of the queries done; target = qos_target x solo p99 (T);",
    "  f marks the forecast p99; err = |forecast p99 - p99| / p99.",
    "Utilization: SM time holding thread blocks; link time moving data.",
};
#define NACCEL_NOTES (sizeof accel_notes / sizeof accel_notes[0])

static bool accel_key_shown(const struct tui_accel_key *k, bool live)
{
    return live ? k->live : k->replay;
}

/* The accelerator help's lines for an interior cols wide: each key of the mode with its text
 * wrapped beside it, then the notes; *nkeys of them are the keys'. */
static unsigned accel_lines(const struct tui_accel_key *keys, size_t nkeys, bool live, int cols,
                            struct help_line *out, unsigned max, unsigned *nkey_lines)
{
    unsigned n = 0;
    for (size_t i = 0; i < nkeys; i++)
        if (accel_key_shown(&keys[i], live))
            n = add_wrapped(out, n, max, keys[i].label, keys[i].help, cols - 1 - LABEL_COLS);
    *nkey_lines = n;
    for (size_t i = 0; i < NACCEL_NOTES; i++)
        n = add_wrapped(out, n, max, NULL, accel_notes[i], cols - 1);
    return n;
}

int tui_help_accel_rows(const struct tui_accel_key *keys, size_t nkeys, bool live, int cols)
{
    struct help_line lines[HELP_MAX_LINES];
    unsigned nk;
    return (int)accel_lines(keys, nkeys, live, cols, lines, HELP_MAX_LINES, &nk) + 3;
}

void tui_help_accel_draw(const struct tui_style *st, WINDOW *w, const struct tui_accel_key *keys,
                         size_t nkeys, bool live)
{
    struct help_line lines[HELP_MAX_LINES];
    unsigned nk, n = accel_lines(keys, nkeys, live, getmaxx(w), lines, HELP_MAX_LINES, &nk);
    /* The gap before the notes where there is room for it. */
    int y = 0, gap = getmaxy(w) >= (int)n + 3;
    for (unsigned i = 0; i < n; i++) {
        if (i == nk)
            y += gap;
        if (lines[i].label) {
            wattron(w, A_BOLD);
            tui_print(w, y, 1, "%s", lines[i].label);
            wattroff(w, A_BOLD);
        }
        if (i >= nk)
            wattron(w, st->dim);
        tui_print(w, y++, i < nk ? 1 + LABEL_COLS : 1, "%s", lines[i].text);
        if (i >= nk)
            wattroff(w, st->dim);
    }
    tui_print(w, getmaxy(w) - 1, 1, "Press any key to close this help.");
}
