/* alloc_fixtures — what the allocators' unit tests share (see alloc_fixtures.c). A fake
 * what-if stands in for the predictor: NP = slope × SMs, capped at cap when cap > 0 (a
 * memory-bound kernel that saturates). Include after cmocka.h. */
#ifndef CORUN_ALLOC_FIXTURES_H
#define CORUN_ALLOC_FIXTURES_H

#include "corun/alloc.h"

extern const char *const names[4]; /* lbm, hotspot, bino, bfs */
extern const struct alloc_params params;

struct fake {
    double slope[GPU_MAX_KERNELS], cap[GPU_MAX_KERNELS];
};

double fake_np_at(const void *ctx, unsigned k, double sms);
/* n kernels on sms SMs with counts and NP̂ (NAN: none), low priority, no what-if. */
struct alloc_input input(unsigned sms, unsigned n, const unsigned *counts, const double *np);
/* ops' state for sms SMs and n kernels (names, params); fails the test if none. */
void *make(const struct allocator_ops *ops, unsigned sms, unsigned n);
/* Run ops once on in and check the invariants every decision keeps. */
struct alloc_decision decide(const struct allocator_ops *ops, void *s,
                             const struct alloc_input *in);
/* decide on a state made for in and destroyed after. */
struct alloc_decision decide_once(const struct allocator_ops *ops, const struct alloc_input *in);

#define assert_counts(d, ...)                                                                      \
    do {                                                                                           \
        const unsigned want_[] = {__VA_ARGS__};                                                    \
        for (size_t i_ = 0; i_ < sizeof want_ / sizeof want_[0]; i_++)                             \
            assert_int_equal((d).sms[i_], want_[i_]);                                              \
    } while (0)

#endif
