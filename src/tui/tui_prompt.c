/* tui_prompt — the small modal windows besides the help: an input field (a path to save to or
 * open, an epoch to go to), a message dialog (an error, a confirmation) and the question q and
 * o ask when the run is unsaved. Like every overlay they keep their state in struct tui and
 * answer keys with a reaction; what accepting a field does is the opener's callback. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"
#include "tui_internal.h"

#define FIELD_W 72

static void clip_size(int rows, int cols, int *h, int *w)
{
    if (*h > rows - 2)
        *h = rows - 2;
    if (*w > cols - 2)
        *w = cols - 2;
}

static int wrap(WINDOW *w, int y, const char *text, int cols)
{
    return tui_wrap(w, y, 1, text, cols);
}

/* ---- the input field ---- */

void tui_prompt_open(struct tui *t, const char *title, const char *label, const char *text,
                     int (*accept)(struct tui *t, const char *text))
{
    struct tui_prompt *p = &t->prompt;
    snprintf(p->title, sizeof p->title, "%s", title);
    snprintf(p->label, sizeof p->label, "%s", label);
    snprintf(p->text, sizeof p->text, "%s", text);
    p->error[0] = '\0';
    p->accept = accept;
    tui_open_overlay(t, &tui_overlay_prompt);
}

static const char *prompt_title(const struct tui *t)
{
    return t->prompt.title;
}

#define PROMPT_HINT "Enter accepts, Esc cancels, Ctrl-U clears"

static void prompt_size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    /* Frame, the label and the hint (each wrapped: beside a lesson the window is half the
     * screen), the field, the error (wrapped; a long one grows the window when it is opened
     * again) and a gap. */
    *h = 7;
    *w = FIELD_W + 4;
    clip_size(rows, cols, h, w);
    int label_rows = wrap(NULL, 0, t->prompt.label, *w - 4);
    int error_rows = wrap(NULL, 0, t->prompt.error, *w - 4);
    *h = 4 + label_rows + (error_rows > 1 ? error_rows : 1) + wrap(NULL, 0, PROMPT_HINT, *w - 4);
    clip_size(rows, cols, h, w);
}

static void prompt_draw(const struct tui *t, WINDOW *w)
{
    const struct tui_prompt *p = &t->prompt;
    int cols = getmaxx(w);
    int y = wrap(w, 0, p->label, cols - 2);
    /* The end of a long text stays visible, where the typing happens. */
    int room = cols - 3, len = tui_columns(p->text);
    const char *shown = p->text;
    while (len > room - 1 && *shown) {
        shown++;
        while (((unsigned char)*shown & 0xC0) == 0x80)
            shown++;
        len--;
    }
    wattron(w, A_REVERSE);
    mvwhline(w, y, 1, ' ', room);
    tui_print(w, y, 1, "%s_", shown);
    wattroff(w, A_REVERSE);
    if (p->error[0]) {
        wattron(w, A_BOLD);
        wrap(w, y + 1, p->error, cols - 2);
        wattroff(w, A_BOLD);
    }
    wattron(w, t->style.dim);
    wrap(w, getmaxy(w) - wrap(NULL, 0, PROMPT_HINT, cols - 2), PROMPT_HINT, cols - 2);
    wattroff(w, t->style.dim);
}

static void delete_last(char *text)
{
    size_t n = strlen(text);
    /* A whole UTF-8 character: its continuation bytes and its lead byte. */
    while (n > 0 && ((unsigned char)text[n - 1] & 0xC0) == 0x80)
        n--;
    if (n > 0)
        n--;
    text[n] = '\0';
}

static int prompt_key(struct tui *t, int ch)
{
    struct tui_prompt *p = &t->prompt;
    size_t n = strlen(p->text);
    if (ch == 27) {
        tui_open_overlay(t, NULL);
        return TUI_R_HANDLED;
    }
    if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        char text[TUI_PROMPT_MAX];
        snprintf(text, sizeof text, "%s", p->text);
        return p->accept(t, text) | TUI_R_HANDLED;
    }
    if (ch == KEY_BACKSPACE || ch == 127 || ch == 8)
        delete_last(p->text);
    else if (ch == ('u' & 0x1f))
        p->text[0] = '\0';
    else if (ch >= ' ' && ch <= 0xff && ch != 127 && n + 1 < sizeof p->text) {
        p->text[n] = (char)ch;
        p->text[n + 1] = '\0';
    }
    t->overlay_dirty = true;
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_prompt = {
    .title = "Input",
    .title_fn = prompt_title,
    .size = prompt_size,
    .draw = prompt_draw,
    .key = prompt_key,
    .beside_lesson = true,
};

/* ---- the message dialog ---- */

static void message_open(struct tui *t, const char *title, bool passes_key, const char *fmt,
                         va_list ap) __attribute__((format(printf, 4, 0)));

static void message_open(struct tui *t, const char *title, bool passes_key, const char *fmt,
                         va_list ap)
{
    snprintf(t->message_title, sizeof t->message_title, "%s", title);
    /* A refusal read over the mix editor goes back to it (it closed the editor, and the keys
     * meant for it went to the main screen). */
    t->message_back = t->overlay == &tui_overlay_mix ? &tui_overlay_mix : NULL;
    char *text = xvasprintf(fmt, ap); /* before the old is freed: it may be an argument */
    free(t->message);
    t->message = text;
    t->message_top = 0;
    t->message_passes_key = passes_key;
    tui_open_overlay(t, &tui_overlay_message);
}

void tui_message(struct tui *t, const char *title, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message_open(t, title, false, fmt, ap);
    va_end(ap);
}

void tui_notice(struct tui *t, const char *title, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    message_open(t, title, true, fmt, ap);
    va_end(ap);
}

void tui_message_free(struct tui *t)
{
    free(t->message);
    t->message = NULL;
}

/* The text shown: none before the first message. */
static const char *message_text(const struct tui *t)
{
    return t->message ? t->message : "";
}

static const char *message_title(const struct tui *t)
{
    return t->message_title;
}

static void message_size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    *w = FIELD_W + 4;
    clip_size(rows, cols, h, w);
    /* The text, a gap and the closing line inside the frame. */
    *h = wrap(NULL, 0, message_text(t), *w - 4) + 4;
    clip_size(rows, cols, h, w);
}

/* The message's wrapped lines and how many of them the open window shows at once (a page):
 * all of them, or (a long text on a small screen) the window's rows less the gap and the
 * closing line. */
static int message_lines(const struct tui *t, int *page)
{
    int rows, cols;
    getmaxyx(t->overlay_win, rows, cols);
    *page = rows - 4 > 1 ? rows - 4 : 1;
    return wrap(NULL, 0, message_text(t), cols - 4);
}

static void message_draw(const struct tui *t, WINDOW *w)
{
    int rows = getmaxy(w), page, total = message_lines(t, &page);
    /* A screen made larger since the last scroll may show the end from further up. */
    int top = (int)t->message_top < total - page ? (int)t->message_top : total - page;
    top = top > 0 ? top : 0;
    /* The text's own region, so that lines past the page are clipped, not drawn over the
     * closing line; the page starts top lines down. */
    WINDOW *text = derwin(w, page, getmaxx(w), 0, 0);
    if (text) {
        wrap(text, -top, message_text(t), getmaxx(w) - 2);
        delwin(text);
    }
    wattron(w, t->style.dim);
    if (total > page) {
        int last = top + page;
        tui_print(
            w, rows - 1, 1, "Lines %d-%d of %d: %s; %s.", top + 1, last < total ? last : total,
            total, last < total ? "Space or Down shows more" : "Up goes back",
            t->message_passes_key ? "another key continues (and acts)" : "another key continues");
    } else {
        tui_print(w, rows - 1, 1, "%s",
                  t->message_passes_key ? "Any key continues (and acts)."
                                        : "Press any key to continue.");
    }
    wattroff(w, t->style.dim);
}

/* Scrolls a message longer than its window; false when ch is not a scrolling key or the
 * message fits (then ch closes it). Space past the last page closes it too. */
static bool message_scroll(struct tui *t, int ch)
{
    if (!t->overlay_win)
        return false;
    int page, total = message_lines(t, &page);
    if (total <= page)
        return false;
    int top = (int)t->message_top, end = total - page;
    if (ch == ' ' || ch == KEY_NPAGE) {
        if (top >= end)
            return ch == KEY_NPAGE; /* Space on the last page continues */
        top += page;
    } else if (ch == KEY_DOWN) {
        top++;
    } else if (ch == KEY_PPAGE) {
        top -= page;
    } else if (ch == KEY_UP) {
        top--;
    } else if (ch == KEY_HOME) {
        top = 0;
    } else if (ch == KEY_END) {
        top = end;
    } else {
        return false;
    }
    top = top > end ? end : top < 0 ? 0 : top;
    t->message_top = (unsigned)top;
    t->overlay_dirty = true;
    return true;
}

static int close_key(struct tui *t, int ch)
{
    if (message_scroll(t, ch))
        return TUI_R_HANDLED;
    const struct tui_overlay *back = t->message_back;
    t->message_back = NULL;
    tui_open_overlay(t, back);
    if (back)
        return TUI_R_HANDLED;
    bool closing_only = ch == 27 || ch == '\n' || ch == '\r' || ch == KEY_ENTER;
    if (t->message_passes_key && !closing_only)
        return tui_key_dispatch(t, ch);
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_message = {
    .title = "Message",
    .title_fn = message_title,
    .size = message_size,
    .draw = message_draw,
    .key = close_key,
};

/* ---- quit (or open another run) without saving? ---- */

static void quit_size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    (void)t;
    *h = 6;
    *w = 56;
    clip_size(rows, cols, h, w);
}

static void quit_draw(const struct tui *t, WINDOW *w)
{
    unsigned unsaved = t->nepochs - t->saved_epochs;
    tui_print(w, 0, 1, "%u epoch%s of this run %s not recorded.", unsaved, unsaved == 1 ? "" : "s",
              unsaved == 1 ? "is" : "are");
    wattron(w, A_BOLD);
    tui_print(w, 2, 1, "%s without saving? y/n", t->discard ? "open another run" : "quit");
    wattroff(w, A_BOLD);
    wattron(w, t->style.dim);
    tui_print(w, 3, 1, "(n or Esc goes back; s saves the run first)");
    wattroff(w, t->style.dim);
}

static int quit_key(struct tui *t, int ch)
{
    /* Only an answer closes it: a path typed at once after o went on as keys (r ran, s
     * saved under a name made of the rest). */
    if (ch <= 0 || ch > 127 || !strchr("yYnNsSqQ\x1b", ch))
        return TUI_R_HANDLED;
    if ((ch == 'y' || ch == 'Y') && !t->discard)
        return TUI_R_HANDLED | TUI_R_QUIT;
    tui_open_overlay(t, NULL);
    if (ch == 's' || ch == 'S') /* the dialog's "s" opens the save prompt (it only went back) */
        return tui_key_dispatch(t, 's');
    if (ch == 'y' || ch == 'Y')
        return t->discard(t);
    return TUI_R_HANDLED;
}

static const char *quit_title(const struct tui *t)
{
    return t->discard ? "Open" : "Quit";
}

const struct tui_overlay tui_overlay_quit = {
    .title = "Quit",
    .title_fn = quit_title,
    .size = quit_size,
    .draw = quit_draw,
    .key = quit_key,
};
