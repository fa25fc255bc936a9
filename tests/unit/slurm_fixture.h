/* slurm_fixture — what test_slurm.c and test_slurm_job.c share: a test's own mkdtemp
 * directory with PATH (stand-ins for sbatch, squeue and sacct only) and XDG_DATA_HOME in it,
 * file helpers, and a catalog's sweep results. */
#ifndef CORUN_TEST_SLURM_FIXTURE_H
#define CORUN_TEST_SLURM_FIXTURE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/catalog.h"
#include "corun/reproduce.h"
#include "corun/reproduce_journal.h"
#include "corun/slurm.h"
#include "corun/spawn.h"
#include "corun/util.h"
#include "corun_sim_id.h"
#include "testutil.h"

struct fixture {
    char dir[64];
    char *old_path;
};

static inline int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof f->dir, "/tmp/corun-slurm-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    const char *path = getenv("PATH");
    f->old_path = strdup(path ? path : "/usr/bin:/bin");
    char *xdg = xasprintf("%s/xdg", f->dir);
    setenv("XDG_DATA_HOME", xdg, 1);
    free(xdg);
    /* Only the stand-ins of this directory: no real Slurm is asked anything. */
    char *bin = xasprintf("%s/bin", f->dir);
    mkdir(bin, 0777);
    setenv("PATH", bin, 1);
    free(bin);
    *state = f;
    return 0;
}

static inline int teardown(void **state)
{
    struct fixture *f = *state;
    setenv("PATH", f->old_path, 1);
    test_remove_tree(f->dir);
    free(f->old_path);
    free(f);
    return 0;
}

static inline void write_text(const char *path, const char *text, mode_t mode)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    chmod(path, mode);
}

static inline char *read_text(const char *path)
{
    FILE *fp = fopen(path, "r");
    assert_non_null(fp);
    char *buf = calloc(1, 65536);
    size_t n = fread(buf, 1, 65535, fp);
    buf[n] = '\0';
    fclose(fp);
    return buf;
}

/* ---- spawn ---- */

static inline void put_result(struct catalog *cat, const char *mix, double stp)
{
    char err[512];
    struct catalog_sweep_key key = {"tiny", mix, "none", "static", 1, "tiny-config"};
    struct catalog_metrics m = {.mean_stp = stp, .mean_antt = 1, .mean_fairness = 1};
    assert_int_equal(catalog_put_sweep_result(cat, &key, 0, &m, NULL, err, sizeof err), 0);
}

static inline int first_number(void *ctx, size_t ncols, const char *const *names,
                               const char *const *values)
{
    (void)ncols, (void)names;
    if (values)
        *(long *)ctx = atol(values[0]);
    return 0;
}

static inline long rows(struct catalog *cat)
{
    long n = -1;
    char err[512];
    assert_int_equal(
        catalog_query(cat, "SELECT count(*) FROM sweep_results", first_number, &n, err, sizeof err),
        0);
    return n;
}

#endif
