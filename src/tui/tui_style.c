/* tui_style — colours, attributes and glyphs, chosen once from the terminal and environment so
 * that the views never ask. Owners stay distinguishable without colour (letters, bold,
 * reverse) and without UTF-8 (ASCII glyphs). */
#include <langinfo.h>
#include <stdlib.h>
#include <string.h>

#include "tui_internal.h"

/* Kernel colours: distinct on 8-colour terminals and readable on dark and light backgrounds. */
static const short kernel_colors[GPU_MAX_KERNELS] = {
    COLOR_CYAN, COLOR_YELLOW, COLOR_GREEN, COLOR_MAGENTA,
    COLOR_RED,  COLOR_BLUE,   COLOR_WHITE, COLOR_CYAN,
};

enum {
    PAIR_KERNEL = 1,
    PAIR_CELL = PAIR_KERNEL + GPU_MAX_KERNELS,
    PAIR_TITLE = PAIR_CELL + GPU_MAX_KERNELS,
    PAIR_HEADER,
    PAIR_BAR,
    PAIR_KEY,
    PAIR_IDLE,
    PAIRS_USED
};

static bool want_color(void)
{
    /* https://no-color.org: any non-empty value turns colour off. */
    const char *nc = getenv("NO_COLOR");
    return has_colors() && !(nc && *nc);
}

static bool want_utf8(void)
{
    const char *cs = nl_langinfo(CODESET);
    if (!cs || strcmp(cs, "UTF-8") != 0)
        return false;
    /* A VT100-like terminal has no glyphs beyond ASCII even in a UTF-8 locale. */
    const char *term = getenv("TERM");
    return !(term && (strncmp(term, "vt", 2) == 0 || strcmp(term, "dumb") == 0));
}

static void init_colors(struct tui_style *st, bool projector)
{
    /* A projector washes out the terminal's own background: draw on black. */
    short bg = COLOR_BLACK;
    if (!projector && use_default_colors() == OK)
        bg = -1;
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++) {
        init_pair((short)(PAIR_KERNEL + k), kernel_colors[k], bg);
        init_pair((short)(PAIR_CELL + k), COLOR_BLACK, kernel_colors[k]);
        st->kernel[k] = COLOR_PAIR(PAIR_KERNEL + k) | A_BOLD;
        st->cell[k] = COLOR_PAIR(PAIR_CELL + k);
    }
    init_pair(PAIR_TITLE, COLOR_CYAN, bg);
    init_pair(PAIR_HEADER, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_BAR, COLOR_GREEN, bg);
    init_pair(PAIR_KEY, COLOR_BLACK, COLOR_CYAN);
    init_pair(PAIR_IDLE, COLOR_WHITE, bg);
    st->title = COLOR_PAIR(PAIR_TITLE) | A_BOLD;
    st->focus = COLOR_PAIR(PAIR_HEADER) | A_BOLD;
    st->header = COLOR_PAIR(PAIR_HEADER);
    st->bar = COLOR_PAIR(PAIR_BAR) | A_BOLD;
    st->key = COLOR_PAIR(PAIR_KEY);
    st->idle = COLOR_PAIR(PAIR_IDLE) | A_DIM;
    st->gated = COLOR_PAIR(PAIR_IDLE) | A_DIM;
    if (projector) {
        /* Nothing dim; the header and the focus in white on blue, which projects well. */
        init_pair(PAIR_HEADER, COLOR_WHITE, COLOR_BLUE);
        init_pair(PAIR_KEY, COLOR_WHITE, COLOR_BLUE);
        init_pair(PAIR_TITLE, COLOR_WHITE, bg);
        st->idle = st->gated = COLOR_PAIR(PAIR_IDLE);
    }
}

static void init_mono(struct tui_style *st)
{
    /* Letters carry the owner; alternating attributes make neighbouring blocks visible. */
    static const attr_t cells[4] = {A_REVERSE, A_BOLD, A_REVERSE | A_BOLD, A_UNDERLINE};
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++) {
        st->kernel[k] = A_BOLD;
        st->cell[k] = cells[k % 4];
    }
    st->title = A_BOLD;
    st->focus = A_REVERSE | A_BOLD;
    st->header = A_REVERSE;
    st->bar = A_BOLD;
    st->key = A_REVERSE;
    st->idle = A_DIM;
    st->gated = A_DIM;
}

void tui_style_init(struct tui_style *st, bool projector)
{
    static const char *const utf8_levels[9] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    static const char *const ascii_levels[9] = {" ", ".", ":", "-", "=", "+", "*", "#", "@"};
    memset(st, 0, sizeof(*st));
    /* A terminal with too few colour pairs for one per kernel is treated as monochrome. */
    st->color = want_color();
    if (st->color) {
        start_color();
        st->color = COLOR_PAIRS >= PAIRS_USED;
    }
    st->utf8 = want_utf8();
    if (st->color)
        init_colors(st, projector);
    else
        init_mono(st);
    st->dim = A_DIM;
    st->strong = A_BOLD;
    if (projector) {
        /* Dim text vanishes on a projector; emphasis is bold and underlined. */
        st->dim = A_NORMAL;
        st->strong = A_BOLD | A_UNDERLINE;
        if (!st->color)
            st->idle = st->gated = A_NORMAL;
    }
    const char *const *levels = st->utf8 ? utf8_levels : ascii_levels;
    for (unsigned i = 0; i < 9; i++)
        st->level[i] = levels[i];
    st->dash = st->utf8 ? "–" : "-";
    st->bar_full = st->utf8 ? "█" : "#";
    st->bar_empty = st->utf8 ? "░" : ".";
    st->idle_sm = st->utf8 ? "·" : ".";
    st->gated_sm = st->utf8 ? "×" : "x";
    st->times = st->utf8 ? "×" : "x";
    st->sep = st->utf8 ? "│" : "|";
}
