/* metrics — STP, ANTT, fairness and prediction error. */
#include "corun/metrics.h"

#include <math.h>

void metrics_compute(const double *np, size_t n, struct metrics *out)
{
    *out = (struct metrics){0};
    if (n == 0)
        return;
    double lo = INFINITY, hi = 0, inv = 0;
    for (size_t i = 0; i < n; i++) {
        if (!(np[i] > 0))
            return;
        out->stp += np[i];
        inv += 1.0 / np[i];
        lo = fmin(lo, np[i]);
        hi = fmax(hi, np[i]);
    }
    out->antt = inv / (double)n;
    out->fairness = lo / hi;
    out->valid = true;
}

double metrics_are(double predicted, double actual)
{
    return actual > 0 ? fabs(predicted - actual) / actual : -1;
}
