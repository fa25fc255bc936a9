/* pcie_bubble — the arithmetic of the PCIe-bubble baseline (Prophet §7.2.2), built the way
 * Bubble-Up predicts memory contention: an application's *sensitivity curve* (its degradation
 * beside 0, 1, 2, ... instances of a bubble, a micro-benchmark that only copies over the
 * link), a co-runner's *pressure* (the number of bubbles that degrade a fixed reporter as much
 * as the co-runner does), and the prediction: the sensitivity curve read at the co-runners'
 * summed pressure. The measurements themselves are made elsewhere (accel_bubble.h); this
 * module only interpolates. Layer: predict. */
#ifndef CORUN_PCIE_BUBBLE_H
#define CORUN_PCIE_BUBBLE_H

#define BUBBLE_MAX_LEVELS 16

/* Degradation (latency beside the bubbles / latency alone) measured at increasing pressures
 * (numbers of bubble instances), pressure[0] = 0. */
struct bubble_curve {
    unsigned n;
    double pressure[BUBBLE_MAX_LEVELS];
    double degradation[BUBBLE_MAX_LEVELS];
};

/* The degradation at pressure x: linear between the measured levels, deg[0] below the first
 * and the last level's beyond the last (a curve is not extrapolated). */
double bubble_curve_at(const struct bubble_curve *c, double x);

/* The pressure at which curve c first reaches degradation d: linear within the first segment
 * that spans d; 0 when d is at most deg[0]; the last level's pressure when c never reaches
 * d. This is how a reporter's degradation beside a co-runner becomes its pressure score. */
double bubble_pressure_for(const struct bubble_curve *c, double d);

#endif
