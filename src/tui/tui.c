/* tui — the workbench's main loop on the input thread: it takes the worker's finished epochs
 * into the snapshot, redraws the views that changed (one wnoutrefresh per window, one doupdate
 * per frame), and waits in getch() with a timeout computed from what is going on (nvtop's
 * loop). All ncurses calls happen on this thread. */
#include "corun/tui.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"
#include "tui_internal.h"

/* The only mutable state outside struct tui: set by SIGINT/SIGTERM/SIGHUP, read by the loop. */
static volatile sig_atomic_t quit_signal;

static void on_quit_signal(int sig)
{
    (void)sig;
    quit_signal = 1;
}

/* getch() timeouts: often enough for a smooth progress bar while an epoch computes; when
 * idle, only to notice a signal. */
#define BUSY_TIMEOUT_MS 100
#define IDLE_TIMEOUT_MS 500

bool tui_view_shown(const struct tui *t, enum tui_view_id v)
{
    return t->frame[v] != NULL;
}

void tui_changed(struct tui *t, unsigned changes)
{
    for (unsigned v = 0; v < TUI_V_COUNT; v++)
        if ((tui_views[v]->deps | TUI_CH_SCREEN) & changes)
            t->dirty |= 1u << v;
    if (changes & TUI_CH_FOCUS) {
        /* Every framed view shows whether it has focus. */
        for (unsigned v = 0; v < TUI_V_COUNT; v++)
            if (tui_views[v]->focusable)
                t->dirty |= 1u << v;
    }
}

const struct tui_epoch *tui_shown(const struct tui *t)
{
    if (!t->nepochs)
        return NULL;
    return &t->epochs[t->live ? t->nepochs - 1 : t->shown];
}

/* ---- the screen ---- */

static void free_windows(struct tui *t)
{
    tui_free_frames(t->frame, t->inner, TUI_V_COUNT);
    if (t->overlay_win)
        delwin(t->overlay_win);
    t->overlay_win = NULL;
}

static void place_overlay(struct tui *t)
{
    if (t->overlay_win)
        delwin(t->overlay_win);
    t->overlay_win = NULL;
    if (!t->overlay || t->too_small)
        return;
    int rows, cols, h, w;
    getmaxyx(stdscr, rows, cols);
    if (t->overlay->beside_lesson && t->frame[TUI_V_LESSON])
        cols = getbegx(t->frame[TUI_V_LESSON]); /* the lesson is the right half */
    t->overlay->size(t, rows, cols, &h, &w);
    t->overlay_win = newwin(h, w, (rows - h) / 2, (cols - w) / 2);
    t->overlay_dirty = true;
}

static void draw_too_small(const struct tui *t)
{
    /* Only the keys named here act until the terminal grows (the quit question is answered
     * here too). */
    tui_draw_too_small(&t->style,
                       t->overlay == &tui_overlay_quit ? "quit without saving? y/n" : "q quits");
}

/* Builds the windows for the terminal's size; below 80x24, a notice instead. */
static void relayout(struct tui *t)
{
    free_windows(t);
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    /* stdscr is the background; it is copied first in the next frame and never again until the
     * next resize, so wgetch(stdscr) does not repaint over the views. */
    werase(stdscr);
    struct tui_rect r[TUI_V_COUNT];
    /* The kernel table has a row per kernel in the mix shown. */
    t->layout_kernels = tui_mix_shown(t, NULL);
    struct tui_layout_opts o = {t->projector, t->lesson && t->lesson_shown, t->side};
    t->too_small = tui_layout(rows, cols, t->layout_kernels, &o, r) != 0;
    if (t->too_small) {
        draw_too_small(t);
        return;
    }
    wnoutrefresh(stdscr);
    for (unsigned v = 0; v < TUI_V_COUNT; v++) {
        if (r[v].h <= 0 || r[v].w <= 0)
            continue; /* not on the screen in this layout */
        t->frame[v] = newwin(r[v].h, r[v].w, r[v].y, r[v].x);
        t->inner[v] =
            tui_views[v]->title ? derwin(t->frame[v], r[v].h - 2, r[v].w - 2, 1, 1) : t->frame[v];
    }
    /* Focus stays on a panel that is shown. */
    if (!t->frame[t->focus])
        t->focus = TUI_V_KERNELS;
    place_overlay(t);
    tui_changed(t, TUI_CH_ALL);
}

void tui_open_overlay(struct tui *t, const struct tui_overlay *ov)
{
    bool uncovers = t->overlay != NULL;
    t->overlay = ov;
    place_overlay(t);
    /* Closing one, or replacing it by another (a field by its error), uncovers views; opening
     * one over them needs nothing redrawn underneath. */
    if (uncovers)
        tui_changed(t, TUI_CH_ALL);
}

static void draw_view(struct tui *t, unsigned v)
{
    const struct tui_view *view = tui_views[v];
    werase(t->frame[v]);
    if (view->title) {
        char title[128];
        if (view->title_fn)
            view->title_fn(t, getmaxx(t->inner[v]), title, sizeof title);
        else
            snprintf(title, sizeof title, "%s", view->title);
        tui_frame(&t->style, t->frame[v], title, t->focus == v);
    }
    view->draw(t, t->inner[v]);
    /* The interior shares the frame's memory, and werase touched all of the frame. */
    wnoutrefresh(t->frame[v]);
}

static void draw_overlay(struct tui *t)
{
    WINDOW *w = t->overlay_win;
    werase(w);
    tui_frame(&t->style, w, t->overlay->title_fn ? t->overlay->title_fn(t) : t->overlay->title,
              true);
    int h, wd;
    getmaxyx(w, h, wd);
    WINDOW *in = derwin(w, h - 2, wd - 2, 1, 1);
    if (in) {
        t->overlay->draw(t, in);
        delwin(in);
    }
    wnoutrefresh(w);
}

static void frame(struct tui *t)
{
    if (t->too_small)
        return;
    bool drawn = false;
    for (unsigned v = 0; v < TUI_V_COUNT; v++) {
        if ((t->dirty & (1u << v)) && t->frame[v]) {
            draw_view(t, v);
            drawn = true;
        }
    }
    t->dirty = 0;
    /* A view redrawn underneath covers the overlay in the virtual screen: put it back on top. */
    if (t->overlay_win && (drawn || t->overlay_dirty)) {
        draw_overlay(t);
        drawn = true;
    }
    t->overlay_dirty = false;
    if (drawn)
        doupdate();
}

/* ---- the snapshot ---- */

static void add_epoch(struct tui *t, struct tui_result *r)
{
    if (t->nepochs == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 16;
        t->epochs = xrealloc(t->epochs, t->cap * sizeof(*t->epochs));
    }
    t->epochs[t->nepochs++] = (struct tui_epoch){r->e, r->owner, r->wall_s, r->explain};
    memcpy(t->owner, r->owner, t->sms * sizeof(*t->owner));
    const struct session_epoch *e = &r->e;
    if (t->lesson)
        return; /* a class reads the header's epoch count; the log keeps the reasons */
    if (e->m.valid && !tui_hidden(t, e->index))
        tui_log(t, "done %.2f s STP %.3f fair %.3f", r->wall_s, e->m.stp, e->m.fairness);
    else
        tui_log(t, "done %.2f s", r->wall_s);
}

/* Replaces the replay by the branch the worker computed. */
static void switch_to_branch(struct tui *t)
{
    struct session *b = tui_worker_take_branch(t->worker);
    unsigned at = t->branch_at;
    bool rewound = t->rewinding, was_recording = t->recording;
    unsigned was_saved = t->saved_epochs;
    char was_path[sizeof t->run_path];
    snprintf(was_path, sizeof was_path, "%s", t->run_path);
    tui_detach(t);
    tui_attach(t, b);
    t->rewinding = false;
    /* A rewound run's epochs are as recorded as they were: tui_attach counts a branch's
     * epochs as kept in the run file it came from, so q quit a rewound unsaved run without
     * asking. */
    if (rewound)
        t->saved_epochs = was_recording ? at : (was_saved < at ? was_saved : at);
    /* The file keeps the run as it went; the rewound run is not in it (REC went off, unsaid,
     * while the file kept the epoch rewound over). */
    if (rewound && was_recording) {
        tui_log(t, "recording to %s ended at the rewind: %s", was_path,
                t->saved_note[0] ? t->saved_note : "the file keeps the run as it went");
        tui_notice(t, "Recording ended",
                   "%s keeps the run as it went, the epoch rewound over included. The rewound "
                   "run is not recorded: s records it to a new file.",
                   was_path);
    }
    /* Rewound over the hidden epochs before the class guessed: the form opens again when they
     * are done, as it did the first time (g alone opened it, the panel saying it would). */
    if (rewound && t->hiding && t->nepochs < t->guess_due)
        t->guess_offered = false;
    if (rewound) /* the run's note above says where it was rewound to */
        tui_log(t, "p, a or e change the policy from here, Space steps");
    else
        tui_log(t, "LIVE on a branch after epoch %u: Space steps", at);
    relayout(t);
}

/* After the epoch shown or the mix changed: the selection stays on a kernel in the mix, and
 * the kernel table gets a row per kernel in it, rebuilt as a resize rebuilds the screen. A
 * replay moved by the arrows comes here too, before the next frame. */
static void follow_mix(struct tui *t)
{
    if (tui_select_in_mix(t))
        tui_changed(t, TUI_CH_SELECT);
    if (tui_mix_shown(t, NULL) != t->layout_kernels)
        relayout(t);
}

/* Takes what the worker published and says what changed. */
static void absorb(struct tui *t)
{
    struct tui_outcome o;
    while (tui_worker_take_outcome(t->worker, &o))
        if (tui_take_outcome(t, &o))
            switch_to_branch(t);
    tui_take_events(t);
    struct tui_result *res;
    struct tui_worker_status st;
    size_t n = tui_worker_take(t->worker, &res, &st);
    for (size_t i = 0; i < n; i++)
        add_epoch(t, &res[i]);
    free(res);
    unsigned changes = n ? TUI_CH_EPOCH : 0;
    if (t->running && !st.running && !t->lesson) {
        if (st.epochs_done >= t->sc->epochs)
            tui_log(t, "run complete (%u epoch%s)", t->sc->epochs, t->sc->epochs == 1 ? "" : "s");
        else
            tui_log(t, "run paused after epoch %u", st.epochs_done);
    }
    if (st.running != t->running || st.busy != t->busy || st.queued != t->queued)
        changes |= TUI_CH_STATE;
    t->running = st.running;
    t->busy = st.busy;
    t->queued = st.queued;
    double p = t->busy ? tui_worker_progress(t->worker) : 0;
    if (p != t->progress) {
        t->progress = p;
        changes |= TUI_CH_PROGRESS;
    }
    struct tui_mix mix;
    tui_worker_mix(t->worker, &mix);
    if (memcmp(&mix, &t->mix, sizeof mix) != 0) {
        /* Pending changes show in the header and the mix editor; the rest with the epoch. */
        t->mix = mix;
        t->overlay_dirty = true;
        changes |= TUI_CH_STATE | TUI_CH_EPOCH;
    }
    tui_changed(t, changes);
    follow_mix(t);
    tui_lesson_poll(t);
}

/* ---- the loop ---- */

#define NQUIT_SIGNALS 3
static const int quit_signals[NQUIT_SIGNALS] = {SIGINT, SIGTERM, SIGHUP};

/* Quit cleanly (terminal restored, worker joined) on an interrupt; the previous handlers are
 * kept in old for restore_signals. */
static void catch_signals(struct sigaction old[NQUIT_SIGNALS])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit_signal;
    sigemptyset(&sa.sa_mask);
    /* No SA_RESTART: a signal ends the wait in getch() at once. */
    for (unsigned i = 0; i < NQUIT_SIGNALS; i++)
        sigaction(quit_signals[i], &sa, &old[i]);
}

static void restore_signals(const struct sigaction old[NQUIT_SIGNALS])
{
    for (unsigned i = 0; i < NQUIT_SIGNALS; i++)
        sigaction(quit_signals[i], &old[i], NULL);
}

static void loop(struct tui *t)
{
    for (;;) {
        absorb(t);
        frame(t);
        wtimeout(stdscr, t->busy || t->running ? BUSY_TIMEOUT_MS : IDLE_TIMEOUT_MS);
        int ch = wgetch(stdscr);
        if (quit_signal)
            return;
        if (ch == ERR)
            continue;
        if (ch == KEY_RESIZE) {
            relayout(t);
            continue;
        }
        /* Too small, the screen shows no view: only q, and y/n to its question, act. */
        bool asking = t->overlay == &tui_overlay_quit;
        if (t->too_small && ch != 'q' && !(asking && (ch == 'y' || ch == 'n' || ch == 27)))
            continue;
        if (t->too_small && ch == 'q' && t->overlay && !asking)
            tui_open_overlay(t, NULL); /* a menu or dialog it cannot show gives way to q */
        int r = tui_key_dispatch(t, ch);
        if (r & TUI_R_QUIT)
            return;
        /* A step may show another panel in the lesson layout. */
        if (t->lesson && t->lesson_shown && t->side != t->layout_side) {
            t->layout_side = t->side;
            relayout(t);
        }
        if (t->too_small)
            draw_too_small(t); /* the question q may have asked, or its answer */
        if (r & TUI_R_REPAINT) {
            clearok(curscr, TRUE);
            relayout(t);
        }
    }
}

void tui_free_frames(WINDOW **frame, WINDOW **inner, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        if (inner[i] && inner[i] != frame[i])
            delwin(inner[i]);
        if (frame[i])
            delwin(frame[i]);
        inner[i] = frame[i] = NULL;
    }
}

void tui_term_modes(void)
{
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    /* Home and End as tmux and screen send them (vt220) and as xterm does outside keypad
     * mode, for a TERM whose description lacks them (TERM=xterm inside tmux is common). */
    static const struct {
        const char *seq;
        int key;
    } home_end[] = {
        {"\033[1~", KEY_HOME}, {"\033[4~", KEY_END}, {"\033[H", KEY_HOME}, {"\033[F", KEY_END}};
    for (size_t i = 0; i < sizeof home_end / sizeof home_end[0]; i++)
        if (key_defined(home_end[i].seq) == 0)
            define_key(home_end[i].seq, home_end[i].key);
    curs_set(0);
    /* Esc closes overlays; a long wait for an escape sequence would feel like a hang. */
    set_escdelay(25);
}

int tui_main(struct session *s, const struct tui_options *opt)
{
    /* Before newterm, so that ncurses keeps to SIGWINCH and leaves these to us. */
    struct sigaction old_handlers[NQUIT_SIGNALS];
    catch_signals(old_handlers);
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        fprintf(stderr, "corun: cannot initialise the terminal (is TERM set?)\n");
        restore_signals(old_handlers);
        session_delete(s);
        return -1;
    }
    tui_term_modes();

    struct tui t;
    memset(&t, 0, sizeof t);
    t.datadir = opt->datadir;
    t.catalog = opt->catalog;
    t.focus = TUI_V_KERNELS;
    t.projector = opt->projector;
    t.lesson = opt->lesson;
    t.side = t.layout_side = TUI_V_LOG;
    tui_style_init(&t.style, opt->projector);
    tui_attach(&t, s);
    if (t.live)
        tui_log(&t, "ready: Space steps, r runs, ? helps");
    else
        tui_log(&t, "REPLAY of %s: %s moves, b branches", t.run_path,
                t.style.utf8 ? "← →" : "Left/Right");
    tui_lesson_start(&t);
    t.layout_side = t.side;
    relayout(&t);
    loop(&t);
    /* Quit abandons an epoch in flight: the worker stops within one slice of it; a recording
     * is completed as the session is deleted. */
    tui_detach(&t);
    free_windows(&t);
    tui_message_free(&t);
    endwin();
    delscreen(screen);
    restore_signals(old_handlers);
    if (t.saved_note[0])
        fprintf(stderr, "corun: %s\n", t.saved_note);
    tui_snapshot_done(&t);
    return 0;
}
