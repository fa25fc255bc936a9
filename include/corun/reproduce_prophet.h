/* reproduce_prophet — Prophet's experiments (ASPLOS'17 §7.2–7.3) on accelerator scenarios
 * built from data/apps: the accuracy of the predicted degradation of LS applications beside
 * one batch application (Figs. 12–14: compute-intensive, PCIe-intensive and low-contention
 * pairs), and safe co-location (the largest number of batch instances, 0 to 15, that keeps
 * an LS application's QoS target; Prophet 7.3's utilization improvement is that number / 15), each
 * measured on the core and predicted by prophet and by the sequential model from solo-run profiles
 * (and, for the accuracy, by the PCIe bubble, accel_bubble.h). Layer: app. */
#ifndef CORUN_REPRODUCE_PROPHET_H
#define CORUN_REPRODUCE_PROPHET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rp_class { RP_COMPUTE, RP_PCIE, RP_LOW, RP_CLASSES };

/* Prophet's average errors of the predicted degradation per class (§7.2: 5.9, 5.1, 5.5 %). */
extern const double rp_published_error[RP_CLASSES];
/* The PCIe bubble's average error on the PCIe-intensive pairs (§7.2.2: 50.8 %). */
#define RP_PUBLISHED_BUBBLE_ERROR 0.508
const char *rp_class_name(int cls);

struct rp_pair {
    const char *ls, *batch;
    int cls; /* enum rp_class */
};

struct accel_scenario;
struct accel_memo;
/* Loads into sc the k40 scenario (seed 1) of LS application ls (`queries`, closed loop when
 * rate_qps is 0, else Poisson at rate_qps; p99 target `target` x alone) beside instances[i]
 * instances of batch[i] (entries with none left out). Returns 0, or -1 with a message;
 * release sc with accel_scenario_done either way. */
int rp_scenario(struct accel_scenario *sc, const char *datadir, const char *ls,
                const char *const *batch, const unsigned *instances, size_t nbatch,
                unsigned queries, double target, double rate_qps, char *err, size_t errlen);

/* The pairs of the accuracy experiment (quick: two per class). */
size_t rp_accuracy_pairs(bool quick, const struct rp_pair **out);

/* One pair: degradation = mean query latency co-located / alone (closed loop). */
struct rp_accuracy_row {
    struct rp_pair pair;
    unsigned queries;
    double measured;                                      /* degradation on the core */
    double prophet, sequential, bubble;                   /* predicted */
    double prophet_error, sequential_error, bubble_error; /* |predicted - measured| / measured */
    uint64_t cycles;                                      /* core cycles the row simulated */
};

/* Runs pair with `queries` closed-loop LS queries and one batch instance. The predictors'
 * measurements (kernel profiles, the bubble's curves and pressures) are taken from memo and
 * kept in it (NULL: none), so pairs sharing an application measure it once. Returns 0, or -1
 * with a message. */
int rp_accuracy_run(const char *datadir, const struct rp_pair *pair, unsigned queries,
                    struct accel_memo *memo, struct rp_accuracy_row *row, char *err, size_t errlen);

/* One number of batch instances beside the LS application of a co-location pair. Latencies
 * are over the LS application alone under the same arrivals (n = 0), measured or predicted. */
struct rp_coloc_point {
    unsigned instances;
    double measured_x;     /* measured mean latency / the measured mean alone */
    double measured_p99_x; /* measured p99 / the measured p99 alone */
    bool measured_met;     /* measured_x <= the QoS target */
    double prophet_x;      /* predicted mean latency / the predicted mean alone */
    bool prophet_met;
    double sequential_x;
    bool sequential_met;
    double even_x; /* prophet-even's (corun's variant: the link split evenly) */
    bool even_met;
    double gpu_util; /* measured share of SM time busy */
};

/* The pairs of the co-location experiment (quick: one). */
size_t rp_coloc_pairs(bool quick, const struct rp_pair **out);

/* Runs LS application pair->ls with `queries` Poisson queries at `load` times the rate it can
 * serve alone (1 / its profile's solo latency) beside 0..15 instances of pair->batch:
 * out[0..16). The QoS target, as Prophet 7.3 sets it: the mean query latency <= target x the
 * mean alone under the same arrivals. Returns 0, or -1 with a message. */
int rp_coloc_run(const char *datadir, const struct rp_pair *pair, unsigned queries, double target,
                 double load, struct rp_coloc_point out[16], uint64_t *cycles, char *err,
                 size_t errlen);
/* Prophet 7.3's published co-location figures: utilization improvement (k / 15, mean over its
 * 77 co-locations) with Prophet's choices and with the measured oracle's; 7 of 77 choices
 * violated the QoS target, by 0.4 to 7.8 %. */
#define RP_PUBLISHED_UTIL        0.499
#define RP_PUBLISHED_ORACLE_UTIL 0.518

/* Over the co-location pairs: the mean utilization improvement (k / 15; k = -1 counts as 0) of
 * the measured oracle's, prophet's, the sequential model's and prophet-even's choices, and how
 * many of the predictors' choices miss the target on the core and by how much at worst
 * (measured / target - 1). */
struct rp_coloc_summary {
    unsigned pairs;
    double oracle_util, prophet_util, sequential_util, even_util;
    unsigned prophet_violations, sequential_violations, even_violations;
    double prophet_worst, sequential_worst, even_worst;
};
void rp_coloc_summarize(const struct rp_coloc_point (*points)[16], size_t npairs, double target,
                        struct rp_coloc_summary *out);

/* The largest n in out[0..16) whose verdict (which: 0 measured, 1 prophet, 2 sequential,
 * 3 prophet-even) keeps the target; -1 when none does. */
int rp_coloc_largest(const struct rp_coloc_point out[16], int which);

#endif
