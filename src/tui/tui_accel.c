/* tui_accel — the workbench on an accelerator scenario: the loop on the input thread (take the
 * worker's newest snapshot, draw every panel, wait in getch() with a timeout), the layout and
 * the keys. Layer: tui. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corun/accel_predict.h"
#include "corun/accel_run.h"
#include "corun/tui.h"
#include "corun/util.h"
#include "tui_accel.h"

/* Set by SIGINT/SIGTERM/SIGHUP, read by the loop (as tui.c's). */
static volatile sig_atomic_t accel_quit_signal;

static void on_quit_signal(int sig)
{
    (void)sig;
    accel_quit_signal = 1;
}

#define STEP_NS         500e3 /* a step: half a millisecond of the GPU's time */
#define DEFAULT_SPAN_NS 2e6   /* the timeline's window */
#define MIN_SPAN_NS     10e3
#define MAX_SPAN_NS     1e9
#define BUSY_TIMEOUT_MS 100
#define IDLE_TIMEOUT_MS 500

static const struct tui_accel_key keys[] = {
    {"F1, ?", "help", "show the keys; any key closes the help", true, true},
    {"Space", "step", "step: half a millisecond more of the GPU's time", true, false},
    {"r", "run", "run / pause: step after step until the LS queries are done", true, false},
    {"p", "predictor", "predictor: none -> prophet -> sequential -> bubble -> prophet-even -> none",
     true, false},
    {"s", "save", "save the run so far to a new run file (corun show / replay read it)", true,
     false},
    {"Left Right", "pan", "move the timeline back / on by half its width", true, true},
    {"Home End", "ends", "the timeline at the run's start / end (End follows)", true, true},
    {"+ -", "zoom", "zoom the timeline in / out, about its middle or its end", true, true},
    {"q", "quit", "quit (a live run not saved since its last step is lost)", true, true},
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* ---- the record's processes ---- */

unsigned tui_accel_nprocs(const struct tui_accel *t)
{
    unsigned n = 0;
    for (unsigned a = 0; a < t->rec.napps; a++)
        n += t->rec.app[a].role == ACCEL_BATCH ? t->rec.app[a].instances : 1;
    return n;
}

int tui_accel_proc(const struct tui_accel *t, unsigned p, char *buf, size_t n)
{
    /* Processes are numbered as the engine makes them: application by application, each
     * batch application's instances in a row. */
    unsigned first = 0;
    for (unsigned a = 0; a < t->rec.napps; a++) {
        const struct accel_app_rec *x = &t->rec.app[a];
        unsigned count = x->role == ACCEL_BATCH ? x->instances : 1;
        if (p < first + count) {
            if (x->role == ACCEL_BATCH && count > 1)
                snprintf(buf, n, "%s#%u", x->name, p - first + 1);
            else
                snprintf(buf, n, "%s", x->name);
            return (int)a;
        }
        first += count;
    }
    snprintf(buf, n, "?");
    return -1;
}

double tui_accel_now_ns(const struct tui_accel *t)
{
    return t->rec.sim_ms * 1e6;
}

/* ---- the screen ---- */

static void free_windows(struct tui_accel *t)
{
    tui_free_frames(t->frame, t->inner, TA_COUNT);
}

static void place(struct tui_accel *t, enum tui_accel_win v, int y, int x, int h, int w,
                  bool framed)
{
    t->frame[v] = newwin(h, w, y, x);
    t->inner[v] = framed ? derwin(t->frame[v], h - 2, w - 2, 1, 1) : t->frame[v];
}

static void relayout(struct tui_accel *t)
{
    free_windows(t);
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    t->too_small = rows < TUI_MIN_ROWS || cols < TUI_MIN_COLS;
    erase();
    wnoutrefresh(stdscr);
    if (t->too_small)
        return;
    int lanes = 2 * (int)tui_accel_nprocs(t) + 1; /* kernels and copies, and the axis */
    int lat = view_accel_latency_rows(t) + 2;
    int tl = lanes + 2;
    int room = rows - 3; /* header, status line, key bar */
    if (tl > room - 9)
        tl = room - 9;
    if (tl < 5)
        tl = 5;
    int bottom = room - tl;
    if (lat < 9)
        lat = 9;
    if (bottom > lat && tl < lanes + 2)
        tl += bottom - lat; /* more lanes, when the latency panel has room to spare */
    bottom = room - tl;
    int left = cols - 28;
    place(t, TA_HEADER, 0, 0, 1, cols, false);
    place(t, TA_TIMELINE, 1, 0, tl, cols, true);
    place(t, TA_LATENCY, 1 + tl, 0, bottom, left, true);
    place(t, TA_SYSTEM, 1 + tl, left, bottom, cols - left, true);
    place(t, TA_STATUS, rows - 2, 0, 2, cols, false);
}

static void draw_header(const struct tui_accel *t, WINDOW *w)
{
    const struct tui_style *st = &t->style;
    wbkgdset(w, st->header);
    werase(w);
    const char *state = !t->live         ? "REPLAY"
                        : t->st.error[0] ? "STOPPED"
                        : t->st.finished ? "LIVE finished"
                        : t->st.busy     ? (t->st.running ? "LIVE running" : "LIVE computing")
                        : t->st.running  ? "LIVE running"
                                         : "LIVE paused";
    int pred = t->live ? t->st.predictor : accel_predictor_find(t->rec.predictor);
    char step[32] = "";
    if (t->live)
        snprintf(step, sizeof step, "step %u  ", t->st.steps);
    char now[32];
    int x = tui_print(w, 0, 0, " corun  %s  %s  t %s ms  %spredictor %s  %s%s",
                      t->rec.scenario_name ? t->rec.scenario_name : "", t->rec.gpu_preset,
                      accel_ms_text(now, sizeof now, tui_accel_now_ns(t) / 1e6), step,
                      pred > 0 ? accel_predictor_name(pred) : "none", state, t->live ? "" : " ");
    if (!t->live) /* a long path keeps its end, the file's name (it was cut at the edge) */
        tui_print_tail(st, w, 0, x, getmaxx(w) - x, t->path);
}

/* Whether the record has an LS application (so the first step runs each alone first). */
static bool has_ls(const struct tui_accel *t)
{
    for (unsigned a = 0; a < t->rec.napps; a++)
        if (t->rec.app[a].role == ACCEL_LS)
            return true;
    return false;
}

/* Whether the first step is under way: with an LS application, it measures each alone (the
 * reference of its QoS target) before the applications run together, which takes minutes
 * with many queries while the time shown stays at 0. */
static bool first_step(const struct tui_accel *t)
{
    return !t->st.steps && !t->st.error[0] && (t->st.running || t->st.queued || t->st.stepping);
}

/* What the first step is doing, into buf: the application being measured alone and how far
 * (the note said "running" at t 0.000 ms for minutes). */
static const char *solo_note(const struct tui_accel *t, char *buf, size_t n)
{
    if (t->st.solo_total && t->st.solo_app < t->rec.napps)
        snprintf(buf, n,
                 "measuring %s alone: %u of %u queries (its QoS reference), then all together",
                 t->rec.app[t->st.solo_app].name, t->st.solo_done, t->st.solo_total);
    else
        snprintf(buf, n, "measuring the LS applications alone first (their QoS reference)");
    return buf;
}

/* After Space or r, the run's state as it is now (the note said "step queued" or "running"
 * long after the step was done or the run had ended), into buf when it has figures. */
static const char *state_note(const struct tui_accel *t, char *buf, size_t n)
{
    if (t->st.finished)
        return "the run has ended (s saves it)";
    if (first_step(t) && has_ls(t))
        return solo_note(t, buf, n);
    if (t->st.running)
        return "running";
    if (t->st.queued || t->st.busy)
        return "step queued";
    return t->st.steps ? "paused" : "";
}

static void draw_status(const struct tui_accel *t, WINDOW *w)
{
    const struct tui_style *st = &t->style;
    werase(w);
    if (t->prompting) {
        tui_print(w, 0, 0, "Save to: %s", t->prompt);
        wattron(w, st->dim);
        tui_print(w, 1, 0, "Enter saves, Esc cancels");
        wattroff(w, st->dim);
        return;
    }
    if (t->st.error[0]) {
        wattron(w, st->key);
        tui_print(w, 0, 0, "%s", t->st.error);
        wattroff(w, st->key);
    } else {
        char buf[TUI_PROMPT_MAX];
        tui_print(w, 0, 0, "%s",
                  t->live && t->note_is_state ? state_note(t, buf, sizeof buf) : t->note);
    }
    int x = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        if (!(t->live ? keys[i].live : keys[i].replay))
            continue;
        const char *label = keys[i].label[0] == 'F' ? "?" : keys[i].label;
        if (strcmp(label, "Left Right") == 0)
            label = st->utf8 ? "\u2190\u2192" : "<>";
        else if (strcmp(label, "Home End") == 0)
            label = "Home/End";
        else if (strcmp(label, "+ -") == 0)
            label = "+-";
        wattron(w, st->key);
        x += tui_print(w, 1, x, "%s", label);
        wattroff(w, st->key);
        x += tui_print(w, 1, x, " %s ", keys[i].bar);
    }
}

static void draw_help(const struct tui_accel *t)
{
    int rows, cols;
    getmaxyx(stdscr, rows, cols);
    /* As wide as every key's text on one line needs, where the screen allows. */
    int wd = 78;
    for (size_t i = 0; i < NKEYS; i++) {
        int need = tui_columns(keys[i].help) + 17; /* frame, margin, label column */
        wd = need > wd ? need : wd;
    }
    wd = cols - 4 < wd ? cols - 4 : wd;
    int h = tui_help_accel_rows(keys, NKEYS, t->live, wd - 2) + 2;
    if (h > rows - 2)
        h = rows - 2;
    WINDOW *frame = newwin(h, wd, (rows - h) / 2, (cols - wd) / 2);
    WINDOW *in = derwin(frame, h - 2, wd - 2, 1, 1);
    werase(frame);
    tui_frame(&t->style, frame, "Help: the accelerator view", true);
    tui_help_accel_draw(&t->style, in, keys, NKEYS, t->live);
    wnoutrefresh(frame);
    wnoutrefresh(in);
    delwin(in);
    delwin(frame);
}

static void frame(struct tui_accel *t)
{
    if (t->too_small) { /* as the spatial workbench says it */
        tui_draw_too_small(&t->style, "q quits");
        return;
    }
    static const char *const titles[TA_COUNT] = {NULL, "Timeline", "LS latency vs QoS target",
                                                 "Utilization", NULL};
    for (unsigned i = 0; i < TA_COUNT; i++) {
        werase(t->frame[i]);
        if (titles[i])
            tui_frame(&t->style, t->frame[i], titles[i], false);
    }
    draw_header(t, t->inner[TA_HEADER]);
    view_accel_timeline(t, t->inner[TA_TIMELINE]);
    view_accel_latency(t, t->inner[TA_LATENCY]);
    view_accel_system(t, t->inner[TA_SYSTEM]);
    draw_status(t, t->inner[TA_STATUS]);
    for (unsigned i = 0; i < TA_COUNT; i++) {
        wnoutrefresh(t->frame[i]);
        if (t->inner[i] != t->frame[i])
            wnoutrefresh(t->inner[i]);
    }
    if (t->help)
        draw_help(t);
    doupdate();
}

/* ---- keys ---- */

static void default_path(char *buf, size_t n)
{
    time_t now = time(NULL);
    struct tm tm;
    localtime_r(&now, &tm);
    strftime(buf, n, "corun-accel-%Y%m%d-%H%M%S.h5", &tm);
}

static void save(struct tui_accel *t)
{
    char err[TUI_PROMPT_MAX + 128];
    t->note_is_state = false;
    if (accel_runfile_write(t->prompt, &t->rec, err, sizeof err) != 0) {
        snprintf(t->note, sizeof t->note, "not saved: %s", err);
        return;
    }
    snprintf(t->path, sizeof t->path, "%s", t->prompt);
    t->saved_steps = t->st.steps;
    int64_t id = 0;
    char now[32];
    int n = snprintf(t->note, sizeof t->note, "saved %zu tasks and %zu queries (%s ms, %s) to %s",
                     t->rec.ntasks, t->rec.nqueries,
                     accel_ms_text(now, sizeof now, tui_accel_now_ns(t) / 1e6),
                     t->rec.complete ? "the whole run" : "part way", t->path);
    size_t used = n < 0 ? 0 : (size_t)n < sizeof t->note ? (size_t)n : sizeof t->note - 1;
    t->saved_uncataloged =
        accel_record_catalog(&t->rec, t->path, t->catalog, &id, err, sizeof err) != 0;
    if (t->saved_uncataloged) {
        n = snprintf(t->note + used, sizeof t->note - used, ", ");
        if (n > 0 && (size_t)n < sizeof t->note - used)
            tui_catalog_failed(t->note + used + (size_t)n, sizeof t->note - used - (size_t)n,
                               t->path, t->catalog, err);
    } else
        snprintf(t->note + used, sizeof t->note - used, " (catalog run a%lld)", (long long)id);
}

/* s: the save prompt, once the applications have run together. Before the first step ends
 * there is nothing of the run to keep, only the solo runs under way (a save then wrote a run
 * of no task with a solo p99 of 0), so it says why and when it can, as corun run does. */
static void ask_save(struct tui_accel *t)
{
    if (t->st.steps) {
        t->prompting = true;
        default_path(t->prompt, sizeof t->prompt);
        return;
    }
    t->note_is_state = false;
    if (first_step(t) && has_ls(t))
        snprintf(t->note, sizeof t->note,
                 "nothing to save yet: the first step measures the LS applications alone; s saves "
                 "after it");
    else
        snprintf(t->note, sizeof t->note,
                 "nothing to save yet: nothing has run (Space steps, r runs)");
}

static bool prompt_key(struct tui_accel *t, int ch)
{
    size_t len = strlen(t->prompt);
    if (ch == 27) {
        t->prompting = false;
        t->note_is_state = false;
        snprintf(t->note, sizeof t->note, "not saved");
    } else if (ch == '\n' || ch == '\r' || ch == KEY_ENTER) {
        t->prompting = false;
        if (len)
            save(t);
    } else if ((ch == KEY_BACKSPACE || ch == 127 || ch == 8) && len) {
        t->prompt[len - 1] = '\0';
    } else if (ch == 21) { /* Ctrl-U */
        t->prompt[0] = '\0';
    } else if (ch >= 32 && ch < 256 && len + 1 < sizeof t->prompt) {
        t->prompt[len] = (char)ch;
        t->prompt[len + 1] = '\0';
    }
    return false;
}

static void pan(struct tui_accel *t, double by)
{
    double now = tui_accel_now_ns(t);
    double end = (t->follow ? now : t->end_ns) + by;
    if (end < t->span_ns)
        end = t->span_ns;
    t->follow = end >= now;
    t->end_ns = t->follow ? now : end;
}

/* The run's end in ns once it is known (a replay, a live run finished), else 0. */
static double run_end_ns(const struct tui_accel *t)
{
    return !t->live || t->st.finished ? tui_accel_now_ns(t) : 0;
}

/* The timeline's span set to span (within its limits): following the run, its right edge
 * stays at the time now; at the run's start, its left edge stays there; elsewhere its middle
 * stays where it is (it kept the right edge, so zooming in lost what was in the middle's left).
 * Zoomed out, it shows the whole of an ended run at most (it showed empty time after it). */
static void zoom(struct tui_accel *t, double span)
{
    double end = run_end_ns(t);
    if (end > 0 && span > end)
        span = end;
    if (span > MAX_SPAN_NS || (span < MIN_SPAN_NS && span < t->span_ns) || span == t->span_ns)
        return;
    if (!t->follow) {
        double start = t->end_ns - t->span_ns;
        t->end_ns = start <= 0 ? span : t->end_ns + (span - t->span_ns) / 2;
    }
    t->span_ns = span;
    if (!t->follow)
        pan(t, 0);
}

/* The scenario a replayed run was made from, as its file names it. */
static const char *scenario_of(const struct tui_accel *t)
{
    return t->rec.scenario_path && t->rec.scenario_path[0] ? t->rec.scenario_path : "SCENARIO";
}

/* b, o and s, which the spatial workbench's replay takes, and Space, r and p, which a live
 * run here takes, say why a replay does not (they did nothing, without a word) and what does
 * it instead. */
static void replay_key(struct tui_accel *t, int ch)
{
    const char *sc = scenario_of(t);
    if (ch == ' ' || ch == 'r' || ch == 'p')
        snprintf(t->note, sizeof t->note,
                 "%s: a replay shows the run as recorded; corun tui %s runs it live (Space "
                 "steps, r runs, p picks a predictor)",
                 ch == ' '   ? "Space"
                 : ch == 'r' ? "r"
                             : "p",
                 sc);
    else if (ch == 'b')
        snprintf(t->note, sizeof t->note,
                 "b: an accelerator run has no branch; run its scenario again: corun tui %s "
                 "(live, p changes the predictor) or corun run %s",
                 sc, sc);
    else if (ch == 'o')
        snprintf(t->note, sizeof t->note,
                 "o: this view opens no other file; quit (q), then corun replay OTHER.h5");
    else if (ch == 's')
        snprintf(t->note, sizeof t->note,
                 "s: nothing to save, this run is its file already; corun export copies it to "
                 "CSV, corun tui %s runs it live (where s saves)",
                 sc);
}

/* Returns true to quit. */
static bool key(struct tui_accel *t, int ch)
{
    if (t->help) {
        t->help = false;
        return false;
    }
    if (t->prompting)
        return prompt_key(t, ch);
    switch (ch) {
    case 'q': return true;
    case '?':
    case KEY_F(1): t->help = true; break;
    case KEY_LEFT: pan(t, -t->span_ns / 2); break;
    case KEY_RIGHT: pan(t, t->span_ns / 2); break;
    case KEY_HOME:
        t->follow = false;
        t->end_ns = t->span_ns;
        break;
    case KEY_END: t->follow = true; break;
    case '+':
    case '=': zoom(t, t->span_ns / 2); break;
    case '-': zoom(t, t->span_ns * 2); break;
    case 12: clearok(curscr, TRUE); break; /* Ctrl-L */
    default:
        if (!t->live) {
            replay_key(t, ch);
            break;
        }
        if (ch == ' ') {
            tui_accel_worker_step(t->worker);
            t->note_is_state = true;
        } else if (ch == 'r') {
            tui_accel_worker_run(t->worker, !t->st.running);
            t->note_is_state = true;
        } else if (ch == 'p') {
            t->note_is_state = false;
            int next = (t->st.predictor + 1) % ACCEL_PREDICTORS; /* none first */
            tui_accel_worker_set_predictor(t->worker, next);
            snprintf(t->note, sizeof t->note, "predictor %s%s", accel_predictor_name(next),
                     next ? " (its forecast of every LS query from solo-run profiles)" : "");
        } else if (ch == 's') {
            ask_save(t);
        }
    }
    return false;
}

/* ---- the loop ---- */

#define NQUIT_SIGNALS 3
static const int quit_signals[NQUIT_SIGNALS] = {SIGINT, SIGTERM, SIGHUP};

static void loop(struct tui_accel *t)
{
    unsigned shown_procs = tui_accel_nprocs(t);
    for (;;) {
        if (t->live && tui_accel_worker_take(t->worker, &t->rec, &t->st) &&
            tui_accel_nprocs(t) != shown_procs) {
            shown_procs = tui_accel_nprocs(t);
            relayout(t);
        }
        if (t->st.notice[0]) { /* a failed forecast: the note until a key makes another */
            snprintf(t->note, sizeof t->note, "%s", t->st.notice);
            t->note_is_state = false;
            t->st.notice[0] = '\0';
        }
        frame(t);
        wtimeout(stdscr,
                 t->live && (t->st.busy || t->st.running) ? BUSY_TIMEOUT_MS : IDLE_TIMEOUT_MS);
        int ch = wgetch(stdscr);
        if (accel_quit_signal)
            return;
        if (ch == ERR)
            continue;
        if (ch == KEY_RESIZE) {
            relayout(t);
            continue;
        }
        if (t->too_small && ch != 'q')
            continue;
        if (key(t, ch))
            return;
    }
}

static int run(struct tui_accel *t, const struct tui_options *opt)
{
    struct sigaction sa, old[NQUIT_SIGNALS];
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_quit_signal;
    sigemptyset(&sa.sa_mask);
    for (unsigned i = 0; i < NQUIT_SIGNALS; i++)
        sigaction(quit_signals[i], &sa, &old[i]);
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (!screen) {
        fprintf(stderr, "corun: cannot initialise the terminal (is TERM set?)\n");
        for (unsigned i = 0; i < NQUIT_SIGNALS; i++)
            sigaction(quit_signals[i], &old[i], NULL);
        return -1;
    }
    tui_term_modes();
    tui_style_init(&t->style, opt->projector);
    t->span_ns = DEFAULT_SPAN_NS;
    if (run_end_ns(t) > 0 && run_end_ns(t) < t->span_ns)
        t->span_ns = run_end_ns(t); /* a short run: the whole of it, no empty time after */
    t->follow = true;
    relayout(t);
    loop(t);
    free_windows(t);
    endwin();
    delscreen(screen);
    for (unsigned i = 0; i < NQUIT_SIGNALS; i++)
        sigaction(quit_signals[i], &old[i], NULL);
    return 0;
}

int tui_accel_main(const struct accel_scenario *sc, const struct tui_options *opt)
{
    struct tui_accel *t = xcalloc(1, sizeof(*t));
    t->live = true;
    t->catalog = opt->catalog;
    char err[768];
    t->worker = tui_accel_worker_start(sc, STEP_NS, ACCEL_PREDICT_NONE, err, sizeof err);
    if (!t->worker) {
        fprintf(stderr, "corun: %s: %s\n", sc->path, err);
        free(t);
        return -1;
    }
    /* The first snapshot (nothing run yet) gives the layout its processes. */
    while (!tui_accel_worker_take(t->worker, &t->rec, &t->st)) {
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    snprintf(t->note, sizeof t->note,
             "ready: Space steps ~%.1f ms of GPU time, r runs, p picks a predictor, ? helps",
             STEP_NS / 1e6);
    int rc = run(t, opt);
    /* Quit abandons a step in flight: the worker stops at the next turn of the run. */
    tui_accel_worker_stop(t->worker);
    /* The status line is one row, cut at the screen's width: a save whose catalog failed is
     * said again whole, with the command that adds its row. */
    if (rc == 0 && t->path[0] && t->saved_uncataloged)
        fprintf(stderr,
                "corun: the run was last saved to %s, but not to the catalog: add it with `corun "
                "runs add %s%s%s`\n",
                t->path, t->path, t->catalog ? " --catalog " : "", t->catalog ? t->catalog : "");
    else if (rc == 0 && t->path[0])
        fprintf(stderr, "corun: the run was last saved to %s\n", t->path);
    accel_record_done(&t->rec);
    free(t);
    return rc;
}

int tui_accel_replay(struct accel_record *rec, const char *path, const struct tui_options *opt)
{
    struct tui_accel *t = xcalloc(1, sizeof(*t));
    t->rec = *rec;
    memset(rec, 0, sizeof(*rec));
    snprintf(t->path, sizeof t->path, "%s", path);
    snprintf(t->note, sizeof t->note, "REPLAY of %s (%s): Left/Right pan, +/- zoom, ? helps", path,
             t->rec.complete ? "the whole run" : "saved part way");
    int rc = run(t, opt);
    accel_record_done(&t->rec);
    free(t);
    return rc;
}
