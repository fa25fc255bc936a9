/* Unit tests: reproduce_run — a part run end to end on a three-mix suite of short epochs: each
 * mix's key, tag and split, the groups and splits listed, a shared run for the predictors that
 * only read counters and a run of its own for one that changes the run (ASM), progress that
 * runs from 0 to the mix count and never back, a second run that reads every measurement
 * from the catalog instead of simulating, and a rerun that takes every mix from its journal. */
#define _DEFAULT_SOURCE
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/reproduce.h"
#include "testutil.h"

/* Two tags; two mixes on the same split, so the split is listed once. Two epochs of 12 K cycles
 * hold two of ASM's 10 K-cycle priority turns, so its own run differs from the shared one. */
static const char suite_text[] = "name = \"t\";\n"
                                 "gpu = \"hbm80\";\n"
                                 "epochs = 2;\n"
                                 "epoch_cycles = 12000;\n"
                                 "tags = [\"a\", \"b\"];\n"
                                 "mixes = (\n"
                                 "  { tag = \"a\"; kernels = [\"stream\", \"compute\"]; },\n"
                                 "  { tag = \"b\"; kernels = [\"stream\", \"random\"]; "
                                 "sms = [20, 60]; },\n"
                                 "  { tag = \"b\"; kernels = [\"cachefit\", \"compute\"]; "
                                 "sms = [20, 60]; }\n"
                                 ");\n";

static const struct repro_part part = {.suite = "t.cfg",
                                       .figure = "test",
                                       .caption = "a three-mix suite",
                                       .error = REPRO_ERROR_NP,
                                       .by_split = true,
                                       .quick_mixes = 2};

/* A data directory of its own: the source tree's data/ linked in, the suite in
 * scenarios/suites/, and the catalog beside them. */
struct fixture {
    char dir[64], data[96], catalog[96];
};

static int setup(void **state)
{
    const char *top = getenv("CORUN_DATADIR");
    if (!top)
        return -1;
    struct fixture *f = calloc(1, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/test_repro_run_XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    snprintf(f->data, sizeof f->data, "%s/data", f->dir);
    snprintf(f->catalog, sizeof f->catalog, "%s/catalog.db", f->dir);
    char data[1024], suites[128], suite[160];
    snprintf(data, sizeof data, "%s/data", top);
    snprintf(suites, sizeof suites, "%s/scenarios", f->dir);
    mkdir(suites, 0700);
    snprintf(suites, sizeof suites, "%s/scenarios/suites", f->dir);
    mkdir(suites, 0700);
    snprintf(suite, sizeof suite, "%s/t.cfg", suites);
    FILE *fp = fopen(suite, "w");
    if (symlink(data, f->data) != 0 || !fp)
        return -1;
    fputs(suite_text, fp);
    fclose(fp);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    unlink(f->data); /* the link only, before the tree goes */
    test_remove_tree(f->dir);
    free(f);
    return 0;
}

struct progress {
    double seen[4096];
    unsigned n, total;
};

static void note(void *ctx, double done, unsigned total)
{
    struct progress *p = ctx;
    if (p->n < 4096)
        p->seen[p->n++] = done;
    p->total = total;
}

static struct repro_options options(const struct fixture *f, const char *predictors, bool fresh)
{
    return (struct repro_options){.datadir = f->dir,
                                  .catalog = f->catalog,
                                  .jobs = 1,
                                  .seed = 1,
                                  .predictors = predictors,
                                  .fresh = fresh};
}

static int index_of(const struct repro_part_result *r, const char *predictor)
{
    for (unsigned p = 0; p < r->npredictors; p++)
        if (strcmp(r->predictors[p], predictor) == 0)
            return (int)p;
    return -1;
}

static void test_part_and_its_runs(void **state)
{
    struct fixture *f = *state;
    struct repro_options o = options(f, "hsm,asm", true);
    struct repro_part_result r;
    struct progress pr = {0};
    char err[512] = "";
    int rc = repro_run_part(&o, &part, note, &pr, &r, err, sizeof err);
    assert_int_equal(rc, 0);
    assert_string_equal(r.suite, "t");
    assert_int_equal(r.epochs, 2);
    assert_int_equal(r.epoch_cycles, 12000);
    assert_int_equal(r.nmixes, 3);
    const char *keys[] = {"stream+compute", "stream+random@20:60", "cachefit+compute@20:60"};
    const char *tags[] = {"a", "b", "b"}, *splits[] = {"", "20:60", "20:60"};
    for (unsigned i = 0; i < 3; i++) {
        assert_string_equal(r.mixes[i].key, keys[i]);
        assert_string_equal(r.mixes[i].tag, tags[i]);
        assert_string_equal(r.mixes[i].split, splits[i]);
    }
    assert_int_equal(r.ngroups, 2);
    assert_string_equal(r.groups[0], "a");
    assert_string_equal(r.groups[1], "b");
    assert_int_equal(r.nsplits, 1);
    assert_string_equal(r.splits[0], "20:60");

    /* Only the two asked for, in the registry's order. */
    assert_int_equal(r.npredictors, 2);
    int hsm = index_of(&r, "hsm"), asm_ = index_of(&r, "asm");
    assert_true(hsm >= 0 && asm_ >= 0);
    for (unsigned i = 0; i < 3; i++) {
        const struct repro_mix_result *m = &r.mixes[i];
        assert_int_equal(m->failed, 0);
        /* HSM reads the shared run's counters; ASM's priority epochs change the run. */
        assert_int_equal(m->runs, 2);
        assert_int_equal(m->reused, 0);
        assert_int_equal(m->own_run[hsm], 0);
        assert_int_equal(m->own_run[asm_], 1);
        assert_int_equal(m->nepochs, 2);
        bool runs_differ = false;
        for (unsigned e = 0; e < 2; e++) {
            assert_int_equal(m->cycles[e], 12000);
            for (unsigned k = 0; k < 2; k++) {
                double th = m->np_true[hsm][e][k], ta = m->np_true[asm_][e][k];
                assert_true(th > 0 && th < 2 && ta > 0 && ta < 2);
                assert_true(isfinite(m->np_pred[hsm][e][k]));
                runs_differ = runs_differ || th != ta;
            }
            assert_true(isnan(m->np_true[hsm][e][2])); /* no third kernel */
        }
        /* no third epoch: nothing there is taken for a measurement */
        assert_true(isnan(m->np_pred[hsm][2][0]) && isnan(m->np_true[asm_][2][0]));
        /* Beside the stream, ASM's turns at the memory controllers move the true NP (cachefit
         * and compute hardly reach DRAM, so theirs may not). */
        if (i < 2)
            assert_true(runs_differ);
    }

    /* From 0 to the mix count, never back. */
    assert_int_equal(pr.total, 3);
    assert_true(pr.n >= 2);
    for (unsigned i = 0; i < pr.n; i++) {
        assert_true(pr.seen[i] >= 0 && pr.seen[i] <= 3);
        if (i)
            assert_true(pr.seen[i] >= pr.seen[i - 1]);
    }
    assert_true(pr.seen[pr.n - 1] == 3);

    /* Again without --fresh: every measurement comes from the catalog, as it was. */
    struct repro_options again = options(f, "hsm,asm", false);
    struct repro_part_result r2;
    assert_int_equal(repro_run_part(&again, &part, NULL, NULL, &r2, err, sizeof err), 0);
    for (unsigned i = 0; i < 3; i++) {
        const struct repro_mix_result *a = &r.mixes[i], *b = &r2.mixes[i];
        assert_int_equal(b->reused, 2);
        assert_int_equal(b->runs, 0);
        assert_int_equal(b->nepochs, 2);
        assert_memory_equal(a->np_pred, b->np_pred, sizeof a->np_pred);
        assert_memory_equal(a->np_true, b->np_true, sizeof a->np_true);
        assert_memory_equal(a->cycles, b->cycles, sizeof a->cycles);
    }
    repro_part_result_done(&r2);
    repro_part_result_done(&r);
}

/* With ASM alone there is no shared run to make: one run per mix, ASM's own. On another
 * preset (--gpu) the mixes run there (their splits scaled to its SMs) under the suite's keys. */
static void test_own_run_only(void **state)
{
    struct fixture *f = *state;
    struct repro_options o = options(f, "asm", true);
    o.epochs = 1;
    o.gpu = "gddr5_40";
    struct repro_part_result r;
    char err[512] = "";
    assert_int_equal(repro_run_part(&o, &part, NULL, NULL, &r, err, sizeof err), 0);
    assert_string_equal(r.gpu, "gddr5_40");
    assert_string_equal(r.suite_gpu, "hbm80");
    assert_string_equal(r.mixes[1].key, "stream+random@20:60");
    assert_int_equal(r.npredictors, 1);
    assert_int_equal(r.epochs, 1);
    for (unsigned i = 0; i < r.nmixes; i++) {
        assert_int_equal(r.mixes[i].runs, 1);
        assert_int_equal(r.mixes[i].nepochs, 1);
        assert_true(isfinite(r.mixes[i].np_pred[0][0][0]));
    }
    repro_part_result_done(&r);
}

/* With --resume each finished mix goes into the journal, and a rerun takes them all from there:
 * nothing simulated, the same results, progress still reaching the mix count. */
static void test_resumed_from_the_journal(void **state)
{
    struct fixture *f = *state;
    char journal[128];
    snprintf(journal, sizeof journal, "%s/journal", f->dir);
    struct repro_options o = options(f, "hsm", true);
    o.epochs = 1;
    o.resume = journal;
    struct repro_part_result r, again;
    char err[512] = "";
    assert_int_equal(repro_run_part(&o, &part, NULL, NULL, &r, err, sizeof err), 0);
    assert_int_equal(r.resume.resumed, 0);
    assert_string_equal(r.resume.error, "");
    struct progress pr = {0};
    assert_int_equal(repro_run_part(&o, &part, note, &pr, &again, err, sizeof err), 0);
    assert_int_equal(again.resume.resumed, 3);
    assert_int_equal(again.resume.dropped, 0);
    assert_string_equal(again.resume.error, "");
    assert_true(pr.n >= 1 && pr.seen[pr.n - 1] == 3 && pr.total == 3);
    for (unsigned i = 0; i < 3; i++)
        assert_memory_equal(&r.mixes[i].np_pred, &again.mixes[i].np_pred,
                            sizeof r.mixes[i].np_pred);
    repro_part_result_done(&again);
    repro_part_result_done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_part_and_its_runs, setup, teardown),
        cmocka_unit_test_setup_teardown(test_own_run_only, setup, teardown),
        cmocka_unit_test_setup_teardown(test_resumed_from_the_journal, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
