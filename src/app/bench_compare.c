/* bench_compare — running another corun binary and timing it, for `corun bench --compare`:
 * a speed claim is a ratio of two binaries measured in one sitting, not two numbers from two
 * days. */
#include <errno.h>
#include <fcntl.h>
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
static void redirect(int fd, const char *path)
{
    int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
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

int bench_spawn(char *const argv[], const char *datadir, const char *xdg, const char *out_path,
                const char *err_path, double *cpu_s, double *wall_s, int *status, char *err,
                size_t errlen)
{
    if (access(argv[0], X_OK) != 0) {
        snprintf(err, errlen, "%s: %s (expected an executable corun binary)", argv[0],
                 strerror(errno));
        return -1;
    }
    struct rusage before, after;
    getrusage(RUSAGE_CHILDREN, &before); /* one child at a time: the difference is this one */
    fflush(NULL);
    double t0 = wall_now();
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(err, errlen, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    if (pid == 0) {
        redirect(STDOUT_FILENO, out_path);
        redirect(STDERR_FILENO, err_path);
        if ((datadir && setenv("CORUN_DATADIR", datadir, 1) != 0) ||
            (xdg && setenv("XDG_DATA_HOME", xdg, 1) != 0))
            _exit(127);
        execv(argv[0], argv);
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    pid_t got;
    while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR)
        ;
    if (got < 0) {
        snprintf(err, errlen, "waiting for %s: %s", argv[0], strerror(errno));
        return -1;
    }
    if (wall_s)
        *wall_s = wall_now() - t0;
    getrusage(RUSAGE_CHILDREN, &after);
    *cpu_s = timeval_seconds(after.ru_utime) - timeval_seconds(before.ru_utime) +
             timeval_seconds(after.ru_stime) - timeval_seconds(before.ru_stime);
    return 0;
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
