/* tui_internal — what the workbench's files share, and nothing outside src/tui sees: the model
 * the views draw from, the view, overlay and key tables, the worker thread, and the drawing
 * helpers. Layer: tui.
 *
 * Data flows one way. The worker thread owns the session while the workbench runs and
 * publishes a copy of every finished epoch; the input thread moves those copies into struct
 * tui (the snapshot), says what changed with tui_changed, and the frame redraws the views that
 * depend on it. Views and overlays only read the snapshot; key handlers change UI state or ask
 * the worker for something, never the session itself.
 *
 * The workbench switches sessions (o opens a run file, b branches a replay): the input thread
 * stops the worker, deletes the old session, copies the new one's epochs and events into the
 * snapshot (tui_attach) and starts a worker on it. */
#ifndef CORUN_TUI_INTERNAL_H
#define CORUN_TUI_INTERNAL_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>

#include "corun/lesson.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "tui_worker.h"

/* ---- the look: colours, attributes and glyphs (tui_style.c) ---- */

struct tui_style {
    bool color;                     /* a colour terminal and NO_COLOR unset or empty */
    bool utf8;                      /* UTF-8 locale on a terminal that is not a VT100-like one */
    attr_t kernel[GPU_MAX_KERNELS]; /* kernel k's text */
    attr_t cell[GPU_MAX_KERNELS];   /* kernel k's SM-map cells */
    attr_t idle, gated, title, focus, header, dim, bar, key, strong;
    const char *dash; /* a value that does not exist (yet) */
    const char *bar_full, *bar_empty;
    const char *level[9]; /* 0/8 .. 8/8 of a cell, for sparklines */
    const char *idle_sm, *gated_sm;
    const char *times, *sep; /* "x" in 80x24, a field separator */
};

/* Chooses colours and glyphs after the terminal is set up (reads NO_COLOR, LANG, TERM); the
 * projector theme is bold and high-contrast (still monochrome under NO_COLOR). */
void tui_style_init(struct tui_style *st, bool projector);
/* The terminal modes every view runs in (after initscr): keys unbuffered and unechoed, keypad
 * keys decoded, Home and End as tmux sends them, no cursor, a short Esc delay. */
void tui_term_modes(void);
/* Deletes n framed windows (frame[i], and inner[i] inside it when it is another window). */
void tui_free_frames(WINDOW **frame, WINDOW **inner, unsigned n);

/* ---- the snapshot and UI state ---- */

enum tui_view_id {
    TUI_V_HEADER,
    TUI_V_KERNELS,
    TUI_V_CHART,
    TUI_V_SMMAP,
    TUI_V_SYSTEM,
    TUI_V_DRAM,
    TUI_V_LOG,
    TUI_V_EXPLAIN,
    TUI_V_LESSON,
    TUI_V_KEYBAR,
    TUI_V_COUNT
};

/* What changed, so that only the views that show it redraw. */
enum tui_change {
    TUI_CH_EPOCH = 1 << 0,    /* a new epoch arrived (or the one shown moved) */
    TUI_CH_PROGRESS = 1 << 1, /* the epoch in flight advanced */
    TUI_CH_STATE = 1 << 2,    /* running / paused / speed / queue */
    TUI_CH_SELECT = 1 << 3,   /* the selected kernel */
    TUI_CH_FOCUS = 1 << 4,    /* the focused panel */
    TUI_CH_LOG = 1 << 5,      /* the event log */
    TUI_CH_SCREEN = 1 << 6,   /* the windows were rebuilt or uncovered: every view */
    TUI_CH_ALL = ~0
};

/* What a key handler did (htop's reaction bitmask). */
enum tui_reaction {
    TUI_R_HANDLED = 1 << 0, /* the key was for this handler */
    TUI_R_REPAINT = 1 << 1, /* repaint the whole terminal */
    TUI_R_QUIT = 1 << 2,
};

struct tui_epoch {
    struct session_epoch e;
    int *owner; /* the partition after the epoch */
    double wall_s;
    struct predict_text *explain; /* per kernel, or NULL (no predictor, or a replay) */
};

#define TUI_LOG_LINES 256
#define TUI_LOG_WIDTH 320 /* an event's text (256 bytes) and its stamp */

struct tui_log {
    char line[TUI_LOG_LINES][TUI_LOG_WIDTH];
    unsigned first, count; /* a ring: oldest at first */
};

struct tui;
struct tui_overlay;

#define TUI_PROMPT_MAX 1024

/* The text field of an input overlay (tui_prompt.c) and what accepting it does. */
struct tui_prompt {
    char title[48], label[96];
    char text[TUI_PROMPT_MAX];
    char error[256]; /* why the last value was refused, shown under the field */
    /* Called with the text on Enter; closes the overlay, or sets error and keeps it. */
    int (*accept)(struct tui *t, const char *text);
};

/* A predictor or allocator switch of a replay's event log. */
struct tui_switch { /* an allocator switch of a replay */
    unsigned epoch; /* epochs done when it happened: in force from epoch index epoch on */
    char name[32];
};

struct tui {
    const struct scenario *sc; /* the session's */
    struct session *session;   /* the worker's while it runs; see tui_attach */
    const char *datadir;       /* for run files opened with o */
    const char *catalog;       /* saves' rows and the trace cache; NULL: the default */
    struct tui_worker *worker;
    struct tui_style style;

    /* The snapshot: epochs published by the worker, oldest first. */
    struct tui_epoch *epochs;
    unsigned nepochs, cap;
    int *owner;     /* the current partition (before any epoch: the session's initial one) */
    unsigned sms;   /* entries in owner */
    bool live;      /* LIVE, or REPLAY of run_path */
    unsigned shown; /* in a replay: the index of the epoch on screen */
    char run_path[TUI_PROMPT_MAX];        /* replayed from or recording to; "" none */
    char saved_note[TUI_PROMPT_MAX + 96]; /* what tui_detach did with a recording; "" none */
    bool recording;
    unsigned saved_epochs; /* epochs kept in a run file: q asks when more exist and unrecorded */
    bool branching;        /* the worker is computing a branch after branch_at epochs */
    bool rewinding;        /* that branch rewinds the live run (Left) */
    unsigned branch_at;
    bool running; /* as last published by the worker */
    bool busy;
    unsigned queued;
    double progress;
    unsigned speed;     /* index into the pace table (tui_keys.c) */
    char predictor[16]; /* the live session's active predictor ("none") */
    char allocator[32]; /* the live session's active allocator ("static") */
    /* In a replay: the allocator switches of its event log, oldest first, starting with the one
     * in force at epoch 0 (the replay names each epoch's predictor itself). */
    struct tui_switch *switches;
    unsigned nswitches;
    /* Every kernel the run has had (names by stable index) and the pending mix changes, as
     * the worker last published them: the input thread never reads the scenario's kernels,
     * which the worker extends when one joins. */
    struct tui_mix mix;
    unsigned attached_kernels; /* mix.n when the session was attached: its scenario's mix */

    /* UI state. */
    unsigned selected; /* kernel */
    enum tui_view_id focus;
    unsigned log_scroll; /* lines back from the newest */
    struct tui_log log;
    const struct tui_overlay *overlay; /* a modal window on top (help), or NULL */
    struct tui_prompt prompt;          /* the input overlay's */
    char message_title[48];            /* the message overlay's title, */
    char *message;                     /* text (heap; freed when the workbench ends), */
    unsigned message_top;    /* and first wrapped line shown, when it takes more than a page */
    bool message_passes_key; /* a notice: the key that closes it also acts (tui_notice) */
    const struct tui_overlay *message_back; /* opened again when the message closes, or NULL */
    unsigned menu_sel;                      /* a menu's highlighted row */
    char menu_note[64];              /* why a menu's last key did nothing, in place of its hint */
    unsigned help_page;              /* the help's page shown, when it takes several */
    char param_key[64];              /* the parameter being edited */
    char param_text[TUI_PROMPT_MAX]; /* the value the editor sent for it ("" once answered) */
    /* What y does in the unsaved-run question: NULL quits; else the action (o's prompt). */
    int (*discard)(struct tui *t);

    /* The kernel picker (tui_picker.c): the library, loaded when first opened. */
    struct tui_pick {
        char name[32], suite[16], cls[16], description[160];
    } * picker;
    unsigned npicker, picker_sel;
    char picker_filter[32];

    /* The classroom (tui_lesson.c). */
    bool projector;
    const struct lesson *lesson;  /* NULL: none */
    bool lesson_shown;            /* L shows and hides the panel */
    unsigned step;                /* the step shown */
    unsigned steps_opened;        /* steps whose actions have run (n opens the next one) */
    enum tui_view_id side;        /* the lesson layout's panel under the chart */
    enum tui_view_id layout_side; /* the one the windows were built for */
    /* Predict, then reveal: the truth of epochs from hide_from on stays hidden while hiding;
     * once guess_due epochs are done the guess form opens. */
    bool hiding, guess_offered; /* the form opened by itself once: after Esc, g opens it */
    unsigned hide_from, guess_due;
    unsigned guess_step;          /* the lesson step whose epochs the class guesses */
    unsigned nguess, guess_field; /* fields of the form (kernels shown, fairness, STP), next */
    unsigned guess_kernel[GPU_MAX_KERNELS];
    double guess[GPU_MAX_KERNELS + 2];
    unsigned score_hits, score_guesses; /* over the lesson so far */

    /* The screen: one frame window per view and the interior the view draws in. */
    WINDOW *frame[TUI_V_COUNT], *inner[TUI_V_COUNT];
    WINDOW *overlay_win;
    unsigned layout_kernels; /* the kernel table's rows in the layout: rebuilt when it changes */
    unsigned dirty;          /* one bit per view */
    bool overlay_dirty;
    bool too_small;
};

/* Makes s (live or a replay) the workbench's session (tui_snapshot.c): the snapshot is
 * rebuilt from its epochs and events and a worker started on it. No worker may be running. */
void tui_attach(struct tui *t, struct session *s);
/* Stops the worker and deletes its session: the snapshot stays until tui_attach. */
void tui_detach(struct tui *t);
/* A save whose file was written but whose catalog row failed (err), as a note's end, into buf:
 * "but the catalog failed (add it later with `corun runs add PATH [--catalog CATALOG]`):
 * ERR" (catalog NULL: the default one, which the command needs no option for). */
void tui_catalog_failed(char *buf, size_t n, const char *path, const char *catalog,
                        const char *err);
/* Marks dirty the views whose content depends on what changed. */
void tui_changed(struct tui *t, unsigned changes);
/* The epoch on screen: the newest (live) or the one moved to (replay); NULL before the first. */
const struct tui_epoch *tui_shown(const struct tui *t);
/* The kernels in the mix of the epoch shown (before the first epoch, the current mix): marks
 * in[k] (when in is not NULL) and returns how many. */
unsigned tui_mix_shown(const struct tui *t, bool in[GPU_MAX_KERNELS]);
/* Kernel k's name ("?" beyond the kernels published). */
const char *tui_kernel_name(const struct tui *t, unsigned k);
/* Keeps the selection on a kernel of the mix shown: one that left it gives way to the next
 * (else the previous). Returns true when the selection moved. */
bool tui_select_in_mix(struct tui *t);
/* Adds a line to the event log, stamped with the epoch count. */
void tui_log(struct tui *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Removes the newest line of the event log when its text (after the stamp) starts with
 * prefix, so that a setting stepped through many values leaves one line, not one a step. */
void tui_log_drop_last(struct tui *t, const char *prefix);
/* Adds a session event to the event log ("KIND: TEXT"), stamped with its own epoch. */
void tui_log_event(struct tui *t, const struct session_event *ev);

/* ---- the session behind the snapshot (tui_snapshot.c) ---- */

/* Acts on an outcome: the snapshot, the log, a dialog. Returns true when the screen must be
 * rebuilt (a branch replaced the session). */
bool tui_take_outcome(struct tui *t, const struct tui_outcome *o);
/* Frees the snapshot (at the end: after tui_detach). */
void tui_snapshot_done(struct tui *t);
/* Logs the worker's new session events; allocator switches also update the header. */
void tui_take_events(struct tui *t);
/* Rebuilds the allocator of s (live: the active one) and, for a replay, its recorded allocator
 * switches. */
void tui_switches_load(struct tui *t, const struct session *s);
/* The allocator and predictor of epoch index i: the live ones, or in a replay the ones in force
 * then (the predictor as the replay names it; "none" when unpredicted). */
const char *tui_allocator_at(const struct tui *t, unsigned i);
const char *tui_predictor_at(const struct tui *t, unsigned i);
/* The label of a run pace ("max", "2/s") and its interval in seconds. */
const char *tui_speed_label(unsigned speed);
double tui_speed_interval(unsigned speed);

/* ---- views (view_*.c, table in tui_views.c) ---- */

struct tui_view {
    const char *title; /* NULL: no frame (header, key bar) */
    unsigned deps;     /* TUI_CH_* that change what it shows */
    bool focusable;
    /* Draws into w, the interior, already erased. */
    void (*draw)(const struct tui *t, WINDOW *w);
    /* Optional: a title with live content into buf (else title is used); cols is the width of
     * the interior. */
    void (*title_fn)(const struct tui *t, int cols, char *buf, size_t n);
    /* Optional: a key while the view has focus, before the key table; TUI_R_* or 0. */
    int (*key)(struct tui *t, int ch);
};

extern const struct tui_view tui_view_header, tui_view_kernels, tui_view_chart, tui_view_smmap,
    tui_view_system, tui_view_dram, tui_view_log, tui_view_explain, tui_view_lesson,
    tui_view_keybar;
extern const struct tui_view *const tui_views[TUI_V_COUNT];

struct tui_rect {
    int y, x, h, w;
};

#define TUI_MIN_ROWS 24
#define TUI_MIN_COLS 80

/* What decides the layout besides the size. */
struct tui_layout_opts {
    bool projector;        /* a taller chart */
    bool lesson;           /* the lesson panel is shown */
    enum tui_view_id side; /* with the lesson: the panel under the chart (system, DRAM, SM map,
                            * explain; else the event log) */
};

/* Places the views on a rows x cols screen; a view left out has a rectangle of height 0.
 * Returns 0, or -1 when it is below 80x24. */
int tui_layout(int rows, int cols, unsigned nkernels, const struct tui_layout_opts *o,
               struct tui_rect out[TUI_V_COUNT]);
/* Whether view v is on the screen now. */
bool tui_view_shown(const struct tui *t, enum tui_view_id v);

/* ---- overlays: modal windows on top of the views (help, input fields, messages) ---- */

struct tui_overlay {
    const char *title;
    /* Optional: a title that depends on the state (else title). */
    const char *(*title_fn)(const struct tui *t);
    /* Its size on a rows x cols screen. */
    void (*size)(const struct tui *t, int rows, int cols, int *h, int *w);
    void (*draw)(const struct tui *t, WINDOW *w);
    /* Every key goes here while the overlay is open; TUI_R_*. */
    int (*key)(struct tui *t, int ch);
    /* With the lesson panel shown, it opens in the left half (size is given that half's
     * columns), so the step's text stays readable beside it (a guess form asks about it). */
    bool beside_lesson;
};

extern const struct tui_overlay tui_overlay_help, tui_overlay_prompt, tui_overlay_message,
    tui_overlay_quit, tui_overlay_predictor, tui_overlay_allocator, tui_overlay_params,
    tui_overlay_mix, tui_overlay_picker;

/* Opens the predictor menu (tui_menu.c): "none" and every registered predictor. */
void tui_predictor_menu(struct tui *t);
/* Opens the allocator menu (tui_menu.c): every registered allocator. */
void tui_allocator_menu(struct tui *t);
/* Opens the parameter editor (tui_params.c): the session's editable parameters. */
void tui_params_editor(struct tui *t);
/* The worker refused the value the editor sent: while the editor is open, its field opens
 * again with the text typed and why under it (true); else false, for a dialog. */
bool tui_params_refused(struct tui *t, const char *why);

/* Opens the mix editor (tui_mix.c): the kernels in the mix, adding one from the library,
 * removing one, their priorities. */
void tui_mix_editor(struct tui *t);

/* Opens the kernel picker (tui_picker.c): every library kernel with its suite, class and
 * description, filtered as the user types; Enter adds one to the mix. */
void tui_kernel_picker(struct tui *t);

/* Opens the input overlay with title, label, an initial text and what Enter does. */
void tui_prompt_open(struct tui *t, const char *title, const char *label, const char *text,
                     int (*accept)(struct tui *t, const char *text));
/* Opens a message dialog (an error, a question answered); any key closes it. */
void tui_message(struct tui *t, const char *title, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Frees the message overlay's text (as the workbench ends). */
void tui_message_free(struct tui *t);
/* Opens a notice: a message that needs no answer, so the key that closes it (other than Esc
 * and Enter) also does what it does without the notice. */
void tui_notice(struct tui *t, const char *title, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Opens the run file at path in REPLAY mode, or says in a dialog why it cannot be opened
 * and keeps the current run. Returns TUI_R_*. */
int tui_open_run(struct tui *t, const char *path);

/* Opens ov on top (NULL closes the one open). */
void tui_open_overlay(struct tui *t, const struct tui_overlay *ov);

/* ---- the classroom (tui_lesson.c) ---- */

/* Opens step 0 of the lesson, if any: its actions run. */
void tui_lesson_start(struct tui *t);
/* After epochs arrived: opens the guess form once a predict step's epochs are done. */
void tui_lesson_poll(struct tui *t);
/* Another run replaces the lesson's (o): the lesson and a pending guess end, logged. */
void tui_lesson_leave(struct tui *t);
/* Whether the truth (true NP, fairness, STP, QoS) of epoch index i is hidden for guessing. */
bool tui_hidden(const struct tui *t, unsigned i);
/* The classroom keys: n (next step), N (previous), L (panel) in a lesson; G (the next epoch
 * hidden until guessed) and g (the guess form) in any live run. */
int tui_lesson_key(struct tui *t, int ch);
/* The whole text of the step shown, lines separated by '\n' (the caller frees it). */
char *tui_lesson_text(const struct tui *t);

/* ---- keys (tui_keys.c) ---- */

/* The modes a key works in: one that does not apply is absent from the help and key bar. */
enum tui_mode {
    TUI_M_LIVE = 1 << 0,
    TUI_M_REPLAY = 1 << 1,
    TUI_M_ANY = TUI_M_LIVE | TUI_M_REPLAY,
    TUI_M_LESSON = 1 << 2, /* with the modes it works in: only while a lesson is open */
};

struct tui_key {
    int code;
    unsigned modes;         /* enum tui_mode */
    const char *label;      /* as the help lists it; NULL: an alias of the row above */
    const char *label_utf8; /* when it differs in a UTF-8 terminal (arrows) */
    const char *help;
    const char *bar; /* its name in the key bar, or NULL */
    int (*handle)(struct tui *t, int ch);
};

extern const struct tui_key tui_keys[];
extern const size_t tui_nkeys;

/* Sends ch to the overlay, the focused view, then the key table. Returns TUI_R_*. */
int tui_key_dispatch(struct tui *t, int ch);
/* Whether modes (enum tui_mode) include the current mode. */
bool tui_modes_active(const struct tui *t, unsigned modes);
/* Whether key row k works in the current mode. */
bool tui_key_active(const struct tui *t, const struct tui_key *k);
/* The label of key row k as shown on this terminal. */
const char *tui_key_label(const struct tui *t, const struct tui_key *k);

/* ---- drawing helpers (tui_draw.c, tui_chart.c) ---- */

/* printf at (y, x) in w, clipped to the window's right edge (never wraps). Returns the columns
 * written. */
int tui_print(WINDOW *w, int y, int x, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Like tui_print with the text right-aligned to end at column x_end (exclusive). */
int tui_print_right(WINDOW *w, int y, int x_end, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* text in exactly cols columns from column x: cut where a glyph would cross the last (a
 * name's bytes cut at a count could split a glyph, and a wide glyph took two columns), padded
 * with spaces. Returns the columns written. */
int tui_print_cols(WINDOW *w, int y, int x, int cols, const char *text);
/* Like tui_print, but text cut at the window's right edge ends in an ellipsis ("…", or "..."
 * without UTF-8), so that the cut shows. */
int tui_print_cut(const struct tui_style *st, WINDOW *w, int y, int x, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* text from column x in at most room columns (and not past the window's edge), its end cut
 * and shown cut by an ellipsis as tui_print_cut's. Returns the columns written. */
int tui_print_fit(const struct tui_style *st, WINDOW *w, int y, int x, int room, const char *text);
/* text (a path) from column x in at most room columns (and not past the window's edge); when
 * it is wider, its end after an ellipsis ("…", or "..."), so that a file's name stays in view.
 * Returns the columns written. */
int tui_print_tail(const struct tui_style *st, WINDOW *w, int y, int x, int room, const char *text);
/* Below TUI_MIN_COLS x TUI_MIN_ROWS: the notice saying so, centred, with the keys that act
 * (keys, e.g. "q quits") on its last line. */
void tui_draw_too_small(const struct tui_style *st, const char *keys);
/* Word-wraps text (a line break ends a row) to cols columns, drawing it from row y at column x
 * when w is not NULL. Returns the rows it takes. */
int tui_wrap(WINDOW *w, int y, int x, const char *text, int cols);
/* Text of lines separated by '\n' (the first in first_attr), wrapped into all of w; when it does
 * not fit, the last row says more (dimmed) instead. */
void tui_text_panel(const struct tui_style *st, WINDOW *w, const char *text, attr_t first_attr,
                    const char *more);
/* Display columns of a UTF-8 string. */
int tui_columns(const char *s);
/* A frame around w with title (focused: bracketed and highlighted). */
void tui_frame(const struct tui_style *st, WINDOW *w, const char *title, bool focused);
/* A bar of width cells filled to fraction. */
void tui_bar(const struct tui_style *st, WINDOW *w, int y, int x, int width, double fraction);
/* The sparkline glyph of a fraction in [0, 1]. */
const char *tui_level(const struct tui_style *st, double fraction);
/* n with thousands separators into buf. */
const char *tui_thousands(char *buf, size_t len, unsigned long long n);
/* The letter of kernel k ('A' + k). */
char tui_kernel_letter(unsigned k);

/* One series of a chart: values[i] for x = i (negative: no value), drawn as glyph in attr. */
struct tui_series {
    const double *values;
    char glyph;
    attr_t attr;
};

#define TUI_CHART_LABEL_COLS 5   /* "1.00" and the axis */
#define TUI_CHART_SEVERAL    '*' /* a cell where more points meet than their slot has room for */

/* A scatter chart of series in the top rows of w, y from 0 to y_max labelled on the left, the x
 * axis spanning span points (npoints of them drawn; more than span: all, squeezed) over the
 * width. Coinciding points stand side by side in their point's columns, or show as
 * TUI_CHART_SEVERAL when those are full; negative and non-finite values are not drawn, and a
 * non-finite y_max draws nothing. Returns whether TUI_CHART_SEVERAL was drawn. */
bool tui_chart(const struct tui_style *st, WINDOW *w, int rows, const struct tui_series *series,
               unsigned nseries, unsigned npoints, unsigned span, double y_max);

#endif
