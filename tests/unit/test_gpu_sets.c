/* Unit tests: `--set gpu.SETTING=VALUE` for reproduce and sweep (gpu_sets.c) — what it takes
 * and refuses, the check against a preset, applying to a scenario, the description. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/gpu_sets.h"
#include "corun/scenario.h"

/* --set: only GPU settings other than gpu.sms, at most GPU_MAX_SETS; checked against a
 * preset; applied to a mix's scenario in order (the later of two on one key replaces the
 * other, as run's --set wins); described for the title and the journal, "" when there are
 * none. */
static void gpu_sets(void **state)
{
    (void)state;
    struct gpu_sets sets = {0};
    char err[512], out[256];
    assert_int_equal(gpu_sets_add(&sets, "epochs=3", err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.SETTING=VALUE"));
    assert_int_equal(gpu_sets_add(&sets, "gpu.sms=40", err, sizeof err), -1);
    assert_non_null(strstr(err, "the SM count is the preset's here (reproduce and rbh-shift take "
                                "--gpu PRESET"));
    assert_int_equal(gpu_sets_add(&sets, "gpu.smsx=40", err, sizeof err), 0); /* not gpu.sms */
    assert_int_equal(gpu_sets_add(&sets, "gpu.=1", err, sizeof err), -1);
    assert_int_equal(gpu_sets_add(&sets, "gpu.order_free=", err, sizeof err), -1);
    assert_int_equal(gpu_sets_add(&sets, "gpu.order_free=true\nepochs = 9;", err, sizeof err), -1);
    assert_non_null(strstr(err, "control character"));
    assert_int_equal(sets.n, 1);
    gpu_sets_describe(&sets, "<", "|", out, sizeof out);
    assert_string_equal(out, "<gpu.smsx=40");

    char *datadir = datadir_locate();
    /* An unknown setting is refused against the preset, naming it. */
    assert_int_equal(gpu_sets_check(&sets, datadir, "hbm80", err, sizeof err), -1);
    assert_non_null(strstr(err, "gpu.smsx"));
    sets = (struct gpu_sets){0};
    gpu_sets_describe(&sets, "<", "|", out, sizeof out);
    assert_string_equal(out, "");
    assert_int_equal(gpu_sets_check(&sets, datadir, "hbm80", err, sizeof err), 0);
    assert_int_equal(gpu_sets_check(NULL, datadir, "hbm80", err, sizeof err), 0);
    assert_int_equal(gpu_sets_add(&sets, "gpu.llc.latency_cycles=240", err, sizeof err), 0);
    assert_int_equal(gpu_sets_add(&sets, "gpu.order_free=true", err, sizeof err), 0);
    assert_int_equal(gpu_sets_add(&sets, "gpu.llc.latency_cycles=250", err, sizeof err), 0);
    assert_int_equal(gpu_sets_check(&sets, datadir, "hbm80", err, sizeof err), 0);
    assert_int_equal(gpu_sets_check(&sets, datadir, "hbm8", err, sizeof err), -1);
    /* A setting given again replaces the one before: described once, as it applies (both
     * were, so a sweep's identical results were made again under another config). */
    gpu_sets_describe(&sets, ", set ", " ", out, sizeof out);
    assert_string_equal(out, ", set gpu.order_free=true gpu.llc.latency_cycles=250");
    assert_int_equal(sets.n, 2);

    struct scenario sc;
    struct diag d;
    diag_init(&d);
    const char *text = "name = \"t\";\ngpu = \"hbm80\";\nepochs = 1;\nepoch_cycles = 1000;\n"
                       "kernels = ( { name = \"bino\"; sms = 80; } );\n";
    int rc = scenario_load_text(&sc, "t", text, datadir, &d);
    if (rc != 0)
        fprintf(stderr, "%s\n", d.count ? d.msgs[0] : "?");
    assert_int_equal(rc, 0);
    assert_false(sc.gpu.order_free);
    assert_int_equal(gpu_sets_apply(&sets, &sc, err, sizeof err), 0);
    assert_true(sc.gpu.order_free);
    assert_int_equal(sc.gpu.llc.latency_cycles, 250);
    struct gpu_sets bad = {{"gpu.llc.latency_cycles=0"}, 1};
    assert_int_equal(gpu_sets_apply(&bad, &sc, err, sizeof err), -1);
    assert_non_null(strstr(err, "latency_cycles"));
    assert_int_equal(gpu_sets_check(&bad, datadir, "hbm80", err, sizeof err), -1);
    scenario_done(&sc);
    diag_done(&d);
    for (unsigned i = 0; i < GPU_MAX_SETS; i++)
        bad.v[i] = "gpu.order_free=true";
    bad.n = GPU_MAX_SETS;
    /* The settings together stay short enough to be described whole. */
    static char longer[GPU_SETS_TEXT_MAX];
    memset(longer, 'x', sizeof longer - 1);
    memcpy(longer, "gpu.llc.latency_cycles=", 23);
    struct gpu_sets few = {{"gpu.order_free=true"}, 1};
    assert_int_equal(gpu_sets_add(&few, longer, err, sizeof err), -1);
    assert_non_null(strstr(err, "longer than"));
    longer[GPU_SETS_TEXT_MAX - 1 - strlen("gpu.order_free=true") - 2] = '\0';
    assert_int_equal(gpu_sets_add(&few, longer, err, sizeof err), 0);
    assert_int_equal(gpu_sets_add(&bad, "gpu.llc.mshrs=8", err, sizeof err), -1);
    assert_non_null(strstr(err, "at most"));
    free(datadir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(gpu_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
