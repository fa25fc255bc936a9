/* cli_record — the end of a headless recorded run: the run file finished and catalogued, and
 * SIGINT, SIGTERM, SIGHUP and SIGPIPE turned into a stop that keeps what the run has. */
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/cli.h"
#include "corun/runfile.h"
#include "corun/session.h"
#include "corun/util.h"

int cli_finish_recording(struct session *s, const char *out, const char *catalog)
{
    char err[512];
    if (session_finish(s, err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        return -1;
    }
    int64_t id;
    if (session_catalog(s, catalog, &id, err, sizeof err) != 0) {
        cli_catalog_failed(out, catalog, err);
        return -1;
    }
    bool failed;
    unsigned n = session_epochs_recorded(s, &failed), ran = session_epochs_done(s);
    if (failed) /* the failure was said as it happened */
        fprintf(stderr, "corun: %s keeps %u of the %u epoch%s run (catalog run %lld)\n", out, n,
                ran, ran == 1 ? "" : "s", (long long)id);
    else
        fprintf(stderr, "corun: recorded %u epoch%s in %s (catalog run %lld)\n", n,
                n == 1 ? "" : "s", out, (long long)id);
    return 0;
}

void cli_catalog_failed(const char *out, const char *catalog, const char *err)
{
    fprintf(stderr,
            "corun: the run is in %s, but the catalog failed: %s\ncorun: the file is kept: add "
            "it later with `corun runs add %s%s%s`\n",
            out, err, out, catalog ? " --catalog " : "", catalog ? catalog : "");
}

/* Atomic, not volatile sig_atomic_t: an accelerator run's solo thread reads it too (a
 * lock-free atomic is as safe in a handler). */
static atomic_int stop_signal;
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "a signal handler may store only to a lock-free atomic");

static void on_stop_signal(int sig)
{
    stop_signal = sig;
}

void cli_stop_install(void)
{
    /* SIGPIPE: the reader of its output went away (`corun run ... | head`). */
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* A signal the shell ignores (a background job's SIGINT) stays ignored. */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[i], &sa, NULL);
    }
}

/* The signals cli_stop_hold holds and cli_stop_note_install says, and what each did before. */
static const int held_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NHELD (sizeof held_signals / sizeof held_signals[0])
static struct sigaction held_before[NHELD], note_before[NHELD];

void cli_stop_hold(bool on)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sa.sa_flags = SA_RESTART; /* the wait for the child goes on */
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NHELD; i++) {
        if (!on)
            sigaction(held_signals[i], &held_before[i], NULL);
        else if (sigaction(held_signals[i], NULL, &held_before[i]) == 0 &&
                 held_before[i].sa_handler != SIG_IGN)
            sigaction(held_signals[i], &sa, NULL);
    }
}

/* cli_stop_note_install's text, written by the handler with write(2) alone. */
static char note_head[64], note_text[512];
static pid_t note_pid;
static bool note_newline;

static void put(const char *text)
{
    size_t n = strlen(text);
    while (n) {
        ssize_t w = write(STDERR_FILENO, text, n);
        if (w <= 0)
            return;
        text += w;
        n -= (size_t)w;
    }
}

static void on_noted_signal(int sig)
{
    if (getpid() == note_pid) {
        put(note_newline ? "\n" : ""); /* after a progress bar */
        put(note_head);
        put(sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "SIGHUP");
        put("; ");
        put(note_text);
    }
    raise(sig); /* SA_RESETHAND: the default action, once the handler returns */
}

void cli_stop_note_install(const char *cmd, const char *note)
{
    snprintf(note_head, sizeof note_head, "corun: %s: stopped by ", cmd);
    snprintf(note_text, sizeof note_text, "%s", note);
    note_pid = getpid();
    note_newline = isatty(STDERR_FILENO);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_noted_signal;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NHELD; i++) {
        /* A signal the shell ignores (a background job's SIGINT) stays ignored. */
        if (sigaction(held_signals[i], NULL, &note_before[i]) == 0 &&
            note_before[i].sa_handler != SIG_IGN)
            sigaction(held_signals[i], &sa, NULL);
    }
}

void cli_stop_note_remove(void)
{
    for (size_t i = 0; i < NHELD; i++)
        sigaction(held_signals[i], &note_before[i], NULL);
}

int cli_stop_requested(void)
{
    return stop_signal;
}

const char *cli_stop_name(void)
{
    int sig = stop_signal;
    return sig == SIGINT    ? "SIGINT"
           : sig == SIGTERM ? "SIGTERM"
           : sig == SIGHUP  ? "SIGHUP"
           : sig == SIGPIPE ? "SIGPIPE (its output was closed)"
                            : "a signal";
}

void cli_stop_report(struct session *s, const char *what, unsigned long at, unsigned long of)
{
    if (isatty(STDERR_FILENO))
        fputc('\n', stderr); /* after the progress bar */
    unsigned long kept = at - 1;
    char text[200];
    int n = snprintf(text, sizeof text, "stopped by %s during %s %lu of %lu, which is abandoned; ",
                     cli_stop_name(), what, at, of);
    snprintf(text + n, sizeof text - (size_t)n,
             kept == 0   ? "none ran before it"
             : kept == 1 ? "the %lu before it is kept"
                         : "the %lu before it are kept",
             kept);
    fprintf(stderr, "corun: %s\n", text);
    /* In the run's log too, so its file, show, --json and the catalog's events say the run was
     * cut short, not only this terminal. */
    session_note(s, "note", text);
}

void cli_stop_reraise(void)
{
    int sig = stop_signal;
    if (!sig)
        return;
    fflush(stdout);
    signal(sig, SIG_DFL);
    raise(sig);
}

int cli_check_new_runfile(const char *out, const char *before)
{
    char why[PATH_MAX + 128];
    if (runfile_refuse_existing(out, why, sizeof why) == 0) {
        struct stat st;
        char *copy = xstrdup(out);
        const char *dir = dirname(copy);
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            snprintf(why, sizeof why, "%s: cannot create: its directory does not exist", out);
        else
            why[0] = '\0';
        free(copy);
    }
    if (why[0])
        fprintf(stderr, "corun: %s (checked before %s)\n", why, before);
    return why[0] ? -1 : 0;
}
