/* Unit tests: the ASM predictor on hand-built counters with hand-computed answers — without
 * and with the ATD's contention correction, its cap, the epochs it cannot judge, and the SM
 * count it ignores by design. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/predict.h"

static const struct predict_gpu gpu80 = {
    .preset = "test", .sms = 80, .schedulers_per_sm = 2, .core_clock_mhz = 1400, .peak_gbs = 900};
#define EPOCH 100000

/* An epoch of E = 100 000 cycles on 40 SMs at IPC 20 of 80 (stall share 0.75): 20 000 LLC
 * accesses (CAR_shared 0.2 per cycle); priority turns of 50 000 cycles with 16 000 accesses
 * and 8 000 misses. */
static struct gpu_kernel_counters base(void)
{
    return (struct gpu_kernel_counters){.cycles = EPOCH,
                                        .sms = 40,
                                        .instructions = 2000000,
                                        .ipc = 20,
                                        .l2_accesses = 20000,
                                        .l2_misses = 9000,
                                        .prio_cycles = 50000,
                                        .prio_l2_accesses = 16000,
                                        .prio_l2_misses = 8000};
}

static double predict_one(void *s, const struct gpu_kernel_counters *c)
{
    struct predict_input in = {EPOCH, 1, c, NULL};
    struct predict_output out;
    predictor_asm.predict(s, &in, &out);
    assert_int_equal(out.cls[0], KERNEL_CLASS_NONE);
    return out.np[0];
}

static void *make(void)
{
    char err[128];
    void *s = predictor_asm.create(&gpu80, NULL, err, sizeof err);
    assert_non_null(s);
    return s;
}

static void registered_with_priority_epochs(void **state)
{
    (void)state;
    assert_ptr_equal(predict_registry_find("asm"), &predictor_asm);
    assert_int_equal(predictor_asm.priority_epoch_cycles, 10000);
    assert_false(predictor_asm.needs_private);
    assert_null(predictor_asm.model);
    assert_non_null(predictor_asm.np_at);
    /* Only ASM asks for priority epochs. */
    for (size_t i = 0; i < predict_registry_count(); i++) {
        const struct predictor_ops *p = predict_registry_at(i);
        if (p != &predictor_asm)
            assert_int_equal(p->priority_epoch_cycles, 0);
    }
}

/* No ATD data (atd_accesses 0): CAR_alone = 16 000 / 50 000 = 0.32, NP̂ = 0.2 / 0.32. */
static void no_contention(void **state)
{
    (void)state;
    void *s = make();
    struct gpu_kernel_counters c = base();
    assert_close(predict_one(s, &c), 0.625, 1e-12);
    /* The ATD says alone would have missed as often as shared: still no correction. */
    c.atd_accesses = 1000;
    c.atd_misses = 400;
    c.atd_shared_misses = 350;
    assert_close(predict_one(s, &c), 0.625, 1e-12);
    predictor_asm.destroy(s);
}

/* ATD: 1 000 accesses, 300 misses alone, 500 shared: 0.2 contention misses per access.
 * C_p = 16 000 x 0.2 = 3 200 of M_p 8 000, so X = 50 000 x 0.75 x 0.4 = 15 000 cycles;
 * CAR_alone = 16 000 / 35 000, NP̂ = 0.2 x 35 000 / 16 000 = 0.4375. */
static void contention_correction(void **state)
{
    (void)state;
    void *s = make();
    struct gpu_kernel_counters c = base();
    c.atd_accesses = 1000;
    c.atd_misses = 300;
    c.atd_shared_misses = 500;
    assert_close(predict_one(s, &c), 0.4375, 1e-12);
    struct predict_text t;
    predictor_asm.explain(s, 0, &t);
    bool saw_x = false, saw_np = false;
    for (unsigned i = 0; i < t.n; i++) {
        saw_x |= strstr(t.line[i], "= 15000 cyc (30.0% of T_p)") != NULL;
        saw_np |= strstr(t.line[i], "(T_p - X) = 457.143 per kcyc") != NULL;
    }
    assert_true(saw_x);
    assert_true(saw_np);
    predictor_asm.explain(s, 1, &t); /* past the mix of one */
    assert_int_equal(t.n, 1);
    assert_string_equal(t.line[0], "ASM: no epoch predicted yet");

    /* Every sampled access a contention miss: C_p = min(16 000, 8 000) = M_p, X = 0.75 T_p:
     * CAR_alone = 16 000 / 12 500 = 1.28, NP̂ = 0.15625. */
    c.atd_accesses = 100;
    c.atd_misses = 0;
    c.atd_shared_misses = 100;
    assert_close(predict_one(s, &c), 0.15625, 1e-12);
    /* A kernel issuing at full rate hid every miss: nothing to remove. */
    c.instructions = 8000000;
    assert_close(predict_one(s, &c), 0.625, 1e-12);
    /* One that issued nothing stalled throughout: X capped at 0.9 T_p, CAR_alone 3.2. */
    c.instructions = 0;
    assert_close(predict_one(s, &c), 0.0625, 1e-12);
    predictor_asm.destroy(s);
}

/* Epochs ASM cannot judge, and the what-if that ignores the SMs. */
static void no_turn_no_traffic_and_sms_ignored(void **state)
{
    (void)state;
    void *s = make();
    assert_close(predictor_asm.np_at(s, 0, 30), 1, 0); /* nothing seen yet */
    struct gpu_kernel_counters c = base();
    c.prio_cycles = 0; /* no turn in this epoch */
    c.prio_l2_accesses = c.prio_l2_misses = 0;
    assert_true(isnan(predict_one(s, &c)));
    struct predict_text t;
    predictor_asm.explain(s, 0, &t);
    assert_non_null(strstr(t.line[t.n - 3], "no priority turn"));

    c = base();
    c.l2_accesses = c.l2_misses = 0; /* a kernel that never reaches the LLC */
    c.prio_l2_accesses = c.prio_l2_misses = 0;
    assert_close(predict_one(s, &c), 1, 0);
    c.sms = 0; /* and one that had no SM at all (SMQoS with smqos_batch_min = 0): no NP̂ */
    c.instructions = 0;
    assert_true(isnan(predict_one(s, &c)));

    c = base();
    double np40 = predict_one(s, &c);
    c.sms = 10;
    assert_close(predict_one(s, &c), np40, 0);
    assert_close(predictor_asm.np_at(s, 0, 10), np40, 0);
    assert_close(predictor_asm.np_at(s, 0, 70), np40, 0);
    c.prio_cycles = 0; /* an epoch without a turn keeps the last NP̂ for the what-if */
    assert_true(isnan(predict_one(s, &c)));
    assert_close(predictor_asm.np_at(s, 0, 70), np40, 0);
    predictor_asm.destroy(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(registered_with_priority_epochs),
        cmocka_unit_test(no_contention),
        cmocka_unit_test(contention_correction),
        cmocka_unit_test(no_turn_no_traffic_and_sms_ignored),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
