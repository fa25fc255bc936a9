/* rng — small seedable PRNGs (splitmix64 for seeding, xoshiro256** for streams).
 *
 * Every simulated component that draws random numbers owns one struct rng, seeded from the run
 * seed and a component id, so the same seed gives bit-identical runs whatever the call order
 * of other components. Header-only: these sit on the simulator's hot path.
 * Layer: sim */
#ifndef CORUN_RNG_H
#define CORUN_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s[4];
};

/* One splitmix64 step: advances *x and returns a well-mixed 64-bit value. */
static inline uint64_t rng_splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* A stateless 64-bit mix of v (for hashing addresses). */
static inline uint64_t rng_mix64(uint64_t v)
{
    uint64_t x = v;
    return rng_splitmix64(&x);
}

/* Seed r for component `stream` of a run seeded with `seed`. */
static inline void rng_seed(struct rng *r, uint64_t seed, uint64_t stream)
{
    uint64_t x = seed ^ rng_mix64(stream + 0x632be59bd9b4e019ull);
    for (int i = 0; i < 4; i++)
        r->s[i] = rng_splitmix64(&x);
}

static inline uint64_t rng_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

/* Next 64 random bits (xoshiro256**). */
static inline uint64_t rng_next(struct rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rng_rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rng_rotl(s[3], 45);
    return result;
}

/* Uniform double in [0, 1). */
static inline double rng_uniform(struct rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Uniform integer in [0, n); n > 0. Lemire's multiply-shift (bias below 2^-32 for our n). */
static inline uint64_t rng_below(struct rng *r, uint64_t n)
{
    return (uint64_t)(((unsigned __int128)rng_next(r) * n) >> 64);
}

/* Threshold t such that rng_next(r) < t has probability p (p clamped to [0, 1]). */
static inline uint64_t rng_threshold(double p)
{
    if (!(p > 0))
        return 0;
    if (p >= 1)
        return UINT64_MAX;
    return (uint64_t)(p * 18446744073709551616.0);
}

#endif
