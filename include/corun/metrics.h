/* metrics — the multi-program metrics of docs/design.md §3 over one set of normalized progresses:
 * STP = sum NP, ANTT = mean 1/NP, fairness = min NP / max NP, and prediction error. */
#ifndef CORUN_METRICS_H
#define CORUN_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct metrics {
    double stp;      /* system throughput */
    double antt;     /* average normalized turnaround time */
    double fairness; /* min NP / max NP */
    bool valid;      /* false when an NP is missing (not positive) */
};

/* Metrics of the n normalized progresses np[0..n). */
void metrics_compute(const double *np, size_t n, struct metrics *out);

/* Absolute relative error |predicted - actual| / actual; -1 when actual is not positive. */
double metrics_are(double predicted, double actual);

#endif
