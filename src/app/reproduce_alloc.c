/* reproduce_alloc — the SM-allocation experiments, their published figures and the metric
 * arithmetic (docs/design.md §3) over each run's true NP. */
#include "corun/reproduce_alloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "corun/util.h"

#define END RALLOC_NMETRICS

/* HSM §6.2/§6.4 (Figs. 11, 13): the 105 pairs, even split vs HSM-Fair and Fair driven by DASE
 * and Themis, and BW-App. Relative figures are ours / even's - 1 over the group's means. */
static const struct ralloc_policy hsm_fair_policies[] = {
    {"even", "even", NULL, 0, 0, 0, 0, NULL, 0, NULL},
    {"fair/hsm", "fair", "hsm", 0, 0, 0, 0, NULL, 0, NULL},
    {"fair/dase", "fair", "dase", 0, 0, 0, 0, NULL, 0, NULL},
    {"fair/themis", "fair", "themis", 0, 0, 0, 0, NULL, 0, NULL},
    {"bw-app", "bw-app", NULL, 0, 0, 0, 0, NULL, 0, NULL},
};

static const struct ralloc_published hsm_fair_published[] = {
    {"even", NULL, NULL, RALLOC_FAIRNESS, 0.527, "HSM §6.2", "average fairness, even split", NULL},
    {"fair/hsm", NULL, NULL, RALLOC_FAIRNESS, 0.841, "HSM §6.2", "average fairness, HSM-Fair",
     NULL},
    {"fair/themis", NULL, NULL, RALLOC_FAIRNESS, 0.619, "HSM §6.2", "average fairness, Themis",
     NULL},
    {"fair/dase", NULL, NULL, RALLOC_FAIRNESS, 0.652, "HSM §6.2", "average fairness, DASE", NULL},
    {"fair/hsm", "even", "heterogeneous", RALLOC_STP, 0.072, "HSM §6.2",
     "STP vs even, heterogeneous (up to +12.2 %)", NULL},
    {"fair/hsm", "even", "heterogeneous", RALLOC_ANTT, -0.158, "HSM §6.2",
     "ANTT vs even, heterogeneous (up to -20.4 %)", NULL},
    {"bw-app", "even", "memory-homogeneous", RALLOC_FAIRNESS, 0.181, "HSM §6.4",
     "fairness vs even, memory-bound mixes, BW-App", NULL},
    {"fair/hsm", "even", "memory-homogeneous", RALLOC_FAIRNESS, 0.75, "HSM §6.4",
     "fairness vs even, memory-bound mixes, HSM-Fair", NULL},
    {"bw-app", "even", "heterogeneous", RALLOC_FAIRNESS, 0.053, "HSM §6.4",
     "fairness vs even, heterogeneous, BW-App", NULL},
    {"fair/hsm", "even", "heterogeneous", RALLOC_FAIRNESS, 0.555, "HSM §6.4",
     "fairness vs even, heterogeneous, HSM-Fair", NULL},
    {"fair/hsm", NULL, NULL, RALLOC_FAIRNESS, 0.887, "HSM §6.5 GDDR5",
     "average fairness, HSM-Fair, on the 40-SM GDDR5 GPU", "gddr5_40"},
};

/* HSM §6.5 (Fig. 15): four-program mixes (scenarios/suites/hsm-quads.cfg, corun's choice: the
 * paper lists none), even split vs HSM-Fair (which balances the highest and lowest NP in each
 * epoch), and Fair driven by DASE and Themis beside them. */
static const struct ralloc_policy hsm_quads_policies[] = {
    {"even", "even", NULL, 0, 0, 0, 0, NULL, 0, NULL},
    {"fair/hsm", "fair", "hsm", 0, 0, 0, 0, NULL, 0, NULL},
    {"fair/dase", "fair", "dase", 0, 0, 0, 0, NULL, 0, NULL},
    {"fair/themis", "fair", "themis", 0, 0, 0, 0, NULL, 0, NULL},
};

static const struct ralloc_published hsm_quads_published[] = {
    {"fair/hsm", "even", NULL, RALLOC_FAIRNESS, 1.2, "HSM §6.5, Fig. 15",
     "HSM-Fair improves fairness 2.2x over even (ours / even's - 1 = +120 %)", NULL},
    {"fair/hsm", "even", NULL, RALLOC_STP, NAN, "HSM §6.5, Fig. 15",
     "\"while delivering similar STP\" (no number)", NULL},
};

/* HSM §6.3 (Fig. 12): QoS target 0.8 for the high-priority application. */
static const struct ralloc_policy hsm_qos_policies[] = {
    {"proportional", "proportional", NULL, 0.8, 0.8, 0, 0, NULL, 0, NULL},
    {"qos/hsm", "qos", "hsm", 0.8, 0, 0, 0, NULL, 0, NULL},
    {"qos/dase", "qos", "dase", 0.8, 0, 0, 0, NULL, 0, NULL},
    {"qos/themis", "qos", "themis", 0.8, 0, 0, 0, NULL, 0, NULL},
};

static const struct ralloc_published hsm_qos_published[] = {
    {"qos/hsm", NULL, NULL, RALLOC_MET, 1.0, "HSM §6.3",
     "HSM-QoS meets 0.8 in every mix (proportional, Themis, DASE do not)", NULL},
    {"qos/hsm", "proportional", NULL, RALLOC_STP, 0.077, "HSM §6.3", "STP vs proportional", NULL},
    {"qos/hsm", "qos/themis", NULL, RALLOC_STP, 0.044, "HSM §6.3", "STP vs Themis", NULL},
    {"qos/hsm", "qos/dase", NULL, RALLOC_STP, 0.055, "HSM §6.3", "STP vs DASE", NULL},
    {"qos/hsm", "proportional", "heterogeneous", RALLOC_STP, 0.189, "HSM §6.3",
     "STP vs proportional, heterogeneous", NULL},
    {"qos/hsm", "qos/themis", "heterogeneous", RALLOC_STP, 0.130, "HSM §6.3",
     "STP vs Themis, heterogeneous", NULL},
    {"qos/hsm", "qos/dase", "heterogeneous", RALLOC_STP, 0.152, "HSM §6.3",
     "STP vs DASE, heterogeneous", NULL},
};

/* HSM §6.5: HSM-Fair's sensitivity to its fairness threshold (0.7 to 0.95; 0.9 everywhere
 * else in the paper and the scenario's default). The paper states a trend, no number: its
 * rows carry NaN and the statement, ours beside them. */
#define HSM_THRESHOLD(t, label)                                                                    \
    {                                                                                              \
        label, "fair", "hsm", 0, 0, 0, 0, NULL, t, NULL                                            \
    }
static const struct ralloc_policy hsm_threshold_policies[] = {
    {"even", "even", NULL, 0, 0, 0, 0, NULL, 0, NULL}, /* the reference of the relative figures */
    HSM_THRESHOLD(0.70, "fair/hsm@0.70"),
    HSM_THRESHOLD(0.75, "fair/hsm@0.75"),
    HSM_THRESHOLD(0.80, "fair/hsm@0.80"),
    HSM_THRESHOLD(0.85, "fair/hsm@0.85"),
    HSM_THRESHOLD(0.90, "fair/hsm@0.90"),
    HSM_THRESHOLD(0.95, "fair/hsm@0.95"),
};

static const struct ralloc_published hsm_threshold_published[] = {
    {"fair/hsm@0.90", "even", NULL, RALLOC_FAIRNESS, NAN, "HSM §6.5",
     "\"as long as the fairness threshold is set to at least 0.9 [...], HSM-Fair significantly "
     "improves fairness, meanwhile improving ANTT and yielding stable STP\" (no numbers)",
     NULL},
    {"fair/hsm@0.90", "even", NULL, RALLOC_ANTT, NAN, "HSM §6.5", "ANTT improves (lower)", NULL},
    {"fair/hsm@0.90", "even", NULL, RALLOC_STP, NAN, "HSM §6.5", "STP stable", NULL},
    {"fair/hsm@0.95", "even", NULL, RALLOC_FAIRNESS, NAN, "HSM §6.5", "(the same at 0.95)", NULL},
    {"fair/hsm@0.95", "even", NULL, RALLOC_ANTT, NAN, "HSM §6.5", "(the same)", NULL},
    {"fair/hsm@0.95", "even", NULL, RALLOC_STP, NAN, "HSM §6.5", "(the same)", NULL},
};

/* SMQoS §5.2: policies 80-95 %, SMQoS vs Static-SMQoS; the LS task is the first kernel.
 * Energy and power are relative to the even split (the initial partition, §5.1). */
#define SMQOS_PAIR(p, col)                                                                         \
    {"smqos@" col, "smqos", NULL, p, 0, p, 0, col, 0, NULL},                                       \
    {                                                                                              \
        "static-smqos@" col, "static-smqos", NULL, p, 0, p, 0, col, 0, NULL                        \
    }
static const struct ralloc_policy smqos_policies[] = {
    {"even", "even", NULL, 0, 0, 0, 0, NULL, 0, NULL},
    SMQOS_PAIR(0.80, "80%"),
    SMQOS_PAIR(0.85, "85%"),
    SMQOS_PAIR(0.90, "90%"),
    SMQOS_PAIR(0.95, "95%"),
};

static const struct ralloc_published smqos_published[] = {
    {"smqos@95%", NULL, NULL, RALLOC_MET, 0.886, "SMQoS §5.2", "QoS_reach at 95 %, SMQoS", NULL},
    {"static-smqos@95%", NULL, NULL, RALLOC_MET, 0.583, "SMQoS §5.2",
     "QoS_reach at 95 %, Static-SMQoS", NULL},
    {"static-smqos@95%", "smqos@95%", NULL, RALLOC_BATCH, -0.325, "SMQoS §5.2",
     "batch throughput of Static-SMQoS vs SMQoS at 95 %", NULL},
};

/* SMQoS §5.2 at 95 %, read two ways the paper leaves open: its SMQoS may take the batch
 * task's last SM (smqos_batch_min = 0), and its Static-SMQoS may round 0.95 x 24 down (22 SMs
 * rather than 23). The paper's figures are printed beside each reading of the policy. */
static const struct ralloc_policy smqos_readings_policies[] = {
    {.label = "even", .allocator = "even"},
    {.label = "smqos@95%", .allocator = "smqos", .target = 0.95, .smqos = 0.95},
    {.label = "smqos@95%:batch0",
     .allocator = "smqos",
     .target = 0.95,
     .smqos = 0.95,
     .set = "smqos_batch_min = 0;"},
    {.label = "static-smqos@95%", .allocator = "static-smqos", .target = 0.95, .smqos = 0.95},
    {.label = "static-smqos@95%:down",
     .allocator = "static-smqos",
     .target = 0.95,
     .smqos = 0.95,
     .set = "static_smqos_rounding = \"down\";"},
};

static const struct ralloc_published smqos_readings_published[] = {
    {"smqos@95%", NULL, NULL, RALLOC_MET, 0.886, "SMQoS §5.2", "QoS_reach at 95 %, SMQoS", NULL},
    {"smqos@95%:batch0", NULL, NULL, RALLOC_MET, 0.886, "SMQoS §5.2", "(the same figure)", NULL},
    {"static-smqos@95%", NULL, NULL, RALLOC_MET, 0.583, "SMQoS §5.2",
     "QoS_reach at 95 %, Static-SMQoS", NULL},
    {"static-smqos@95%:down", NULL, NULL, RALLOC_MET, 0.583, "SMQoS §5.2", "(the same figure)",
     NULL},
    {"static-smqos@95%", "smqos@95%", NULL, RALLOC_BATCH, -0.325, "SMQoS §5.2",
     "batch throughput of Static-SMQoS vs SMQoS at 95 %", NULL},
    {"static-smqos@95%:down", "smqos@95%:batch0", NULL, RALLOC_BATCH, -0.325, "SMQoS §5.2",
     "(the same figure, both policies in the other reading)", NULL},
};

/* SMQoS §5.5 (Fig. 14): three tasks, the LS task first and two batch tasks, under the
 * pairwise experiment's policies. "The LS tasks meet their QoS requirements under all QoS
 * targets" is read as QoS_reach 1.0 at each; "exceeds by less than 2 %" is a bound (NaN). */
static const struct ralloc_published smqos_triples_published[] = {
    {"smqos@80%", NULL, NULL, RALLOC_MET, 1.0, "SMQoS §5.5",
     "LS tasks meet their QoS under all targets (our reading: QoS_reach 1.0)", NULL},
    {"smqos@85%", NULL, NULL, RALLOC_MET, 1.0, "SMQoS §5.5", "(the same)", NULL},
    {"smqos@90%", NULL, NULL, RALLOC_MET, 1.0, "SMQoS §5.5", "(the same)", NULL},
    {"smqos@95%", NULL, NULL, RALLOC_MET, 1.0, "SMQoS §5.5", "(the same)", NULL},
    {"smqos@80%", NULL, NULL, RALLOC_HP_NP, NAN, "SMQoS §5.5",
     "in most cases SMQoS exceeds the target by less than 2 % (hpNP/T < 1.02; a bound)", NULL},
    {"smqos@85%", NULL, NULL, RALLOC_HP_NP, NAN, "SMQoS §5.5", "(the same)", NULL},
    {"smqos@90%", NULL, NULL, RALLOC_HP_NP, NAN, "SMQoS §5.5", "(the same)", NULL},
    {"smqos@95%", NULL, NULL, RALLOC_HP_NP, NAN, "SMQoS §5.5", "(the same)", NULL},
    {"smqos@90%", NULL, "first=smqos-lbm", RALLOC_HP_NP, 1.0032, "SMQoS §5.5",
     "LBM as the LS task at 90 %: only 0.32 % above the target", NULL},
};

/* SMQoS §5.4 (Figs. 11-13): SMQoS against Offline at each policy. Offline is the static
 * partition found by search (reproduce_offline.c): LS n SMs, batch m SMs, the rest power-gated,
 * with the smallest n meeting the target and then the smallest m whose batch throughput is
 * within 1 % (SMQoS's threshold) of the best over m. Power is relative to the even split;
 * Fig. 13 (SMQoS's power / Offline's) is the ratio of the two policies' means. */
#define SMQOS_OFFLINE(p, col)                                                                      \
    {.label = "smqos@" col, .allocator = "smqos", .target = p, .smqos = p, .column = col},         \
    {                                                                                              \
        .label = "offline@" col, .allocator = RALLOC_OFFLINE, .target = p, .column = col           \
    }
static const struct ralloc_policy smqos_offline_policies[] = {
    {.label = "even", .allocator = "even"},
    SMQOS_OFFLINE(0.80, "80%"),
    SMQOS_OFFLINE(0.85, "85%"),
    SMQOS_OFFLINE(0.90, "90%"),
    SMQOS_OFFLINE(0.95, "95%"),
};

#define SMQOS_VS_OFFLINE(col, what12, what13)                                                      \
    {"smqos@" col, "offline@" col, NULL, RALLOC_BATCH, -0.0707, "SMQoS §5.4", what12, NULL},       \
    {                                                                                              \
        "smqos@" col, "offline@" col, NULL, RALLOC_POWER, 0.006, "SMQoS §5.4", what13, NULL        \
    }
static const struct ralloc_published smqos_offline_published[] = {
    SMQOS_VS_OFFLINE("80%",
                     "Fig. 12: SMQoS's batch throughput is 7.07 % below Offline's "
                     "(the average over all policies)",
                     "Fig. 13: SMQoS's power is 0.6 % above Offline's (the same average)"),
    SMQOS_VS_OFFLINE("85%", "(the same average)", "(the same average)"),
    SMQOS_VS_OFFLINE("90%", "(the same average)", "(the same average)"),
    SMQOS_VS_OFFLINE("95%", "(the same average)", "(the same average)"),
};

/* SMQoS §5.3 (Fig. 10): Algorithm 2's threshold from 0.01 to 0.1 with LBM as the LS task at
 * the 95 % policy, against each batch task; the figure is each batch task's throughput
 * normalized to isolated execution (our batch NP), with no numbers in the text. */
#define SMQOS_THRESHOLD(t, name)                                                                   \
    {                                                                                              \
        .label = name, .allocator = "smqos", .target = 0.95, .smqos = 0.95, .threshold = t         \
    }
static const struct ralloc_policy smqos_threshold_policies[] = {
    SMQOS_THRESHOLD(0.01, "smqos@t0.01"), SMQOS_THRESHOLD(0.02, "smqos@t0.02"),
    SMQOS_THRESHOLD(0.03, "smqos@t0.03"), SMQOS_THRESHOLD(0.04, "smqos@t0.04"),
    SMQOS_THRESHOLD(0.05, "smqos@t0.05"), SMQOS_THRESHOLD(0.06, "smqos@t0.06"),
    SMQOS_THRESHOLD(0.07, "smqos@t0.07"), SMQOS_THRESHOLD(0.08, "smqos@t0.08"),
    SMQOS_THRESHOLD(0.09, "smqos@t0.09"), SMQOS_THRESHOLD(0.10, "smqos@t0.10"),
};

static const struct ralloc_published smqos_threshold_published[] = {
    {"smqos@t0.01", NULL, NULL, RALLOC_BATCH, NAN, "SMQoS §5.3",
     "0.01 gives the best results across all task mixes (Fig. 10 has no numbers)", NULL},
    {"smqos@t0.05", "smqos@t0.01", NULL, RALLOC_BATCH, NAN, "SMQoS §5.3",
     "each batch task's throughput stays the same while the threshold is small (0.01-0.05)", NULL},
    {"smqos@t0.10", "smqos@t0.01", NULL, RALLOC_BATCH, NAN, "SMQoS §5.3",
     "beyond that it falls significantly for every batch task (0.06-0.1: opt_k stops short)", NULL},
};

/* Themis §VII-C (Figs. 9, 10): weights <0.5,0.5> and <0.2,0.8> (first kernel, second), the
 * static weighted split HP against the engine's Fair policy with the Themis predictor. */
static const struct ralloc_policy themis_fair_policies[] = {
    {"hp<.5,.5>", "static", NULL, 0, 0, 0, 0.5, "<0.5,0.5>", 0, NULL},
    {"themis<.5,.5>", "themis-engine", "themis", 0, 0, 0, 0.5, "<0.5,0.5>", 0, NULL},
    {"hp<.2,.8>", "static", NULL, 0, 0, 0, 0.2, "<0.2,0.8>", 0, NULL},
    {"themis<.2,.8>", "themis-engine", "themis", 0, 0, 0, 0.2, "<0.2,0.8>", 0, NULL},
};

static const struct ralloc_published themis_fair_published[] = {
    {"themis<.5,.5>", NULL, NULL, RALLOC_UNFAIRNESS, 0.15, "Themis §VII-C",
     "average unfairness, Themis-Fair <0.5,0.5>", NULL},
    {"themis<.5,.5>", NULL, NULL, RALLOC_UNFAIRNESS_MEDIAN, 0.11, "Themis §VII-C",
     "median unfairness, Themis-Fair <0.5,0.5>", NULL},
    {"themis<.5,.5>", "hp<.5,.5>", NULL, RALLOC_UNFAIRNESS, -0.47, "Themis §VII-C",
     "average unfairness vs HP: lower by more than 47 %", NULL},
};

/* Themis §VII-D (Fig. 12): QoS targets 0.6 to 0.9 for the LS (first) application. */
#define THEMIS_QOS(t, label)                                                                       \
    {                                                                                              \
        label, "themis-engine", "themis", t, 0, 0, 0, NULL, 0, NULL                                \
    }
static const struct ralloc_policy themis_qos_policies[] = {
    THEMIS_QOS(0.60, "themis@0.60"), THEMIS_QOS(0.65, "themis@0.65"),
    THEMIS_QOS(0.70, "themis@0.70"), THEMIS_QOS(0.75, "themis@0.75"),
    THEMIS_QOS(0.80, "themis@0.80"), THEMIS_QOS(0.85, "themis@0.85"),
    THEMIS_QOS(0.90, "themis@0.90"),
};

static const struct ralloc_published themis_qos_published[] = {
    {"themis@0.60", NULL, NULL, RALLOC_MET, 0.918, "Themis §VII-D",
     "at every target at least 91.8 % met (worst case 8.2 % violate)", NULL},
    {"themis@0.90", NULL, NULL, RALLOC_MET, 0.918, "Themis §VII-D", "(the same bound)", NULL},
    {"themis@0.60", NULL, NULL, RALLOC_MET_NEAR, 1.0, "Themis §VII-D",
     "every violation is under 5 % of the target", NULL},
    {"themis@0.90", NULL, NULL, RALLOC_MET_NEAR, 1.0, "Themis §VII-D", "(the same)", NULL},
};

#define POLICIES(a)  .policies = a, .npolicies = (unsigned)CORUN_ARRAY_LEN(a)
#define PUBLISHED(a) .published = a, .npublished = CORUN_ARRAY_LEN(a)

static const struct ralloc_experiment experiments[] = {
    {.name = "hsm",
     .flag = "fairness",
     .suite = "hsm-pairs.cfg",
     .figure = "HSM Figs. 11, 13",
     .caption = "fairness, STP and ANTT of the 105 pairs on hbm80: even, Fair x {hsm, dase, "
                "themis}, BW-App",
     .baseline = 0,
     .metrics = {RALLOC_FAIRNESS, RALLOC_STP, RALLOC_ANTT, RALLOC_MOVED, END},
     POLICIES(hsm_fair_policies),
     PUBLISHED(hsm_fair_published),
     /* measured on the workload model v2: the full run, 194 s per mix (5 policies x 5 M cycles)
      * of a worker at nice 15 beside other jobs (4.4 on the old model) */
     .cpu_seconds_per_mcycle = 7.8},
    {.name = "hsm",
     .flag = "qos",
     .suite = "hsm-pairs.cfg",
     .figure = "HSM Fig. 12",
     .caption = "QoS target 0.8 on the memory-bound (else first) application of the 105 pairs: "
                "proportional 64/80 vs QoS x {hsm, dase, themis}",
     .baseline = -1,
     .memory_hp = true,
     .metrics = {RALLOC_MET, RALLOC_HP_NP, RALLOC_STP, RALLOC_BATCH, RALLOC_HP_SMS, END},
     POLICIES(hsm_qos_policies),
     PUBLISHED(hsm_qos_published),
     .cpu_seconds_per_mcycle = 10.0}, /* v2, the full run: 200 s per mix (4 x 5 M cycles) */
    {.name = "hsm",
     .flag = "threshold",
     .suite = "hsm-pairs.cfg",
     .figure = "HSM §6.5",
     .caption = "fairness threshold sensitivity: fairness, STP and ANTT of the 105 pairs on hbm80, "
                "even vs HSM-Fair (fair/hsm) at thresholds 0.70-0.95",
     .baseline = 0,
     .metrics = {RALLOC_FAIRNESS, RALLOC_STP, RALLOC_ANTT, RALLOC_MOVED, END},
     POLICIES(hsm_threshold_policies),
     PUBLISHED(hsm_threshold_published),
     .cpu_seconds_per_mcycle = 7.8}, /* hsm --fairness's: the same suite and allocator */
    {.name = "hsm",
     .flag = "quads",
     .suite = "hsm-quads.cfg",
     .figure = "HSM §6.5, Fig. 15",
     .caption = "fairness, STP and ANTT of 20 four-program mixes on hbm80 (corun's choice; the "
                "paper lists none): even vs Fair x {hsm, dase, themis}",
     .baseline = 0,
     .metrics = {RALLOC_FAIRNESS, RALLOC_STP, RALLOC_ANTT, RALLOC_MOVED, END},
     POLICIES(hsm_quads_policies),
     PUBLISHED(hsm_quads_published),
     .cpu_seconds_per_mcycle = 7.7}, /* v2, the full run: 153 s per mix (4 x 5 M cycles) */
    {.name = "smqos",
     .flag = "",
     .suite = "smqos-pairs.cfg",
     .figure = "SMQoS §5.2",
     .caption =
         "QoS_reach, batch throughput and energy of the 132 LS x batch pairs on smqos24: SMQoS vs "
         "Static-SMQoS at policies 80-95 %",
     .baseline = 0,
     .metrics = {RALLOC_MET, RALLOC_HP_NP, RALLOC_BATCH, RALLOC_POWER, RALLOC_ENERGY, END},
     POLICIES(smqos_policies),
     PUBLISHED(smqos_published),
     .cpu_seconds_per_mcycle = 1.9}, /* v2, the full run: 33.4 s per mix (9 x 2 M cycles) */
    {.name = "smqos",
     .flag = "readings",
     .suite = "smqos-pairs.cfg",
     .figure = "SMQoS §5.2, two readings",
     .caption = "QoS_reach and batch throughput of the 132 LS x batch pairs on smqos24 at the 95 % "
                "policy, SMQoS and Static-SMQoS as corun reads them and as the paper may: SMQoS "
                "taking the batch task's last SM (:batch0), Static-SMQoS rounding 0.95 x 24 "
                "down to 22 SMs (:down)",
     .baseline = 0,
     .metrics = {RALLOC_MET, RALLOC_HP_NP, RALLOC_BATCH, RALLOC_POWER, END},
     POLICIES(smqos_readings_policies),
     PUBLISHED(smqos_readings_published),
     .cpu_seconds_per_mcycle = 1.9}, /* as smqos (§5.2), whose runs these are */
    {.name = "smqos",
     .flag = "threshold",
     .suite = "smqos-pairs.cfg",
     .figure = "SMQoS §5.3, Fig. 10",
     .caption = "threshold sensitivity: batch throughput (NP) of the 11 pairs with LBM as the LS "
                "task on smqos24 at the 95 % policy, SMQoS with Algorithm 2's threshold "
                "0.01-0.1",
     .only = "first=smqos-lbm",
     .baseline = 0,
     .metrics = {RALLOC_BATCH, RALLOC_HP_NP, RALLOC_MET, RALLOC_POWER, END},
     POLICIES(smqos_threshold_policies),
     PUBLISHED(smqos_threshold_published),
     .cpu_seconds_per_mcycle = 1.3, /* v2, the full run: 26.0 s per mix (10 x 2 M cycles) */
     .by_mix = true},
    {.name = "smqos",
     .flag = "triples",
     .suite = "smqos-triples.cfg",
     .figure = "SMQoS §5.5, Fig. 14",
     .caption =
         "QoS of the LS task in the 60 three-task mixes on smqos24 (LS first, 2 batch tasks; "
         "corun's CI smqos-bino, merge, cp and MI atax, bicg, smqos-lbm): SMQoS vs Static-SMQoS at "
         "policies 80-95 %",
     .baseline = 0,
     .metrics = {RALLOC_MET, RALLOC_HP_NP, RALLOC_BATCH, RALLOC_POWER, RALLOC_ENERGY, END},
     POLICIES(smqos_policies),
     PUBLISHED(smqos_triples_published),
     .cpu_seconds_per_mcycle = 1.3}, /* v2, the full run: 24.0 s per mix (9 x 2 M cycles) */
    {.name = "smqos",
     .flag = "offline",
     .suite = "smqos-pairs.cfg",
     .figure = "SMQoS §5.4, Figs. 11-13",
     .caption = "SMQoS vs Offline (the static partition LS n SMs, batch m SMs, the rest "
                "power-gated; n the "
                "smallest meeting the QoS target, then m the smallest whose batch throughput is "
                "within 1 % "
                "of the best over m) on the 132 LS x batch pairs on smqos24 at policies 80-95 %",
     .baseline = 0,
     .metrics = {RALLOC_MET, RALLOC_HP_NP, RALLOC_BATCH, RALLOC_POWER, RALLOC_ENERGY, END},
     POLICIES(smqos_offline_policies),
     PUBLISHED(smqos_offline_published),
     /* v2, the full run: 54.9 s per mix (9 x 2 M cycles, the searches included) */
     .cpu_seconds_per_mcycle = 3.1},
    {.name = "themis",
     .flag = "fairness",
     .suite = "themis-pairs.cfg",
     .figure = "Themis Figs. 9, 10",
     .caption =
         "weighted unfairness and aggregate progress of the 49 test pairs on themis60: static "
         "weighted split (HP) vs themis-engine with the Themis predictor",
     .only = "30:30",
     .baseline = -1,
     .metrics = {RALLOC_UNFAIRNESS, RALLOC_UNFAIRNESS_MEDIAN, RALLOC_STP, RALLOC_MOVED, END},
     POLICIES(themis_fair_policies),
     PUBLISHED(themis_fair_published),
     .missing = "Bubble-PSP, ASM-PSP and ASM-GPM-PSP are not implemented; Fig. 10 gives no numbers",
     .cpu_seconds_per_mcycle = 3.6}, /* v2, the full run: 71.7 s per mix (4 x 5 M cycles) */
    {.name = "themis",
     .flag = "qos",
     .suite = "themis-pairs.cfg",
     .figure = "Themis Fig. 12",
     .caption =
         "QoS targets 0.6-0.9 on the first (LS) application of the 49 test pairs: themis-engine "
         "with the Themis predictor",
     .only = "30:30",
     .baseline = -1,
     .metrics = {RALLOC_MET, RALLOC_MET_NEAR, RALLOC_HP_NP, RALLOC_BATCH, RALLOC_HP_SMS, END},
     POLICIES(themis_qos_policies),
     PUBLISHED(themis_qos_published),
     .cpu_seconds_per_mcycle = 2.9}, /* v2, the full run: 101 s per mix (7 x 5 M cycles) */
};

size_t ralloc_experiment_count(void)
{
    return CORUN_ARRAY_LEN(experiments);
}

const struct ralloc_experiment *ralloc_experiment_at(size_t i)
{
    return i < CORUN_ARRAY_LEN(experiments) ? &experiments[i] : NULL;
}

const struct ralloc_experiment *ralloc_experiment_find(const char *name, const char *flag)
{
    for (size_t i = 0; i < CORUN_ARRAY_LEN(experiments); i++)
        if (strcmp(experiments[i].name, name) == 0 && strcmp(experiments[i].flag, flag) == 0)
            return &experiments[i];
    return NULL;
}

bool ralloc_experiment_named(const char *name)
{
    for (size_t i = 0; i < CORUN_ARRAY_LEN(experiments); i++)
        if (strcmp(experiments[i].name, name) == 0)
            return true;
    return false;
}

int ralloc_policy_index(const struct ralloc_experiment *x, const char *label)
{
    for (unsigned p = 0; p < x->npolicies; p++)
        if (strcmp(x->policies[p].label, label) == 0)
            return (int)p;
    return -1;
}

void ralloc_run_metrics(const struct ralloc_experiment *x, const struct ralloc_mix_result *m,
                        unsigned p, double *v)
{
    for (int i = 0; i < RALLOC_NMETRICS; i++)
        v[i] = NAN;
    const struct ralloc_run *r = &m->runs[p];
    if (m->failed || r->failed || !(r->cycles > 0) || m->nkernels == 0)
        return;
    double np[RALLOC_MAX_KERNELS], lo = INFINITY, hi = 0, stp = 0, antt = 0;
    /* The policy's weights <w0, 1 - w0> for a pair; else equal ones. */
    double w0 = x->policies[p].weight0, wlo = INFINITY, whi = 0;
    bool weighted = w0 > 0 && m->nkernels == 2;
    for (unsigned k = 0; k < m->nkernels; k++) {
        np[k] = r->private_cycles[k] / r->cycles;
        if (!(np[k] > 0))
            return;
        lo = fmin(lo, np[k]);
        hi = fmax(hi, np[k]);
        stp += np[k];
        antt += 1 / np[k];
        double sw = (1 / np[k]) * (weighted ? (k ? 1 - w0 : w0) : 1);
        wlo = fmin(wlo, sw);
        whi = fmax(whi, sw);
    }
    v[RALLOC_FAIRNESS] = lo / hi;
    v[RALLOC_STP] = stp;
    v[RALLOC_ANTT] = antt / m->nkernels;
    v[RALLOC_UNFAIRNESS] = v[RALLOC_UNFAIRNESS_MEDIAN] = (whi - wlo) / whi;
    v[RALLOC_MOVED] = r->sms_moved;
    double target = x->policies[p].target;
    if (target > 0 && m->hp >= 0 && (unsigned)m->hp < m->nkernels) {
        double hp = np[m->hp];
        v[RALLOC_MET] = hp >= target;
        v[RALLOC_MET_NEAR] = hp >= 0.95 * target;
        v[RALLOC_HP_NP] = hp / target;
        v[RALLOC_BATCH] = stp - hp;
        v[RALLOC_HP_SMS] = r->sm_cycles[m->hp] / r->cycles;
    }
    const struct ralloc_run *b = x->baseline >= 0 ? &m->runs[x->baseline] : NULL;
    if (b && !b->failed && b->energy_j > 0 && b->cycles > 0) {
        v[RALLOC_ENERGY] = r->energy_j / b->energy_j;
        v[RALLOC_POWER] = (r->energy_j / r->cycles) / (b->energy_j / b->cycles);
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

const char *ralloc_group_first(const char *group)
{
    static const char first[] = "first=";
    return group && strncmp(group, first, sizeof first - 1) == 0 ? group + sizeof first - 1 : NULL;
}

/* 1 when m is in group: a tag, or "first=NAME" (m's first kernel is NAME); NULL: every mix. */
static bool in_group(const struct ralloc_mix_result *m, const char *group)
{
    const char *name = ralloc_group_first(group);
    if (!group)
        return true;
    if (!name)
        return strcmp(m->tag, group) == 0;
    size_t len = strlen(name);
    return strncmp(m->key, name, len) == 0 && (m->key[len] == '+' || m->key[len] == '\0');
}

void ralloc_aggregate(const struct ralloc_experiment *x, const struct ralloc_mix_result *r,
                      size_t n, unsigned p, const char *group, struct ralloc_stats *out)
{
    double sum[RALLOC_NMETRICS] = {0};
    size_t cnt[RALLOC_NMETRICS] = {0};
    double *med = xmalloc((n + 1) * sizeof(*med));
    out->n = 0;
    for (size_t i = 0; i < n; i++) {
        if (!in_group(&r[i], group))
            continue;
        double v[RALLOC_NMETRICS];
        ralloc_run_metrics(x, &r[i], p, v);
        if (isnan(v[RALLOC_STP]))
            continue; /* failed */
        out->n++;
        for (int m = 0; m < RALLOC_NMETRICS; m++)
            if (!isnan(v[m])) {
                if (m == RALLOC_UNFAIRNESS_MEDIAN)
                    med[cnt[m]] = v[m];
                sum[m] += v[m];
                cnt[m]++;
            }
    }
    for (int m = 0; m < RALLOC_NMETRICS; m++)
        out->value[m] = cnt[m] ? sum[m] / (double)cnt[m] : NAN;
    size_t c = cnt[RALLOC_UNFAIRNESS_MEDIAN];
    if (c) {
        qsort(med, c, sizeof(*med), cmp_double);
        out->value[RALLOC_UNFAIRNESS_MEDIAN] =
            c % 2 ? med[c / 2] : (med[c / 2 - 1] + med[c / 2]) / 2;
    }
    free(med);
}

double ralloc_published_ours(const struct ralloc_experiment *x, const struct ralloc_published *f,
                             const struct ralloc_mix_result *r, size_t n)
{
    int p = ralloc_policy_index(x, f->policy), q = f->ref ? ralloc_policy_index(x, f->ref) : -1;
    if (p < 0 || (f->ref && q < 0))
        return NAN;
    struct ralloc_stats a, b;
    ralloc_aggregate(x, r, n, (unsigned)p, f->group, &a);
    if (!f->ref)
        return a.value[f->metric];
    ralloc_aggregate(x, r, n, (unsigned)q, f->group, &b);
    return a.value[f->metric] / b.value[f->metric] - 1;
}
