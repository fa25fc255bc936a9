/* accel_bubble — the PCIe-bubble baseline of Prophet §7.2.2 measured on the core: Bubble-Up's
 * method applied to the host link. A *bubble* is a process that only copies (one sharing
 * host-to-device copy of ACCEL_BUBBLE_BYTES, then one device-to-host, again and again); the
 * pressure on the link grows with the number of bubble instances. Measured once per scenario:
 *  - each LS application's sensitivity curve: its mean query latency beside 0, 1, 2, 4, 8 and
 *    15 bubbles (its own queries and arrivals), over its mean alone;
 *  - the reporter's curve: a closed-loop process doing one bubble pass per query, beside the
 *    same numbers of bubbles;
 *  - each batch application's pressure: the reporter's degradation beside one instance of it,
 *    turned into bubbles through the reporter's curve.
 * The prediction for an LS application reads its curve at the summed pressure of the batch
 * instances beside it (instances x pressure, added over the batch applications) and scales
 * its latencies alone by it. Other LS applications are not counted as pressure. Layer: app. */
#ifndef CORUN_ACCEL_BUBBLE_H
#define CORUN_ACCEL_BUBBLE_H

#include "corun/accel_scenario.h"
#include "corun/pcie_bubble.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ACCEL_BUBBLE_BYTES    (1u << 20) /* each of a bubble's two copies */
#define ACCEL_REPORTER_PASSES 10         /* the reporter's closed-loop queries */

struct accel_bubble {
    struct bubble_curve reporter;
    struct bubble_curve ls[ACCEL_MAX_APPS]; /* LS applications */
    double *alone_ms[ACCEL_MAX_APPS];       /* LS: each query's latency alone, heap */
    double alone_util[ACCEL_MAX_APPS];      /* LS: the share of SM time busy in that run */
    double reporter_deg[ACCEL_MAX_APPS];    /* batch: the reporter beside one instance */
    double pressure[ACCEL_MAX_APPS];        /* batch: that, in bubbles */
    uint64_t cycles;                        /* core cycles the measurements simulated */
};

/* Asked at every turn of the measuring runs (NULL: never); once it returns true, the
 * measuring ends with a message (accel_run_options' stop). */
typedef bool (*accel_stop_fn)(void);

/* Measures sc's curves and pressures. Returns 0, or -1 with a message (a failure, or stop).
 * Release with accel_bubble_done either way. */
int accel_bubble_measure(const struct accel_scenario *sc, struct accel_bubble *b,
                         accel_stop_fn stop, char *err, size_t errlen);
void accel_bubble_done(struct accel_bubble *b);

/* Part of the same into b (zeroed or filled before): the LS applications' curves and
 * latencies alone (ACCEL_BUBBLE_LS; they depend on the LS application and its arrivals),
 * or the reporter's curve and the batch applications' pressures (ACCEL_BUBBLE_BATCH; they
 * depend on neither), so a study can measure each once and combine them. */
enum { ACCEL_BUBBLE_LS = 1, ACCEL_BUBBLE_BATCH = 2 };
int accel_bubble_measure_part(const struct accel_scenario *sc, unsigned what,
                              struct accel_bubble *b, char *err, size_t errlen);

/* A memo of the measurements above, each kept under what it depends on (the GPU, its host
 * link, the seed and warm-up, and the application's settings and trace, an LS application's
 * index too): the reporter's curve, each LS application's curve and latencies alone, each
 * batch application's pressure. A study that puts the same applications in many scenarios
 * measures each once per memo. */
struct accel_bubble_memo;
struct accel_bubble_memo *accel_bubble_memo_new(void);
void accel_bubble_memo_delete(struct accel_bubble_memo *m);
/* accel_bubble_measure_part, taking what memo holds (simulating nothing for it, so b->cycles
 * counts only what was measured) and keeping what it measures (memo NULL: none). */
int accel_bubble_measure_memo(const struct accel_scenario *sc, unsigned what,
                              struct accel_bubble_memo *memo, struct accel_bubble *b,
                              accel_stop_fn stop, char *err, size_t errlen);

/* The summed pressure of sc's batch instances, in bubbles. */
double accel_bubble_pressure(const struct accel_scenario *sc, const struct accel_bubble *b);

/* Predicts every LS application's query latencies (ms): lat_ms[app] gets sc->apps[app].queries
 * values, its latencies alone times its curve at accel_bubble_pressure. */
void accel_bubble_predict(const struct accel_scenario *sc, const struct accel_bubble *b,
                          double *lat_ms[ACCEL_MAX_APPS]);

#endif
