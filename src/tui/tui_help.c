/* tui_help — the F1 / ? screen: every key of the key table and a reminder of what the numbers
 * mean. It is an overlay, drawn over the views, which keep updating underneath. */
#include "tui_accel.h"
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

/* ---- the accelerator view's help (tui_accel.c) ---- */

static const char *const accel_notes[] = {
    "Timeline: a lane per process (LS application, batch instance), its colour;",
    "  kernels solid, '.' a kernel waiting for SMs, '>' '<' copies to/from GPU.",
    "Latency: p50/p99 of the queries done; target = qos_target x solo p99 (T);",
    "  f marks the forecast p99; err = |forecast p99 - p99| / p99.",
    "Utilization: SM time holding thread blocks; link time moving data.",
};
#define NACCEL_NOTES (sizeof accel_notes / sizeof accel_notes[0])

static bool accel_key_shown(const struct tui_accel_key *k, bool live)
{
    return live ? k->live : k->replay;
}

int tui_help_accel_rows(const struct tui_accel_key *keys, size_t nkeys, bool live)
{
    int n = 0;
    for (size_t i = 0; i < nkeys; i++)
        n += accel_key_shown(&keys[i], live);
    return n + (int)NACCEL_NOTES + 3;
}

void tui_help_accel_draw(const struct tui_style *st, WINDOW *w, const struct tui_accel_key *keys,
                         size_t nkeys, bool live)
{
    int y = 0;
    for (size_t i = 0; i < nkeys; i++) {
        if (!accel_key_shown(&keys[i], live))
            continue;
        wattron(w, A_BOLD);
        tui_print(w, y, 1, "%s", keys[i].label);
        wattroff(w, A_BOLD);
        tui_print(w, y++, 1 + LABEL_COLS, "%s", keys[i].help);
    }
    y++;
    wattron(w, st->dim);
    for (size_t i = 0; i < NACCEL_NOTES; i++)
        tui_print(w, y++, 1, "%s", accel_notes[i]);
    wattroff(w, st->dim);
    tui_print(w, getmaxy(w) - 1, 1, "Press any key to close this help.");
}
