/* Unit tests: how a session's epoch runs — the references run ahead of the shared run on a
 * second thread and give the same NPs; a scenario's own split is the first partition and an
 * allocator deciding at boundaries reads the epoch just run; the progress a bar shows runs
 * from 0 to 1 and never back; an interval allocator's counters; how finely progress is told
 * changes no result. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_close.h"
#include "corun/catalog.h"
#include "corun/diag.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/util.h"
#include "testsession.h"

#include "../../src/app/session_internal.h" /* the references run ahead; progress slices */

/* With two threads the references run ahead of the shared run: by the cycles the kernel's
 * last epoch took alone (half an epoch before the first), and not for a trace read from the
 * catalog; the samples are those of one thread extending them after the shared run, and so
 * are the epochs' NPs. A session whose traces were read runs its shared run timed by the
 * split governor instead. */
static void test_references_run_ahead(void **state)
{
    (void)state;
    struct scenario sc;
    test_scenario_text(&sc, "unit.cfg", test_unit_scenario);
    char err[512];
    struct session *one = session_new(&sc, err, sizeof err),
                   *two = session_new(&sc, err, sizeof err);
    assert_non_null(one);
    assert_non_null(two);
    session_set_threads(one, 1);
    session_set_threads(two, 2);
    unsigned slot[GPU_MAX_KERNELS], n = session_live(one, slot);
    assert_int_equal(n, 2);
    assert_null(session_refs_ahead(one, slot, n)); /* one thread: nothing runs ahead */
    session_refs_ahead_wait(session_refs_ahead(two, slot, n));
    const uint64_t *a, *b;
    for (unsigned k = 0; k < 2; k++) { /* 20 K-cycle epochs: 10 K cycles ahead */
        assert_int_equal(solo_trace_samples(two->ref[k], &b), 10000 / SOLO_SAMPLE_CYCLES + 1);
        assert_false(solo_trace_loaded(two->ref[k]));
    }
    for (unsigned e = 0; e < 2; e++) {
        assert_int_equal(session_step_epoch(one, NULL, NULL), 0);
        assert_int_equal(session_step_epoch(two, NULL, NULL), 0);
        for (unsigned k = 0; k < 2; k++)
            assert_memory_equal(&session_epoch_at(one, e)->k[k].np_true,
                                &session_epoch_at(two, e)->k[k].np_true, sizeof(double));
    }
    /* After an epoch: as far ahead of where the kernel stands as its last epoch took alone. */
    for (unsigned k = 0; k < 2; k++) {
        struct solo_trace *t = two->ref[k];
        session_refs_ahead_wait(session_refs_ahead(two, &slot[k], 1));
        double from = solo_trace_cycles_at(t, two->insts_at_start[k]);
        double ahead = session_epoch_at(two, 1)->k[k].np_true * 20000;
        size_t nb = solo_trace_samples(t, &b), na = solo_trace_samples(one->ref[k], &a);
        assert_true((double)(nb - 1) * SOLO_SAMPLE_CYCLES >= from + ahead - SOLO_SAMPLE_CYCLES);
        assert_true((double)(nb - 1) * SOLO_SAMPLE_CYCLES <= from + ahead + 2000);
        assert_true(nb > na);
        assert_memory_equal(a, b, na * sizeof(*a));
    }
    /* A trace read from a catalog stays as it was read. */
    char path[] = "/tmp/corun-ahead-XXXXXX";
    struct catalog *cat = test_tmp_catalog(path);
    assert_int_equal(session_traces_to_catalog(two, cat, err, sizeof err), 0);
    struct session *three = session_new(&sc, err, sizeof err);
    assert_non_null(three);
    session_set_threads(three, 2);
    assert_int_equal(session_traces_from_catalog(three, cat, err, sizeof err), 2);
    assert_true(solo_trace_loaded(three->ref[0]));
    /* Asked again, the catalog has nothing longer than what three holds: none taken. */
    assert_int_equal(session_traces_from_catalog(three, cat, err, sizeof err), 0);
    assert_null(session_refs_ahead(three, slot, n));
    /* With nothing to run ahead, the shared run is timed chunk by chunk to choose between one
     * thread and a split block (split_gov), with one thread's results; with one thread it is
     * not. */
    assert_int_equal(session_step_epoch(three, NULL, NULL), 0);
    /* (a chunk measured; or, when this machine's other jobs kept the split off its cores,
     * the split dropped: either way recorded) */
    assert_true(three->split_gov.rate_keep > 0 || !three->split_gov.keep);
    assert_true(one->split_gov.rate_keep == 0);
    for (unsigned k = 0; k < 2; k++)
        assert_memory_equal(&session_epoch_at(one, 0)->k[k].np_true,
                            &session_epoch_at(three, 0)->k[k].np_true, sizeof(double));
    /* The same traces read by a run of 40 epochs, which they will not cover: caught up with
     * ahead, a slice at a time, with the samples they were read with; and the NPs as ever. */
    struct scenario sc40;
    test_scenario_text(&sc40, "unit40.cfg",
                       "name = \"unit\";\ngpu = \"hbm80\";\ngpu_overrides = { sms = 16; };\n"
                       "seed = 7;\nepochs = 40;\nepoch_cycles = 20000;\n"
                       "kernels = ( { name = \"stream\"; priority = \"high\"; },"
                       " { name = \"compute\"; } );\n");
    struct session *four = session_new(&sc40, err, sizeof err);
    assert_non_null(four);
    session_set_threads(four, 2);
    assert_int_equal(session_traces_from_catalog(four, cat, err, sizeof err), 2);
    uint64_t behind[2];
    size_t had[2];
    for (unsigned k = 0; k < 2; k++) {
        behind[k] = solo_trace_behind(four->ref[k]);
        had[k] = solo_trace_samples(four->ref[k], &b);
        assert_true(behind[k] > 0);
    }
    session_refs_ahead_wait(session_refs_ahead(four, slot, n));
    for (unsigned k = 0; k < 2; k++) {
        assert_true(solo_trace_behind(four->ref[k]) < behind[k]);
        assert_true(solo_trace_samples(four->ref[k], &b) >= had[k]);
        solo_trace_samples(two->ref[k], &a);
        assert_memory_equal(a, b, had[k] * sizeof(*a));
    }
    assert_int_equal(session_step_epoch(four, NULL, NULL), 0);
    for (unsigned k = 0; k < 2; k++)
        assert_memory_equal(&session_epoch_at(one, 0)->k[k].np_true,
                            &session_epoch_at(four, 0)->k[k].np_true, sizeof(double));
    /* ... unless the run is to be only as long as they cover (run --epochs 2). */
    struct session *five = session_new(&sc40, err, sizeof err);
    assert_non_null(five);
    session_set_threads(five, 2);
    session_plan_epochs(five, 2);
    assert_int_equal(session_traces_from_catalog(five, cat, err, sizeof err), 2);
    assert_null(session_refs_ahead(five, slot, n));
    session_delete(five);
    session_delete(four);
    scenario_done(&sc40);
    catalog_close(cat);
    unlink(path);
    session_delete(three);
    session_delete(two);
    session_delete(one);
    scenario_done(&sc);
}

/* The scenario's own split is the first partition (5 and 9 SMs, the 2 left gated), and an
 * allocator deciding at epoch boundaries only (SMQoS, its interval an epoch) reads kernel 0's
 * counters of the epoch just run: the IPC it names is that epoch's. */
static void test_split_and_boundary_counters(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s =
        test_session_open(&sc, "split.cfg",
                          "name = \"split\"; gpu = \"hbm80\"; gpu_overrides = { sms = 16; };\n"
                          "seed = 7; epochs = 2; epoch_cycles = 20000; smqos_interval = 20000;\n"
                          "unassigned_sms = \"gated\"; allocator = \"smqos\";\n"
                          "kernels = ( { name = \"stream\"; priority = \"high\"; sms = 5; },\n"
                          "            { name = \"compute\"; sms = 9; } );\n");
    int owner[SESSION_MAX_SMS];
    session_partition(s, owner);
    for (unsigned i = 0; i < 16; i++)
        assert_int_equal(owner[i], i < 5 ? 0 : i < 14 ? 1 : GPU_SM_GATED);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    char want[64];
    snprintf(want, sizeof want, "smqos: stream IPC %.2f ", session_epoch_at(s, 0)->k[0].c.ipc);
    if (!strstr(session_last_decision(s), want))
        fail_msg("the decision before epoch 2: \"%s\", expected \"%s...\"",
                 session_last_decision(s), want);
    session_delete(s);
    scenario_done(&sc);
}

/* An epoch's progress as a bar shows it: from 0 to 1, never back, whether the references are
 * extended after the shared run on this thread (one thread) or side by side (two). */
struct progress_seen {
    double last, lowest, highest;
    unsigned calls, backwards;
};

static int note_progress(void *ctx, double done)
{
    struct progress_seen *p = ctx;
    p->backwards += p->calls && done < p->last;
    p->lowest = p->calls && p->lowest < done ? p->lowest : done;
    p->highest = p->calls && p->highest > done ? p->highest : done;
    p->last = done;
    p->calls++;
    return 0;
}

static void test_progress_runs_forward(void **state)
{
    (void)state;
    for (unsigned threads = 1; threads <= 2; threads++) {
        struct scenario sc;
        struct session *s = test_open_unit(&sc);
        session_set_threads(s, threads);
        for (int e = 0; e < 2; e++) {
            struct progress_seen p = {0};
            assert_int_equal(session_step_epoch(s, note_progress, &p), 0);
            if (p.calls < 2 || p.backwards || p.lowest < 0 || p.highest > 1)
                fail_msg("%u threads, epoch %d: %u calls, %u backwards, from %g to %g", threads,
                         e + 1, p.calls, p.backwards, p.lowest, p.highest);
        }
        session_delete(s);
        scenario_done(&sc);
    }
}

/* A branch's bar counts cycles, not epochs: re-simulating an epoch of 10,000 cycles and one
 * of 40,000, the first fills a fifth of it (it filled half). Its first report is the first
 * slice of the shared run of that fifth. */
static void test_branch_progress_in_cycles(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    assert_int_equal(session_set_param(s, "epoch_cycles", "10000", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_set_param(s, "epoch_cycles", "40000", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    struct progress_seen p = {0};
    struct session *b = session_branch(s, 2, note_progress, &p, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    /* the first value seen: note_progress keeps the lowest, and the bar never goes back */
    assert_close(p.lowest, 0.5 / SESSION_PROGRESS_SLICES * 10000 / 50000, 1e-12);
    if (p.backwards || p.highest > 1 + 1e-12)
        fail_msg("%u backwards, up to %g", p.backwards, p.highest);
    session_delete(b);
    session_delete(s);
    scenario_done(&sc);
}

/* A recording whose path is too long for the branch's note (an event's text is 255 bytes):
 * the note keeps the path's end, the file's name, and the epoch it branched after ("after
 * epoch 1" was cut off). */
static void test_branch_note_of_a_long_path(void **state)
{
    (void)state;
    char dir[] = "/tmp/corun-test-long-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char sub[512], path[600], err[512];
    snprintf(sub, sizeof sub, "%s/%0200d", dir, 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/the-run.h5", sub);
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_finish(s, err, sizeof err), 0);
    struct session *r = test_replay_of(path);
    struct session *b = session_branch(r, 1, NULL, NULL, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    const char *note = NULL;
    for (unsigned i = 0; i < session_event_count(b); i++)
        if (strncmp(session_event_at(b, i)->text, "branched from ", 14) == 0)
            note = session_event_at(b, i)->text;
    assert_non_null(note);
    const char *end = "0000/the-run.h5 after epoch 1";
    if (strncmp(note, "branched from …", strlen("branched from …")) != 0 ||
        strlen(note) < strlen(end) || strcmp(note + strlen(note) - strlen(end), end) != 0)
        fail_msg("the note: \"%s\"", note);
    session_delete(b);
    session_delete(r);
    session_delete(s);
    scenario_done(&sc);
    unlink(path);
    rmdir(sub);
    rmdir(dir);
}

/* A scenario that names ASM, whose priority epochs give each kernel in turn the memory
 * controllers' priority, so that the first turn's kernel shapes every epoch, and HSM-Fair: a
 * branch of its run (live and from its file) at 0, 1 and 2 re-simulates the run's epochs as
 * they were, and logs each choice once, as the run did. The branch's session took both from
 * the scenario and then again from the run's log: ASM's second choice passed the first turn
 * on to the next kernel ("epoch 1 simulates differently now" for a run that corun had just
 * recorded), and the log said "fair -> fair (restarted)". */
static void test_branch_of_a_scenario_naming_asm(void **state)
{
    (void)state;
    char *text = xasprintf("%spredictor = \"asm\";\nallocator = \"fair\";\n", test_unit_scenario);
    struct scenario sc;
    struct session *s = test_session_open(&sc, "unit-asm.cfg", text);
    free(text);
    char path[] = "/tmp/corun-test-asm-XXXXXX", err[512];
    test_tmp_path(path);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_finish(s, err, sizeof err), 0);
    struct session *r = test_replay_of(path);
    for (unsigned at = 0; at <= 2; at++) {
        for (int from_file = 0; from_file < 2; from_file++) {
            struct session *b = session_branch(from_file ? r : s, at, NULL, NULL, err, sizeof err);
            if (!b)
                fail_msg("branch at %u (%s): %s", at, from_file ? "file" : "live", err);
            assert_string_equal(session_predictor_name(b), "asm");
            assert_int_equal(test_count_events(b, "predictor", "none -> asm"), 1);
            assert_int_equal(test_count_events(b, "predictor", ""), 1);
            assert_string_equal(session_allocator_name(b), "fair");
            assert_int_equal(test_count_events(b, "allocator", "static -> fair"), 1);
            assert_int_equal(test_count_events(b, "allocator", ""), 1);
            while (session_epochs_done(b) < 2)
                assert_int_equal(session_step_epoch(b, NULL, NULL), 0);
            for (unsigned i = 0; i < 2; i++)
                for (unsigned k = 0; k < 2; k++)
                    assert_int_equal(session_epoch_at(b, i)->k[k].c.instructions,
                                     session_epoch_at(s, i)->k[k].c.instructions);
            session_delete(b);
        }
    }
    session_delete(r);
    session_delete(s);
    scenario_done(&sc);
    unlink(path);
}

/* What an interval allocator sees: the counters since the last call, their SMs and IPC over
 * the interval alone (8 SMs each on the 16-SM unit GPU, held throughout). */
static void test_interval_counters(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    struct gpu_kernel_counters prev[2], out[2], before[2];
    memset(prev, 0, sizeof prev);
    gpu_run(s->gpu, 5000);
    session_interval_counters(s, prev, out);
    memcpy(before, prev, sizeof before);
    gpu_run(s->gpu, 3000);
    session_interval_counters(s, prev, out);
    for (unsigned k = 0; k < 2; k++) {
        assert_int_equal(out[k].cycles, 3000);
        assert_int_equal(out[k].instructions, prev[k].instructions - before[k].instructions);
        assert_true(out[k].instructions > 0);
        assert_true(fabs(out[k].sms - 8) < 1e-9);
        assert_true(fabs(out[k].ipc - (double)out[k].instructions / 3000) < 1e-12);
    }
    session_interval_counters(s, prev, out); /* an empty interval: no rate */
    for (unsigned k = 0; k < 2; k++)
        assert_true(out[k].cycles == 0 && out[k].instructions == 0 && out[k].ipc == 0);
    session_delete(s);
    scenario_done(&sc);
}

/* How finely an epoch's progress is told changes no result: its steps end where a block ends
 * anyway. Epochs of 10,004 cycles (20 steps of 500.2, and epochs that start off a block's
 * edge) in 20, 7 and 1 steps give the same counters and NPs. */
static void test_progress_steps_change_nothing(void **state)
{
    (void)state;
    struct scenario sc;
    test_scenario_text(&sc, "steps.cfg",
                       "name = \"steps\"; gpu = \"hbm80\"; gpu_overrides = { sms = 16; };\n"
                       "seed = 3; epochs = 3; epoch_cycles = 10004;\n"
                       "kernels = ( { name = \"stream\"; }, { name = \"lbm\"; } );\n");
    char err[512];
    const unsigned steps[] = {20, 7, 1};
    struct session *s[3];
    for (unsigned i = 0; i < 3; i++) {
        s[i] = session_new(&sc, err, sizeof err);
        assert_non_null(s[i]);
        s[i]->progress_slices = steps[i];
        for (unsigned e = 0; e < 3; e++)
            assert_int_equal(session_step_epoch(s[i], NULL, NULL), 0);
    }
    for (unsigned i = 1; i < 3; i++)
        for (unsigned e = 0; e < 3; e++)
            for (unsigned k = 0; k < 2; k++) {
                const struct session_kernel_epoch *a = &session_epoch_at(s[0], e)->k[k],
                                                  *b = &session_epoch_at(s[i], e)->k[k];
                assert_int_equal(a->c.instructions, b->c.instructions);
                assert_memory_equal(&a->c, &b->c, sizeof a->c);
                assert_memory_equal(&a->np_true, &b->np_true, sizeof a->np_true);
            }
    for (unsigned i = 0; i < 3; i++)
        session_delete(s[i]);
    scenario_done(&sc);
}

/* The run's summary: means over every epoch, the first included, ARE over every kernel's
 * predicted epochs (kernel 0's too, NaN ones left out), the predictor that made them; the
 * catalog's row names every kernel of the mix in order. The log grows past its first room. */
static void test_summary_and_catalog_row(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    struct catalog_metrics m;
    assert_string_equal(session_summary(s, &m), "none");
    assert_false(m.has_are);
    assert_true(isnan(m.mean_stp) && isnan(m.mean_fairness) && isnan(m.min_fairness));
    assert_int_equal(session_set_predictor(s, "hsm", err, sizeof err), 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    double are = 0, are_max = 0, stp = 0, antt = 0, fair = 0, fair_min = INFINITY;
    unsigned n = 0, kernel0 = 0;
    for (unsigned e = 0; e < 3; e++) {
        const struct session_epoch *ep = session_epoch_at(s, e);
        for (unsigned k = 0; k < ep->nkernels; k++) {
            if (isnan(ep->k[k].are))
                continue;
            are += ep->k[k].are;
            are_max = fmax(are_max, ep->k[k].are);
            n++;
            kernel0 += k == 0;
        }
        assert_true(ep->m.valid);
        stp += ep->m.stp;
        antt += ep->m.antt;
        fair += ep->m.fairness;
        fair_min = fmin(fair_min, ep->m.fairness);
    }
    assert_true(n >= 3 && kernel0 >= 1 && are > 0);
    assert_string_equal(session_summary(s, &m), "hsm");
    assert_true(m.has_are);
    assert_close(m.mean_are, are / n, 1e-12);
    assert_close(m.max_are, are_max, 0);
    assert_close(m.mean_stp, stp / 3, 1e-12);
    assert_close(m.mean_antt, antt / 3, 1e-12);
    assert_close(m.mean_fairness, fair / 3, 1e-12);
    assert_close(m.min_fairness, fair_min, 0);

    char path[] = "/tmp/corun-test-summary-XXXXXX";
    test_tmp_path(path);
    int64_t id = -1;
    assert_int_equal(session_catalog(s, path, &id, err, sizeof err), 0);
    struct catalog *cat = catalog_open(path, err, sizeof err);
    assert_non_null(cat);
    struct catalog_run row;
    assert_int_equal(catalog_get_run(cat, id, &row, err, sizeof err), 0);
    assert_string_equal(row.mix, "stream+compute");
    assert_string_equal(row.predictor, "hsm");
    assert_int_equal(row.epochs, 3);
    assert_close(row.metrics.mean_are, m.mean_are, 1e-12);
    catalog_run_done(&row);
    catalog_close(cat);
    unlink(path);

    unsigned before = session_event_count(s);
    for (int i = 0; i < 40; i++) {
        char text[32];
        snprintf(text, sizeof text, "note %d", i);
        assert_int_equal(session_note(s, "note", text), 0);
    }
    assert_int_equal(session_event_count(s), before + 40);
    for (int i = 0; i < 40; i++) {
        char text[32];
        snprintf(text, sizeof text, "note %d", i);
        assert_string_equal(session_event_at(s, before + (unsigned)i)->text, text);
    }
    assert_null(session_event_at(s, before + 40));
    session_delete(s);
    scenario_done(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_references_run_ahead),
        cmocka_unit_test(test_split_and_boundary_counters),
        cmocka_unit_test(test_progress_runs_forward),
        cmocka_unit_test(test_branch_progress_in_cycles),
        cmocka_unit_test(test_branch_note_of_a_long_path),
        cmocka_unit_test(test_interval_counters),
        cmocka_unit_test(test_progress_steps_change_nothing),
        cmocka_unit_test(test_summary_and_catalog_row),
        cmocka_unit_test(test_branch_of_a_scenario_naming_asm),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
