/* tui_draw — small drawing helpers every view uses: clipped text, frames, bars, numbers. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "corun/columns.h"
#include "tui_internal.h"

void tui_draw_too_small(const struct tui_style *st, const char *keys)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    werase(stdscr);
    char msg[96], need[48], have[48];
    snprintf(msg, sizeof msg, "terminal too small (need %d%s%d, have %d%s%d)", TUI_MIN_COLS,
             st->times, TUI_MIN_ROWS, cols, st->times, rows);
    snprintf(need, sizeof need, "need %d%s%d,", TUI_MIN_COLS, st->times, TUI_MIN_ROWS);
    snprintf(have, sizeof have, "have %d%s%d", cols, st->times, rows);
    /* One line when it fits, else short lines, so that no part is cut. */
    const char *lines[4] = {msg};
    int n = 1;
    if (tui_columns(msg) > cols) {
        lines[0] = "terminal too small:";
        lines[n++] = need;
        lines[n++] = have;
    }
    lines[n++] = keys;
    for (int i = 0; i < n; i++) {
        int x = (cols - tui_columns(lines[i])) / 2;
        tui_print(stdscr, rows / 2 - n / 2 + i, x > 0 ? x : 0, "%s", lines[i]);
    }
    wnoutrefresh(stdscr);
    doupdate();
}

int tui_columns(const char *s)
{
    return util_columns(s);
}

/* Bytes of s that fit in cols columns (a wide glyph that would cross the edge is left out);
 * the columns they take in *used when it is not NULL. */
static size_t fit_bytes_used(const char *s, int cols, int *used)
{
    int n = 0, c;
    size_t i = 0;
    while (s[i]) {
        size_t len = util_glyph(s + i, &c);
        if (n + c > cols)
            break;
        n += c;
        i += len;
    }
    if (used)
        *used = n;
    return i;
}

static size_t fit_bytes(const char *s, int cols)
{
    return fit_bytes_used(s, cols, NULL);
}

static int put_clipped(WINDOW *w, int y, int x, const char *text)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    if (y < 0 || y >= rows || x >= cols)
        return 0;
    if (x < 0) {
        /* Drop the columns left of the window. */
        size_t skip = fit_bytes(text, -x);
        text += skip;
        x = 0;
    }
    int written;
    size_t bytes = fit_bytes_used(text, cols - x, &written);
    mvwaddnstr(w, y, x, text, (int)bytes);
    return written;
}

int tui_print(WINDOW *w, int y, int x, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return put_clipped(w, y, x, buf);
}

int tui_print_right(WINDOW *w, int y, int x_end, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return put_clipped(w, y, x_end - tui_columns(buf), buf);
}

int tui_print_cols(WINDOW *w, int y, int x, int cols, const char *text)
{
    int used;
    size_t bytes = fit_bytes_used(text, cols, &used);
    char buf[512];
    snprintf(buf, sizeof buf, "%.*s%*s", (int)bytes, text, cols - used, "");
    return put_clipped(w, y, x, buf);
}

int tui_print_cut(const struct tui_style *st, WINDOW *w, int y, int x, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return tui_print_fit(st, w, y, x, getmaxx(w) - x, buf);
}

int tui_print_fit(const struct tui_style *st, WINDOW *w, int y, int x, int room, const char *text)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", text);
    if (room > getmaxx(w) - x)
        room = getmaxx(w) - x;
    if (room < 1)
        return 0;
    if (tui_columns(buf) > room) {
        /* Cut a column earlier (three without UTF-8) so that the ellipsis shows the cut. */
        const char *ellipsis = st->utf8 ? "…" : "...";
        int keep = room - tui_columns(ellipsis);
        size_t at = fit_bytes(buf, keep > 0 ? keep : 0);
        snprintf(buf + at, sizeof buf - at, "%s", ellipsis);
    }
    return put_clipped(w, y, x, buf);
}

int tui_print_tail(const struct tui_style *st, WINDOW *w, int y, int x, int room, const char *text)
{
    if (room > getmaxx(w) - x)
        room = getmaxx(w) - x;
    if (tui_columns(text) <= room)
        return put_clipped(w, y, x, text);
    const char *ellipsis = st->utf8 ? "…" : "...";
    int keep = room - tui_columns(ellipsis);
    if (keep < 1)
        return 0;
    int c;
    while (*text && tui_columns(text) > keep)
        text += util_glyph(text, &c);
    char buf[512];
    snprintf(buf, sizeof buf, "%s%s", ellipsis, text);
    return put_clipped(w, y, x, buf);
}

int tui_wrap(WINDOW *w, int y, int x, const char *text, int cols)
{
    int rows = 0;
    const char *s = text;
    if (cols < 1)
        cols = 1;
    while (*s) {
        /* The longest run of whole words that fits, or a hard cut of a word that cannot; a
         * line break ends the row. */
        int len = 0, cut = 0, col = 0;
        for (int i = 0; s[i] && s[i] != '\n';) {
            int c;
            int n = (int)util_glyph(s + i, &c);
            if (col + c > cols)
                break;
            col += c;
            if (s[i] == ' ')
                cut = i;
            i += n;
            len = i;
        }
        if (len == 0 && s[0] && s[0] != '\n') /* a glyph wider than the row: it alone */
            len = (int)util_glyph(s, &(int){0});
        if (s[len] && s[len] != '\n' && s[len] != ' ' && cut > 0)
            len = cut;
        if (w)
            tui_print(w, y + rows, x, "%.*s", len, s);
        rows++;
        s += len;
        if (*s == '\n')
            s++;
        else
            while (*s == ' ')
                s++;
    }
    return rows;
}

/* Draws text into w (a window or a pad) from row 0; the first line in first_attr. */
static void draw_text(WINDOW *w, const char *text, attr_t first_attr, int cols)
{
    size_t first = strcspn(text, "\n");
    char *head = strndup(text, first);
    if (!head)
        return;
    wattron(w, first_attr);
    int y = tui_wrap(w, 0, 0, head, cols);
    wattroff(w, first_attr);
    free(head);
    if (text[first])
        tui_wrap(w, y, 0, text + first + 1, cols);
}

void tui_text_panel(const struct tui_style *st, WINDOW *w, const char *text, attr_t first_attr,
                    const char *more)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    int total = tui_wrap(NULL, 0, 0, text, cols);
    if (total <= rows) {
        draw_text(w, text, first_attr, cols);
        return;
    }
    WINDOW *pad = newpad(total, cols);
    if (!pad)
        return;
    draw_text(pad, text, first_attr, cols);
    if (rows > 1)
        copywin(pad, w, 0, 0, 0, 0, rows - 2, cols - 1, FALSE);
    delwin(pad);
    wattron(w, st->dim);
    tui_print(w, rows - 1, 0, "%s", more);
    wattroff(w, st->dim);
}

static cchar_t wide(const wchar_t *glyph)
{
    cchar_t c;
    setcchar(&c, glyph, A_NORMAL, 0, NULL);
    return c;
}

void tui_frame(const struct tui_style *st, WINDOW *w, const char *title, bool focused)
{
    if (st->utf8) {
        /* Unicode lines rather than the terminal's alternate character set: the same on every
         * UTF-8 terminal, and a text capture shows them as they look. */
        cchar_t v = wide(L"│"), h = wide(L"─"), tl = wide(L"┌"), tr = wide(L"┐"), bl = wide(L"└"),
                br = wide(L"┘");
        wborder_set(w, &v, &v, &h, &h, &tl, &tr, &bl, &br);
    } else {
        wborder(w, '|', '|', '-', '-', '+', '+', '+', '+');
    }
    if (!title)
        return;
    /* The brackets show focus in a text capture and on a monochrome terminal too. */
    int cols = getmaxx(w);
    if (cols < 6)
        return;
    /* Titles run from the general to the particular ("SM map, 80 SMs, now"): where one does
     * not fit, its last parts go, a whole part at a time, before a cut in mid-word. */
    char text[160], buf[168];
    snprintf(text, sizeof text, "%s", title);
    for (char *comma; tui_columns(text) + 6 > cols && (comma = strrchr(text, ','));)
        *comma = '\0';
    snprintf(buf, sizeof buf, focused ? "[ %s ]" : " %s ", text);
    wattron(w, focused ? st->focus : st->title);
    int x = 2;
    size_t bytes = fit_bytes(buf, cols - 4);
    mvwaddnstr(w, 0, x, buf, (int)bytes);
    wattroff(w, focused ? st->focus : st->title);
}

void tui_bar(const struct tui_style *st, WINDOW *w, int y, int x, int width, double fraction)
{
    if (width <= 0)
        return;
    if (fraction < 0)
        fraction = 0;
    if (fraction > 1)
        fraction = 1;
    int full = (int)(fraction * width + 0.5);
    wattron(w, st->bar);
    for (int i = 0; i < full; i++)
        tui_print(w, y, x + i, "%s", st->bar_full);
    wattroff(w, st->bar);
    wattron(w, st->dim);
    for (int i = full; i < width; i++)
        tui_print(w, y, x + i, "%s", st->bar_empty);
    wattroff(w, st->dim);
}

const char *tui_level(const struct tui_style *st, double fraction)
{
    if (!(fraction > 0))
        return st->level[0];
    int i = (int)(fraction * 8 + 0.5);
    /* Anything above zero shows, so a lightly used channel is not mistaken for an idle one. */
    if (i < 1)
        i = 1;
    if (i > 8)
        i = 8;
    return st->level[i];
}

const char *tui_thousands(char *buf, size_t len, unsigned long long n)
{
    char digits[32];
    int nd = snprintf(digits, sizeof digits, "%llu", n);
    size_t o = 0;
    for (int i = 0; i < nd && o + 1 < len; i++) {
        if (i > 0 && (nd - i) % 3 == 0 && o + 2 < len)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

char tui_kernel_letter(unsigned k)
{
    return (char)('A' + k);
}
