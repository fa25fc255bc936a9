/* bench_compare — running another corun binary and timing it, for `corun bench --compare`:
 * a speed claim is a ratio of two binaries measured in one sitting, not two numbers from two
 * days. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corun/bench.h"

static double timeval_seconds(struct timeval t)
{
    return (double)t.tv_sec + (double)t.tv_usec * 1e-6;
}

/* In the child: point fd at path, or die with the reason (the parent sees exit 127). */
static void redirect(int fd, const char *path, int flags)
{
    int f = open(path, flags, 0600);
    if (f < 0 || dup2(f, fd) < 0)
        _exit(127);
    close(f);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* SIGCHLD is waited for while blocked: a handler of its own, so that it is kept pending
 * rather than discarded as its default disposition allows. */
static void on_child(int sig)
{
    (void)sig;
}

/* In the child: a process group of its own (so that it and whatever it starts can be killed
 * together), the signal mask it was forked with, its files and environment; then argv. */
static void start_child(const struct bench_child *c, const sigset_t *mask)
{
    setpgid(0, 0);
    sigprocmask(SIG_SETMASK, mask, NULL);
    redirect(STDIN_FILENO, "/dev/null", O_RDONLY);
    redirect(STDOUT_FILENO, c->out_path, O_WRONLY | O_CREAT | O_TRUNC);
    redirect(STDERR_FILENO, c->err_path, O_WRONLY | O_CREAT | O_TRUNC);
    if ((c->datadir && setenv("CORUN_DATADIR", c->datadir, 1) != 0) ||
        (c->xdg && setenv("XDG_DATA_HOME", c->xdg, 1) != 0))
        _exit(127);
    execv(c->argv[0], c->argv);
    fprintf(stderr, "cannot run %s: %s\n", c->argv[0], strerror(errno));
    _exit(127);
}

/* Waits for pid with the signals of set blocked: 0 when it ended (reaped, *status set), 1 when
 * the wall clock passed deadline (0: none), 2 when a signal of set other than SIGCHLD came
 * (*sig), -1 when waitpid failed. */
static int wait_child(pid_t pid, double deadline, const sigset_t *set, int *status, int *sig)
{
    for (;;) {
        pid_t got = waitpid(pid, status, WNOHANG);
        if (got == pid)
            return 0;
        if (got < 0 && errno != EINTR)
            return -1;
        double left = deadline - wall_now();
        if (deadline > 0 && left <= 0)
            return 1;
        int s;
        if (deadline > 0) {
            struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
            s = sigtimedwait(set, NULL, &ts);
        } else {
            s = sigwaitinfo(set, NULL);
        }
        if (s > 0 && s != SIGCHLD) {
            *sig = s;
            return 2;
        }
    }
}

int bench_spawn(struct bench_child *c, char *err, size_t errlen)
{
    const char *bin = c->argv[0];
    if (access(bin, X_OK) != 0) {
        snprintf(err, errlen, "%s: %s (expected an executable corun binary)", bin, strerror(errno));
        return -1;
    }
    c->stop_signal = 0;
    /* The child's end and the requests to stop are taken as they come, without a race
     * between looking and waiting: blocked from before the fork, then waited for. */
    sigset_t set, old_mask;
    sigemptyset(&set);
    sigaddset(&set, SIGCHLD);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    struct sigaction sa, old_chld;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_child;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, &old_chld);
    sigprocmask(SIG_BLOCK, &set, &old_mask);
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before); /* one child at a time: the difference is this one */
    fflush(NULL);
    double t0 = wall_now();
    pid_t pid = fork();
    if (pid == 0)
        start_child(c, &old_mask);
    int rc = -1;
    if (pid < 0) {
        snprintf(err, errlen, "cannot start %s: %s", bin, strerror(errno));
        goto out;
    }
    setpgid(pid, pid); /* the child does it too: whichever comes first */
    rc = wait_child(pid, c->limit_s > 0 ? t0 + c->limit_s : 0, &set, &c->status, &c->stop_signal);
    if (rc > 0) { /* past its time, or told to stop: it and all it started go */
        kill(-pid, SIGKILL);
        while (waitpid(pid, &c->status, 0) < 0 && errno == EINTR)
            ;
    }
    if (rc < 0) {
        snprintf(err, errlen, "waiting for %s: %s", bin, strerror(errno));
        goto out;
    }
    c->wall_s = wall_now() - t0;
    getrusage(RUSAGE_CHILDREN, &after);
    c->cpu_s = timeval_seconds(after.ru_utime) - timeval_seconds(before.ru_utime) +
               timeval_seconds(after.ru_stime) - timeval_seconds(before.ru_stime);
    /* Told to stop: the caller cleans up and ends as the signal would, which a second signal
     * (a repeated Ctrl-C, timeout(1) signalling its whole group) must not cut short. */
    if (rc == 2) {
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        signal(SIGHUP, SIG_IGN);
    }
out:
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    sigaction(SIGCHLD, &old_chld, NULL);
    return rc;
}

int bench_files_equal(const char *a, const char *b, long *first_diff, char *err, size_t errlen)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int rc = -1;
    if (!fa || !fb) {
        snprintf(err, errlen, "%s: %s", fa ? b : a, strerror(errno));
        goto out;
    }
    for (long off = 0;; off++) {
        int ca = getc(fa), cb = getc(fb);
        if (ca != cb) {
            *first_diff = off;
            rc = 0;
            break;
        }
        if (ca == EOF) {
            rc = 1;
            break;
        }
    }
out:
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return rc;
}

double bench_json_cycles(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    static const char key[] = "\"cycles\": ";
    double total = 0;
    size_t matched = 0;
    int c;
    while ((c = getc(f)) != EOF) {
        if (c != key[matched]) {
            matched = c == key[0];
            continue;
        }
        if (++matched < sizeof key - 1)
            continue;
        matched = 0;
        double v;
        if (fscanf(f, "%lf", &v) == 1)
            total += v;
    }
    fclose(f);
    return total;
}
