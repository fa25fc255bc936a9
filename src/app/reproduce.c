/* reproduce — the experiments, their published figures and the error arithmetic. */
#include "corun/reproduce.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"

/* HSM §6.1 (Fig. 10): average and maximum NP error over the 105 pairs, with DASE's and Themis'
 * predictions capped at S_max/S_k. */
static const struct repro_published hsm_fig10[] = {
    {"hsm", "HSM Fig. 10", 0.068, 0.303, NAN, NULL},
    {"dase", "HSM Fig. 10", 0.179, 0.753, NAN, NULL},
    {"themis", "HSM Fig. 10", 0.338, 0.998, NAN, NULL},
    /* HSM §6.5, "GDDR5": the 40-SM GPU with GDDR5 (gddr5_40), HSM's average error only. */
    {"hsm", "HSM §6.5 GDDR5", 0.065, NAN, NAN, "gddr5_40"},
};

/* Themis §VI-A (Fig. 5): the 49 test pairs at 10:50, 20:40 and 30:30 — Themis averages 9.5 %;
 * for ASM the text gives only §III's figure for the same 49 pairs (Fig. 1b): 45 %, up to 105 %.
 * Themis reports slowdown error. */
static const struct repro_published themis_fig5[] = {
    {"themis", "Themis Fig. 5", 0.095, NAN, NAN, NULL},
    {"asm", "Themis Fig. 1b", 0.45, 1.05, NAN, NULL},
};

/* Themis §VI-C (Fig. 6): all 343 three-application mixes, SMs split evenly: 10 % average, 7 %
 * median. */
static const struct repro_published themis_fig6[] = {
    {"themis", "Themis Fig. 6", 0.10, NAN, 0.07, NULL},
};

/* Themis §VI-C (Fig. 6): 150 randomly picked four-application mixes, SMs split evenly: 10 %
 * average, 8 % median. */
static const struct repro_published themis_fig6_quads[] = {
    {"themis", "Themis Fig. 6", 0.10, NAN, 0.08, NULL},
};

static const struct repro_part hsm_parts[] = {
    {"hsm-pairs.cfg", "HSM Fig. 10",
     "NP error of the 105 pairs of Table 2 on the HBM GPU, SMs split evenly", REPRO_ERROR_NP, false,
     15, hsm_fig10, CORUN_ARRAY_LEN(hsm_fig10)},
};

static const struct repro_part themis_parts[] = {
    {"themis-pairs.cfg", "Themis Fig. 5",
     "slowdown error of the 49 pairs of the 7 test applications at 10:50, 20:40 and 30:30",
     REPRO_ERROR_SD, true, 9, themis_fig5, CORUN_ARRAY_LEN(themis_fig5)},
    {"themis-triples.cfg", "Themis Fig. 6",
     "slowdown error of the 343 three-application mixes of the test applications, 20:20:20",
     REPRO_ERROR_SD, false, 9, themis_fig6, CORUN_ARRAY_LEN(themis_fig6)},
};

static const struct repro_part themis_quad_parts[] = {
    {"themis-quads.cfg", "Themis Fig. 6",
     "slowdown error of 150 four-application mixes of the test applications, 15:15:15:15",
     REPRO_ERROR_SD, false, 6, themis_fig6_quads, CORUN_ARRAY_LEN(themis_fig6_quads)},
};

static const struct repro_experiment experiments[] = {
    {"hsm", "accuracy",
     "HSM Fig. 10: HSM, DASE and Themis accuracy over the 105 HSM pairs (hbm80; --gpu gddr5_40: "
     "HSM §6.5)",
     hsm_parts, CORUN_ARRAY_LEN(hsm_parts)},
    {"themis", "accuracy",
     "Themis Fig. 5/6: Themis and ASM over the 49 test pairs x 3 splits and the 343 "
     "triples (themis60)",
     themis_parts, CORUN_ARRAY_LEN(themis_parts)},
    {"themis", "quads",
     "Themis Fig. 6: Themis and ASM over 150 four-application mixes of the test applications "
     "(themis60)",
     themis_quad_parts, CORUN_ARRAY_LEN(themis_quad_parts)},
};

size_t repro_experiment_count(void)
{
    return CORUN_ARRAY_LEN(experiments);
}

const struct repro_experiment *repro_experiment_at(size_t i)
{
    return i < CORUN_ARRAY_LEN(experiments) ? &experiments[i] : NULL;
}

const struct repro_experiment *repro_experiment_find(const char *name, const char *flag)
{
    for (size_t i = 0; i < CORUN_ARRAY_LEN(experiments); i++)
        if (strcmp(experiments[i].name, name) == 0 && strcmp(experiments[i].flag, flag) == 0)
            return &experiments[i];
    return NULL;
}

bool repro_experiment_named(const char *name)
{
    for (size_t i = 0; i < CORUN_ARRAY_LEN(experiments); i++)
        if (strcmp(experiments[i].name, name) == 0)
            return true;
    return false;
}

double repro_are(enum repro_error e, double predicted, double truth)
{
    if (!(predicted > 0) || !(truth > 0) || isinf(predicted) || isinf(truth))
        return -1;
    /* Slowdown error: |1/p - 1/t| / (1/t) simplifies to |t - p| / p. */
    return e == REPRO_ERROR_SD ? fabs(truth - predicted) / predicted
                               : fabs(predicted - truth) / truth;
}

/* A growable list of errors. */
struct values {
    double *v;
    size_t n, cap;
};

static void values_add(struct values *vs, double x)
{
    if (vs->n == vs->cap) {
        vs->cap = vs->cap ? 2 * vs->cap : 64;
        vs->v = xrealloc(vs->v, vs->cap * sizeof(*vs->v));
    }
    vs->v[vs->n++] = x;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sums in the order added, so results do not depend on which worker ran which mix. */
static void values_stats(struct values *vs, struct repro_stats *out)
{
    *out = (struct repro_stats){vs->n, NAN, NAN, NAN};
    if (vs->n == 0)
        return;
    double sum = 0, max = 0;
    for (size_t i = 0; i < vs->n; i++) {
        sum += vs->v[i];
        max = fmax(max, vs->v[i]);
    }
    out->avg = sum / (double)vs->n;
    out->max = max;
    qsort(vs->v, vs->n, sizeof(*vs->v), cmp_double);
    size_t h = vs->n / 2;
    out->median = vs->n % 2 ? vs->v[h] : (vs->v[h - 1] + vs->v[h]) / 2;
}

bool repro_published_on(const char *published_gpu, const char *gpu, const char *suite_gpu)
{
    return strcmp(gpu, published_gpu ? published_gpu : suite_gpu) == 0;
}

bool repro_in_group(const struct repro_mix_result *m, const char *group)
{
    return !group || strcmp(m->tag, group) == 0 || (m->split[0] && strcmp(m->split, group) == 0);
}

/* Kernel k's run error in m: cycle-weighted means of NP and NP^ over the epochs with both. */
static double run_error(const struct repro_mix_result *m, unsigned p, unsigned k,
                        enum repro_error e)
{
    double truth = 0, pred = 0, cycles = 0;
    for (unsigned i = 0; i < m->nepochs; i++) {
        double t = m->np_true[p][i][k], q = m->np_pred[p][i][k];
        if (repro_are(e, q, t) < 0)
            continue;
        truth += t * (double)m->cycles[i];
        pred += q * (double)m->cycles[i];
        cycles += (double)m->cycles[i];
    }
    return cycles > 0 ? repro_are(e, pred / cycles, truth / cycles) : -1;
}

/* The errors of predictor p over the mixes r[0..n) in group: per kernel-epoch into ve (only
 * those whose far flag is far, unless far is -1), per kernel over the run into vr (NULL: none). */
static void collect(const struct repro_mix_result *r, size_t n, unsigned p, enum repro_error e,
                    const char *group, int far, struct values *ve, struct values *vr)
{
    for (size_t i = 0; i < n; i++) {
        const struct repro_mix_result *m = &r[i];
        if (m->failed || p >= m->npredictors || m->unavailable[p][0] || !repro_in_group(m, group))
            continue;
        for (unsigned k = 0; k < m->nkernels; k++) {
            for (unsigned ep = 0; ep < m->nepochs; ep++) {
                double are = repro_are(e, m->np_pred[p][ep][k], m->np_true[p][ep][k]);
                if (are >= 0 && (far < 0 || m->far[p][ep][k] == far))
                    values_add(ve, are);
            }
            double are = vr ? run_error(m, p, k, e) : -1;
            if (are >= 0)
                values_add(vr, are);
        }
    }
}

void repro_aggregate(const struct repro_mix_result *r, size_t n, unsigned p, enum repro_error e,
                     const char *group, struct repro_stats *per_epoch, struct repro_stats *per_run)
{
    struct values ve = {0}, vr = {0};
    collect(r, n, p, e, group, -1, &ve, &vr);
    values_stats(&ve, per_epoch);
    values_stats(&vr, per_run);
    free(ve.v);
    free(vr.v);
}

void repro_aggregate_far(const struct repro_mix_result *r, size_t n, unsigned p, enum repro_error e,
                         const char *group, bool far, struct repro_stats *per_epoch)
{
    struct values ve = {0};
    collect(r, n, p, e, group, far, &ve, NULL);
    values_stats(&ve, per_epoch);
    free(ve.v);
}

/* want evenly spaced members of idx[0..n) (stratum middles, shifted by offset) into out;
 * returns the count. */
static size_t spread(const size_t *idx, size_t n, size_t want, size_t offset, size_t *out)
{
    if (want > n)
        want = n;
    for (size_t j = 0; j < want; j++)
        out[j] = idx[((2 * j + 1) * n / (2 * want) + offset) % n];
    return want;
}

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

size_t repro_quick_select(const struct suite *s, unsigned want, size_t *out)
{
    size_t *all = xmalloc((s->nmixes + 1) * sizeof(*all));
    /* The tags some mix has (a filtered suite keeps the tags of the mixes it left out). */
    size_t *tag = xmalloc((s->ntags + 1) * sizeof(*tag)), ntags = 0;
    for (size_t t = 0; t < s->ntags; t++)
        for (size_t i = 0; i < s->nmixes; i++)
            if (strcmp(s->mixes[i].tag, s->tags[t]) == 0) {
                tag[ntags++] = t;
                break;
            }
    for (size_t i = 0; i < s->nmixes; i++)
        all[i] = i;
    size_t got = 0;
    if (ntags == 0 || want < ntags) {
        got = spread(all, s->nmixes, want, 0, out);
    } else {
        /* An equal share per tag; the remainder goes to the first tags. Each tag's picks are
         * shifted by its rank, so that in a suite listed split by split (themis-pairs) tags
         * with few picks do not all land in the same split. */
        size_t share = want / ntags, extra = want % ntags;
        for (size_t t = 0; t < ntags; t++) {
            size_t n = 0, mine = share + (t < extra);
            for (size_t i = 0; i < s->nmixes; i++)
                if (strcmp(s->mixes[i].tag, s->tags[tag[t]]) == 0)
                    all[n++] = i;
            size_t offset = mine ? t * n / (mine * ntags) : 0;
            got += spread(all, n, mine, offset, out + got);
        }
        qsort(out, got, sizeof(*out), cmp_size);
    }
    free(tag);
    free(all);
    return got;
}

bool repro_in_shard(size_t i, unsigned k, unsigned n)
{
    return n <= 1 || i % n == k - 1;
}

bool repro_in_run_shard(size_t i, size_t count, unsigned k, unsigned n)
{
    assert(i < count);
    return n <= 1 || i * n / count == k - 1;
}

size_t repro_shard_select(size_t *chosen, size_t count, unsigned k, unsigned n)
{
    assert(n <= 1 || (k >= 1 && k <= n));
    size_t kept = 0;
    for (size_t p = 0; p < count; p++)
        if (repro_in_shard(p, k, n))
            chosen[kept++] = chosen[p];
    return kept;
}
