/* testutil — shared helpers for the CMocka unit tests. */
#ifndef CORUN_TESTUTIL_H
#define CORUN_TESTUTIL_H

#include <stdio.h>

#include "corun/accel_scenario.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/kernel.h"

/* Load the GPU preset called name from the data directory ($CORUN_DATADIR, as make check sets
 * it) into out; fails the running test when it does not load. The presets are the one source of
 * the papers' parameters, so tests do not restate them. */
void test_preset(const char *name, struct gpu_config *out);

/* The built-in kernel profile called name; fails the running test when there is none. */
const struct kernel_profile *test_builtin(const char *name);
/* An hbm80 GPU (seed 3, the DRAM checker on) running p alone on SMs 0 to sms - 1, the rest
 * gated. */
struct gpu *test_hbm80_solo(const struct kernel_profile *p, unsigned sms);

/* Every counter a run's outcome is compared by (tests that two ways of running a GPU agree):
 * each kernel's, the system's, two DRAM channels', the clock, and the SMs' finished TBs. */
#define TEST_MAX_KERNELS 4
struct test_outcome {
    struct gpu_kernel_counters k[TEST_MAX_KERNELS];
    struct gpu_system_counters sys;
    struct gpu_channel_counters ch[2];
    uint64_t now, tbs;
};
/* Fills out from g's first n kernels (n <= TEST_MAX_KERNELS). */
void test_snapshot(const struct gpu *g, unsigned n, struct test_outcome *out);
/* A GPU of preset gpu (with order_free set as given) running the library kernels names
 * (NULL-terminated, at most TEST_MAX_KERNELS, loaded into p: kernel_profile_done them after
 * gpu_delete), seed 7, its SMs split evenly; *n gets their count. Fails the running test when
 * it cannot. */
struct gpu *test_gpu_of(const char *gpu, bool order_free, const char *const *names,
                        struct kernel_profile p[TEST_MAX_KERNELS], unsigned *n);
/* The same on the GPU settings cfg. */
struct gpu *test_gpu_of_config(const struct gpu_config *cfg, const char *const *names,
                               struct kernel_profile p[TEST_MAX_KERNELS], unsigned *n);

/* Gives kernel 0 every third SM of g (from the others), switching them as `how` says. */
void test_repartition_thirds(struct gpu *g, enum gpu_switch_mode how);

/* Writes text to a fresh temporary file; returns its path (free it and unlink it). */
char *test_write_temp(const char *text);
/* Remove dir and everything under it (a test's mkdtemp directory). */
void test_remove_tree(const char *dir);
/* Whether some message of d holds every one of the NULL-terminated needles. */
int test_diag_has(const struct diag *d, ...);

/* Loads an accelerator scenario from text (as file "test.cfg", with the data directory's
 * application profiles); fails the running test, printing the messages, when it does not. */
void test_accel_load(struct accel_scenario *sc, const char *text);

/* The scenario of two copy-only applications whose timeline tests work out by hand (an LS
 * application q of two sharing copies, a batch application b with an exclusive h2d): see
 * test_accel_run's copies_by_hand. */
extern const char test_accel_copies_cfg[];

/* Fails the running test unless the text of $CORUN_DATADIR/doc between the lines begin_mark and
 * end_mark is exactly what print writes; regen names the command that rewrites it. Skips when
 * CORUN_DATADIR (the source tree) is not set. */
void test_doc_matches(const char *doc, const char *begin_mark, const char *end_mark,
                      void (*print)(FILE *), const char *regen);

#endif
