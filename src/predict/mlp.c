/* mlp — dense network, eq. 8 loss, backpropagation and Adam. */
#include "corun/mlp.h"

#include <assert.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "corun/rng.h"
#include "corun/util.h"

#define ADAM_BETA1 0.9
#define ADAM_BETA2 0.999
#define ADAM_EPS   1e-8
#define TWO_PI     6.283185307179586

size_t mlp_param_count(const unsigned *width, unsigned nlayers)
{
    size_t n = 0;
    for (unsigned l = 1; l < nlayers; l++)
        n += (size_t)width[l] * width[l - 1] + width[l];
    return n;
}

/* A standard normal draw (Box-Muller). */
static double normal(struct rng *r)
{
    double u = rng_uniform(r), v = rng_uniform(r);
    return sqrt(-2 * log(1 - u)) * cos(TWO_PI * v);
}

int mlp_init(struct mlp *m, const unsigned *width, unsigned nlayers, uint64_t seed)
{
    memset(m, 0, sizeof(*m));
    if (nlayers < 2 || nlayers > MLP_MAX_LAYERS)
        return -1;
    for (unsigned l = 0; l < nlayers; l++) {
        if (width[l] < 1 || width[l] > MLP_MAX_WIDTH)
            return -1;
        m->width[l] = width[l];
    }
    m->nlayers = nlayers;
    m->nparams = mlp_param_count(width, nlayers);
    m->params = xcalloc(m->nparams, sizeof(*m->params));
    struct rng r;
    rng_seed(&r, seed, 0x6d6c70);
    double *p = m->params;
    for (unsigned l = 1; l < nlayers; l++) {
        /* He initialization keeps leaky-ReLU activations at a stable scale. */
        double scale = sqrt(2.0 / width[l - 1]);
        size_t nw = (size_t)width[l] * width[l - 1];
        for (size_t i = 0; i < nw; i++)
            p[i] = scale * normal(&r);
        p += nw + width[l];
    }
    return 0;
}

void mlp_done(struct mlp *m)
{
    free(m->params);
    memset(m, 0, sizeof(*m));
}

int mlp_set_params(struct mlp *m, const double *p, size_t n)
{
    if (n != m->nparams)
        return -1;
    memcpy(m->params, p, n * sizeof(*p));
    return 0;
}

/* Every layer's pre-activations z and activations a for one sample (a[0] is the input). */
struct trace {
    double z[MLP_MAX_LAYERS][MLP_MAX_WIDTH];
    double a[MLP_MAX_LAYERS][MLP_MAX_WIDTH];
};

static void forward_trace(const struct mlp *m, const double *in, struct trace *t)
{
    memcpy(t->a[0], in, m->width[0] * sizeof(*in));
    const double *p = m->params;
    for (unsigned l = 1; l < m->nlayers; l++) {
        unsigned rows = m->width[l], cols = m->width[l - 1];
        const double *w = p, *b = p + (size_t)rows * cols;
        bool hidden = l + 1 < m->nlayers;
        for (unsigned i = 0; i < rows; i++) {
            double z = b[i];
            for (unsigned j = 0; j < cols; j++)
                z += w[(size_t)i * cols + j] * t->a[l - 1][j];
            t->z[l][i] = z;
            t->a[l][i] = hidden && z < 0 ? MLP_LEAKY * z : z;
        }
        p += (size_t)rows * cols + rows;
    }
}

void mlp_forward(const struct mlp *m, const double *in, double *out)
{
    struct trace t;
    forward_trace(m, in, &t);
    unsigned last = m->nlayers - 1;
    memcpy(out, t.a[last], m->width[last] * sizeof(*out));
}

double mlp_loss_eq8(const double *pred, const double *truth, double alpha, double *grad)
{
    double ts = truth[0], ti = truth[1], tc = ts * ti;
    double rs = (ts - pred[0]) / ts, ri = (ti - pred[1]) / ti;
    double rc = (tc - pred[0] * pred[1]) / tc;
    grad[0] = -2 * rs / ts - 2 * alpha * rc * pred[1] / tc;
    grad[1] = -2 * ri / ti - 2 * alpha * rc * pred[0] / tc;
    return rs * rs + ri * ri + alpha * rc * rc;
}

/* Adds one sample's gradient (delta: dL/d output) to grad by backpropagation through t. */
static void backward(const struct mlp *m, const struct trace *t, const double *delta_out,
                     double *grad)
{
    double delta[MLP_MAX_WIDTH], prev[MLP_MAX_WIDTH];
    unsigned last = m->nlayers - 1;
    memcpy(delta, delta_out, m->width[last] * sizeof(*delta));
    size_t offset = m->nparams;
    for (unsigned l = last; l >= 1; l--) {
        unsigned rows = m->width[l], cols = m->width[l - 1];
        offset -= (size_t)rows * cols + rows;
        const double *w = m->params + offset;
        double *gw = grad + offset, *gb = gw + (size_t)rows * cols;
        for (unsigned i = 0; i < rows; i++) {
            for (unsigned j = 0; j < cols; j++)
                gw[(size_t)i * cols + j] += delta[i] * t->a[l - 1][j];
            gb[i] += delta[i];
        }
        if (l == 1)
            break;
        for (unsigned j = 0; j < cols; j++) {
            double s = 0;
            for (unsigned i = 0; i < rows; i++)
                s += w[(size_t)i * cols + j] * delta[i];
            prev[j] = t->z[l - 1][j] < 0 ? MLP_LEAKY * s : s;
        }
        memcpy(delta, prev, cols * sizeof(*delta));
    }
}

/* lambda * ||W||^2 (biases excluded), and its gradient added to grad when not NULL. */
static double regularize(const struct mlp *m, double lambda, double *grad)
{
    double sum = 0;
    size_t offset = 0;
    for (unsigned l = 1; l < m->nlayers; l++) {
        size_t nw = (size_t)m->width[l] * m->width[l - 1];
        for (size_t i = 0; i < nw; i++) {
            double w = m->params[offset + i];
            sum += w * w;
            if (grad)
                grad[offset + i] += 2 * lambda * w;
        }
        offset += nw + m->width[l];
    }
    return lambda * sum;
}

/* Eq. 8 over the samples idx[0..n) (all of x when idx is NULL). */
static double batch_loss_grad(const struct mlp *m, const double *x, const double *y,
                              const size_t *idx, size_t n, double alpha, double lambda,
                              double *grad)
{
    assert(m->width[m->nlayers - 1] == 2);
    if (grad)
        memset(grad, 0, m->nparams * sizeof(*grad));
    double data = 0;
    struct trace t;
    for (size_t s = 0; s < n; s++) {
        size_t row = idx ? idx[s] : s;
        forward_trace(m, x + row * m->width[0], &t);
        double d[2];
        data += mlp_loss_eq8(t.a[m->nlayers - 1], y + row * 2, alpha, d);
        if (grad) {
            d[0] /= (double)n;
            d[1] /= (double)n;
            backward(m, &t, d, grad);
        }
    }
    return data / (double)(n ? n : 1) + regularize(m, lambda, grad);
}

double mlp_loss_grad(const struct mlp *m, const double *x, const double *y, size_t n, double alpha,
                     double lambda, double *grad)
{
    return batch_loss_grad(m, x, y, NULL, n, alpha, lambda, grad);
}

double mlp_train(struct mlp *m, const double *x, const double *y, size_t n,
                 const struct mlp_train_options *o)
{
    size_t np = m->nparams, batch = o->batch && o->batch < n ? o->batch : n;
    double *g = xcalloc(np, sizeof(*g)), *mom = xcalloc(np, sizeof(*mom));
    double *vel = xcalloc(np, sizeof(*vel));
    size_t *order = xmalloc((n ? n : 1) * sizeof(*order));
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    struct rng r;
    rng_seed(&r, o->seed, 0x616461);
    double b1t = 1, b2t = 1;
    for (unsigned e = 0; e < o->epochs && n > 0; e++) {
        for (size_t i = n - 1; i > 0; i--) {
            size_t j = (size_t)rng_below(&r, i + 1), tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        for (size_t start = 0; start < n; start += batch) {
            size_t len = start + batch <= n ? batch : n - start;
            batch_loss_grad(m, x, y, order + start, len, o->alpha, o->lambda, g);
            b1t *= ADAM_BETA1;
            b2t *= ADAM_BETA2;
            for (size_t k = 0; k < np; k++) {
                mom[k] = ADAM_BETA1 * mom[k] + (1 - ADAM_BETA1) * g[k];
                vel[k] = ADAM_BETA2 * vel[k] + (1 - ADAM_BETA2) * g[k] * g[k];
                double mhat = mom[k] / (1 - b1t), vhat = vel[k] / (1 - b2t);
                m->params[k] -= o->learning_rate * mhat / (sqrt(vhat) + ADAM_EPS);
            }
        }
        if (o->loss_history)
            o->loss_history[e] = mlp_loss_grad(m, x, y, n, o->alpha, o->lambda, NULL);
    }
    double loss = mlp_loss_grad(m, x, y, n, o->alpha, o->lambda, NULL);
    free(order);
    free(vel);
    free(mom);
    free(g);
    return loss;
}
