/* Unit tests: a scenario's unassigned_sms setting, and what it does to a session's partition
 * and energy. */
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
#include "corun/scenario.h"
#include "corun/session.h"

/* Loads text as a scenario file u.cfg; returns scenario_load_text's code. */
static int load(const char *text, struct scenario *sc, struct diag *d)
{
    char *datadir = datadir_locate();
    diag_init(d);
    int rc = scenario_load_text(sc, "u.cfg", text, datadir, d);
    free(datadir);
    return rc;
}

/* unassigned_sms: idle by default, "gated" read, anything else refused with the choices. */
static void unassigned_sms_setting(void **state)
{
    (void)state;
    struct scenario sc;
    struct diag d;
    assert_int_equal(
        load("name = \"u\"; gpu = \"smqos24\";\nkernels = ( { name = \"compute\"; } );\n", &sc, &d),
        0);
    assert_int_equal(sc.unassigned_sms, SCENARIO_UNASSIGNED_IDLE);
    scenario_done(&sc);
    diag_done(&d);
    assert_int_equal(load("name = \"u\"; gpu = \"smqos24\"; unassigned_sms = \"gated\";\n"
                          "kernels = ( { name = \"compute\"; sms = 4; } );\n",
                          &sc, &d),
                     0);
    assert_int_equal(sc.unassigned_sms, SCENARIO_UNASSIGNED_GATED);
    scenario_done(&sc);
    diag_done(&d);
    assert_int_equal(load("name = \"u\"; gpu = \"smqos24\";\nunassigned_sms = \"off\";\n"
                          "kernels = ( { name = \"compute\"; } );\n",
                          &sc, &d),
                     -1);
    assert_non_null(strstr(d.msgs[0], "u.cfg:2: unassigned_sms: "));
    assert_non_null(strstr(d.msgs[0], "idle, gated"));
    scenario_done(&sc);
    diag_done(&d);
}

/* One epoch of 20 K cycles of compute and stream on 4 + 4 of smqos24's 24 SMs, the other 16
 * idle or gated (session.c's initial_partition). */
static void run_split(const char *unassigned, struct gpu_system_counters *sys,
                      uint64_t *instructions)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    fprintf(fp,
            "name = \"split\"; gpu = \"smqos24\"; epochs = 1; epoch_cycles = 20000;\n"
            "unassigned_sms = \"%s\";\n"
            "kernels = ( { name = \"compute\"; sms = 4; }, { name = \"stream\"; sms = 4; } );\n",
            unassigned);
    fclose(fp);
    char *datadir = datadir_locate();
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_load_text(&sc, "split.cfg", text, datadir, &d), 0);
    char err[256];
    struct session *s = session_new(&sc, err, sizeof err);
    assert_non_null(s);
    int owner[24];
    session_partition(s, owner);
    int rest = strcmp(unassigned, "gated") == 0 ? GPU_SM_GATED : GPU_SM_IDLE;
    for (unsigned i = 0; i < 24; i++)
        assert_int_equal(owner[i], i < 4 ? 0 : i < 8 ? 1 : rest);
    assert_int_equal(session_step_epoch(s, NULL, NULL), 0);
    const struct session_epoch *e = session_epoch_at(s, 0);
    *sys = e->sys;
    instructions[0] = e->k[0].c.instructions;
    instructions[1] = e->k[1].c.instructions;
    session_delete(s);
    scenario_done(&sc);
    diag_done(&d);
    free(datadir);
    free(text);
}

/* Gated left-over SMs cost no static power: the same split with them gated runs the same
 * instructions on less energy, and the GPU counts them as gated, not idle. */
static void gated_split_saves_energy(void **state)
{
    (void)state;
    struct gpu_system_counters idle, gated;
    uint64_t idle_insts[2], gated_insts[2];
    run_split("idle", &idle, idle_insts);
    run_split("gated", &gated, gated_insts);
    assert_int_equal(idle.gated_sm_cycles, 0);
    assert_true(idle.idle_sm_cycles >= 16 * 20000);
    assert_int_equal(gated.gated_sm_cycles, 16 * 20000);
    assert_true(gated.idle_sm_cycles < idle.idle_sm_cycles);
    assert_true(gated.energy_j < idle.energy_j);
    assert_true(idle_insts[0] > 0 && idle_insts[1] > 0);
    assert_int_equal(gated_insts[0], idle_insts[0]);
    assert_int_equal(gated_insts[1], idle_insts[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(unassigned_sms_setting),
        cmocka_unit_test(gated_split_saves_energy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
