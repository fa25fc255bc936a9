/* reproduce_alloc_subset — `corun reproduce ... --policies LABEL,...`: an allocation experiment
 * cut down to some of its policies, so that one column (HSM-Fair at 0.90, say) can be measured
 * without the others, and a long experiment can be measured a few columns at a time. Each
 * (mix, policy) is its own run with its own seed-determined inputs, so a column does not depend
 * on which other columns ran beside it; the experiment's baseline (the reference of its relative
 * figures and of energy) is always kept, which also lets two such runs be checked against each
 * other: their baseline columns must agree. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/reproduce_alloc.h"
#include "corun/util.h"

/* The policy whose label starts the list at `at` and ends where the list does or at a comma,
 * the longest such (Themis' labels hold commas: "hp<.5,.5>"); its index, with *len its
 * label's length, or -1 with *len the length up to the next comma (for the message). */
static int find(const struct ralloc_experiment *x, const char *at, size_t *len)
{
    int best = -1;
    size_t best_len = 0;
    for (unsigned p = 0; p < x->npolicies; p++) {
        size_t n = strlen(x->policies[p].label);
        if (n > best_len && strncmp(x->policies[p].label, at, n) == 0 &&
            (at[n] == ',' || at[n] == '\0')) {
            best = (int)p;
            best_len = n;
        }
    }
    *len = best >= 0 ? best_len : strcspn(at, ",");
    return best;
}

/* "even, fair/hsm@0.70, ...": x's labels into buf. */
static void all_labels(const struct ralloc_experiment *x, char *buf, size_t len)
{
    size_t at = 0;
    buf[0] = '\0';
    for (unsigned p = 0; p < x->npolicies && at < len; p++)
        at += (size_t)snprintf(buf + at, len - at, "%s%s", p ? ", " : "", x->policies[p].label);
}

int ralloc_experiment_subset(const struct ralloc_experiment *x, const char *labels,
                             struct ralloc_subset *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    bool want[RALLOC_MAX_POLICIES] = {false};
    char known[512];
    all_labels(x, known, sizeof known);
    for (const char *at = labels;;) {
        size_t len;
        int p = find(x, at, &len);
        if (len == 0) {
            snprintf(err, errlen,
                     "--policies '%s': an empty label; give labels separated by "
                     "commas, from: %s",
                     labels, known);
            return -1;
        }
        if (p < 0) {
            snprintf(err, errlen, "--policies: reproduce %s%s%s has no policy '%.*s'; it has: %s",
                     x->name, x->flag[0] ? " --" : "", x->flag, (int)len, at, known);
            return -1;
        }
        if (want[p]) {
            snprintf(err, errlen, "--policies: '%.*s' is listed twice", (int)len, at);
            return -1;
        }
        want[p] = true;
        if (!at[len])
            break;
        at += len + 1;
    }
    if (x->baseline >= 0)
        want[x->baseline] = true;

    out->x = *x;
    out->x.policies = out->policies;
    out->x.npolicies = 0;
    out->x.baseline = -1;
    size_t at = 0;
    for (unsigned p = 0; p < x->npolicies; p++) {
        if (!want[p])
            continue;
        if ((int)p == x->baseline)
            out->x.baseline = (int)out->x.npolicies;
        out->policies[out->x.npolicies++] = x->policies[p];
        at += (size_t)snprintf(out->labels + at, sizeof out->labels - at, "%s%s", at ? "," : "",
                               x->policies[p].label);
    }
    /* The published figures that still have their policy and reference. */
    out->published = xcalloc(x->npublished + 1, sizeof *out->published);
    size_t n = 0;
    for (size_t i = 0; i < x->npublished; i++) {
        const struct ralloc_published *f = &x->published[i];
        if (ralloc_policy_index(&out->x, f->policy) >= 0 &&
            (!f->ref || ralloc_policy_index(&out->x, f->ref) >= 0))
            out->published[n++] = *f;
    }
    out->x.published = out->published;
    out->x.npublished = n;
    return 0;
}

void ralloc_subset_done(struct ralloc_subset *s)
{
    free(s->published);
    s->published = NULL;
}
