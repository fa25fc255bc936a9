/* view_log — what happened, newest at the bottom: epochs finished, run and pause, speed
 * changes, and the session's events (switches, parameter changes, the allocator's decisions
 * with their reasons). Long lines wrap, so a reason is never cut; the arrows scroll when it
 * has focus, and Enter opens the bottom line in a window of its own. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui_internal.h"

void tui_log(struct tui *t, const char *fmt, ...)
{
    struct tui_log *lg = &t->log;
    unsigned slot = (lg->first + lg->count) % TUI_LOG_LINES;
    if (lg->count == TUI_LOG_LINES)
        lg->first = (lg->first + 1) % TUI_LOG_LINES;
    else
        lg->count++;
    /* Stamped with the epochs done, the clock a reader of this log cares about. */
    int n = snprintf(lg->line[slot], TUI_LOG_WIDTH, "e%u ", t->nepochs);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(lg->line[slot] + n, TUI_LOG_WIDTH - (size_t)n, fmt, ap);
    va_end(ap);
    /* Keep the view on the newest line unless the reader scrolled back. */
    if (t->log_scroll > 0 && t->log_scroll < lg->count - 1)
        t->log_scroll++;
    tui_changed(t, TUI_CH_LOG);
}

void tui_log_drop_last(struct tui *t, const char *prefix)
{
    struct tui_log *lg = &t->log;
    if (lg->count == 0)
        return;
    const char *line = lg->line[(lg->first + lg->count - 1) % TUI_LOG_LINES];
    const char *text = strchr(line, ' '); /* after the "eN " stamp */
    if (text && strncmp(text + 1, prefix, strlen(prefix)) == 0) {
        lg->count--;
        tui_changed(t, TUI_CH_LOG);
    }
}

void tui_log_event(struct tui *t, const struct session_event *ev)
{
    unsigned now = t->nepochs;
    t->nepochs = ev->epoch;
    tui_log(t, "%s: %s", ev->kind, ev->text);
    t->nepochs = now;
}

static const char *line_at(const struct tui_log *lg, int i)
{
    return lg->line[(lg->first + (unsigned)i) % TUI_LOG_LINES];
}

/* The line at the bottom of the view: log_scroll lines back from the newest; -1 when none. */
static int bottom_line(const struct tui *t)
{
    return (int)t->log.count - 1 - (int)t->log_scroll;
}

static void draw(const struct tui *t, WINDOW *w)
{
    int rows, cols;
    getmaxyx(w, rows, cols);
    /* Bottom up, each line wrapped; the oldest one shown may lose its first rows. */
    int y = rows;
    for (int i = bottom_line(t); y > 0 && i >= 0; i--) {
        const char *text = line_at(&t->log, i);
        int h = tui_wrap(NULL, 0, 0, text, cols);
        y -= h;
        if (y >= 0) {
            tui_wrap(w, y, 0, text, cols);
        } else {
            /* Draw it in a scratch pad and copy its last rows. */
            WINDOW *pad = newpad(h, cols);
            if (pad) {
                tui_wrap(pad, 0, 0, text, cols);
                copywin(pad, w, -y, 0, 0, 0, h + y - 1, cols - 1, FALSE);
                delwin(pad);
            }
        }
    }
}

/* Enter: the bottom line whole, in a window of its own. */
static int open_line(struct tui *t)
{
    int i = bottom_line(t);
    if (i < 0)
        return TUI_R_HANDLED;
    tui_message(t, "Event log", "%s", line_at(&t->log, i));
    return TUI_R_HANDLED;
}

static int key(struct tui *t, int ch)
{
    unsigned count = t->log.count;
    if (ch == '\r' || ch == '\n' || ch == KEY_ENTER)
        return open_line(t);
    if (ch == KEY_UP) {
        if (t->log_scroll + 1 < count)
            t->log_scroll++;
    } else if (ch == KEY_DOWN) {
        if (t->log_scroll > 0)
            t->log_scroll--;
    } else {
        return 0;
    }
    tui_changed(t, TUI_CH_LOG);
    return TUI_R_HANDLED;
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    (void)cols;
    if (t->log_scroll)
        snprintf(buf, n, "Event log, %u back", t->log_scroll);
    else
        snprintf(buf, n, "Event log");
}

const struct tui_view tui_view_log = {
    .title = "Event log",
    .deps = TUI_CH_LOG | TUI_CH_FOCUS,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
    .key = key,
};
