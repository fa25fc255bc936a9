/* tui_help — the F1 / ? screen: every key of the key table and a reminder of what the numbers
 * mean. It is an overlay, drawn over the views, which keep updating underneath. */
#include "tui_internal.h"

static const char *const notes[] = {
    "NP = private-mode cycles of the epoch's instructions / shared cycles.",
    "Above 1: faster than its private-mode run over the same instructions.",
    "SMavg: an epoch's time-weighted SMs; the SM map: owners now.",
    "STP = sum of NP; ANTT = mean 1/NP; fairness = min/max NP.",
    "A dash: no value (no predictor, allocator or QoS).",
    "Live: a run stops after the scenario's epochs; r goes on.",
};
#define NNOTES     (sizeof notes / sizeof notes[0])
#define LABEL_COLS 12

static unsigned listed_keys(const struct tui *t)
{
    unsigned n = 0;
    for (size_t i = 0; i < tui_nkeys; i++)
        n += tui_keys[i].label != NULL && tui_key_active(t, &tui_keys[i]);
    return n;
}

static void size(const struct tui *t, int rows, int cols, int *h, int *w)
{
    /* Frame, heading and gap, the keys, a gap, the notes, a gap and the closing line; on a
     * short screen the heading and the gaps go first (compact()). */
    *h = (int)(listed_keys(t) + NNOTES) + 7;
    if (*h > rows - 2)
        *h = (int)(listed_keys(t) + NNOTES) + 3;
    if (*h > rows - 2)
        *h = rows - 2;
    *w = 76;
    if (*w > cols - 2)
        *w = cols - 2;
}

static void draw(const struct tui *t, WINDOW *w)
{
    int y = 0;
    /* Without room for the heading and the gaps, every key and note still shows. */
    bool roomy = getmaxy(w) >= (int)(listed_keys(t) + NNOTES) + 5;
    if (roomy) {
        wattron(w, A_BOLD);
        tui_print(w, y++, 1, "Keys");
        wattroff(w, A_BOLD);
        y++;
    }
    for (size_t i = 0; i < tui_nkeys; i++) {
        const struct tui_key *k = &tui_keys[i];
        if (!k->label || !tui_key_active(t, k))
            continue;
        wattron(w, A_BOLD);
        tui_print(w, y, 2, "%s", tui_key_label(t, k));
        wattroff(w, A_BOLD);
        tui_print(w, y++, 2 + LABEL_COLS, "%s", k->help);
    }
    y += roomy;
    wattron(w, t->style.dim);
    for (size_t i = 0; i < NNOTES; i++)
        tui_print(w, y++, 1, "%s", notes[i]);
    wattroff(w, t->style.dim);
    tui_print(w, getmaxy(w) - 1, 1, "Press any key to close this help.");
}

static int key(struct tui *t, int ch)
{
    (void)ch;
    tui_open_overlay(t, NULL);
    return TUI_R_HANDLED;
}

const struct tui_overlay tui_overlay_help = {
    .title = "Help",
    .size = size,
    .draw = draw,
    .key = key,
};
