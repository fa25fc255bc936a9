/* session_plot — a session's epochs as the arrays `corun plot` draws. */
#include "corun/session_plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"

int session_plot_fill(const struct session *r, struct session_plot *p)
{
    memset(p, 0, sizeof *p);
    unsigned n = session_epochs_done(r);
    if (n == 0)
        return -1;
    struct plot_data *d = &p->d;
    unsigned nk = session_epoch_at(r, n - 1)->nkernels;
    const struct scenario *sc = session_scenario(r);
    d->title = sc->name;
    d->nepochs = n;
    d->nkernels = nk;
    d->sms = sc->gpu.sms;
    double *b = p->block = xmalloc((2 * (size_t)nk + 2) * n * sizeof(double));
    int *owner = p->owner = xmalloc((size_t)n * d->sms * sizeof(int));
    double *np_true[GPU_MAX_KERNELS], *np_pred[GPU_MAX_KERNELS];
    for (unsigned k = 0; k < nk; k++) {
        d->name[k] = sc->kernels[k].name;
        d->np_true[k] = np_true[k] = b + (2 * (size_t)k) * n;
        d->np_pred[k] = np_pred[k] = b + (2 * (size_t)k + 1) * n;
    }
    double *fair = b + 2 * (size_t)nk * n, *stp = fair + n;
    d->fairness = fair;
    d->stp = stp;
    for (unsigned i = 0; i < n; i++) {
        const struct session_epoch *e = session_epoch_at(r, i);
        for (unsigned k = 0; k < nk; k++) {
            bool in = k < e->nkernels && e->k[k].in_mix;
            np_true[k][i] = in ? e->k[k].np_true : NAN;
            np_pred[k][i] = in && e->predictor[0] ? e->k[k].np_pred : NAN;
        }
        fair[i] = e->m.valid ? e->m.fairness : NAN;
        stp[i] = e->m.valid ? e->m.stp : NAN;
        for (unsigned s = 0; s < d->sms; s++)
            owner[(size_t)i * d->sms + s] = s < e->nsms ? e->owner[s] : GPU_SM_IDLE;
    }
    d->owner = owner;
    return 0;
}

void session_plot_done(struct session_plot *p)
{
    free(p->block);
    free(p->owner);
    memset(p, 0, sizeof *p);
}
