/* bench — timing the simulator. */
#include "corun/bench.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corun/util.h"

/* The CPU time this thread has used: unlike the wall clock it does not grow while other
 * processes hold the CPU, so figures taken on a loaded machine stay comparable. */
double bench_cpu_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int bench_epochs(const struct gpu_config *cfg, const struct kernel_profile *const *profiles,
                 unsigned nkernels, unsigned epochs, uint64_t epoch_cycles, uint64_t seed,
                 double *ms_out, char *err, size_t errlen)
{
    struct gpu *g = gpu_new(cfg, profiles, nkernels, seed, err, errlen);
    if (!g)
        return -1;
    int *owner = xmalloc(cfg->sms * sizeof(*owner));
    gpu_partition_even(cfg->sms, nkernels, owner);
    int rc = gpu_set_partition(g, owner, cfg->sms, GPU_SWITCH_DRAIN, err, errlen);
    free(owner);
    for (unsigned e = 0; rc == 0 && e < epochs; e++) {
        double t0 = bench_cpu_seconds();
        gpu_reset_counters(g);
        gpu_run(g, epoch_cycles);
        ms_out[e] = (bench_cpu_seconds() - t0) * 1e3;
    }
    gpu_delete(g);
    return rc;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(double *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof(*v), compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* splitmix64: a small, well-mixed generator; the streams need no more. */
static uint64_t next_random(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

int bench_gen_trace(const char *pattern, size_t n, uint64_t seed, uint64_t *addrs)
{
    const uint64_t span = 4ull << 30, size = 64, lines = span / size;
    bool sequential = strcmp(pattern, "stream") == 0;
    uint64_t stride;
    if (sequential || strcmp(pattern, "random") == 0)
        stride = 0;
    else if (strcmp(pattern, "mix") == 0)
        stride = size;
    else if (strcmp(pattern, "mix2k") == 0)
        stride = 2048;
    else
        return -1;
    uint64_t s = seed, addr = 0;
    for (size_t i = 0; i < n; i++) {
        if (sequential)
            addr = (i * size) % span;
        else if (stride && i > 0 && (next_random(&s) >> 11) * 0x1.0p-53 < 0.5)
            addr = (addr + stride) % span;
        else
            addr = next_random(&s) % lines * size;
        addrs[i] = addr;
    }
    return 0;
}
