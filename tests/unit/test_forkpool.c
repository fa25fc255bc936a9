/* Unit tests: forkpool — results by index whatever the worker count, dead workers, progress,
 * hand-out to idle workers, no tasks. */
#define _DEFAULT_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corun/forkpool.h"

#define NTASKS 23

/* Bigger than a socket's small writes, so results travel in pieces. */
struct blob {
    uint64_t index;
    double value;
    char text[3000];
};

enum behaviour { NORMAL, ABORTS, EXITS, FAILS, MUTE, LONG, WAITS, BREAKS };

struct fixture {
    enum behaviour how[NTASKS];
    struct blob got[NTASKS];
    char error[NTASKS][FORKPOOL_ERROR_LEN];
    int collected[NTASKS];
    size_t ncollected, nprogress;
    double last_done;
    int fractional_progress; /* a progress value between two whole tasks was seen */
    int progress_back;       /* a progress value below the one before, or above ntasks */
    int child_inits;
    int only_first_reports; /* only task 0 reports its progress */
    int release[2];         /* WAITS: a task waits for a byte on release[0] */
};

static void no_core_dumps(void *user)
{
    struct fixture *f = user;
    struct rlimit none = {0, 0};
    setrlimit(RLIMIT_CORE, &none);
    f->child_inits++; /* in the child's copy only */
}

static int run(void *user, struct forkpool_task *task, void *result)
{
    struct fixture *f = user;
    struct blob *b = result;
    size_t i = task->index;
    if (!f->only_first_reports || i == 0)
        forkpool_report(task, 0.5);
    switch (f->how[i]) {
    case ABORTS: abort();
    case EXITS: _exit(3);
    case FAILS: snprintf(task->error, sizeof task->error, "task %zu refuses", i); return -1;
    case MUTE: return -1; /* fails without a message */
    case LONG:            /* a message longer than the pool carries */
        memset(task->error, 'x', sizeof task->error - 1);
        task->error[sizeof task->error - 1] = '\0';
        return -1;
    case WAITS: {
        char c = 0;
        struct pollfd p = {f->release[0], POLLIN, 0};
        /* The limit only keeps a broken pool from hanging the suite. */
        if (poll(&p, 1, 60 * 1000) == 1 && read(f->release[0], &c, 1) == 1)
            b->value = 1;
        b->index = i;
        return 0;
    }
    case BREAKS: {
        /* A message no pool sends (its task index all ones), more bytes than any message
         * header, then no result for 20 s: the parent must not wait for it. */
        unsigned char junk[64];
        memset(junk, 0xff, sizeof junk);
        if (write(task->fd, junk, sizeof junk) != (ssize_t)sizeof junk)
            _exit(4);
        for (int k = 0; k < 400; k++)
            usleep(50000);
        _exit(5);
    }
    case NORMAL: break;
    }
    b->index = i;
    b->value = (double)i * 1.5 + 0.25;
    for (size_t k = 0; k + 1 < sizeof b->text; k++)
        b->text[k] = (char)('a' + (i + k) % 26);
    return 0;
}

static void collect(void *user, size_t index, const void *result, const char *error)
{
    struct fixture *f = user;
    assert_true(index < NTASKS);
    f->collected[index]++;
    f->ncollected++;
    if (result) {
        assert_null(error);
        memcpy(&f->got[index], result, sizeof f->got[index]);
    } else {
        assert_non_null(error);
        assert_true(strnlen(error, FORKPOOL_ERROR_LEN) < FORKPOOL_ERROR_LEN); /* it ends */
        snprintf(f->error[index], sizeof f->error[index], "%s", error);
    }
    if (f->release[1] >= 0 && f->ncollected == NTASKS - 1) {
        char c = 1;
        assert_int_equal(write(f->release[1], &c, 1), 1);
    }
}

static void progress(void *user, double done, size_t ntasks)
{
    struct fixture *f = user;
    assert_int_equal(ntasks, NTASKS);
    if ((f->nprogress && done < f->last_done) || done > NTASKS || done < 0)
        f->progress_back = 1;
    f->nprogress++;
    f->last_done = done;
    if (done != (double)(size_t)done)
        f->fractional_progress = 1;
}

static const struct forkpool_ops ops = {run, collect, progress, no_core_dumps, NULL};

static struct fixture *fixture_new(void)
{
    struct fixture *f = calloc(1, sizeof(*f));
    assert_non_null(f);
    f->release[0] = f->release[1] = -1;
    return f;
}

static void results_are_the_same_for_any_worker_count(void **state)
{
    (void)state;
    struct fixture *ref = fixture_new();
    assert_int_equal(forkpool_run(&ops, ref, NTASKS, sizeof(struct blob), 1), 0);
    assert_int_equal(ref->ncollected, NTASKS);
    for (size_t i = 0; i < NTASKS; i++) {
        assert_int_equal(ref->collected[i], 1);
        assert_int_equal(ref->got[i].index, i);
        assert_true(ref->got[i].value == (double)i * 1.5 + 0.25);
    }
    const unsigned jobs[] = {2, 4};
    for (size_t j = 0; j < 2; j++) {
        struct fixture *f = fixture_new();
        assert_int_equal(forkpool_run(&ops, f, NTASKS, sizeof(struct blob), jobs[j]), 0);
        assert_int_equal(f->ncollected, NTASKS);
        for (size_t i = 0; i < NTASKS; i++)
            assert_int_equal(f->collected[i], 1);
        assert_memory_equal(f->got, ref->got, sizeof ref->got);
        assert_int_equal(f->child_inits, 0); /* the hook ran in the children, not here */
        free(f);
    }
    free(ref);
}

static void a_dying_worker_fails_only_its_task(void **state)
{
    (void)state;
    struct fixture *f = fixture_new();
    f->how[0] = ABORTS; /* the first task's: its index 0 is a task too */
    f->how[3] = ABORTS;
    f->how[4] = ABORTS; /* the replacement worker dies too */
    f->how[10] = EXITS;
    f->how[17] = FAILS;
    assert_int_equal(forkpool_run(&ops, f, NTASKS, sizeof(struct blob), 2), 5);
    assert_int_equal(f->ncollected, NTASKS);
    for (size_t i = 0; i < NTASKS; i++) {
        assert_int_equal(f->collected[i], 1);
        if (f->how[i] == NORMAL)
            assert_true(f->got[i].value == (double)i * 1.5 + 0.25);
    }
    assert_non_null(strstr(f->error[0], "killed by signal"));
    assert_non_null(strstr(f->error[3], "killed by signal"));
    assert_non_null(strstr(f->error[4], "killed by signal"));
    assert_non_null(strstr(f->error[10], "exited with status 3"));
    assert_string_equal(f->error[17], "task 17 refuses");
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* every worker reaped */
    free(f);
}

static void a_failing_task_fails_in_process_too(void **state)
{
    (void)state;
    struct fixture *f = fixture_new();
    f->how[0] = FAILS;
    assert_int_equal(forkpool_run(&ops, f, NTASKS, sizeof(struct blob), 1), 1);
    assert_string_equal(f->error[0], "task 0 refuses");
    assert_int_equal(f->ncollected, NTASKS);
    free(f);
}

/* A task that fails without a message still gets one, in a worker or here; the longest
 * message arrives as it was. */
static void a_mute_failure_gets_a_message(void **state)
{
    (void)state;
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        struct fixture *f = fixture_new();
        f->how[2] = MUTE;
        f->how[7] = FAILS;
        f->how[9] = LONG;
        assert_int_equal(forkpool_run(&ops, f, NTASKS, sizeof(struct blob), jobs), 3);
        assert_string_equal(f->error[2], "the task failed without saying why");
        assert_string_equal(f->error[7], "task 7 refuses");
        /* The longest message arrives whole and ends where it ended. */
        assert_int_equal(strlen(f->error[9]), FORKPOOL_ERROR_LEN - 1);
        assert_int_equal(strspn(f->error[9], "x"), FORKPOOL_ERROR_LEN - 1);
        free(f);
    }
}

/* A worker still running after it broke the protocol is killed with SIGKILL and reaped, and
 * its task fails saying so; a pool that waited for it would stall 20 s and report that it
 * exited normally. */
static void a_worker_that_breaks_the_protocol_is_killed(void **state)
{
    (void)state;
    struct fixture *f = fixture_new();
    f->how[5] = BREAKS;
    assert_int_equal(forkpool_run(&ops, f, NTASKS, sizeof(struct blob), 2), 1);
    assert_int_equal(f->ncollected, NTASKS);
    for (size_t i = 0; i < NTASKS; i++) {
        assert_int_equal(f->collected[i], 1);
        if (i != 5)
            assert_true(f->got[i].value == (double)i * 1.5 + 0.25);
    }
    assert_non_null(strstr(f->error[5], "killed by signal 9"));
    assert_int_equal(waitpid(-1, NULL, WNOHANG), -1); /* every worker reaped */
    free(f);
}

/* jobs <= 1 runs the tasks in this process, in order; more jobs run none here, on as many
 * worker processes as jobs at most, each holding only its own socket of the pool's. */
struct where {
    pid_t pid;
    int nfds; /* open file descriptors */
};

static int pid_run(void *user, struct forkpool_task *task, void *result)
{
    (void)user;
    (void)task;
    struct where *w = result;
    w->pid = getpid();
    DIR *d = opendir("/proc/self/fd");
    if (d) {
        while (readdir(d))
            w->nfds++;
        closedir(d);
    }
    return 0;
}

static void pid_collect(void *user, size_t index, const void *result, const char *error)
{
    struct where *got = user;
    assert_null(error);
    got[index] = *(const struct where *)result;
}

static const struct forkpool_ops pid_ops = {pid_run, pid_collect, NULL, NULL, NULL};

static void one_job_runs_here(void **state)
{
    (void)state;
    for (unsigned jobs = 0; jobs <= 3; jobs++) {
        struct where got[NTASKS];
        memset(got, 0, sizeof got);
        assert_int_equal(forkpool_run(&pid_ops, got, NTASKS, sizeof(struct where), jobs), 0);
        pid_t seen[NTASKS];
        size_t nseen = 0;
        for (size_t i = 0; i < NTASKS; i++) {
            if (jobs <= 1) {
                assert_int_equal(got[i].pid, getpid());
                continue;
            }
            assert_true(got[i].pid > 0 && got[i].pid != getpid());
            assert_true(got[i].nfds > 0);
            assert_int_equal(got[i].nfds, got[0].nfds); /* the later workers' too */
            size_t k = 0;
            while (k < nseen && seen[k] != got[i].pid)
                k++;
            if (k == nseen)
                seen[nseen++] = got[i].pid;
        }
        assert_true(nseen <= (jobs <= 1 ? 0 : jobs));
    }
}

static void progress_arrives(void **state)
{
    (void)state;
    for (unsigned jobs = 1; jobs <= 2; jobs++) {
        struct fixture *f = fixture_new();
        forkpool_run(&ops, f, NTASKS, sizeof(struct blob), jobs);
        assert_true(f->nprogress >= NTASKS);
        assert_true(f->fractional_progress); /* the tasks' halfway reports came through */
        assert_false(f->progress_back);      /* a progress bar never goes back */
        assert_true(f->last_done == NTASKS);
        free(f);
    }
}

/* Task 0 waits until every other task is collected: a pool that gave tasks to workers up
 * front would leave some behind the waiting one and never release it. */
static void idle_workers_take_the_next_task(void **state)
{
    (void)state;
    struct fixture *f = fixture_new();
    assert_int_equal(pipe(f->release), 0);
    f->how[0] = WAITS;
    f->only_first_reports = 1;
    assert_int_equal(forkpool_run(&ops, f, NTASKS, sizeof(struct blob), 2), 0);
    assert_int_equal(f->ncollected, NTASKS);
    assert_true(f->got[0].value == 1);
    /* Task 0's halfway report counted while the others finished: the progress of the first
     * worker's task is part of the whole. */
    assert_true(f->fractional_progress);
    assert_false(f->progress_back);
    close(f->release[0]);
    close(f->release[1]);
    free(f);
}

static void zero_tasks(void **state)
{
    (void)state;
    for (unsigned jobs = 1; jobs <= 4; jobs *= 2) {
        struct fixture *f = fixture_new();
        assert_int_equal(forkpool_run(&ops, f, 0, sizeof(struct blob), jobs), 0);
        assert_int_equal(f->ncollected, 0);
        free(f);
    }
}

static void one_task(void **state)
{
    (void)state;
    for (unsigned jobs = 1; jobs <= 4; jobs *= 2) {
        struct fixture *f = fixture_new();
        const struct forkpool_ops one = {run, collect, NULL, no_core_dumps, NULL};
        assert_int_equal(forkpool_run(&one, f, 1, sizeof(struct blob), jobs), 0);
        assert_int_equal(f->ncollected, 1);
        assert_true(f->got[0].value == 0.25);
        free(f);
    }
}

/* ---- results far bigger than a socket's buffer, under a storm of signals ---- */

#define BIG (1u << 20)

static int big_run(void *user, struct forkpool_task *task, void *result)
{
    (void)user;
    unsigned char *b = result;
    /* 10 ms of work first, so that the parent waits in poll while the signals come */
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 10000000L);
    for (size_t k = 0; k < BIG; k++)
        b[k] = (unsigned char)(k * 7 + task->index * 13 + k / 4096);
    return 0;
}

static void big_collect(void *user, size_t index, const void *result, const char *error)
{
    int *ok = user;
    const unsigned char *b = result;
    assert_null(error);
    for (size_t k = 0; k < BIG; k++)
        if (b[k] != (unsigned char)(k * 7 + index * 13 + k / 4096))
            fail_msg("task %zu: byte %zu differs", index, k);
    ok[index]++;
}

static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
    (void)sig;
    alarms++;
}

static const struct itimerval every = {{0, 100}, {0, 100}};

/* A worker does not inherit its parent's timer: it starts its own. */
static void storm_in_child(void *user)
{
    (void)user;
    setitimer(ITIMER_REAL, &every, NULL);
}

/* A result travels in many pieces, each read and write of them may be cut short, and a
 * signal without SA_RESTART (a caller's own SIGWINCH or SIGALRM handler) interrupts the
 * parent's poll and reads and the workers' writes: every result arrives whole, once. */
static void big_results_under_signals(void **state)
{
    (void)state;
    struct sigaction sa = {0}, old;
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    assert_int_equal(sigaction(SIGALRM, &sa, &old), 0);
    const struct itimerval off = {{0, 0}, {0, 0}};
    for (int storm = 0; storm <= 1; storm++) {
        const struct forkpool_ops big_ops = {big_run, big_collect, NULL,
                                             storm ? storm_in_child : NULL, NULL};
        int ok[8] = {0};
        alarms = 0;
        if (storm)
            assert_int_equal(setitimer(ITIMER_REAL, &every, NULL), 0);
        assert_int_equal(forkpool_run(&big_ops, ok, 8, BIG, 2), 0);
        assert_int_equal(setitimer(ITIMER_REAL, &off, NULL), 0);
        for (int i = 0; i < 8; i++)
            assert_int_equal(ok[i], 1);
        if (storm)
            assert_true(alarms > 0);
    }
    assert_int_equal(sigaction(SIGALRM, &old, NULL), 0);
}

/* ---- progress from a worker comes in steps of at least 1 % ---- */

static int chatty_run(void *user, struct forkpool_task *task, void *result)
{
    (void)user;
    (void)result;
    for (int k = 1; k <= 1000; k++)
        forkpool_report(task, k / 1000.0);
    return 0;
}

static void count_progress(void *user, double done, size_t ntasks)
{
    (void)done;
    (void)ntasks;
    (*(size_t *)user)++;
}

static void ignore(void *user, size_t index, const void *result, const char *error)
{
    (void)user;
    (void)index;
    (void)result;
    (void)error;
}

static void progress_is_thinned(void **state)
{
    (void)state;
    const struct forkpool_ops chatty = {chatty_run, ignore, count_progress, NULL, NULL};
    size_t calls = 0;
    assert_int_equal(forkpool_run(&chatty, &calls, 4, 1, 2), 0);
    /* 4 tasks of 1,000 reports: about 100 each reach the parent, and a result each */
    assert_true(calls >= 4 && calls <= 4 * 102);
}

/* Issue 21, defect 9: workers ran on after their parent was killed. The test adopts orphans
 * (a child subreaper), so it can see how each worker ended: killed, not done with its task. */
struct orphans {
    int pids; /* each worker writes its pid here when its task starts */
};

static int orphan_run(void *user, struct forkpool_task *task, void *result)
{
    (void)task;
    (void)result;
    const struct orphans *o = user;
    pid_t me = getpid();
    if (write(o->pids, &me, sizeof me) != (ssize_t)sizeof me)
        return -1;
    for (int i = 0; i < 400; i++) /* 20 s: ends by itself only when nobody kills it */
        usleep(50000);
    return 0;
}

static void orphan_collect(void *user, size_t index, const void *result, const char *error)
{
    (void)user;
    (void)index;
    (void)result;
    (void)error;
}

static const struct forkpool_ops orphan_ops = {orphan_run, orphan_collect, NULL, NULL, NULL};

static void workers_die_with_parent(void **state)
{
    (void)state;
    const int sigs[] = {SIGKILL, SIGTERM, SIGINT};
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 1), 0);
    for (size_t s = 0; s < sizeof(sigs) / sizeof(sigs[0]); s++) {
        int p[2];
        assert_int_equal(pipe(p), 0);
        pid_t parent = fork();
        assert_true(parent >= 0);
        if (parent == 0) {
            /* The default actions, whatever this test inherited: a shell's background job
             * starts with SIGINT ignored, and then the parent would not die of it. */
            signal(SIGTERM, SIG_DFL);
            signal(SIGINT, SIG_DFL);
            close(p[0]);
            struct orphans o = {p[1]};
            forkpool_run(&orphan_ops, &o, 2, 1, 2);
            _exit(0);
        }
        close(p[1]);
        pid_t workers[2];
        for (int w = 0; w < 2; w++)
            assert_int_equal(read(p[0], &workers[w], sizeof workers[w]), sizeof workers[w]);
        close(p[0]);
        int status;
        assert_int_equal(kill(parent, sigs[s]), 0);
        assert_int_equal(waitpid(parent, &status, 0), parent);
        assert_true(WIFSIGNALED(status) && WTERMSIG(status) == sigs[s]);
        for (int w = 0; w < 2; w++) {
            assert_int_equal(waitpid(workers[w], &status, 0), workers[w]);
            if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
                fail_msg("after signal %d to the parent, worker %d ended with status %#x, not "
                         "killed",
                         sigs[s], (int)workers[w], status);
        }
    }
    assert_int_equal(prctl(PR_SET_CHILD_SUBREAPER, 0), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(results_are_the_same_for_any_worker_count),
        cmocka_unit_test(a_dying_worker_fails_only_its_task),
        cmocka_unit_test(a_failing_task_fails_in_process_too),
        cmocka_unit_test(a_mute_failure_gets_a_message),
        cmocka_unit_test(a_worker_that_breaks_the_protocol_is_killed),
        cmocka_unit_test(one_job_runs_here),
        cmocka_unit_test(progress_arrives),
        cmocka_unit_test(idle_workers_take_the_next_task),
        cmocka_unit_test(zero_tasks),
        cmocka_unit_test(one_task),
        cmocka_unit_test(big_results_under_signals),
        cmocka_unit_test(progress_is_thinned),
        cmocka_unit_test(workers_die_with_parent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
