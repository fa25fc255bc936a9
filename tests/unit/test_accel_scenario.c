/* Unit tests: accelerator scenarios — the probe, a scenario with its own traces and one with
 * library profiles, every application profile in data/apps, the role rules, and a spatial
 * loader that refuses an accelerator file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include "corun/accel_scenario.h"
#include "corun/datadir.h"
#include "corun/preset.h"
#include "corun/scenario.h"
#include "corun/util.h"

struct loaded {
    struct accel_scenario sc;
    struct diag d;
    int rc;
};

static void load_text(struct loaded *l, const char *text)
{
    char *datadir = datadir_locate();
    char *path = test_write_temp(text);
    diag_init(&l->d);
    assert_int_equal(accel_scenario_probe(path), 1);
    l->rc = accel_scenario_load(&l->sc, path, datadir, &l->d);
    unlink(path);
    free(path);
    free(datadir);
}

static void unload(struct loaded *l)
{
    accel_scenario_done(&l->sc);
    diag_done(&l->d);
}

#define HEAD "mode = \"accelerator\"; name = \"t\"; gpu = \"k40\";\n"

static void inline_traces_load(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l,
              HEAD "seed = 7;\napplications = (\n"
                   " { name = \"q\"; role = \"ls\"; qos_target = 1.5; arrival = \"poisson\";\n"
                   "   rate_qps = 200; queries = 40;\n"
                   "   tasks = ( { type = \"h2d\"; bytes = 65536; },\n"
                   "             { type = \"kernel\"; kernel = \"compute\"; },\n"
                   "             { type = \"d2h\"; bytes = 4096; copy = \"exclusive\"; } ); },\n"
                   " { name = \"b\"; role = \"batch\"; instances = 3;\n"
                   "   tasks = ( { type = \"kernel\"; kernel = { tbs = 30; warps_per_tb = 8;\n"
                   "     insts_per_warp = 2000; mem_fraction = 0.1;\n"
                   "     footprint_bytes = 1048576; }; } ); }\n);\n");
    assert_int_equal(l.rc, 0);
    assert_int_equal(l.d.count, 0);
    assert_int_equal(l.sc.gpu.sms, 15);
    assert_int_equal(l.sc.seed, 7);
    assert_int_equal(l.sc.napps, 2);
    const struct accel_app *q = &l.sc.apps[0], *b = &l.sc.apps[1];
    assert_int_equal(q->role, ACCEL_LS);
    assert_int_equal(q->arrival, ACCEL_POISSON);
    assert_true(q->rate_qps == 200 && q->qos_target == 1.5 && q->queries == 40);
    assert_int_equal(q->trace.ntasks, 3);
    assert_int_equal(q->trace.tasks[0].type, ACCEL_H2D);
    assert_int_equal(q->trace.tasks[0].bytes, 65536);
    assert_int_equal(q->trace.tasks[0].copy, ACCEL_COPY_SHARED);
    assert_int_equal(q->trace.tasks[1].type, ACCEL_KERNEL);
    assert_string_equal(q->trace.tasks[1].kernel.name, "compute");
    assert_int_equal(q->trace.tasks[2].copy, ACCEL_COPY_EXCLUSIVE);
    assert_int_equal(b->role, ACCEL_BATCH);
    assert_int_equal(b->instances, 3);
    assert_int_equal(b->trace.tasks[0].kernel.tbs, 30);
    assert_string_equal(b->trace.tasks[0].kernel.name, "b-k0");
    unload(&l);
}

/* Every profile in data/apps loads, has a source, starts with a copy to the GPU and runs at
 * least one kernel; the -ex variants are their base's trace with exclusive copies. */
static void every_application_profile_loads(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    char *dir = xasprintf("%s/data/apps", datadir);
    struct name_list names;
    preset_cfg_names(dir, &names);
    assert_int_equal(names.count, 18); /* Prophet's 7 LS and 11 batch applications */
    struct gpu_config k40;
    test_preset("k40", &k40);
    for (size_t i = 0; i < names.count; i++) {
        struct accel_trace t;
        struct diag d;
        diag_init(&d);
        assert_int_equal(accel_trace_load(datadir, names.names[i], &t, &d), 0);
        assert_true(t.source && *t.source);
        assert_int_equal(t.tasks[0].type, ACCEL_H2D);
        unsigned kernels = 0;
        char why[256];
        for (unsigned k = 0; k < t.ntasks; k++)
            if (t.tasks[k].type == ACCEL_KERNEL) {
                kernels++;
                assert_int_equal(gpu_profile_check(&k40, &t.tasks[k].kernel, why, sizeof(why)), 0);
            } else {
                int ex = strstr(names.names[i], "-ex") != NULL;
                assert_int_equal(t.tasks[k].copy, ex ? ACCEL_COPY_EXCLUSIVE : ACCEL_COPY_SHARED);
            }
        assert_true(kernels >= 1);
        accel_trace_done(&t);
        diag_done(&d);
    }
    name_list_done(&names);
    free(dir);
    free(datadir);
}

static void library_profiles_are_found_by_name(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, HEAD "applications = ( { name = \"gmm\"; role = \"ls\"; qos_target = 2; },\n"
                       "  { name = \"pf-ex\"; role = \"batch\"; instances = 15; } );\n");
    assert_int_equal(l.rc, 0);
    assert_int_equal(l.sc.apps[0].arrival, ACCEL_CLOSED);
    assert_int_equal(l.sc.apps[0].queries, 100); /* the default */
    assert_true(l.sc.apps[1].trace.ntasks >= 3);
    unload(&l);
}

static void role_rules(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, HEAD "applications = (\n"
                       " { name = \"gmm\"; role = \"batch\"; rate_qps = 3; },\n"
                       " { name = \"dig\"; role = \"ls\"; qos_target = 2; rate_qps = 3; },\n"
                       " { name = \"md\"; role = \"batch\"; instances = 15; } );\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 3);
    assert_true(test_diag_has(&l.d, ":3: applications[0].rate_qps: only an LS application", NULL));
    assert_true(test_diag_has(
        &l.d, ":4: applications[1].rate_qps: closed-loop queries have no rate", NULL));
    assert_true(
        test_diag_has(&l.d, ":2: applications: expected at most 16 processes", "got 17", NULL));
    assert_null(l.sc.name); /* nothing half-loaded survives */
    unload(&l);
}

static void task_rules(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, HEAD "applications = ( { name = \"q\"; role = \"batch\";\n"
                       "  tasks = ( { type = \"kernel\"; kernel = \"compute\"; bytes = 4; },\n"
                       "            { type = \"h2d\"; bytes = 4; kernel = \"compute\"; },\n"
                       "            { type = \"kernel\"; kernel = { tbs = 1; phases = (); }; },\n"
                       "            { type = \"kernel\"; kernel = \"computer\"; } ); } );\n");
    assert_int_equal(l.rc, -1);
    assert_true(
        test_diag_has(&l.d, ":3: applications[0].tasks[0].bytes: a kernel task moves", NULL));
    assert_true(
        test_diag_has(&l.d, ":4: applications[0].tasks[1].kernel: only a kernel task", NULL));
    assert_true(
        test_diag_has(&l.d, "applications[0].tasks[2].kernel.phases: an inline kernel", NULL));
    assert_true(
        test_diag_has(&l.d, "applications[0].tasks[2].kernel.warps_per_tb: required", NULL));
    assert_true(test_diag_has(&l.d, ":6: applications[0].tasks[3].kernel: unknown kernel",
                              "(did you mean compute?)", NULL));
    unload(&l);
}

/* An application that is neither in data/apps nor given tasks of its own is named with what
 * is there; a kernel task the GPU cannot hold (64 KB of shared memory per block on k40's 48 KB)
 * is refused at load, naming the task (the line of the setting at fault) and the GPU. */
static void unknown_apps_and_kernels_that_do_not_fit(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, HEAD "applications = ( { name = \"nosuchapp\"; role = \"batch\"; },\n"
                       " { name = \"big\"; role = \"batch\";\n"
                       "   tasks = ( { type = \"h2d\"; bytes = 4096; },\n"
                       "     { type = \"kernel\"; kernel = { tbs = 8; warps_per_tb = 8;\n"
                       "       insts_per_warp = 100; footprint_bytes = 65536; mem_fraction = 0.1;\n"
                       "       smem_per_tb_bytes = 65536; }; } ); } );\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 2);
    assert_true(test_diag_has(&l.d, ":2: applications[0].name: unknown application \"nosuchapp\"",
                              "(no data/apps/nosuchapp.cfg", NULL));
    /* at the setting the refusal names (smem_per_tb_bytes) in the task's kernel, not the
     * application's line or the kernel's first */
    assert_true(test_diag_has(&l.d, ":7: applications[1].tasks[1].kernel: on GPU k40: ",
                              "no thread block fits on an SM", NULL));
    unload(&l);
}

static void spatial_loader_refuses_an_accelerator_file(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    char *path = test_write_temp("# an accelerator file\n" HEAD
                                 "applications = ( { name = \"gmm\"; role = \"batch\"; } );\n");
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_load(&sc, path, datadir, &d), -1);
    assert_int_equal(d.count, 1);
    assert_true(test_diag_has(&d, ":2: mode: an accelerator scenario", NULL));
    scenario_done(&sc);
    diag_done(&d);
    /* A spatial file is not an accelerator one, and the accelerator loader says so. */
    char *spatial = test_write_temp("name = \"s\"; gpu = \"k40\"; kernels = ( { name = "
                                    "\"compute\"; } );\n");
    assert_int_equal(accel_scenario_probe(spatial), 0);
    struct accel_scenario ac;
    diag_init(&d);
    assert_int_equal(accel_scenario_load(&ac, spatial, datadir, &d), -1);
    assert_true(test_diag_has(&d, "mode: expected \"accelerator\"", NULL));
    accel_scenario_done(&ac);
    diag_done(&d);
    unlink(spatial);
    free(spatial);
    unlink(path);
    free(path);
    free(datadir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(inline_traces_load),
        cmocka_unit_test(every_application_profile_loads),
        cmocka_unit_test(library_profiles_are_found_by_name),
        cmocka_unit_test(role_rules),
        cmocka_unit_test(task_rules),
        cmocka_unit_test(unknown_apps_and_kernels_that_do_not_fit),
        cmocka_unit_test(spatial_loader_refuses_an_accelerator_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
