/* gpu_shared_fixtures — what the shared-dispatch tests share (gpu_shared_fixtures.c). Include
 * after cmocka.h. */
#ifndef CORUN_GPU_SHARED_FIXTURES_H
#define CORUN_GPU_SHARED_FIXTURES_H

#include <stdint.h>

#include "corun/gpu.h"
#include "corun/kernel.h"

#define SMS 15 /* k40 */

/* k40 in shared-dispatch mode with `streams` streams, the DRAM checker on. */
struct gpu *make_gpu(unsigned streams, uint64_t seed);
/* A compute kernel of tbs TBs of `warps` warps, at most per_sm of them on an SM at once. */
struct kernel_profile wide_kernel(const char *name, unsigned tbs, unsigned per_sm, unsigned insts,
                                  unsigned warps);
/* The same with TBs of 4 warps. */
struct kernel_profile short_kernel(const char *name, unsigned tbs, unsigned per_sm, unsigned insts);
/* Launches p on stream s; fails the test when refused. */
void launch(struct gpu *g, unsigned s, const struct kernel_profile *p);
/* SMs running stream s's TBs now; *idle (when not NULL) counts the idle ones. */
unsigned sms_of(const struct gpu *g, int s, unsigned *idle);
/* Stream s's TBs finished, and the cycle its grid started. */
uint64_t finished(const struct gpu *g, unsigned s);
uint64_t started(const struct gpu *g, unsigned s);
/* SMs holding TBs of both s and u. */
unsigned sms_shared_by(const struct gpu *g, unsigned s, unsigned u);

#endif
