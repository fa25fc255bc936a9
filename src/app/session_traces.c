/* session_traces — sharing the private-mode references through the catalog's trace cache.
 *
 * A reference depends only on (GPU configuration, kernel profile, SMs, seed), so every run of
 * the same kernel on the same preset and seed can reuse one: sweeps that pair one mix with
 * several predictors, and reruns, then only interpolate. A loaded trace gives the same samples
 * the session would have simulated, so results do not depend on the cache. */
#include <stdlib.h>

#include "corun/catalog.h"
#include "corun/util.h"
#include "session_internal.h"

int session_traces_from_catalog(struct session *s, struct catalog *cat, char *err, size_t errlen)
{
    if (!s->gpu)
        return 0; /* a replay simulates nothing */
    unsigned taken = 0;
    for (unsigned k = 0; k < s->sc->nkernels; k++) {
        const struct solo_key *key = solo_trace_key(s->ref[k]);
        uint64_t *insts = NULL;
        size_t n = 0;
        if (catalog_get_solo_trace(cat, key, &insts, &n, err, errlen) != 0)
            return -1;
        const uint64_t *have;
        if (n > solo_trace_samples(s->ref[k], &have)) {
            struct solo_trace *t = solo_cache_put(s->solo, &s->sc->gpu, &s->sc->kernels[k].profile,
                                                  key->sms, key->seed, insts, n, err, errlen);
            if (t) {
                s->ref[k] = t;
                taken++;
            }
        }
        free(insts);
    }
    return (int)taken;
}

int session_traces_to_catalog(const struct session *s, struct catalog *cat, char *err,
                              size_t errlen)
{
    if (!s->gpu)
        return 0;
    for (unsigned k = 0; k < s->sc->nkernels; k++) {
        const uint64_t *insts;
        size_t n = solo_trace_samples(s->ref[k], &insts);
        if (n > 1 && catalog_put_solo_trace(cat, solo_trace_key(s->ref[k]), s->sc->kernels[k].name,
                                            s->sc->gpu_name, insts, n, err, errlen) != 0)
            return -1;
    }
    return 0;
}
