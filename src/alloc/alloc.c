/* alloc — helpers shared by the allocators and the session: the what-if with HSM's linear
 * fallback, the partition invariants, reasons, and turning counts into an SM map. */
#include <assert.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/alloc.h"
#include "corun/columns.h"
#include "corun/util.h"

#define FREE_SM (GPU_SM_GATED - 1) /* alloc_place: not yet decided */

double alloc_np_at(const struct alloc_input *in, unsigned k, double sms)
{
    if (k >= in->nkernels)
        return NAN;
    if (!(sms > 0))
        return 0; /* a kernel without SMs runs no TB */
    if (in->np_at) {
        double np = in->np_at(in->np_at_ctx, k, sms);
        if (!isnan(np))
            return np;
    }
    /* HSM §4.2: NP is linear in SMs through the origin, gradient NP̂ / S. */
    const struct alloc_kernel *ak = &in->k[k];
    double had = ak->c && ak->c->sms > 0 ? ak->c->sms : (double)ak->sms;
    if (!isfinite(ak->np_pred) || !(had > 0))
        return NAN;
    return ak->np_pred * sms / had;
}

static void vreason(struct alloc_decision *out, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));

static void vreason(struct alloc_decision *out, const char *fmt, va_list ap)
{
    vsnprintf(out->reason, sizeof out->reason, fmt, ap);
    util_utf8_whole(out->reason); /* a reason cut at its size: no half of a "→" */
}

static void set_changed(const struct alloc_input *in, struct alloc_decision *out)
{
    out->changed = out->gated != in->gated;
    for (unsigned k = 0; k < in->nkernels; k++)
        if (out->sms[k] != in->k[k].sms)
            out->changed = true;
}

void alloc_keep(const struct alloc_input *in, struct alloc_decision *out, const char *fmt, ...)
{
    alloc_base(in, false, out->sms, &out->gated);
    set_changed(in, out);
    va_list ap;
    va_start(ap, fmt);
    vreason(out, fmt, ap);
    va_end(ap);
}

void alloc_reason(const struct alloc_input *in, struct alloc_decision *out, const char *fmt, ...)
{
    set_changed(in, out);
    va_list ap;
    va_start(ap, fmt);
    vreason(out, fmt, ap);
    va_end(ap);
}

void alloc_place(const struct alloc_decision *d, unsigned nkernels, const int *old, unsigned nsms,
                 int *out)
{
    unsigned kept[GPU_MAX_KERNELS] = {0}, total = d->gated;
    for (unsigned k = 0; k < nkernels; k++)
        total += d->sms[k];
    assert(nkernels <= GPU_MAX_KERNELS && total <= nsms);
    (void)total;
    /* Owners keep their lowest-numbered SMs up to their new count. */
    for (unsigned i = 0; i < nsms; i++) {
        int o = old[i];
        if (o >= 0 && (unsigned)o < nkernels && kept[o] < d->sms[o]) {
            out[i] = o;
            kept[o]++;
        } else {
            out[i] = FREE_SM; /* free, decided below */
        }
    }
    /* Kernels short of their count take free SMs: idle ones first, then gated ones. */
    unsigned k = 0;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < nsms; i++) {
            if (out[i] != FREE_SM || (pass == 0) == (old[i] == GPU_SM_GATED))
                continue;
            while (k < nkernels && kept[k] >= d->sms[k])
                k++;
            if (k == nkernels)
                break;
            out[i] = (int)k;
            kept[k]++;
        }
    /* Gate d->gated of the rest, those gated already first; the others idle. */
    unsigned gate = d->gated;
    for (int pass = 0; pass < 2; pass++)
        for (unsigned i = 0; i < nsms; i++) {
            if (out[i] != FREE_SM || (pass == 0) != (old[i] == GPU_SM_GATED))
                continue;
            out[i] = gate ? GPU_SM_GATED : GPU_SM_IDLE;
            gate -= gate > 0;
        }
}

void *alloc_state_new(const struct alloc_setup *setup, size_t size)
{
    assert(size >= sizeof(struct alloc_common));
    struct alloc_common *c = xcalloc(1, size);
    c->sms = setup->sms;
    c->nkernels = setup->nkernels < GPU_MAX_KERNELS ? setup->nkernels : GPU_MAX_KERNELS;
    for (unsigned k = 0; k < c->nkernels; k++)
        c->names[k] =
            setup->names && setup->names[k] ? xstrdup(setup->names[k]) : xasprintf("k%u", k);
    return c;
}

void alloc_state_delete(void *state)
{
    struct alloc_common *c = state;
    if (!c)
        return;
    for (unsigned k = 0; k < c->nkernels; k++)
        free(c->names[k]);
    free(c);
}

const char *alloc_kernel_name(const void *state, unsigned k)
{
    const struct alloc_common *c = state;
    return c && k < c->nkernels ? c->names[k] : "?";
}

unsigned alloc_unfinished(const struct alloc_input *in)
{
    unsigned n = 0;
    for (unsigned k = 0; k < in->nkernels; k++)
        n += !in->k[k].finished;
    return n;
}

int alloc_high_priority(const struct alloc_input *in)
{
    for (unsigned k = 0; k < in->nkernels; k++)
        if (!in->k[k].finished && in->k[k].priority > 0)
            return (int)k;
    return -1;
}

int alloc_ls_kernel(const struct alloc_input *in)
{
    int hp = alloc_high_priority(in);
    if (hp >= 0)
        return hp;
    for (unsigned k = 0; k < in->nkernels; k++)
        if (!in->k[k].finished)
            return (int)k;
    return -1;
}

/* The unfinished kernel with the fewest (most, when most) SMs; lowest index on ties; -1. */
static int extreme(const struct alloc_input *in, const unsigned *sms, bool most)
{
    int best = -1;
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (in->k[k].finished)
            continue;
        if (best < 0 || (most ? sms[k] > sms[best] : sms[k] < sms[best]))
            best = (int)k;
    }
    return best;
}

static void base(const struct alloc_input *in, bool use_free, bool fill_empty, unsigned *sms,
                 unsigned *gated)
{
    unsigned held = 0, pool = 0;
    for (unsigned k = 0; k < in->nkernels; k++) {
        sms[k] = in->k[k].finished ? 0 : in->k[k].sms;
        pool += in->k[k].finished ? in->k[k].sms : 0;
        held += sms[k];
    }
    *gated = in->gated;
    /* Counts the GPU cannot hold (a caller's mistake) lose gated SMs, then the richest's. */
    while (held + pool + *gated > in->sms) {
        if (*gated > 0) {
            (*gated)--;
        } else if (pool > 0) {
            pool--;
        } else {
            sms[extreme(in, sms, true)]--;
            held--;
        }
    }
    unsigned idle = in->sms - held - pool - *gated;
    if (use_free) {
        pool = in->sms - held; /* finished kernels', idle and gated */
        idle = *gated = 0;
    }
    if (alloc_unfinished(in) == 0)
        return;
    for (unsigned k = 0; k < in->nkernels && fill_empty; k++) {
        if (in->k[k].finished || sms[k] > 0)
            continue;
        if (pool > 0) {
            pool--;
        } else if (idle > 0) {
            idle--;
        } else if (*gated > 0) {
            (*gated)--;
        } else {
            int rich = extreme(in, sms, true);
            if (sms[rich] < 2)
                break; /* more kernels than SMs: nothing to take */
            sms[rich]--;
        }
        sms[k] = 1;
    }
    for (; pool > 0; pool--)
        sms[extreme(in, sms, false)]++;
}

void alloc_base(const struct alloc_input *in, bool use_free, unsigned *sms, unsigned *gated)
{
    base(in, use_free, true, sms, gated);
}

void alloc_base_keep_empty(const struct alloc_input *in, unsigned *sms, unsigned *gated)
{
    base(in, false, false, sms, gated);
}

void alloc_spread(const struct alloc_input *in, unsigned total, const bool *skip, unsigned *sms)
{
    unsigned n = 0;
    for (unsigned k = 0; k < in->nkernels; k++)
        n += !in->k[k].finished && !(skip && skip[k]);
    if (n == 0)
        return;
    unsigned rank = 0;
    for (unsigned k = 0; k < in->nkernels; k++)
        if (!in->k[k].finished && !(skip && skip[k]))
            sms[k] = total / n + (rank++ < total % n);
}

bool alloc_alone(const void *state, const struct alloc_input *in, struct alloc_decision *out,
                 const char *name)
{
    unsigned n = alloc_unfinished(in);
    if (n > 1)
        return false;
    memset(out->sms, 0, sizeof out->sms);
    out->gated = 0;
    int k = extreme(in, out->sms, false);
    if (k < 0) {
        alloc_reason(in, out, "%s: every kernel has finished", name);
        return true;
    }
    out->sms[k] = in->sms;
    alloc_reason(in, out, "%s: %s alone, all %u SMs", name, alloc_kernel_name(state, (unsigned)k),
                 in->sms);
    return true;
}

void alloc_format_counts(const struct alloc_input *in, const unsigned *sms, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (unsigned k = 0; k < in->nkernels && used < len; k++) {
        int n = snprintf(buf + used, len - used, "%s%u", k ? "/" : "", sms[k]);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

void alloc_format_moves(const void *state, const struct alloc_input *in, const unsigned *sms,
                        char *buf, size_t len)
{
    int giver = -1, taker = -1;
    unsigned givers = 0, takers = 0;
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (sms[k] < in->k[k].sms) {
            giver = (int)k;
            givers++;
        } else if (sms[k] > in->k[k].sms) {
            taker = (int)k;
            takers++;
        }
    }
    if (givers == 0 && takers == 0) {
        snprintf(buf, len, "no SM moves");
        return;
    }
    if (givers == 1 && takers == 1 &&
        in->k[giver].sms - sms[giver] == sms[taker] - in->k[taker].sms) {
        unsigned n = sms[taker] - in->k[taker].sms;
        snprintf(buf, len, "%u SM%s %s→%s", n, n == 1 ? "" : "s",
                 alloc_kernel_name(state, (unsigned)giver),
                 alloc_kernel_name(state, (unsigned)taker));
        util_utf8_whole(buf);
        return;
    }
    /* Whole entries, and "…" for those that do not fit: cut at len, the last one read as
     * another count ("mrigr 7" for "mrigr 7→1") and ended in half of its arrow. */
    static const char more[] = ", …";
    char all[GPU_MAX_KERNELS * 96]; /* names are under 32 bytes (SCENARIO_KERNEL_NAME_MAX) */
    size_t used = 0, fits = 0;      /* fits: the whole entries that leave room for more[] */
    all[0] = '\0';
    for (unsigned k = 0; k < in->nkernels; k++) {
        if (sms[k] == in->k[k].sms)
            continue;
        int n = snprintf(all + used, sizeof all - used, "%s%s %u→%u", used ? ", " : "",
                         alloc_kernel_name(state, k), in->k[k].sms, sms[k]);
        if (n < 0 || (size_t)n >= sizeof all - used)
            break;
        used += (size_t)n;
        if (used + sizeof more <= len)
            fits = used;
    }
    if (used < len)
        snprintf(buf, len, "%s", all);
    else
        snprintf(buf, len, "%.*s%s", (int)fits, all, fits ? more : more + 2);
    util_utf8_whole(buf);
}

/* out holds the new counts: "NAME: WHY 64/16 (unchanged)" or "... (10 SMs a→b)". */
void alloc_conclude(const void *state, const struct alloc_input *in, struct alloc_decision *out,
                    const char *name, const char *why)
{
    char counts[64], moves[ALLOC_REASON_MAX];
    alloc_format_counts(in, out->sms, counts, sizeof counts);
    /* The moves get the room the reason leaves them, so that a long list ends in "…" instead
     * of being cut at the reason's size (eight kernels: "..., mrigr 7"). */
    int head = snprintf(NULL, 0, "%s: %s%s (", name, why, counts);
    size_t room =
        head >= 0 && (size_t)head + 2 < sizeof moves ? sizeof moves - 1 - (size_t)head : 1;
    alloc_format_moves(state, in, out->sms, moves, room);
    bool same = true;
    for (unsigned k = 0; k < in->nkernels; k++)
        same = same && out->sms[k] == in->k[k].sms;
    alloc_reason(in, out, "%s: %s%s (%s)", name, why, counts, same ? "unchanged" : moves);
}
