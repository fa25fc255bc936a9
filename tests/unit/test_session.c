/* Unit tests for the session's allocator and parameter operations: a swap mid-run keeps the
 * run going and is logged with its reason; parameters are validated (refusals change
 * nothing) and logged; a recorded run with switches branches into the same epochs; a model
 * used outside its training configuration is warned of once; a live rewind. How an epoch runs
 * (references, progress, counters) is in test_session_epoch.c. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "assert_close.h"

#include "corun/catalog.h"
#include "corun/diag.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "testsession.h"

#include "../../src/app/session_internal.h" /* the references run ahead */

static void load(struct scenario *sc)
{
    test_scenario_text(sc, "unit.cfg", test_unit_scenario);
}

static void test_swap_mid_run(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    assert_string_equal(session_allocator_name(s), "static");
    /* No predictor chosen again is no change (a lesson's step logged "none -> none
     * (restarted)"). */
    assert_int_equal(session_set_predictor(s, "none", err, sizeof err), 0);
    assert_int_equal(test_count_events(s, "predictor", ""), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_sms_of(s, 0), 8);
    /* proportional gives the high-priority stream 0.8 x 16 = 12.8 -> 13 (or 12) SMs. */
    assert_int_equal(session_set_allocator(s, "proportional", err, sizeof err), 0);
    assert_string_equal(session_allocator_name(s), "proportional");
    assert_int_equal(test_count_events(s, "allocator", "static -> proportional"), 1);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_epochs_done(s), 2);
    unsigned hp = test_sms_of(s, 0);
    assert_true(hp == 12 || hp == 13);
    assert_int_equal(test_sms_of(s, 1), 16 - hp);
    assert_int_equal(test_count_events(s, "repartition", "proportional"), 1);
    /* The second epoch ran on the new partition from its start. */
    const struct session_epoch *e = session_epoch_at(s, 1);
    unsigned owned = 0;
    for (unsigned i = 0; i < e->nsms; i++)
        owned += e->owner[i] == 0;
    assert_int_equal(owned, hp);
    /* Back to even: the split returns. */
    assert_int_equal(session_set_allocator(s, "even", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_sms_of(s, 0), 8);
    /* The allocator in force again: it restarts, and the log says so rather than "even ->
     * even"; a restart is still a switch to a replay and a branch. */
    assert_int_equal(session_set_allocator(s, "even", err, sizeof err), 0);
    assert_int_equal(test_count_events(s, "allocator", "even -> even (restarted)"), 1);
    assert_int_equal(test_count_events(s, "allocator", "proportional -> even (restarted)"), 0);
    /* An unknown name changes nothing and says what is known. */
    assert_int_equal(session_set_allocator(s, "fiar", err, sizeof err), -1);
    assert_non_null(strstr(err, "did you mean fair"));
    assert_string_equal(session_allocator_name(s), "even");
    session_delete(s);
    scenario_done(&sc);
}

static void test_params(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    struct session_param p[32];
    size_t n = session_params(s, p, 32);
    assert_true(n >= 8 && n <= 32);
    int found = 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(p[i].key, "fairness_threshold") == 0) {
            assert_string_equal(p[i].value, "0.9");
            assert_non_null(strstr(p[i].range, "0.01 to 1"));
            found = 1;
        }
    assert_true(found);
    /* In order: the nine scenario settings, the weights (one per kernel in the mix, none set:
     * 0 each), then each kernel's priority and QoS target. */
    assert_int_equal(n, 9 + 1 + 2 * 2);
    assert_string_equal(p[0].key, "epoch_cycles");
    assert_string_equal(p[9].key, "weights");
    assert_string_equal(p[9].value, "0,0");
    assert_string_equal(p[10].key, "kernels[0].priority");
    assert_string_equal(p[10].value, "high");
    assert_string_equal(p[13].key, "kernels[1].qos_target");
    /* Each range fits the editor's prompt, which shows 50 characters of it (the weights' was
     * 73 and lost its end). */
    for (size_t i = 0; i < n; i++)
        if (strlen(p[i].range) > 50)
            fail_msg("%s: its range is %zu characters: %s", p[i].key, strlen(p[i].range),
                     p[i].range);
    /* Room for ten (up to the weights): ten written, the count still all of them. */
    snprintf(p[10].key, sizeof p[10].key, "untouched");
    assert_int_equal(session_params(s, p, 10), n);
    assert_string_equal(p[9].key, "weights");
    assert_string_equal(p[10].key, "untouched");
    /* Refused: out of range, unknown key, weights not summing to 1. Nothing changes. */
    assert_int_equal(session_set_param(s, "fairness_threshold", "1.5", err, sizeof err), -1);
    assert_non_null(strstr(err, "0.01 to 1"));
    /* The message reads as the workbench's, without the command line's "--set:LINE: ". */
    assert_true(strncmp(err, "fairness_threshold", strlen("fairness_threshold")) == 0);
    assert_int_equal(session_set_param(s, "gpu.sms", "8", err, sizeof err), -1);
    assert_non_null(strstr(err, "not a parameter a run can change"));
    assert_non_null(strstr(err, "expected one of epoch_cycles, fairness_threshold, "));
    assert_int_equal(session_set_param(s, "weights", "0.5,0.6", err, sizeof err), -1);
    assert_true(fabs(session_scenario(s)->fairness_threshold - 0.9) < 1e-12);
    assert_int_equal(test_count_events(s, "parameter", ""), 0);
    /* Accepted and logged. */
    assert_int_equal(session_set_param(s, "fairness_threshold", "0.95", err, sizeof err), 0);
    assert_true(fabs(session_scenario(s)->fairness_threshold - 0.95) < 1e-12);
    assert_int_equal(session_set_param(s, "kernels[1].priority", "high", err, sizeof err), 0);
    assert_int_equal(session_scenario(s)->kernels[1].priority, SCENARIO_HIGH);
    assert_int_equal(session_set_param(s, "epoch_cycles", "10000", err, sizeof err), 0);
    /* SMQoS' two open readings are parameters a run may change too. */
    assert_int_equal(session_set_param(s, "smqos_batch_min", "0", err, sizeof err), 0);
    assert_int_equal(session_scenario(s)->smqos_batch_min, 0);
    assert_int_equal(session_set_param(s, "static_smqos_rounding", "down", err, sizeof err), 0);
    assert_int_equal(session_scenario(s)->static_smqos_rounding, SCENARIO_ROUND_DOWN);
    assert_int_equal(session_set_param(s, "weights", "0.25,0.75", err, sizeof err), 0);
    n = session_params(s, p, 32);
    assert_string_equal(p[9].value, "0.25,0.75");
    assert_int_equal(test_count_events(s, "parameter", "set "), 6);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_epoch_at(s, 0)->cycles, 10000);
    session_delete(s);
    scenario_done(&sc);
}

/* Recording started after two epochs writes them at once, with the log so far; the replay
 * has all three, the first as it was run; a note added while replaying is placed at the end
 * of the last epoch shown. */
static void test_record_mid_run(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512], path[] = "/tmp/corun-test-midrun-XXXXXX";
    test_tmp_path(path);
    assert_int_equal(session_finish(s, err, sizeof err), 0); /* nothing recorded: nothing to do */
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_note(s, "note", "before recording"), 0);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_finish(s, err, sizeof err), 0);
    struct session *r = test_replay_of(path);
    assert_int_equal(session_epochs_done(r), 3);
    for (unsigned e = 0; e < 3; e++)
        assert_int_equal(session_epoch_at(r, e)->k[0].c.instructions,
                         session_epoch_at(s, e)->k[0].c.instructions);
    assert_int_equal(test_count_events(r, "note", "before recording"), 1);
    assert_int_equal(session_note(r, "note", "while replaying"), 0);
    const struct session_event *ev = session_event_at(r, session_event_count(r) - 1);
    const struct session_epoch *last = session_epoch_at(r, 2);
    assert_string_equal(ev->text, "while replaying");
    assert_int_equal(ev->cycle, last->start_cycle + last->cycles);
    session_delete(r);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* A recording that fails mid-run (the file cannot grow) keeps the epochs before; the session
 * says how many, and its catalog row describes the file, not every epoch run (it counted the
 * failed epoch, and in the workbench every epoch run after it). */
static void test_record_fails(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512], path[] = "/tmp/corun-test-recfail-XXXXXX";
    test_tmp_path(path);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    bool failed = true;
    assert_int_equal(session_epochs_recorded(s, &failed), 2);
    assert_false(failed);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    struct rlimit was, lim;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
    lim = (struct rlimit){(rlim_t)st.st_size, was.rlim_max};
    fflush(stdout);
    fflush(stderr);
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    unsigned run = 2;
    while (run < 40 && session_step_epoch(s, NULL, NULL) == 0)
        run++;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
    assert_true(run < 40);
    run++; /* the epoch whose recording failed was run */
    assert_int_equal(session_epochs_done(s), run);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0); /* the run goes on unrecorded */
    unsigned kept = session_epochs_recorded(s, &failed);
    assert_true(failed);
    assert_int_equal(kept, run - 1);
    assert_int_equal(session_finish(s, err, sizeof err), 0);
    struct session *r = test_replay_of(path);
    assert_int_equal(session_epochs_done(r), kept);
    assert_int_equal(session_epochs_recorded(r, &failed), kept);
    assert_false(failed);
    session_delete(r);

    char cpath[] = "/tmp/corun-test-recfail-cat-XXXXXX";
    catalog_close(test_tmp_catalog(cpath));
    int64_t id;
    assert_int_equal(session_catalog(s, cpath, &id, err, sizeof err), 0);
    struct catalog *cat = catalog_open(cpath, err, sizeof err);
    assert_non_null(cat);
    struct catalog_run row;
    assert_int_equal(catalog_get_run(cat, id, &row, err, sizeof err), 0);
    assert_int_equal(row.epochs, kept);
    /* The mean over the epochs in the file, not over every epoch run. */
    double stp = 0;
    for (unsigned e = 0; e < kept; e++)
        stp += session_epoch_at(s, e)->m.stp;
    assert_close(row.metrics.mean_stp, stp / kept, 1e-12);
    catalog_run_done(&row);
    catalog_close(cat);
    unlink(cpath);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* A session of the unit scenario recording to a new file made from the template path. */
static struct session *recording(struct scenario *sc, char *path)
{
    char err[512];
    load(sc);
    test_tmp_path(path);
    struct session *s = session_new(sc, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_record(s, path, err, sizeof err), 0);
    return s;
}

/* A run recorded with switches mid-run branches into exactly the same epochs: the branch
 * re-applies the recorded allocator and parameter events. */
static void test_branch_reapplies(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512], path[] = "/tmp/corun-test-session-XXXXXX";
    struct session *s = recording(&sc, path);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_set_allocator(s, "proportional", err, sizeof err), 0);
    assert_int_equal(session_set_param(s, "hp_share", "0.5", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_set_param(s, "hp_share", "0.25", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_sms_of(s, 0), 4);
    assert_int_equal(session_finish(s, err, sizeof err), 0);

    struct session *r = test_replay_of(path);
    struct session *b = session_branch(r, 3, NULL, NULL, err, sizeof err);
    if (!b)
        fprintf(stderr, "%s\n", err);
    assert_non_null(b);
    assert_string_equal(session_allocator_name(b), "proportional");
    assert_int_equal(test_sms_of(b, 0), 4);
    /* Its log is the recorded one plus the branch note, nothing re-logged. */
    assert_int_equal(test_count_events(b, "allocator", "static -> proportional"), 1);
    assert_int_equal(test_count_events(b, "parameter", "set hp_share"), 2);
    /* A replay holds no references: a branch of it simulates them as far as it needs, or
     * takes those of a trace cache (here the recording run's, an epoch further), with the
     * same epochs. */
    char cpath[] = "/tmp/corun-test-branch-cache-XXXXXX";
    struct catalog *cat = test_tmp_catalog(cpath);
    assert_int_equal(session_traces_to_catalog(s, cat, err, sizeof err), 0);
    struct session *c = session_branch_cached(r, 2, cat, NULL, NULL, err, sizeof err),
                   *d = session_branch(r, 2, NULL, NULL, err, sizeof err);
    assert_non_null(c);
    assert_non_null(d);
    for (unsigned k = 0; k < 2; k++) {
        const uint64_t *x, *y;
        size_t nc = solo_trace_samples(c->ref[k], &x), nd = solo_trace_samples(d->ref[k], &y);
        assert_true(nc > nd);
        assert_int_equal(nc, solo_trace_samples(s->ref[k], &y));
        assert_memory_equal(&session_epoch_at(c, 1)->k[k].np_true,
                            &session_epoch_at(d, 1)->k[k].np_true, sizeof(double));
    }
    catalog_close(cat);
    unlink(cpath);
    session_delete(d);
    session_delete(c);
    session_delete(b);
    session_delete(r);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* An allocator's note that it cannot act (fair without a predictor: kind "allocator", no
 * "->") is no switch: a branch passes over it (it took the note for a switch to the
 * allocator "" and refused the recorded run). */
static void test_branch_passes_allocator_notes(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512], path[] = "/tmp/corun-test-session-XXXXXX";
    struct session *s = recording(&sc, path);
    assert_int_equal(session_set_allocator(s, "fair", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_count_events(s, "allocator", "fair decides from a predictor"), 1);
    assert_int_equal(session_finish(s, err, sizeof err), 0);

    struct session *r = test_replay_of(path);
    struct session *b = session_branch(r, 1, NULL, NULL, err, sizeof err);
    if (!b)
        fprintf(stderr, "%s\n", err);
    assert_non_null(b);
    assert_string_equal(session_allocator_name(b), "fair");
    assert_int_equal(test_count_events(b, "allocator", "fair decides from a predictor"), 1);
    assert_int_equal(session_step_epoch(b, NULL, NULL), 0);
    session_delete(b);
    session_delete(r);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* A model trained on all 80 SMs of hbm80, used on this 16-SM hbm80: a "warning" event naming
 * both configurations, once per model however often the predictor is chosen again; a
 * predictor without a model, and the full preset, warn of nothing. */
static void test_model_out_of_range(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    assert_int_equal(session_set_predictor(s, "themis", err, sizeof err), 0);
    assert_int_equal(test_count_events(s, "warning", ""), 1);
    const struct session_event *ev = session_event_at(s, session_event_count(s) - 1);
    assert_string_equal(ev->kind, "warning");
    assert_non_null(strstr(ev->text, "themis-hbm80.cfg"));
    assert_non_null(strstr(ev->text, "trained on hbm80 with 80 SMs, used on hbm80 with 16 SMs"));
    assert_int_equal(session_set_predictor(s, "hsm", err, sizeof err), 0);
    assert_int_equal(test_count_events(s, "warning", ""), 2);
    assert_int_equal(session_set_predictor(s, "themis", err, sizeof err), 0);
    assert_int_equal(session_set_predictor(s, "dase", err, sizeof err), 0);
    assert_int_equal(test_count_events(s, "predictor", "themis -> dase"), 1);
    assert_int_equal(session_set_predictor(s, "dase", err, sizeof err), 0);
    assert_int_equal(test_count_events(s, "predictor", "dase -> dase (restarted)"), 1);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_count_events(s, "warning", ""), 2);
    session_delete(s);
    scenario_done(&sc);

    test_scenario_text(&sc, "full.cfg",
                       "name = \"full\";\ngpu = \"hbm80\";\nepochs = 1;\nepoch_cycles = 20000;\n"
                       "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(session_set_predictor(s, "themis", err, sizeof err), 0);
    assert_int_equal(session_set_predictor(s, "hsm", err, sizeof err), 0);
    assert_int_equal(test_count_events(s, "warning", ""), 0);
    session_delete(s);
    scenario_done(&sc);
}

/* The NP a kernel is to keep: a high-priority kernel's qos_target (0.8 by default, then as
 * set), none for a low-priority one or past the kernels, and smqos_policy while an SMQoS
 * allocator keeps it; qos finds the high-priority kernel in the mix's first place, and fair
 * counts SM 0 with its owner's. */
static void test_qos_target(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[256];
    assert_true(session_qos_target(s, 0) == 0.8);
    assert_true(session_qos_target(s, 1) == 0);
    assert_true(session_qos_target(s, 7) == 0);
    assert_int_equal(session_set_param(s, "kernels[0].qos_target", "0.6", err, sizeof err), 0);
    assert_true(session_qos_target(s, 0) == 0.6);
    assert_int_equal(session_set_param(s, "smqos_policy", "0.9", err, sizeof err), 0);
    for (int i = 0; i < 2; i++) {
        const char *a = i ? "static-smqos" : "smqos";
        assert_int_equal(session_set_allocator(s, a, err, sizeof err), 0);
        assert_true(session_qos_target(s, 0) == 0.9);
        assert_true(session_qos_target(s, 1) == 0);
    }
    assert_int_equal(session_set_allocator(s, "qos", err, sizeof err), 0);
    assert_true(session_qos_target(s, 0) == 0.6);
    /* The kernel qos protects is the mix's first: it has one, and says nothing of a missing one
     * (nor of a missing predictor, with hsm there). */
    assert_int_equal(session_set_predictor(s, "hsm", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_count_events(s, "allocator", "qos "), 0);
    session_delete(s);
    scenario_done(&sc);
    /* fair moves one SM from the stream, which holds SM 0, to compute: every SM still has an
     * owner (an allocator that missed SM 0 in its counts would leave one idle). */
    s = test_open_unit(&sc);
    assert_int_equal(session_set_predictor(s, "hsm", err, sizeof err), 0);
    assert_int_equal(session_set_allocator(s, "fair", err, sizeof err), 0);
    int owner[SESSION_MAX_SMS];
    session_partition(s, owner);
    assert_int_equal(owner[0], 0);
    for (int i = 0; i < 3; i++)
        assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_count_events(s, "repartition", "fair: fairness"), 1);
    assert_int_equal(test_sms_of(s, 0) + test_sms_of(s, 1), 16);
    assert_int_equal(test_sms_of(s, 0), 7);
    session_delete(s);
    scenario_done(&sc);
}

/* Each epoch keeps the QoS target it ran under: a target, a priority or an allocator changed
 * later is the next epoch's (the workbench judged finished epochs by today's targets); a
 * replay of the run works them out from the log to the same values. */
static void test_epoch_qos_targets(void **state)
{
    (void)state;
    struct scenario sc;
    char err[512], path[] = "/tmp/corun-test-session-XXXXXX";
    struct session *s = recording(&sc, path);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_set_param(s, "kernels[0].qos_target", "0.3", err, sizeof err), 0);
    assert_int_equal(session_set_param(s, "kernels[1].priority", "high", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_set_param(s, "smqos_policy", "0.9", err, sizeof err), 0);
    assert_int_equal(session_set_allocator(s, "static-smqos", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    static const double want[3][2] = {{0.8, 0}, {0.3, 0.8}, {0.9, 0.9}};
    for (unsigned i = 0; i < 3; i++)
        for (unsigned k = 0; k < 2; k++)
            assert_true(session_epoch_at(s, i)->k[k].qos_target == want[i][k]);
    assert_int_equal(session_finish(s, err, sizeof err), 0);
    struct session *r = test_replay_of(path);
    for (unsigned i = 0; i < 3; i++)
        for (unsigned k = 0; k < 2; k++)
            assert_true(session_epoch_at(r, i)->k[k].qos_target == want[i][k]);
    session_delete(r);
    session_delete(s);
    unlink(path);
    scenario_done(&sc);
}

/* A recorded epoch as a replay holds it: an exact prediction's error is 0, not missing (a
 * prediction missing is NaN), and SM 0's owner is the file's like every other's. */
static void test_epoch_from_file(void **state)
{
    (void)state;
    struct runfile_epoch re;
    memset(&re, 0, sizeof re);
    re.cycles = 1000;
    re.nkernels = 2;
    re.k[0].np_true = re.k[0].np_pred = 0.5;
    re.k[1].np_true = 0.25;
    re.k[1].np_pred = NAN;
    re.nsms = 4;
    const int owner[4] = {1, 0, GPU_SM_IDLE, 1};
    memcpy(re.owner, owner, sizeof owner);
    re.stp = re.antt = re.fairness = NAN;
    struct session_epoch e;
    memset(&e, 0, sizeof e);
    session_from_runfile_epoch(&re, &e);
    assert_true(e.k[0].are == 0);
    assert_true(isnan(e.k[1].are));
    assert_string_equal(e.predictor, "recorded");
    assert_int_equal(e.nsms, 4);
    for (unsigned i = 0; i < 4; i++)
        assert_int_equal(e.owner[i], owner[i]);
    assert_false(e.m.valid);
}

/* A live rewind: the run, with a parameter set before its first epoch and a switch and
 * parameter changes later, re-simulated from its starting scenario to epoch 2 gives the same
 * epochs and the allocator and share in force then; the rewound session keeps its parameter
 * change, and is independent of the live one. */
static void test_rewind_live(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    assert_int_equal(session_set_param(s, "epoch_cycles", "15000", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_set_allocator(s, "proportional", err, sizeof err), 0);
    assert_int_equal(session_set_param(s, "hp_share", "0.5", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(session_set_param(s, "hp_share", "0.25", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    assert_int_equal(test_sms_of(s, 0), 4);

    struct session *b = session_branch(s, 2, NULL, NULL, err, sizeof err);
    if (!b)
        fail_msg("%s", err);
    assert_int_equal(session_epochs_done(b), 2);
    for (unsigned i = 0; i < 2; i++) {
        const struct session_epoch *x = session_epoch_at(b, i), *y = session_epoch_at(s, i);
        assert_int_equal(x->cycles, 15000);
        assert_int_equal(x->k[0].c.instructions, y->k[0].c.instructions);
        assert_int_equal(x->k[1].c.l2_misses, y->k[1].c.l2_misses);
    }
    assert_string_equal(session_allocator_name(b), "proportional");
    assert_int_equal(test_sms_of(b, 0), 8); /* hp_share 0.5 was in force after epoch 2 */
    assert_int_equal(test_count_events(b, "note", "rewound to the end of epoch 2"), 1);
    /* The rewound run started from copies of the run's references, which cover its epochs:
     * they are as the run left them, not simulated again (only as far as epoch 2 needed). */
    for (unsigned k = 0; k < 2; k++) {
        const uint64_t *x, *y;
        size_t nx = solo_trace_samples(b->ref[k], &x), ny = solo_trace_samples(s->ref[k], &y);
        assert_int_equal(nx, ny);
        assert_memory_equal(x, y, nx * sizeof(*x));
        assert_true(b->ref[k] != s->ref[k]);
    }
    /* Another policy from there changes only the rewound run. */
    assert_int_equal(session_set_allocator(b, "static", err, sizeof err), 0);
    assert_int_equal(session_step_epoch(b, NULL, NULL), 0);
    assert_int_equal(session_epochs_done(s), 3);
    assert_int_equal(session_epochs_done(b), 3);
    assert_int_equal(test_sms_of(b, 0), 8);
    /* Rewound to 0: the epoch length set before the first epoch is kept and logged once, so
     * a recording of the rewound run replays with it. */
    struct session *z = session_branch(s, 0, NULL, NULL, err, sizeof err);
    if (!z)
        fail_msg("%s", err);
    assert_int_equal(session_scenario(z)->epoch_cycles, 15000);
    assert_int_equal(test_count_events(z, "parameter", "set epoch_cycles=15000"), 1);
    session_delete(z);
    /* Out of range. */
    assert_null(session_branch(s, 4, NULL, NULL, err, sizeof err));
    assert_string_equal(err, "the live run: cannot branch after epoch 4: the run holds 3 "
                             "epochs (expected 0, its start, to 3)");
    /* A run whose epoch 2 no longer simulates as recorded (kernel 0's instructions off by
     * one): the branch is refused, and the message names the epoch, the counter and the
     * kernel. */
    s->epochs[1].k[0].c.instructions++;
    assert_null(session_branch(s, 2, NULL, NULL, err, sizeof err));
    char want[160];
    snprintf(want, sizeof want, "epoch 2 simulates differently now (instructions of %s)",
             sc.kernels[0].name);
    if (!strstr(err, want))
        fail_msg("expected \"%s\" in: %s", want, err);
    s->epochs[1].k[0].c.instructions--;
    session_delete(b);
    session_delete(s);
    scenario_done(&sc);
}

/* What the scenario chooses is what the session runs: its predictor and allocator (a chosen
 * allocator logged as a switch, the default not), and an interval allocator deciding every
 * smqos_interval cycles within the epoch, never between. */
static void test_scenario_choices(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    assert_string_equal(session_predictor_name(s), "none");
    assert_int_equal(test_count_events(s, "allocator", ""), 0);
    session_delete(s);
    scenario_done(&sc);

    test_scenario_text(&sc, "smqos.cfg",
                       "name = \"smqos\"; gpu = \"smqos24\"; seed = 1; epochs = 2;\n"
                       "epoch_cycles = 20000; smqos_interval = 5000;\n"
                       "predictor = \"hsm\"; allocator = \"smqos\";\n"
                       "kernels = ( { name = \"smqos-bino\"; priority = \"high\"; },"
                       " { name = \"smqos-lbm\"; } );\n");
    s = session_new(&sc, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    assert_string_equal(session_predictor_name(s), "hsm");
    assert_string_equal(session_allocator_name(s), "smqos");
    assert_int_equal(test_count_events(s, "allocator", ""), 1);
    /* From the static partition the run starts on: it read "smqos -> smqos (restarted)". */
    assert_int_equal(test_count_events(s, "allocator", "static -> smqos"), 1);
    assert_int_equal(test_count_events(s, "allocator", "smqos -> "), 0);
    for (int e = 0; e < 2; e++)
        assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    unsigned moves = 0, within = 0;
    for (unsigned i = 0; i < session_event_count(s); i++) {
        const struct session_event *ev = session_event_at(s, i);
        if (strcmp(ev->kind, "repartition") != 0)
            continue;
        moves++;
        if (ev->cycle % 5000 != 0)
            fail_msg("a repartition at cycle %llu, off the 5000-cycle intervals",
                     (unsigned long long)ev->cycle);
        within += ev->cycle % 20000 != 0;
    }
    assert_true(moves >= 2 && within >= 1);
    /* SMQoS's offline profile: each kernel's IPC alone, at most what 24 SMs of 2 schedulers
     * can issue in a cycle */
    for (unsigned k = 0; k < 2; k++)
        if (!(s->ipc_isolated[k] > 0 && s->ipc_isolated[k] <= 48))
            fail_msg("kernel %u: isolated IPC %g", k, s->ipc_isolated[k]);
    session_delete(s);
    scenario_done(&sc);
}

/* ASM samples in priority epochs while it is the predictor, and only then: choosing it turns
 * them on, choosing another turns them off (a kernel has the priority between steps only
 * under ASM). */
static void test_priority_epochs_follow_asm(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    assert_int_equal(gpu_priority_kernel(s->gpu), -1);
    if (session_set_predictor(s, "asm", err, sizeof err) != 0)
        fail_msg("%s", err);
    gpu_run(s->gpu, 3000);
    assert_true(gpu_priority_kernel(s->gpu) >= 0);
    if (session_set_predictor(s, "hsm", err, sizeof err) != 0)
        fail_msg("%s", err);
    for (int i = 0; i < 10; i++) {
        gpu_run(s->gpu, 777);
        assert_int_equal(gpu_priority_kernel(s->gpu), -1);
    }
    if (session_set_predictor(s, "none", err, sizeof err) != 0)
        fail_msg("%s", err);
    gpu_run(s->gpu, 3000);
    assert_int_equal(gpu_priority_kernel(s->gpu), -1);
    session_delete(s);
    scenario_done(&sc);
}

/* The predictor's explanation of each kernel is kept beside its epoch: its lines, joined by
 * newlines, none after the last. */
static void test_explanations_kept(void **state)
{
    (void)state;
    struct scenario sc;
    struct session *s = test_open_unit(&sc);
    char err[512];
    if (session_set_predictor(s, "hsm", err, sizeof err) != 0)
        fail_msg("%s", err);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    for (unsigned k = 0; k < 2; k++) {
        struct predict_text x;
        assert_int_equal(session_predictor_explain(s, k, &x), 0);
        assert_true(x.n >= 2);
        char want[PREDICT_EXPLAIN_LINES * (PREDICT_EXPLAIN_WIDTH + 1)] = "";
        for (unsigned i = 0; i < x.n; i++) {
            strcat(want, x.line[i]);
            if (i + 1 < x.n)
                strcat(want, "\n");
        }
        const char *kept = session_epoch_explain(s, 0, k);
        assert_non_null(kept);
        assert_string_equal(kept, want);
    }
    assert_null(session_epoch_explain(s, 1, 0)); /* no such epoch yet */
    session_delete(s);
    scenario_done(&sc);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_swap_mid_run),
        cmocka_unit_test(test_params),
        cmocka_unit_test(test_record_mid_run),
        cmocka_unit_test(test_record_fails),
        cmocka_unit_test(test_branch_reapplies),
        cmocka_unit_test(test_branch_passes_allocator_notes),
        cmocka_unit_test(test_model_out_of_range),
        cmocka_unit_test(test_rewind_live),
        cmocka_unit_test(test_epoch_from_file),
        cmocka_unit_test(test_qos_target),
        cmocka_unit_test(test_epoch_qos_targets),
        cmocka_unit_test(test_scenario_choices),
        cmocka_unit_test(test_priority_epochs_follow_asm),
        cmocka_unit_test(test_explanations_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
