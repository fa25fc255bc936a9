/* cli — the subcommand table of the `corun` program. One command per file (cmd_NAME.c), each
 * exporting a const struct cli_command; the table in cli.c lists them all. */
#ifndef CORUN_CLI_H
#define CORUN_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Exit statuses: 0 success, 1 a failure while running, 2 bad input or usage. */
enum { CLI_OK = 0, CLI_FAILED = 1, CLI_BAD_INPUT = 2 };

struct cli_command {
    const char *name;
    const char *args;    /* argument synopsis, e.g. "SCENARIO" */
    const char *summary; /* one line for `corun --help` */
    const char *help;    /* the rest of `corun help NAME`: options and examples */
    /* Optional: the help for these arguments when they narrow it (`corun reproduce hsm
     * --threshold --help`): prints it to out and returns true, or returns false for the
     * command's whole help. argv[0] is the command name. */
    bool (*help_for)(int argc, char **argv, FILE *out);
    /* argv[0] is the command name. Returns an exit status. */
    int (*run)(int argc, char **argv);
};

extern const struct cli_command cmd_check;
extern const struct cli_command cmd_dram_trace;
extern const struct cli_command cmd_run;
extern const struct cli_command cmd_solo;
extern const struct cli_command cmd_bench;
extern const struct cli_command cmd_show;
extern const struct cli_command cmd_export;
extern const struct cli_command cmd_branch;
extern const struct cli_command cmd_runs;
extern const struct cli_command cmd_help;
extern const struct cli_command cmd_tui;
extern const struct cli_command cmd_replay;
extern const struct cli_command cmd_kernels;
extern const struct cli_command cmd_calibrate;
extern const struct cli_command cmd_suite;
extern const struct cli_command cmd_train;
extern const struct cli_command cmd_sweep;
extern const struct cli_command cmd_reproduce;
/* Whether word names one of reproduce's experiments or its merge verb (for `help reproduce
 * WORD`). */
bool cli_reproduce_knows(const char *word);
extern const struct cli_command cmd_rbhshift;
extern const struct cli_command cmd_lesson;
extern const struct cli_command cmd_plot;
extern const struct cli_command cmd_slurm;

/* The command called name, or NULL. */
const struct cli_command *cli_find(const char *name);
/* The i-th command, or NULL past the end. */
const struct cli_command *cli_at(size_t i);
/* Print the usage line and options of cmd. */
void cli_print_command_help(const struct cli_command *cmd, FILE *out);
/* Help texts are wrapped to this many columns (util_fputs_wrapped). */
#define CLI_HELP_WIDTH 80
/* cmd's narrower help for argv (`corun help reproduce hsm --threshold`), wrapped; false when
 * it has none for them. */
bool cli_help_for(const struct cli_command *cmd, int argc, char **argv, FILE *out);
/* The width of the terminal stdout writes to, or 0 when it is not a terminal. */
int cli_terminal_columns(void);
/* Prints lead (a row's first columns, ASCII) and text on stdout: one line, or, on a terminal
 * too narrow for it, text wrapped with its later lines under its first. Pipes and files always
 * get one line a row. */
void cli_print_row(const char *lead, const char *text);
struct gpu_config;
struct kernel_profile;
/* Prints the occupancy of profile p on one SM of g ("N TBs of W warps per SM: ..., bound by
 * X") after lead, one line per kernel of an application of several (each marked "kernel i of
 * n"; the later lines indented to lead's width). */
void cli_print_occupancy(const char *lead, const struct gpu_config *g,
                         const struct kernel_profile *p);
/* "usage: corun NAME ARGS" for cmd on stderr, from the command table (a usage mistake). */
void cli_usage_error(const struct cli_command *cmd);
/* A help_for for a command's verb (`corun help sweep merge`): prints help to out and returns
 * true when argv[1] is verb. */
bool cli_help_verb(int argc, char **argv, const char *verb, const char *help, FILE *out);
/* Checks that argv[first..argc) holds exactly n operands (n is 1 or 2); otherwise says on
 * stderr what is missing (what: the operands, e.g. "a scenario file (SCENARIO)") or which
 * argument is one too many, then cmd's usage, and returns -1. */
int cli_operands(const struct cli_command *cmd, int argc, char **argv, int first, int n,
                 const char *what);
/* The file a command's SCENARIO (or SUITE) argument names: arg itself when it exists or is
 * absolute; else the one corun ships, datadir/under/arg or datadir/under/arg.cfg (`corun run
 * default`, `corun sweep hsm-pairs`), said on stderr; else arg, for the loader's message; NULL for
 * a bare name found nowhere, after a message on stderr of where it was looked for (and the
 * closest name there): the caller exits with CLI_BAD_INPUT. Free the result. */
char *cli_find_scenario(const char *arg, const char *datadir, const char *under);
/* The same over several directories, tried in order (`corun check NAME`: a scenario, then a
 * lesson). A bare name found nowhere gets a message of where it was looked for, and NULL. */
char *cli_find_scenario_in(const char *arg, const char *datadir, const char *const *unders,
                           size_t nunders);
/* The scenarios corun ships, which SCENARIO may name, as a paragraph of `corun --help`. */
void cli_print_shipped_scenarios(FILE *out);
/* Say on stderr why command name refused arg: an unknown option (with the nearest of options,
 * the NULL-terminated names of the ones it takes without their dashes, or NULL, when arg is a
 * long option near one), or a second argument after first (a command that takes one; NULL:
 * arg came first). */
void cli_refused_arg(const char *name, const char *arg, const char *first,
                     const char *const *options);
/* argv[i] as the workbench's --theme option ("--theme NAME" or "--theme=NAME", NAME projector or
 * default): returns the arguments it takes (1 or 2) and sets *projector; 0 when argv[i] is
 * something else; -1 with a message on stderr for a bad or missing NAME. */
int cli_theme_option(int argc, char **argv, int i, bool *projector);
/* The argument list of a workbench command (tui, lesson, replay). */
struct cli_workbench_args {
    const char *arg;     /* its one operand, or NULL ("-" counts as one when dash_ok) */
    bool projector;      /* --theme projector */
    const char *catalog; /* --catalog PATH, or NULL: the default catalog */
};
/* Parse argv into *wa: 0, or -1 after a message (and cmd's usage). */
int cli_workbench_args(int argc, char **argv, const struct cli_command *cmd, bool dash_ok,
                       struct cli_workbench_args *wa);
/* A catalog given to the workbench, opened (made when missing) before the screen starts, so
 * that one that cannot be used is said rather than found at the first save: 0 (also for
 * NULL), or -1 after a message. */
int cli_workbench_catalog(const char *catalog);
/* The catalog (NULL: the default) a run will be added to at its end, checked before anything
 * is simulated: 0, or -1 after "...; the run was not started" (read-only, locked, no
 * database). */
int cli_catalog_writable(const char *catalog, const char *what);
struct accel_scenario;
/* A warning on stderr when an LS application's Poisson arrivals span more than
 * ACCEL_LONG_SPAN_S of GPU time (3 queries at 0.001 per second: about 3000 s, a run that does
 * not end in a sitting), or ACCEL_LONG_BUSY_SPAN_S beside a batch application; check and run
 * say it before anything runs. */
void cli_warn_long_span(const char *path, const struct accel_scenario *sc);
struct lesson;
struct diag;
struct scenario;
/* l's steps tried in order on a session of sc (its scenario) that runs no epoch, as the
 * workbench makes them when each step opens: the predictor, allocator and parameter changes
 * as the session takes them, each kernel added (one the session accepts) and each removed (in
 * the mix by then, and not the last one). 0, or -1 with a message per refusal in d. */
int cli_lesson_check_steps(const struct lesson *l, const struct scenario *sc, struct diag *d);
/* Load the scenario l runs into sc (release it with scenario_done either way). 0, or -1 with
 * the scenario's messages in d and a last one naming the lesson's own setting. */
int cli_lesson_scenario(const struct lesson *l, struct scenario *sc, const char *datadir,
                        struct diag *d);
/* Print the program's usage and the list of commands. */
void cli_print_usage(FILE *out);
/* 1 when argv holds -h or --help. */
int cli_wants_help(int argc, char **argv);
/* The "did you mean" among the command names and extra[] for word, each quoted 'so'
 * (suggest_names), else NULL; the caller frees it. */
char *cli_suggest(const char *word, const char *const *extra, size_t nextra);
/* The command named name, with a "did you mean" hint on stderr when it does not exist. */
const struct cli_command *cli_lookup(const char *name);

/* A progress bar on stderr when it is a terminal: label and done in [0, 1]; done >= 1 ends the
 * line. Nothing is printed when stderr is not a terminal. */
void cli_progress(const char *label, double done);
/* cli_progress as a util_progress_fn, whose ctx is the label (a char array). */
void cli_progress_fn(void *label, double done);

struct session;
/* Finish the run file session s records to (out) and add the run to the catalog at catalog
 * (NULL: the default one), saying on stderr how many epochs the file holds; 0, or -1 with a
 * message printed. */
int cli_finish_recording(struct session *s, const char *out, const char *catalog);
/* A run recorded in out whose catalog row could not be added (err: why, e.g. the catalog was
 * locked): says so on stderr, and that `corun runs add OUT [--catalog CATALOG]` adds it later,
 * so that the run need not be simulated again. */
void cli_catalog_failed(const char *out, const char *catalog, const char *err);
/* A run file is to be made at out at the end of work that takes a while (before is what, e.g.
 * "branching"): 0 when nothing is there and its directory exists, else -1 with the reason
 * printed ("... (checked before branching)"), so the work is not done for nothing. */
int cli_check_new_runfile(const char *out, const char *before);

/* SIGINT, SIGTERM, SIGHUP and SIGPIPE (its output closed) during a headless run: cli_stop_install
 * records the signal instead of dying of it, cli_stop_requested returns it (0: none), and the run
 * stops at its next progress report, keeping what it has; cli_stop_reraise then dies of the signal
 * (the default action), so the caller sees how the run ended. No signal: it returns. */
void cli_stop_install(void);
int cli_stop_requested(void);
/* The signal's name ("SIGINT", ...) for messages. */
const char *cli_stop_name(void);
/* Say on stderr that the signal stopped the run during its WHAT ("epoch") at, of of, and note
 * it in s's log (recorded with the run). */
void cli_stop_report(struct session *s, const char *what, unsigned long at, unsigned long of);
void cli_stop_reraise(void);
/* While a child changes something outside corun (sbatch submitting a job), on holds SIGINT,
 * SIGTERM and SIGHUP as cli_stop_install does, so that corun records what the child did before
 * it dies of them; off gives them back what they did before (cli_stop_requested then says
 * whether one came, and cli_stop_reraise dies of it). A signal ignored stays ignored. */
void cli_stop_hold(bool on);
/* For a command that dies of SIGINT, SIGTERM or SIGHUP as it comes (its work is kept as it
 * finishes, or not at all: reproduce): before dying, this process (not a forked worker) says
 * "corun: CMD: stopped by SIGNAL; " then note (copied; a full sentence ending in a newline), so
 * that a stop is not silent. The exit status stays the signal's. */
void cli_stop_note_install(const char *cmd, const char *note);
/* Gives the signals back what they did before the last cli_stop_note_install (for a command
 * whose note holds for one stretch of it only). */
void cli_stop_note_remove(void);

/* Threads for a session's private-mode references by default: the CPUs this process may run
 * on (util_cpus_available), 1 to 8. */
unsigned cli_default_threads(void);
/* Threads for each of `jobs` worker processes by default: the CPUs online shared out, at
 * least 1. */
unsigned cli_threads_per_job(unsigned jobs);

/* A progress bar over an experiment's mixes with an ETA ("SUITE: 3.5 of 105 mixes, ETA 12m03s"):
 * pass cli_mixes_progress as the callback and a struct cli_mixes_bar as its context. When stderr
 * is not a terminal (a run under nohup, its stderr in a file) it writes a line instead each time
 * a mix finishes ("SUITE: 12 of 105 mixes done, 25m10s, ETA 1h52m"). The ETA is projected from
 * the mixes simulated in this run: mixes read from a --resume journal count as done, not as
 * time spent. */
struct cli_mixes_bar {
    const char *label; /* the suite, and its part in an experiment of several */
    double start;      /* cli_wall_seconds() when the run began */
    /* set by cli_mixes_progress; zero them */
    bool started;
    double base;     /* mixes done at the first call (read from a journal) */
    unsigned logged; /* whole mixes already written as lines */
};
void cli_mixes_progress(void *ctx, double done, unsigned total);

/* Write s as a JSON string literal (quoted and escaped). */
void cli_json_string(FILE *out, const char *s);
/* text with each single quote doubled: the body of an SQL string literal (heap), for the
 * queries the commands give catalog_query. */
char *cli_sql_quoted(const char *text);
/* Write v as a JSON number (6 significant digits), or null when it is NaN or infinite. */
void cli_json_number(FILE *out, double v);
/* Seconds on a monotonic clock, for wall-time figures. */
double cli_wall_seconds(void);
/* Returned by cli_getopt for an unknown option or one missing its value (a message has been
 * printed). */
#define CLI_OPT_BAD (-2)
/* getopt_long over a command's argv (argv[0] is the command's name) with corun's messages;
 * shortopts must start with ':'. Call cli_getopt_reset before a command's first call. */
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts);
void cli_getopt_reset(void);

/* The largest --seed: a scenario's seed setting's (an unsigned long holds it: LP64). */
#define CLI_SEED_MAX 1000000000000000000ul

/* Parse a whole decimal number in [lo, hi] for option opt; prints a message and returns -1
 * when text is not one. */
int cli_parse_uint(const char *opt, const char *text, unsigned long lo, unsigned long hi,
                   unsigned long *out);

/* --set ASSIGNMENT of command cmd into sets (gpu_sets_add): CLI_OK, or CLI_BAD_INPUT after
 * printing why it is not a GPU setting the command takes. */
struct gpu_sets;
int cli_add_gpu_set(struct gpu_sets *sets, const char *cmd, const char *assignment);
/* d's messages on stderr, a line each; a --set's (which names no file, "--set: ...") begins
 * "corun: CMD: " as the command's other refusals do, a file's stays FILE:LINE: as check says
 * it. */
void cli_print_diags(const char *cmd, const struct diag *d);
/* sets as a JSON array of strings. */
void cli_json_gpu_sets(FILE *out, const struct gpu_sets *sets);

/* --shard K/N: 1 <= K <= N <= CLI_MAX_SHARDS into *k and *n; prints a message and returns -1
 * when text is not one. */
#define CLI_MAX_SHARDS 1000
int cli_parse_shard(const char *text, unsigned *k, unsigned *n);

/* Whether paths a and b name one file: the same text, or the same existing file. */
bool cli_same_file(const char *a, const char *b);
/* 0 when the n names are each given once; else -1 after "corun: CMD: NAME is named twice"
 * (a kernel run twice and counted twice). */
int cli_names_once(const char *cmd, const char *const *names, size_t n);
/* A name given to an option (--predictor, --allocator, ...) must not be empty: prints a
 * message naming opt and returns -1 when it is. */
int cli_nonempty(const char *opt, const char *text);
/* A catalog a read-only command was pointed at with --catalog must exist, or a mistyped path
 * would become an empty catalog: prints "corun: CMD: --catalog PATH: no such file (expected
 * WHAT)" and returns -1 when it does not. An empty file (0 bytes), which SQLite would also make
 * a catalog, is refused the same way as "empty: not a corun catalog". NULL (the default
 * catalog) is always taken. */
int cli_catalog_exists(const char *cmd, const char *path, const char *what);
/* A catalog a command only caches in (reproduce's references and results): opened (made) up
 * front, and when it cannot be, a warning on stderr that nothing is cached or reused; the
 * command goes on without it. */
void cli_catalog_cache_warn(const char *cmd, const char *path);
/* A --resume journal must be one the command can open for reading and writing, or make (its
 * directory takes files): checked before a study prints anything, so that a mistyped path is
 * bad input with nothing printed. Prints "corun: CMD: PATH: cannot open for reading and
 * writing: REASON" (or that an empty path is no file name) and returns -1 when it is not;
 * NULL (no journal) is always taken. */
int cli_resume_usable(const char *cmd, const char *path);

#endif
