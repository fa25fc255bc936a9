/* pcie_bubble — reading a sensitivity curve forwards (degradation at a pressure) and
 * backwards (the pressure that gives a degradation). */
#include "corun/pcie_bubble.h"

#include <assert.h>

double bubble_curve_at(const struct bubble_curve *c, double x)
{
    assert(c->n > 0);
    if (x <= c->pressure[0])
        return c->degradation[0];
    for (unsigned i = 1; i < c->n; i++) {
        if (x <= c->pressure[i]) {
            double f = (x - c->pressure[i - 1]) / (c->pressure[i] - c->pressure[i - 1]);
            return c->degradation[i - 1] + f * (c->degradation[i] - c->degradation[i - 1]);
        }
    }
    return c->degradation[c->n - 1];
}

double bubble_pressure_for(const struct bubble_curve *c, double d)
{
    assert(c->n > 0);
    if (d <= c->degradation[0])
        return c->pressure[0];
    for (unsigned i = 1; i < c->n; i++) {
        double lo = c->degradation[i - 1], hi = c->degradation[i];
        if (d <= hi && hi > lo) {
            double f = (d - lo) / (hi - lo);
            return c->pressure[i - 1] + f * (c->pressure[i] - c->pressure[i - 1]);
        }
    }
    return c->pressure[c->n - 1];
}
