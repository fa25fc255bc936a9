/* Unit tests: bench — its figures are CPU time, so a machine busy with other work does not
 * swing them (issue 21, defect 17: bench's SM-scaling figures doubled under load). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "assert_close.h"

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corun/bench.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/preset.h"
#include "testutil.h"

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* This process and a busy child share one CPU: the simulation gets about half of the wall
 * time, and bench reports only what it got. */
static void figures_are_cpu_time(void **state)
{
    (void)state;
    cpu_set_t one;
    CPU_ZERO(&one);
    if (sched_getaffinity(0, sizeof one, &one) != 0)
        skip();
    int cpu = 0;
    while (cpu < CPU_SETSIZE && !CPU_ISSET(cpu, &one))
        cpu++;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    pid_t spinner = fork();
    assert_true(spinner >= 0);
    if (spinner == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlives a failed test */
        for (;;)                          /* inherits the affinity: the same CPU */
            ;
    }

    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct gpu_config cfg;
    struct kernel_profile a = {0}, b = {0};
    assert_int_equal(preset_gpu_load(datadir, "hbm80", &cfg, &d), 0);
    assert_int_equal(preset_kernel_find(datadir, "stream", "test", &a, &d), 0);
    assert_int_equal(preset_kernel_find(datadir, "compute", "test", &b, &d), 0);
    const struct kernel_profile *pair[2] = {&a, &b};
    double ms[3];
    char err[256];
    double t0 = wall_seconds(), cpu0 = bench_cpu_seconds();
    /* 20 K-cycle epochs: a few hundred ms of CPU each, many scheduler slices of a shared CPU. */
    assert_int_equal(bench_epochs(&cfg, pair, 2, 3, 20000, 1, ms, err, sizeof err), 0);
    double wall_ms = (wall_seconds() - t0) * 1e3;
    double outer_ms = (bench_cpu_seconds() - cpu0) * 1e3;
    kill(spinner, SIGKILL);
    waitpid(spinner, NULL, 0);
    double cpu_ms = ms[0] + ms[1] + ms[2];
    if (!(cpu_ms > 0 && cpu_ms < 0.8 * wall_ms))
        fail_msg("bench reported %.1f ms of %.1f ms wall on a CPU shared half and half", cpu_ms,
                 wall_ms);
    /* ... and all the epochs got, in ms: the call's CPU time less building the GPU. */
    if (!(cpu_ms <= outer_ms && cpu_ms > 0.5 * outer_ms))
        fail_msg("bench reported %.1f ms of the %.1f ms of CPU the call took", cpu_ms, outer_ms);
    kernel_profile_done(&a);
    kernel_profile_done(&b);
    diag_done(&d);
    free(datadir);
}

/* --compare counts the cycles of a `run --json` document: every epoch's "cycles", not
 * "start_cycle" or "epoch_cycles". */
static void json_cycles_sum_the_epochs(void **state)
{
    (void)state;
    char *path = test_write_temp(
        "{\"epoch_cycles\": 500000, \"epochs\": [{\"epoch\": 1, \"start_cycle\": 0, "
        "\"cycles\": 500000, \"kernels\": [{\"dram_interference_cycles\": 7}]}, {\"epoch\": 2, "
        "\"start_cycle\": 500000, \"cycles\": 250000}]}\n");
    assert_close(bench_json_cycles(path), 750000, 0);
    unlink(path);
    free(path);
    assert_close(bench_json_cycles("/nonexistent/run.json"), 0, 0);
}

static void files_equal_finds_the_first_difference(void **state)
{
    (void)state;
    char *a = test_write_temp("abcdef"), *b = test_write_temp("abcXef"),
         *c = test_write_temp("abc");
    long at = -1;
    char err[256];
    assert_int_equal(bench_files_equal(a, a, &at, err, sizeof err), 1);
    assert_int_equal(bench_files_equal(a, b, &at, err, sizeof err), 0);
    assert_int_equal(at, 3);
    assert_int_equal(bench_files_equal(a, c, &at, err, sizeof err), 0); /* c is a prefix */
    assert_int_equal(at, 3);
    assert_int_equal(bench_files_equal(a, "/nonexistent/x", &at, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/x"));
    for (char *p[] = {a, b, c}, **q = p; q < p + 3; q++)
        unlink(*q), free(*q);
}

/* bench_spawn reports the child's exit status and CPU time, and refuses what cannot run. */
static void spawn_reports_status_and_cpu(void **state)
{
    (void)state;
    char *out = test_write_temp(""), *errf = test_write_temp("");
    char *argv[] = {"/bin/sh", "-c",
                    "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done; echo hi; exit 4", NULL};
    char err[256];
    struct bench_child c = {.argv = argv, .out_path = out, .err_path = errf};
    assert_int_equal(bench_spawn(&c, err, sizeof err), 0);
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 4);
    assert_true(c.cpu_s > 0);
    assert_true(c.wall_s > 0);
    assert_int_equal(c.stop_signal, 0);
    assert_close(bench_json_cycles(out), 0, 0);
    char *missing[] = {"/nonexistent/corun", NULL};
    c.argv = missing;
    assert_int_equal(bench_spawn(&c, err, sizeof err), -1);
    assert_non_null(strstr(err, "/nonexistent/corun"));
    unlink(out), unlink(errf);
    free(out), free(errf);
}

/* A child that runs past its limit is killed with all it started (its process group), not
 * waited for: bench --compare waited forever on a binary that never answered. */
static void spawn_kills_a_child_past_its_limit(void **state)
{
    (void)state;
    char *out = test_write_temp(""), *errf = test_write_temp("");
    char *argv[] = {"/bin/sh", "-c", "sleep 30 & echo $!; wait", NULL};
    char err[256];
    struct bench_child c = {.argv = argv, .out_path = out, .err_path = errf, .limit_s = 0.3};
    double t0 = wall_seconds();
    assert_int_equal(bench_spawn(&c, err, sizeof err), 1);
    assert_true(wall_seconds() - t0 < 10);
    assert_true(c.wall_s >= 0.3);
    assert_true(WIFSIGNALED(c.status) && WTERMSIG(c.status) == SIGKILL);
    /* The shell's own child, in its group, was killed too (gone, or a zombie of init's). */
    FILE *f = fopen(out, "r");
    long pid = 0;
    assert_non_null(f);
    assert_int_equal(fscanf(f, "%ld", &pid), 1);
    fclose(f);
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    bool alive = true;
    for (int i = 0; i < 100 && alive; i++) { /* SIGKILL is sent at once, not done at once */
        char stat[256] = "";
        f = fopen(path, "r");
        alive = f && fgets(stat, sizeof stat, f) && !strstr(stat, ") Z ");
        if (f)
            fclose(f);
        if (alive)
            usleep(10000);
    }
    assert_false(alive);
    unlink(out), unlink(errf);
    free(out), free(errf);
}

/* The median of an even count is the mean of the middle two, whatever order they come in. */
static void median_of_odd_and_even_counts(void **state)
{
    (void)state;
    double odd[] = {3, 1, 2}, even[] = {4, 1, 3, 2}, two[] = {5, 1};
    assert_close(bench_median(odd, 3), 2, 0);
    assert_close(bench_median(even, 4), 2.5, 0);
    assert_close(bench_median(two, 2), 3, 0);
    assert_close(bench_median(NULL, 0), 0, 0);
}

/* Share of a trace's steps that move by exactly `step` bytes. */
static double share_of_steps(const uint64_t *a, size_t n, uint64_t step)
{
    size_t k = 0;
    for (size_t i = 1; i < n; i++)
        k += a[i] == a[i - 1] + step;
    return (double)k / (double)(n - 1);
}

/* The DRAM bench's traces: stream walks 64-byte lines in order; random draws lines from
 * splitmix64 (its first output from seed 0 is the published 0xe220a8397b1dcdaf); mix and mix2k
 * step on by 64 B or 2 KiB half of the time; any other name is refused. */
static void traces_follow_their_pattern(void **state)
{
    (void)state;
    enum { N = 4000 };
    uint64_t *a = calloc(N, sizeof(*a));
    assert_non_null(a);
    assert_int_equal(bench_gen_trace("stream", N, 7, a), 0);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(a[i], i * 64);
    assert_int_equal(bench_gen_trace("random", N, 0, a), 0);
    assert_int_equal(a[0], 0xe220a8397b1dcdafull % (1ull << 26) * 64);
    assert_int_equal(a[1], 0x6e789e6aa1b965f4ull % (1ull << 26) * 64);
    assert_true(share_of_steps(a, N, 64) < 0.01);
    for (size_t i = 0; i < N; i++)
        assert_true(a[i] % 64 == 0 && a[i] < 4ull << 30);
    assert_int_equal(bench_gen_trace("mix", N, 3, a), 0);
    double s64 = share_of_steps(a, N, 64);
    assert_true(s64 > 0.45 && s64 < 0.55);
    assert_int_equal(bench_gen_trace("mix2k", N, 3, a), 0);
    double s2k = share_of_steps(a, N, 2048);
    assert_true(s2k > 0.45 && s2k < 0.55);
    assert_true(share_of_steps(a, N, 64) < 0.01);
    assert_int_equal(bench_gen_trace("strided", N, 3, a), -1);
    free(a);
}

/* The other binary is run with the data directory and XDG_DATA_HOME it was given, its
 * output in the file named for it. */
static void spawn_passes_the_environment(void **state)
{
    (void)state;
    char *out = test_write_temp(""), *errf = test_write_temp("");
    char *argv[] = {"/bin/sh", "-c", "printf '%s|%s' \"$CORUN_DATADIR\" \"$XDG_DATA_HOME\"", NULL};
    char err[256];
    struct bench_child c = {.argv = argv,
                            .datadir = "/data/dir",
                            .xdg = "/xdg/home",
                            .out_path = out,
                            .err_path = errf};
    assert_int_equal(bench_spawn(&c, err, sizeof err), 0);
    assert_true(WIFEXITED(c.status));
    assert_int_equal(WEXITSTATUS(c.status), 0);
    char got[64] = "";
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    assert_non_null(fgets(got, sizeof got, f));
    fclose(f);
    assert_string_equal(got, "/data/dir|/xdg/home");
    unlink(out), unlink(errf);
    free(out), free(errf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures_are_cpu_time),
        cmocka_unit_test(json_cycles_sum_the_epochs),
        cmocka_unit_test(files_equal_finds_the_first_difference),
        cmocka_unit_test(spawn_reports_status_and_cpu),
        cmocka_unit_test(spawn_kills_a_child_past_its_limit),
        cmocka_unit_test(median_of_odd_and_even_counts),
        cmocka_unit_test(traces_follow_their_pattern),
        cmocka_unit_test(spawn_passes_the_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
