/* Unit tests for changing the mix at an epoch boundary: a kernel added from the library runs
 * from the next epoch with its own true NP, a removed one gives its SMs back and drops out of
 * the metrics, every mistake is refused with a message, and a recorded run with mix changes
 * replays and branches into the same epochs. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "corun/diag.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/session_plot.h"
#include "testsession.h"

/* Two kernels on 16 SMs of hbm80, 20 K-cycle epochs. */
static const char *const scenario_text = "name = \"mix\";\n"
                                         "gpu = \"hbm80\";\n"
                                         "gpu_overrides = { sms = 16; };\n"
                                         "seed = 3;\n"
                                         "epochs = 4;\n"
                                         "epoch_cycles = 20000;\n"
                                         "kernels = ( { name = \"stream\"; weight = 0.7; },"
                                         " { name = \"compute\"; weight = 0.3; } );\n";

static void load(struct scenario *sc)
{
    test_scenario_text(sc, "mix.cfg", scenario_text);
}

static void step(struct session *s)
{
    int rc = session_step_epoch(s, NULL, NULL);
    if (rc != 0)
        fprintf(stderr, "%s\n", session_error(s));
    assert_int_equal(rc, 0);
}

static void test_add_and_remove(void **state)
{
    (void)state;
    struct scenario sc;
    load(&sc);
    char err[512];
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    struct session_plot none;
    assert_int_equal(session_plot_fill(s, &none), -1); /* nothing to draw yet */
    session_plot_done(&none);
    step(s);
    assert_string_equal(session_pending_mix(s), "");

    /* Added at the next boundary: nothing changes before it. */
    assert_int_equal(session_add_kernel(s, "lbm", err, sizeof err), 2);
    assert_string_equal(session_pending_mix(s), "+lbm");
    assert_int_equal(session_scenario(s)->nkernels, 2);
    assert_false(session_kernel_in_mix(s, 2));
    step(s);
    assert_string_equal(session_pending_mix(s), "");
    assert_int_equal(session_scenario(s)->nkernels, 3);
    assert_true(session_kernel_in_mix(s, 2));
    assert_int_equal(test_count_events(s, "mix", "add lbm as kernel 2"), 1);
    assert_int_equal(
        test_count_events(s, "repartition",
                          "mix change: even split of 16 SMs: stream 6, compute 5, lbm 5; "
                          "weights back to equal shares"),
        1);
    assert_true(session_scenario(s)->kernels[0].weight == 0);
    const struct session_epoch *e = session_epoch_at(s, 1);
    assert_int_equal(e->nkernels, 3);
    assert_int_equal(session_epoch_at(s, 0)->nkernels, 2);
    unsigned owned[3] = {0};
    for (unsigned i = 0; i < e->nsms; i++)
        if (e->owner[i] >= 0)
            owned[e->owner[i]]++;
    assert_int_equal(owned[0], 6);
    assert_int_equal(owned[1], 5);
    assert_int_equal(owned[2], 5);
    for (unsigned k = 0; k < 3; k++) {
        assert_true(e->k[k].in_mix);
        assert_true(e->k[k].np_true > 0 && e->k[k].np_true <= 1.05);
    }
    assert_true(e->k[2].c.instructions > 0);
    assert_true(e->k[2].c.dram_requests > 0);
    assert_true(e->m.valid);

    /* Removed: its SMs go to the others; it leaves the metrics. */
    assert_int_equal(session_remove_kernel(s, 0, err, sizeof err), 0);
    assert_string_equal(session_pending_mix(s), "-stream");
    assert_int_equal(session_remove_kernel(s, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "kernel 0 (stream) is to be removed"));
    step(s);
    assert_false(session_kernel_in_mix(s, 0));
    assert_int_equal(test_count_events(s, "mix", "remove kernel 0 (stream)"), 1);
    assert_int_equal(test_sms_of(s, 0), 0);
    assert_int_equal(test_sms_of(s, 1), 8);
    assert_int_equal(test_sms_of(s, 2), 8);
    e = session_epoch_at(s, 2);
    assert_false(e->k[0].in_mix);
    assert_true(isnan(e->k[0].np_true));
    assert_true(e->m.valid);
    assert_true(fabs(e->m.stp - (e->k[1].np_true + e->k[2].np_true)) < 1e-9);
    /* Weights are one per kernel in the mix; the removed one keeps its index with 0. */
    assert_int_equal(session_set_param(s, "weights", "0.5,0.5,0", err, sizeof err), -1);
    assert_non_null(strstr(err, "expected 2 numbers"));
    assert_int_equal(session_set_param(s, "weights", "0.25,0.75", err, sizeof err), 0);
    assert_true(session_scenario(s)->kernels[0].weight == 0);
    assert_true(session_scenario(s)->kernels[1].weight == 0.25);
    assert_true(session_scenario(s)->kernels[2].weight == 0.75);
    /* A removed kernel's parameters are not offered. */
    struct session_param p[32];
    size_t n = session_params(s, p, 32);
    for (size_t i = 0; i < n && i < 32; i++)
        assert_null(strstr(p[i].key, "kernels[0]"));

    /* Refusals. */
    assert_int_equal(session_remove_kernel(s, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "already"));
    assert_int_equal(session_remove_kernel(s, 9, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected an index from 0 to 2"));
    assert_int_equal(session_remove_kernel(s, 1, err, sizeof err), 0);
    assert_int_equal(session_remove_kernel(s, 2, err, sizeof err), -1);
    assert_non_null(strstr(err, "the last one in the mix"));
    assert_int_equal(session_add_kernel(s, "nosuchkernel", err, sizeof err), -1);
    assert_non_null(strstr(err, "nosuchkernel"));
    assert_int_equal(session_add_kernel(s, "bad\"name", err, sizeof err), -1);
    /* Eight kernels over the run's life, removed ones included: 3 + 5 pending, then no more. */
    for (int i = 0; i < 5; i++)
        assert_int_equal(session_add_kernel(s, "compute", err, sizeof err), 3 + i);
    assert_int_equal(session_add_kernel(s, "compute", err, sizeof err), -1);
    assert_non_null(strstr(err, "at most 8 kernels"));
    /* Withdrawing a pending addition. */
    assert_int_equal(session_remove_kernel(s, 7, err, sizeof err), 0);
    assert_int_equal(session_add_kernel(s, "lbm", err, sizeof err), 7);
    step(s);
    assert_int_equal(session_scenario(s)->nkernels, 8);
    assert_false(session_kernel_in_mix(s, 1));
    assert_int_equal(test_sms_of(s, 2), 3); /* 16 over kernels 2..7: 3,3,3,3,2,2 */
    assert_int_equal(test_sms_of(s, 7), 2);
    session_delete(s);
    scenario_done(&sc);
}

/* Undoing the pending changes: an addition and a removal, withdrawn together, change nothing
 * at the boundary (no mix event, the same kernels, the same SMs); with nothing pending, 0. */
static void test_undo_pending(void **state)
{
    (void)state;
    struct scenario sc;
    load(&sc);
    char err[512];
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    step(s);
    assert_int_equal(session_undo_mix(s), 0);
    assert_int_equal(session_add_kernel(s, "lbm", err, sizeof err), 2);
    assert_int_equal(session_remove_kernel(s, 0, err, sizeof err), 0);
    assert_string_equal(session_pending_mix(s), "-stream +lbm");
    assert_int_equal(session_undo_mix(s), 2);
    assert_string_equal(session_pending_mix(s), "");
    step(s);
    assert_int_equal(session_scenario(s)->nkernels, 2);
    assert_true(session_kernel_in_mix(s, 0));
    assert_int_equal(test_count_events(s, "mix", ""), 0);
    assert_int_equal(test_sms_of(s, 0), 8);
    assert_int_equal(test_sms_of(s, 1), 8);
    /* The kernel removed before can be removed again, and the index of an addition is taken
     * afresh. */
    assert_int_equal(session_remove_kernel(s, 0, err, sizeof err), 0);
    assert_int_equal(session_add_kernel(s, "lbm", err, sizeof err), 2);
    step(s);
    assert_false(session_kernel_in_mix(s, 0));
    assert_true(session_kernel_in_mix(s, 2));
    session_delete(s);
    scenario_done(&sc);
}

/* A kernel is checked against the session's GPU when it is added, not only when it loads: with
 * 4 KB of shared memory per SM, compute (8 KB per block) is refused naming the limit, and
 * hotspot (3 KB per block) is taken. */
static void test_add_checks_the_gpu(void **state)
{
    (void)state;
    struct scenario sc;
    test_scenario_text(&sc, "smem.cfg",
                       "name = \"smem\"; gpu = \"hbm80\";\n"
                       "gpu_overrides = { sms = 16; smem_per_sm_bytes = 4096; };\n"
                       "seed = 3; epochs = 2; epoch_cycles = 20000;\n"
                       "kernels = ( { name = \"stream\"; }, { name = \"lbm\"; } );\n");
    char err[512];
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_add_kernel(s, "compute", err, sizeof err), -1);
    assert_non_null(strstr(err, "kernel compute: no thread block fits on an SM"));
    assert_string_equal(session_pending_mix(s), "");
    assert_int_equal(session_add_kernel(s, "hotspot", err, sizeof err), 2);
    assert_string_equal(session_pending_mix(s), "+hotspot");
    session_delete(s);
    scenario_done(&sc);
}

/* A kernel added to a GPU with an SM for each kernel already was given none: its row read 0
 * and the system's metrics went missing (2026-12-06). One SM per kernel, counting the pending
 * changes: a removal makes room. */
static void test_add_keeps_one_sm_per_kernel(void **state)
{
    (void)state;
    struct scenario sc;
    test_scenario_text(&sc, "three.cfg",
                       "name = \"three\"; gpu = \"hbm80\"; gpu_overrides = { sms = 3; };\n"
                       "seed = 3; epochs = 2; epoch_cycles = 20000;\n"
                       "kernels = ( { name = \"stream\"; }, { name = \"lbm\"; } );\n");
    char err[512];
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_add_kernel(s, "compute", err, sizeof err), 2);
    assert_int_equal(session_add_kernel(s, "hotspot", err, sizeof err), -1);
    assert_string_equal(err, "kernel hotspot: the mix would hold 4 kernels on 3 SMs (expected "
                             "at least one SM per kernel: remove one first)");
    assert_string_equal(session_pending_mix(s), "+compute");
    assert_int_equal(session_remove_kernel(s, 0, err, sizeof err), 0);
    assert_int_equal(session_add_kernel(s, "hotspot", err, sizeof err), 3);
    step(s);
    for (unsigned k = 1; k < 4; k++)
        assert_int_equal(test_sms_of(s, k), 1);
    session_delete(s);
    scenario_done(&sc);
}

static int same_epoch(const struct session_epoch *a, const struct session_epoch *b)
{
    if (a->nkernels != b->nkernels || a->start_cycle != b->start_cycle)
        return 0;
    for (unsigned k = 0; k < a->nkernels; k++)
        if (a->k[k].c.instructions != b->k[k].c.instructions ||
            a->k[k].c.dram_bytes != b->k[k].c.dram_bytes || a->k[k].in_mix != b->k[k].in_mix)
            return 0;
    for (unsigned i = 0; i < a->nsms; i++)
        if (a->owner[i] != b->owner[i])
            return 0;
    return 1;
}

/* Recorded with a kernel added and one removed under HSM-Fair: the replay shows the mix, and
 * a branch re-simulates it into the same epochs and continues as the live run does. */
static void test_record_replay_branch(void **state)
{
    (void)state;
    struct scenario sc;
    load(&sc);
    char err[512], path[] = "/tmp/corun-test-mix-XXXXXX";
    test_tmp_path(path);
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_set_predictor(s, "hsm", err, sizeof err), 0);
    assert_int_equal(session_set_allocator(s, "fair", err, sizeof err), 0);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    /* Set for the first mix: the replay applies it before the added kernel joins. */
    assert_int_equal(session_set_param(s, "weights", "0.6,0.4", err, sizeof err), 0);
    step(s);
    assert_int_equal(session_add_kernel(s, "lbm", err, sizeof err), 2);
    step(s);
    /* The new kernel is predicted too (the predictor restarted for the new mix). */
    assert_false(isnan(session_epoch_at(s, 1)->k[2].np_pred));
    /* A live session draws too: the kernels are the last epoch's, the first epoch's two with
     * lbm's NP NaN. */
    struct session_plot live;
    assert_int_equal(session_plot_fill(s, &live), 0);
    assert_int_equal(live.d.nkernels, 3);
    assert_true(isnan(live.d.np_true[2][0]) && live.d.np_true[2][1] > 0);
    session_plot_done(&live);
    assert_int_equal(session_remove_kernel(s, 1, err, sizeof err), 0);
    step(s);
    assert_true(isnan(session_epoch_at(s, 2)->k[1].np_pred));
    step(s);

    struct session *r = test_replay_of(path);
    assert_int_equal(session_epochs_done(r), 4);
    assert_int_equal(session_scenario(r)->nkernels, 3);
    assert_string_equal(session_scenario(r)->kernels[2].name, "lbm");
    assert_false(session_kernel_in_mix(r, 1));
    assert_true(session_kernel_in_mix(r, 2));
    /* A replay's epochs all have the file's kernels; in_mix says which ran. */
    assert_int_equal(session_epoch_at(r, 0)->nkernels, 3);
    assert_false(session_epoch_at(r, 0)->k[2].in_mix);
    assert_true(session_epoch_at(r, 1)->k[2].in_mix);
    assert_false(session_epoch_at(r, 3)->k[1].in_mix);
    assert_int_equal(test_count_events(r, "mix", "add lbm"), 1);
    /* A replay's partition is its last epoch's, SM 0 included. */
    int owner[SESSION_MAX_SMS];
    for (unsigned i = 0; i < SESSION_MAX_SMS; i++)
        owner[i] = 99;
    session_partition(r, owner);
    const struct session_epoch *last = session_epoch_at(r, session_epochs_done(r) - 1);
    for (unsigned i = 0; i < last->nsms; i++)
        assert_int_equal(owner[i], last->owner[i]);

    /* As `corun plot` draws it: each kernel's NP where it ran (lbm from epoch 2, compute up to
     * epoch 2), NaN elsewhere; fairness, STP and the SM owners of every epoch. */
    struct session_plot p;
    assert_int_equal(session_plot_fill(r, &p), 0);
    assert_int_equal(p.d.nepochs, 4);
    assert_int_equal(p.d.nkernels, 3);
    assert_int_equal(p.d.sms, 16);
    assert_string_equal(p.d.name[0], "stream");
    assert_string_equal(p.d.name[2], "lbm");
    for (unsigned i = 0; i < 4; i++) {
        const struct session_epoch *e = session_epoch_at(r, i);
        for (unsigned k = 0; k < 3; k++) {
            bool ran = !(k == 2 && i == 0) && !(k == 1 && i >= 2);
            assert_int_equal(ran, e->k[k].in_mix);
            if (!ran) {
                assert_true(isnan(p.d.np_true[k][i]));
                assert_true(isnan(p.d.np_pred[k][i]));
                continue;
            }
            assert_true(p.d.np_true[k][i] > 0);
            assert_true(p.d.np_true[k][i] == e->k[k].np_true);
            assert_true(isnan(e->k[k].np_pred) ? isnan(p.d.np_pred[k][i])
                                               : p.d.np_pred[k][i] == e->k[k].np_pred);
        }
        assert_true(e->m.valid && p.d.fairness[i] > 0 && p.d.stp[i] > 0);
        assert_true(p.d.fairness[i] == e->m.fairness);
        assert_true(p.d.stp[i] == e->m.stp);
        for (unsigned sm = 0; sm < 16; sm++)
            assert_int_equal(p.d.owner[i * 16 + sm], e->owner[sm]);
    }
    assert_false(isnan(p.d.np_pred[2][3])); /* predicted once it joined */
    session_plot_done(&p);

    /* Branch after epoch 3 (both changes re-applied), then step both: the same epoch. */
    struct session *b = session_branch(r, 3, NULL, NULL, err, sizeof err);
    if (!b)
        fprintf(stderr, "%s\n", err);
    assert_non_null(b);
    assert_int_equal(session_scenario(b)->nkernels, 3);
    assert_false(session_kernel_in_mix(b, 1));
    assert_int_equal(test_count_events(b, "mix", ""), 2);
    step(b);
    assert_true(same_epoch(session_epoch_at(b, 3), session_epoch_at(s, 3)));
    session_delete(b);
    /* Branch after epoch 2: the addition (applied as epoch 2 began) is re-applied, the
     * removal (as epoch 3 began) is not: the branch goes its own way from there. */
    b = session_branch(r, 2, NULL, NULL, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(session_scenario(b)->nkernels, 3);
    assert_true(same_epoch(session_epoch_at(b, 1), session_epoch_at(s, 1)));
    step(b);
    assert_true(session_kernel_in_mix(b, 1));
    assert_true(session_epoch_at(b, 2)->k[1].in_mix);
    assert_false(same_epoch(session_epoch_at(b, 2), session_epoch_at(s, 2)));
    session_delete(b);
    /* Branch after epoch 1: the addition came after it, so the branch has the first mix. */
    b = session_branch(r, 1, NULL, NULL, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(session_scenario(b)->nkernels, 2);
    session_delete(b);
    session_delete(r);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* A run that starts with one kernel and gains a second: a branch from before the addition
 * starts from the one kernel alone (the replay drops the added one from its first mix). */
static void test_replay_from_one_kernel(void **state)
{
    (void)state;
    struct scenario sc;
    test_scenario_text(&sc, "one.cfg",
                       "name = \"one\"; gpu = \"hbm80\"; gpu_overrides = { sms = 16; };\n"
                       "seed = 3; epochs = 3; epoch_cycles = 20000;\n"
                       "kernels = ( { name = \"stream\"; } );\n");
    char err[512], path[] = "/tmp/corun-test-one-XXXXXX";
    test_tmp_path(path);
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    step(s);
    assert_int_equal(session_add_kernel(s, "compute", err, sizeof err), 1);
    step(s);
    assert_int_equal(session_finish(s, err, sizeof err), 0);

    struct session *r = test_replay_of(path);
    assert_int_equal(session_scenario(r)->nkernels, 2);
    struct session *b = session_branch(r, 1, NULL, NULL, err, sizeof err);
    if (!b)
        fprintf(stderr, "%s\n", err);
    assert_non_null(b);
    assert_int_equal(session_scenario(b)->nkernels, 1);
    assert_true(same_epoch(session_epoch_at(b, 0), session_epoch_at(s, 0)));
    step(b);
    assert_int_equal(test_sms_of(b, 0), 16); /* stream alone again */
    session_delete(b);
    session_delete(r);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* A lesson's step opened at the branch point, after the class's score of the epoch before it:
 * the branch keeps the score (of an epoch it holds; nothing could make it again) and names the
 * step's opening and its addition as left out. The score was dropped unsaid, and so was a
 * step opened before the first epoch by a branch at 0. */
static void test_branch_keeps_the_score(void **state)
{
    (void)state;
    struct scenario sc;
    load(&sc);
    char err[512], path[] = "/tmp/corun-test-score-XXXXXX";
    test_tmp_path(path);
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    assert_int_equal(session_note(s, "lesson", "demo, step 1 of 2: guess"), 0);
    step(s);
    step(s);
    assert_int_equal(session_note(s, "score", "step 1, epoch 2: 1 of 4 guesses within 10%"), 0);
    assert_int_equal(session_note(s, "lesson", "demo, step 2 of 2: lbm joins"), 0);
    assert_int_equal(session_add_kernel(s, "lbm", err, sizeof err), 2);
    step(s);
    assert_int_equal(session_finish(s, err, sizeof err), 0);

    struct session *r = test_replay_of(path);
    assert_int_equal(test_count_events(r, "score", "step 1, epoch 2"), 1);
    struct session *b = session_branch(r, 2, NULL, NULL, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(test_count_events(b, "score", "step 1, epoch 2: 1 of 4"), 1);
    const char *left = "not re-applied at the branch point: ";
    char want[128];
    snprintf(want, sizeof want, "%slesson demo, step 2 of 2", left);
    assert_int_equal(test_count_events(b, "note", want), 1);
    snprintf(want, sizeof want, "%smix add lbm", left);
    assert_int_equal(test_count_events(b, "note", want), 1);
    /* Kept where it was in the log: after the epochs before the branch point, before the
     * branch's note. */
    unsigned at = 0;
    while (strcmp(session_event_at(b, at)->kind, "score") != 0)
        at++;
    assert_int_equal(session_event_at(b, at)->epoch, 2);
    assert_int_equal(test_count_events(b, "note", "branched from"), 1);
    assert_int_equal(strncmp(session_event_at(b, at + 1)->text, "branched from", 13), 0);
    session_delete(b);
    /* Before it, the score is the recorded run's future, as the step is. */
    b = session_branch(r, 1, NULL, NULL, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(test_count_events(b, "score", ""), 0);
    assert_int_equal(test_count_events(b, "lesson", "demo, step 1 of 2"), 1);
    session_delete(b);
    /* At 0 the first step's opening is the run's set-up, kept as its switches are (it was
     * dropped unsaid). */
    b = session_branch(r, 0, NULL, NULL, err, sizeof err);
    assert_non_null(b);
    assert_int_equal(test_count_events(b, "lesson", "demo, step 1 of 2"), 1);
    session_delete(b);
    session_delete(r);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* A boundary with no mix change leaves the allocator its last epoch (HSM-Fair decides from
 * the NP it predicted there, not "no NP" as at a first epoch); in a mix of two, either kernel
 * may go but not both; and the repartition after a change in a mix without weights says
 * nothing of weights. */
static void test_two_kernels_and_quiet_boundaries(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s =
        test_session_open(&sc, "plain.cfg",
                          "name = \"plain\"; gpu = \"hbm80\"; gpu_overrides = { sms = 16; };\n"
                          "seed = 3; epochs = 4; epoch_cycles = 20000;\n"
                          "predictor = \"hsm\"; allocator = \"fair\";\n"
                          "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    char err[512];
    step(s); /* HSM-Fair decided before it, with no epoch to read */
    assert_non_null(strstr(session_last_decision(s), "no NP"));
    step(s);
    const char *why = session_last_decision(s);
    if (strncmp(why, "fair: fairness ", 15) != 0)
        fail_msg("the allocation before the second epoch: \"%s\"", why);
    assert_int_equal(session_remove_kernel(s, 1, err, sizeof err), 0);
    assert_int_equal(session_remove_kernel(s, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "the last one in the mix"));
    step(s);
    assert_false(session_kernel_in_mix(s, 1));
    assert_int_equal(test_sms_of(s, 0), 16);
    assert_int_equal(test_count_events(s, "repartition", "mix change"), 1);
    for (unsigned i = 0; i < session_event_count(s); i++) {
        const struct session_event *ev = session_event_at(s, i);
        if (strncmp(ev->text, "mix change", 10) == 0)
            assert_string_equal(ev->text, "mix change: even split of 16 SMs: stream 16");
    }
    session_delete(s);
    scenario_done(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add_and_remove),
        cmocka_unit_test(test_undo_pending),
        cmocka_unit_test(test_add_checks_the_gpu),
        cmocka_unit_test(test_add_keeps_one_sm_per_kernel),
        cmocka_unit_test(test_record_replay_branch),
        cmocka_unit_test(test_replay_from_one_kernel),
        cmocka_unit_test(test_branch_keeps_the_score),
        cmocka_unit_test(test_two_kernels_and_quiet_boundaries),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
