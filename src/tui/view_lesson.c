/* view_lesson — the lesson's current step: its title, text, what to do, the question and what
 * to notice, wrapped; what does not fit opens whole with Enter. */
#include <stdio.h>
#include <stdlib.h>

#include "tui_internal.h"

static void draw(const struct tui *t, WINDOW *w)
{
    char *text = tui_lesson_text(t);
    tui_text_panel(&t->style, w, text, t->style.strong, "... Enter shows the whole step");
    free(text);
}

static int key(struct tui *t, int ch)
{
    if (ch != '\r' && ch != '\n' && ch != KEY_ENTER)
        return 0;
    char *text = tui_lesson_text(t);
    tui_message(t, "Lesson", "%s", text);
    free(text);
    return TUI_R_HANDLED;
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    (void)cols;
    if (t->lesson)
        snprintf(buf, n, "Lesson %u/%zu: %s", t->step + 1, t->lesson->nsteps, t->lesson->title);
    else
        snprintf(buf, n, "Lesson");
}

const struct tui_view tui_view_lesson = {
    .title = "Lesson",
    .deps = TUI_CH_STATE | TUI_CH_EPOCH | TUI_CH_FOCUS,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
    .key = key,
};
