/* cpus — how many CPUs this process may run on. */
#ifdef __linux__
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include <sched.h>
#endif

#include "corun/util.h"

#include <unistd.h>

unsigned util_cpus_available(void)
{
#ifdef __linux__
    /* A Slurm task, a container's cpuset or taskset may allow fewer than are online. */
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : (unsigned)n;
}
