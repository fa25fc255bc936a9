/* Unit tests: bench — its figures are CPU time, so a machine busy with other work does not
 * swing them (issue 21, defect 17: bench's SM-scaling figures doubled under load). */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corun/bench.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/preset.h"

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
    double t0 = wall_seconds();
    assert_int_equal(bench_epochs(&cfg, pair, 2, 3, 100000, 1, ms, err, sizeof err), 0);
    double wall_ms = (wall_seconds() - t0) * 1e3;
    kill(spinner, SIGKILL);
    waitpid(spinner, NULL, 0);
    double cpu_ms = ms[0] + ms[1] + ms[2];
    if (!(cpu_ms > 0 && cpu_ms < 0.8 * wall_ms))
        fail_msg("bench reported %.1f ms of %.1f ms wall on a CPU shared half and half", cpu_ms,
                 wall_ms);
    kernel_profile_done(&a);
    kernel_profile_done(&b);
    diag_done(&d);
    free(datadir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(figures_are_cpu_time),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
