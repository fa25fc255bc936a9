/* alloc_fixtures — what the allocators' unit tests (test_alloc.c, test_alloc_smqos.c) share:
 * kernel names and parameters, inputs built by hand, a fake what-if, and a decision checked
 * against the invariants every allocator keeps. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "alloc_fixtures.h"

const char *const names[4] = {"lbm", "hotspot", "bino", "bfs"};
const struct alloc_params params = {.fairness_threshold = 0.9,
                                    .qos_upper = 0.9,
                                    .hp_share = 0.8,
                                    .smqos_policy = 0.9,
                                    .smqos_interval = 10000,
                                    .smqos_threshold = 0.01};

double fake_np_at(const void *ctx, unsigned k, double sms)
{
    const struct fake *f = ctx;
    double np = f->slope[k] * sms;
    return f->cap[k] > 0 && np > f->cap[k] ? f->cap[k] : np;
}

/* n kernels on sms SMs with counts and NP̂ (NAN: none), low priority, no what-if. */
struct alloc_input input(unsigned sms, unsigned n, const unsigned *counts, const double *np)
{
    struct alloc_input in = {.sms = sms, .nkernels = n, .predictor = "test", .p = &params};
    for (unsigned k = 0; k < n; k++) {
        in.k[k].sms = counts[k];
        in.k[k].np_pred = np ? np[k] : NAN;
        in.k[k].ipc = NAN;
        in.k[k].ipc_isolated = NAN;
        in.k[k].qos_target = 0.8;
    }
    return in;
}

void *make(const struct allocator_ops *ops, unsigned sms, unsigned n)
{
    struct alloc_setup setup = {sms, n, names, &params};
    char err[128] = "";
    void *s = ops->create(&setup, err, sizeof err);
    assert_non_null(s);
    return s;
}

/* Run ops once on in and check the invariants every decision keeps. */
struct alloc_decision decide(const struct allocator_ops *ops, void *s, const struct alloc_input *in)
{
    struct alloc_decision d;
    memset(&d, 0, sizeof d);
    ops->decide(s, in, &d);
    unsigned total = d.gated;
    bool changed = d.gated != in->gated;
    for (unsigned k = 0; k < in->nkernels; k++) {
        total += d.sms[k];
        changed = changed || d.sms[k] != in->k[k].sms;
        if (in->k[k].finished)
            assert_int_equal(d.sms[k], 0);
        else if (!in->p->smqos_take_last) /* with it, a batch kernel may have none */
            assert_true(d.sms[k] >= 1);
    }
    assert_true(total <= in->sms);
    assert_int_equal(d.changed, changed);
    assert_int_equal(strncmp(d.reason, ops->name, strlen(ops->name)), 0);
    assert_int_equal(d.reason[strlen(ops->name)], ':');
    return d;
}

struct alloc_decision decide_once(const struct allocator_ops *ops, const struct alloc_input *in)
{
    void *s = make(ops, in->sms, in->nkernels);
    struct alloc_decision d = decide(ops, s, in);
    ops->destroy(s);
    return d;
}
