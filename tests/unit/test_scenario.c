/* Unit tests: scenario loading, GPU presets and kernel profiles against the real data files
 * (test_scenario_unassigned: what unassigned_sms does to a session). */
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

#include "assert_close.h"
#include "corun/datadir.h"
#include "corun/kernel.h"
#include "corun/preset.h"
#include "corun/scenario.h"

struct loaded {
    struct scenario sc;
    struct diag d;
    int rc;
};

static void load_text(struct loaded *l, const char *text)
{
    char *datadir = datadir_locate();
    char *path = test_write_temp(text);
    diag_init(&l->d);
    l->rc = scenario_load(&l->sc, path, datadir, &l->d);
    unlink(path);
    free(path);
    free(datadir);
}

static void unload(struct loaded *l)
{
    scenario_done(&l->sc);
    diag_done(&l->d);
}

/* A file is read whole, however long: 300 comment lines (about 17 KB) before the settings. */
static void long_files_are_read_whole(void **state)
{
    (void)state;
    size_t cap = 32768, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    for (int i = 0; i < 300; i++)
        len += (size_t)snprintf(text + len, cap - len,
                                "# line %03d of a long introduction to the scenario below\n", i);
    snprintf(text + len, cap - len,
             "name = \"long\";\ngpu = \"hbm80\";\nepochs = 7;\n"
             "kernels = ( { name = \"stream\"; } );\n");
    assert_true(len > 16384);
    struct loaded l;
    load_text(&l, text);
    free(text);
    assert_int_equal(l.rc, 0);
    assert_string_equal(l.sc.name, "long");
    assert_int_equal(l.sc.epochs, 7);
    unload(&l);
}

static void default_scenario_loads_hbm80(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    char *path = datadir_default_scenario(datadir);
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_load(&sc, path, datadir, &d), 0);
    assert_int_equal(d.count, 0);
    assert_string_equal(sc.gpu_name, "hbm80");
    assert_int_equal(sc.gpu.sms, 80);
    assert_int_equal(sc.gpu.dram.channels, 32);
    assert_int_equal(sc.gpu.dram.t.faw, 20);
    assert_int_equal(sc.gpu.dram.t.refi, 1716);
    assert_int_equal(sc.gpu.llc_slices, 64);
    assert_int_equal(sc.nkernels, 2);
    assert_string_equal(sc.kernels[0].profile.name, "stream");
    assert_int_equal(sc.kernels[0].priority, SCENARIO_HIGH);
    assert_non_null(strstr(sc.text, "kernels"));
    scenario_done(&sc);
    diag_done(&d);
    free(path);
    free(datadir);
}

static void every_preset_loads(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct name_list names;
    preset_gpu_names(datadir, &names);
    assert_int_equal(names.count, 5);
    for (size_t i = 0; i < names.count; i++) {
        struct gpu_config cfg;
        struct diag d;
        diag_init(&d);
        assert_int_equal(preset_gpu_load(datadir, names.names[i], &cfg, &d), 0);
        /* Peak bandwidth from the presets' own numbers: channels x bytes x clock. */
        double peak = cfg.dram.channels * cfg.dram.bus_bytes_per_cycle * cfg.dram.clock_mhz / 1e3;
        if (strcmp(names.names[i], "hbm80") == 0)
            assert_true(peak > 900 && peak < 902);
        if (strcmp(names.names[i], "gddr5_40") == 0)
            assert_true(peak > 483 && peak < 485);
        if (strcmp(names.names[i], "k40") == 0) { /* Prophet's GPU: 15 SMX, 288 GB/s */
            assert_int_equal(cfg.sms, 15);
            assert_true(peak > 287 && peak < 289);
            assert_true(cfg.pcie.exclusive_gbs > cfg.pcie.shared_gbs);
        }
        diag_done(&d);
    }
    name_list_done(&names);
    free(datadir);
}

static void overrides_replace_preset_values(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"o\"; gpu = \"hbm80\"; gpu_overrides = { sms = 40; dram = { "
                  "mapping = \"linear\"; timing = { faw = 30; }; }; };\n"
                  "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    assert_int_equal(l.rc, 0);
    assert_int_equal(l.sc.gpu.sms, 40);
    assert_int_equal(l.sc.gpu.dram.mapping, DRAM_MAP_LINEAR);
    assert_int_equal(l.sc.gpu.dram.t.faw, 30);
    assert_int_equal(l.sc.gpu.dram.t.rcd, 7); /* untouched */
    assert_int_equal(l.sc.epochs, 10);        /* default */
    unload(&l);
}

static void all_errors_are_collected(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"x\";\ngpu = \"hbm08\";\nepochs = 0;\n"
                  "kernels = ( { name = \"strem\"; }, { name = \"compute\"; weight = 2.0; } );\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 4);
    assert_non_null(strstr(l.d.msgs[0], ":3: epochs: expected an integer from 1 to 1000000"));
    assert_non_null(strstr(l.d.msgs[1], ":2: gpu: unknown GPU preset \"hbm08\"; known: "
                                        "gddr5_40, hbm80, k40, smqos24, themis60 (did you "
                                        "mean "
                                        "hbm80?)"));
    assert_non_null(strstr(l.d.msgs[2], ":4: kernels[0].name: unknown kernel \"strem\""));
    assert_non_null(strstr(l.d.msgs[2], "(did you mean stream?)"));
    assert_non_null(strstr(l.d.msgs[3], ":4: kernels[1].weight: expected a number from 0 to 1"));
    assert_null(l.sc.name); /* nothing half-loaded survives */
    unload(&l);
}

/* Issue 21, defect 5: integers beyond 32 bits wrapped silently in libconfig and passed. */
static void large_integers_do_not_wrap(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\nepochs = 4294967298;\n"
                  "epoch_cycles = 4294987296; # 42949672960 in a comment\n"
                  "description = \"4294967298 in a string\";\n"
                  "gpu_overrides = { sms = 4294967312; l1d = { size_bytes = -4294967296; }; };\n"
                  "kernels = ( { name = \"stream\"; } );\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 4);
    assert_non_null(strstr(l.d.msgs[0], ":3: epochs: expected an integer from 1 to 1000000 "
                                        "(epochs), got 4294967298"));
    assert_non_null(strstr(l.d.msgs[1], ":4: epoch_cycles: expected an integer from 1000 to "
                                        "100000000 (core cycles), got 4294987296"));
    assert_non_null(strstr(l.d.msgs[2], ":6: gpu_overrides.sms: expected an integer from 1 to "));
    assert_non_null(strstr(l.d.msgs[2], "got 4294967312"));
    assert_non_null(strstr(l.d.msgs[3], ":6: gpu_overrides.l1d.size_bytes: expected"));
    assert_non_null(strstr(l.d.msgs[3], "got -4294967296"));
    unload(&l);

    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\n\nepochs = 99999999999999999999;\n"
                  "kernels = ( { name = \"stream\"; } );\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 1);
    assert_non_null(strstr(l.d.msgs[0], ":4: the integer 99999999999999999999 is too large"));
    unload(&l);

    /* Names with digits, hexadecimal, 64-bit literals and reals are left as they were. */
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\nepochs = 0x10;\nseed = 12345678901L;\n"
                  "gpu_overrides = { l1d = { latency_cycles = 20; }; };\n"
                  "kernels = ( { name = \"stream\"; qos_target = 5e-1; } );\n");
    assert_int_equal(l.rc, 0);
    assert_int_equal(l.sc.epochs, 16);
    assert_true(l.sc.seed == 12345678901ull);
    unload(&l);

    /* A string's digits (around an escaped quote) and a // comment's are text, not numbers; a
     * hexadecimal literal beyond 32 bits is read whole (the seed 2^32 + 5, not 5). */
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\n"
                  "description = \"4294967298 \\\"quoted\\\" 4294967299\";\n"
                  "seed = 0x100000005; // 42949672960 in a comment\n"
                  "kernels = ( { name = \"stream\"; } );\n");
    if (l.rc != 0)
        fail_msg("%s", l.d.count ? l.d.msgs[0] : "?");
    assert_string_equal(l.sc.description, "4294967298 \"quoted\" 4294967299");
    assert_true(l.sc.seed == 0x100000005ull);
    unload(&l);
    /* A quote in a comment of any kind opens no string: the seed after it is still widened
     * (libconfig alone would wrap 12345678901 to 32 bits). */
    const char *comments[] = {"// the \"odd one\n", "# the \"odd one\n", "/* the \"odd one */"};
    for (size_t i = 0; i < 3; i++) {
        char text[256];
        snprintf(text, sizeof text,
                 "name = \"x\";\ngpu = \"hbm80\";\n%sseed = 12345678901;\n"
                 "kernels = ( { name = \"stream\"; } );\n",
                 comments[i]);
        load_text(&l, text);
        if (l.rc != 0)
            fail_msg("%s", l.d.count ? l.d.msgs[0] : "?");
        assert_true(l.sc.seed == 12345678901ull);
        unload(&l);
    }

    struct scenario sc;
    struct diag d;
    diag_init(&d);
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\nkernels = ( { name = \"stream\"; } );\n");
    assert_int_equal(l.rc, 0);
    sc = l.sc;
    assert_int_equal(scenario_set(&sc, "gpu.sms=4294967297", &d), -1);
    assert_non_null(strstr(d.msgs[0], "gpu.sms: expected an integer from 1 to"));
    assert_non_null(strstr(d.msgs[0], "got 4294967297"));
    /* A bad gpu value is one mistake: it was also tried as a scenario setting ("sms: unknown
     * scenario setting"), and gpu.epochs=5 would have set the run's epochs. */
    assert_int_equal(d.count, 1);
    assert_int_equal(scenario_set(&sc, "gpu.epochs=5", &d), -1);
    assert_int_equal(d.count, 2);
    assert_non_null(strstr(d.msgs[1], "gpu.epochs: unknown"));
    assert_int_equal(sc.epochs, l.sc.epochs);
    assert_int_equal(scenario_set(&sc, "epochs=99999999999", &d), -1);
    assert_non_null(strstr(d.msgs[d.count - 1], "got 99999999999"));
    /* mode is the file's (mode=bogus was taken and recorded, and the run stayed spatial); a
     * kernel's weight is named with the form that sets them. */
    assert_int_equal(scenario_set(&sc, "mode=bogus", &d), -1);
    assert_non_null(strstr(d.msgs[d.count - 1], "--set: mode: cannot be changed with --set"));
    assert_int_equal(scenario_set(&sc, "kernels[0].weight=0.5", &d), -1);
    assert_non_null(strstr(d.msgs[d.count - 1], "expected weights=W1,W2,..."));
    /* A kernel's index past 32 bits is out of range, not kernel 0 (sscanf's %u wrapped it:
     * kernels[4294967296].priority=high made kernel 0 high priority); digits only. */
    assert_int_equal(scenario_set(&sc, "kernels[4294967296].priority=high", &d), -1);
    assert_string_equal(d.msgs[d.count - 1], "--set: kernels[4294967296].priority: expected a "
                                             "kernel index from 0 to 0");
    assert_int_equal(sc.kernels[0].priority, SCENARIO_LOW);
    assert_int_equal(scenario_set(&sc, "kernels[+0].priority=high", &d), -1);
    assert_non_null(strstr(d.msgs[d.count - 1], "expected kernels[K].priority or"));
    assert_int_equal(sc.kernels[0].priority, SCENARIO_LOW);
    assert_int_equal(scenario_set(&sc, "kernels[00].priority=high", &d), 0);
    assert_int_equal(sc.kernels[0].priority, SCENARIO_HIGH);
    /* An empty predictor or allocator is no name (it was taken for the default, unsaid). */
    assert_int_equal(scenario_set(&sc, "allocator=\"\"", &d), -1);
    assert_non_null(strstr(d.msgs[d.count - 1], "--set: allocator: expected a name"));
    l.sc = sc;
    unload(&l);
    diag_done(&d);
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\npredictor = \"\";\n"
                  "kernels = ( { name = \"stream\"; } );\n");
    assert_int_equal(l.rc, -1);
    assert_non_null(strstr(l.d.msgs[0], ":3: predictor: expected a name"));
    unload(&l);
}

/* Issue 21, defect 6: --set gpu.sms below the kernel count ran a kernel on no SM. */
static void set_sms_keeps_one_per_kernel(void **state)
{
    (void)state;
    struct loaded l;
    /* One SM per kernel is enough, in a file as by --set. */
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\ngpu_overrides = { sms = 2; };\n"
                  "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    assert_int_equal(l.rc, 0);
    unload(&l);
    /* Fewer: refused at the kernels' line (it had none). */
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\ngpu_overrides = { sms = 1; };\n"
                  "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    assert_int_equal(l.rc, -1);
    assert_non_null(strstr(l.d.msgs[0], ":4: kernels: expected at most 1 kernels"));
    unload(&l);
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\n"
                  "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    assert_int_equal(l.rc, 0);
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_set(&l.sc, "gpu.sms=2", &d), 0);
    assert_int_equal(scenario_set(&l.sc, "gpu.sms=1", &d), -1);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.msgs[0], "--set: gpu.sms: the GPU would have 1 SM for 2 kernels "
                                   "(expected at least one SM per kernel)");
    diag_done(&d);
    unload(&l);

    load_text(
        &l, "name = \"x\";\ngpu = \"hbm80\";\n"
            "kernels = ( { name = \"stream\"; sms = 30; }, { name = \"compute\"; sms = 30; } );\n");
    assert_int_equal(l.rc, 0);
    diag_init(&d);
    assert_int_equal(scenario_set(&l.sc, "gpu.sms=40", &d), -1);
    assert_non_null(strstr(d.msgs[0], "add up to 60"));
    diag_done(&d);
    unload(&l);

    /* A thread block that no longer fits an SM is the --set's mistake, named as such (the
     * run blamed the scenario file, with no line). */
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\n"
                  "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    assert_int_equal(l.rc, 0);
    diag_init(&d);
    assert_int_equal(scenario_set(&l.sc, "gpu.regs_per_sm=1024", &d), -1);
    assert_non_null(strstr(d.msgs[0], "--set: gpu.regs_per_sm: kernels[0] would not fit: "));
    assert_non_null(strstr(d.msgs[0], "no thread block fits on an SM"));
    diag_done(&d);
    unload(&l);
}

/* One --set is one setting: a value carrying a second assignment set it too, past every check
 * of the first, and the gpu no --set may change was recorded as the run's (2026-12-06). */
static void set_takes_one_setting(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\nepochs = 3;\n"
                  "kernels = ( { name = \"stream\"; } );\n");
    assert_int_equal(l.rc, 0);
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_set(&l.sc, "epochs=1; gpu=\"k40\"", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "epochs=2;epoch_cycles=2000", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "kernels[0].sms=1; name=\"y\"", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "gpu.llc.mshrs=8; gpu = { sms = 2; }", &d), -1);
    assert_int_equal(d.count, 4);
    assert_string_equal(d.msgs[0], "--set: epochs: cannot read the value \"1; gpu=\"k40\"\" "
                                   "(expected one value for it: one setting per --set)");
    assert_string_equal(l.sc.gpu_name, "hbm80");
    assert_string_equal(l.sc.name, "x");
    assert_int_equal(l.sc.epochs, 3);
    assert_int_equal(l.sc.gpu.sms, 80);
    /* One setting, however deep, still goes through; a string may hold a ';'. */
    assert_int_equal(scenario_set(&l.sc, "gpu.llc.mshrs=8", &d), 0);
    assert_int_equal(scenario_set(&l.sc, "name=a;b", &d), 0);
    assert_string_equal(l.sc.name, "a;b");
    assert_int_equal(d.count, 4);
    diag_done(&d);
    unload(&l);
}

/* A --set is one line of no file: its messages say "--set:", not "--set:1:", and name what
 * the value was. The ranges are the core's, as `corun help gpu` gives them: an L1's 0 MSHRs
 * was taken as 1 and the LLC's refused later, and a request other than the 128-byte line was
 * refused past the help's "from 32 to 1024" (2026-12-06). */
static void set_messages_name_no_line_and_the_value(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\nkernels = ( { name = \"stream\"; } );\n");
    assert_int_equal(l.rc, 0);
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_set(&l.sc, "gpu.order_free=maybe", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "gpu.order_free=1", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "epochs=true", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "gpu.dram.timing.fawx=3", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "kernels[0].qos_target=yes", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "gpu.l1d.mshrs=0", &d), -1);
    assert_int_equal(scenario_set(&l.sc, "gpu.dram.request_bytes=64", &d), -1);
    const char *want[] = {
        "--set: gpu.order_free: expected true or false, got a string \"maybe\"",
        "--set: gpu.order_free: expected true or false, got an integer 1",
        "--set: epochs: expected an integer from 1 to 1000000 (epochs), got true",
        ("--set: gpu.dram.timing.fawx: unknown DRAM timing setting (did you mean "
         "gpu.dram.timing.faw?)"),
        "--set: kernels[0].qos_target: expected a number from 0.01 to 1, got a string \"yes\"",
        "--set: gpu.l1d.mshrs: expected an integer from 1 to 4096, got 0",
        "--set: gpu.dram.request_bytes: expected 128, the only value the core models (bytes), "
        "got 64",
    };
    assert_int_equal(d.count, 7);
    for (size_t i = 0; i < 7; i++)
        assert_string_equal(d.msgs[i], want[i]);
    diag_done(&d);
    unload(&l);
}

/* A suite, a lesson or an accelerator scenario without its mode, given as a scenario: one
 * message saying what the file is and what runs it. */
static void other_kinds_of_file_are_named(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\ntags = [\"a\"];\n"
                  "mixes = ( { tag = \"a\"; kernels = [\"stream\", \"bino\"]; } );\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 1);
    assert_non_null(strstr(l.d.msgs[0], ": a suite (it has mixes and no kernels), not a "
                                        "scenario: `corun sweep "));
    unload(&l);
    load_text(&l, "title = \"t\";\nscenario = \"default\";\nsteps = ( );\n");
    assert_int_equal(l.d.count, 1);
    assert_non_null(strstr(l.d.msgs[0], ": a lesson (it has steps and no kernels)"));
    unload(&l);
    load_text(&l, "name = \"x\";\napplications = ( );\n");
    assert_int_equal(l.d.count, 1);
    assert_non_null(strstr(l.d.msgs[0], ": applications without mode = \"accelerator\": an "
                                        "accelerator scenario says so, and then `corun run "));
    unload(&l);
}

/* Issue 21, defect 10: a data directory without presets sorted a NULL list (UBSan) and said
 * "known: " with nothing after it. */
static void empty_datadir(void **state)
{
    (void)state;
    char dir[] = "/tmp/corun-test-empty-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct name_list names;
    preset_gpu_names(dir, &names);
    assert_int_equal(names.count, 0);
    name_list_done(&names);
    char *path = test_write_temp("name = \"x\";\ngpu = \"hbm80\";\nkernels = ( { name = "
                                 "\"stream\"; } );\n");
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_load(&sc, path, dir, &d), -1);
    assert_int_equal(d.count, 1);
    assert_non_null(strstr(d.msgs[0], ":2: gpu: unknown GPU preset \"hbm80\"; none is known "
                                      "(expected data/gpus/*.cfg under the data directory"));
    scenario_done(&sc);
    diag_done(&d);
    unlink(path);
    free(path);
    rmdir(dir);
}

/* --set weights=W1,W2 gives each kernel its weight; a list that does not sum to 1 changes
 * nothing. The preset, the mix and the overrides cannot be --set. A kernel joining the mix
 * needs a plain name. */
static void set_weights_and_what_cannot_be_set(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\n"
                  "kernels = ( { name = \"stream\"; }, { name = \"compute\"; } );\n");
    assert_int_equal(l.rc, 0);
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_set(&l.sc, "weights=0.25,0.75", &d), 0);
    assert_close(l.sc.kernels[0].weight, 0.25, 1e-12);
    assert_close(l.sc.kernels[1].weight, 0.75, 1e-12);
    assert_int_equal(scenario_set(&l.sc, "weights=0.5,0.6", &d), -1);
    assert_close(l.sc.kernels[0].weight, 0.25, 1e-12);
    assert_close(l.sc.kernels[1].weight, 0.75, 1e-12);
    assert_int_equal(d.count, 1);
    /* Whole numbers too: each comma skipped, and only it. */
    assert_int_equal(scenario_set(&l.sc, "weights=0,0", &d), 0);
    assert_close(l.sc.kernels[0].weight, 0, 1e-12);
    assert_close(l.sc.kernels[1].weight, 0, 1e-12);
    assert_int_equal(d.count, 1);
    /* A 0 beside a positive weight is refused, as in a file (its weighted unfairness is 1
     * whatever the split). */
    assert_int_equal(scenario_set(&l.sc, "weights=1,0", &d), -1);
    assert_int_equal(d.count, 2);
    assert_non_null(strstr(d.msgs[1], "all positive and summing to 1"));
    assert_close(l.sc.kernels[0].weight, 0, 1e-12);
    /* Decimal numbers, blanks around them taken; hex, an empty item or a word refused. */
    assert_int_equal(scenario_set(&l.sc, "weights= 0.5 , 5e-1", &d), 0);
    assert_close(l.sc.kernels[1].weight, 0.5, 1e-12);
    const char *bad[] = {
        "weights=0x1p-1,0.5", "weights=0.5,0.5,", "weights=0.5,,0.5", "weights=inf,0",
        "weights=.5e,0.5",    "weights=",         "weights=0.5 0.5"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        if (scenario_set(&l.sc, bad[i], &d) != -1)
            fail_msg("%s was taken", bad[i]);
        assert_int_equal(d.count, 3 + i);
        assert_close(l.sc.kernels[0].weight, 0.5, 1e-12);
    }
    diag_done(&d);
    diag_init(&d);
    const char *fixed[] = {"gpu=k40", "gpu_overrides=1", "kernels=2"};
    for (size_t i = 0; i < 3; i++) {
        assert_int_equal(scenario_set(&l.sc, fixed[i], &d), -1);
        assert_int_equal(d.count, 1 + i);
        assert_non_null(strstr(d.msgs[i], "cannot be changed with --set"));
    }
    char *datadir = datadir_locate();
    assert_int_equal(scenario_add_kernel(&l.sc, "bino x", datadir, &d), -1);
    assert_int_equal(scenario_add_kernel(&l.sc, "", datadir, &d), -1);
    assert_int_equal(l.sc.nkernels, 2);
    assert_int_equal(d.count, 5);
    assert_string_equal(
        d.msgs[3], "kernel \"bino x\": expected a kernel name (letters, digits, '_', '.', '-')");
    assert_int_equal(scenario_add_kernel(&l.sc, "bino", datadir, &d), 2); /* its index */
    assert_int_equal(l.sc.nkernels, 3);
    free(datadir);
    diag_done(&d);
    unload(&l);
}

static const struct conf_setting *setting_named(const struct conf_table *t, const char *name)
{
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->settings[i].name, name) == 0)
            return &t->settings[i];
    fail_msg("%s has no setting %s", t->what, name);
    return NULL;
}

/* What the preset files may say: a profile's fractions are fractions, and a DRAM timing is
 * at least one memory cycle, but for tWL (write data may follow at once) and tREFI (0: no
 * refresh). A file outside these is refused with the range in the message. */
static void preset_ranges_mean_what_they_say(void **state)
{
    (void)state;
    unsigned fractions = 0;
    for (size_t i = 0; i < preset_kernel_table.count; i++) {
        const struct conf_setting *st = &preset_kernel_table.settings[i];
        size_t len = strlen(st->name);
        if (len < 9 || strcmp(st->name + len - 9, "_fraction") != 0)
            continue;
        assert_int_equal(st->type, CONF_FLOAT);
        assert_close(st->min, 0, 0);
        assert_close(st->max, 1, 0);
        fractions++;
    }
    assert_true(fractions >= 8);
    const struct conf_table *timing =
        setting_named(setting_named(&preset_gpu_table, "dram")->sub, "timing")->sub;
    assert_true(timing->count >= 16);
    for (size_t i = 0; i < timing->count; i++) {
        const struct conf_setting *st = &timing->settings[i];
        bool may_be_zero = strcmp(st->name, "wl") == 0 || strcmp(st->name, "refi") == 0;
        assert_close(st->min, may_be_zero ? 0 : 1, 0);
    }
}

/* A built-in profile is one a file could hold: every number within the range the preset
 * table allows a kernel file, so that what `corun kernels show` prints of a built-in loads
 * as a file (its shared_conflict_ways of 0, "none" to the core, was refused there). */
static void builtin_profiles_are_in_range(void **state)
{
    (void)state;
    assert_true(kernel_builtin_count() >= 4);
    for (size_t b = 0; b < kernel_builtin_count(); b++) {
        const struct kernel_profile *p = kernel_builtin_at(b);
        for (size_t i = 0; i < preset_kernel_table.count; i++) {
            const struct conf_setting *st = &preset_kernel_table.settings[i];
            const char *at = (const char *)p + st->offset;
            double v;
            if (st->type == CONF_FLOAT)
                memcpy(&v, at, sizeof v);
            else if (st->type == CONF_UINT) {
                unsigned u;
                memcpy(&u, at, sizeof u);
                v = u;
            } else if (st->type == CONF_U64) {
                uint64_t u;
                memcpy(&u, at, sizeof u);
                v = (double)u;
            } else {
                continue;
            }
            if (v < st->min || v > st->max)
                fail_msg("built-in %s: %s = %g, outside %g to %g", p->name, st->name, v, st->min,
                         st->max);
        }
    }
}

static void weights_must_sum_to_one(void **state)
{
    (void)state;
    struct loaded l;
    load_text(&l, "name = \"w\"; gpu = \"hbm80\";\nkernels = ( { name = \"stream\"; weight = "
                  "0.2; }, { name = \"compute\"; weight = 0.8; } );\n");
    assert_int_equal(l.rc, 0);
    unload(&l);
    load_text(&l, "name = \"w\"; gpu = \"hbm80\";\nkernels = ( { name = \"stream\"; weight = "
                  "0.2; }, { name = \"compute\"; weight = 0.7; } );\n");
    assert_int_equal(l.rc, -1);
    assert_non_null(strstr(l.d.msgs[0], "kernels: expected weights that are all 0"));
    unload(&l);
}

static void missing_file_is_named(void **state)
{
    (void)state;
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_load(&sc, "/nonexistent/x.cfg", ".", &d), -1);
    assert_string_equal(d.msgs[0], "/nonexistent/x.cfg: cannot open: No such file or directory "
                                   "(expected a libconfig file)");
    scenario_done(&sc);
    diag_done(&d);
    /* An empty name says so (it printed ": cannot open: ..."). */
    diag_init(&d);
    assert_int_equal(scenario_load(&sc, "", ".", &d), -1);
    assert_string_equal(d.msgs[0], "an empty file name (expected a libconfig file)");
    scenario_done(&sc);
    diag_done(&d);
}

static void text_loads_like_a_file(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    assert_int_equal(scenario_load_text(&sc, "run.h5:scenario",
                                        "name = \"t\"; gpu = \"smqos24\"; epochs = 3;\n"
                                        "kernels = ( { name = \"random\"; } );\n",
                                        datadir, &d),
                     0);
    assert_int_equal(sc.gpu.sms, 24);
    assert_int_equal(sc.epochs, 3);
    assert_string_equal(sc.path, "run.h5:scenario");
    scenario_done(&sc);
    assert_int_equal(
        scenario_load_text(&sc, "run.h5:scenario", "name = \"t\";\nepochs = ;\n", datadir, &d), -1);
    assert_string_equal(d.msgs[0], "run.h5:scenario:2: libconfig syntax: syntax error (expected "
                                   "settings of the form  name = value;)");
    scenario_done(&sc);
    /* A name set twice in one group is named (libconfig says only "duplicate setting name"):
     * the same name in sibling groups, a string or a comment is no duplicate. */
    diag_done(&d);
    diag_init(&d);
    assert_int_equal(scenario_load_text(&sc, "run.h5:scenario",
                                        "name = \"t\"; gpu = \"hbm80\";\n"
                                        "kernels = ( { name = \"x = 1;\"; sms = 1; },\n"
                                        "  { name = \"random\"; # sms = 2;\n"
                                        "    sms = 3;\n"
                                        "    sms = 4; } );\n",
                                        datadir, &d),
                     -1);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.msgs[0], "run.h5:scenario:5: sms: set twice in the same group "
                                   "(expected each setting once in a group)");
    scenario_done(&sc);
    diag_done(&d);
    free(datadir);
}

static void builtin_kernels_are_known(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct name_list names;
    preset_kernel_names(datadir, &names);
    assert_true(name_list_has(&names, "stream"));
    assert_true(name_list_has(&names, "compute"));
    assert_false(name_list_has(&names, "strem"));
    struct kernel_profile p;
    struct diag d;
    diag_init(&d);
    assert_int_equal(preset_kernel_load(datadir, "random", &p, &d), 0);
    assert_string_equal(p.name, "random");
    assert_true(p.mem_fraction > 0);
    kernel_profile_done(&p);
    assert_int_equal(preset_kernel_load(datadir, "nope", &p, &d), -1);
    assert_int_equal(d.count, 1);
    diag_done(&d);
    name_list_done(&names);
    free(datadir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_scenario_loads_hbm80),
        cmocka_unit_test(long_files_are_read_whole),
        cmocka_unit_test(every_preset_loads),
        cmocka_unit_test(overrides_replace_preset_values),
        cmocka_unit_test(all_errors_are_collected),
        cmocka_unit_test(weights_must_sum_to_one),
        cmocka_unit_test(set_weights_and_what_cannot_be_set),
        cmocka_unit_test(preset_ranges_mean_what_they_say),
        cmocka_unit_test(builtin_profiles_are_in_range),
        cmocka_unit_test(large_integers_do_not_wrap),
        cmocka_unit_test(empty_datadir),
        cmocka_unit_test(set_sms_keeps_one_per_kernel),
        cmocka_unit_test(set_takes_one_setting),
        cmocka_unit_test(set_messages_name_no_line_and_the_value),
        cmocka_unit_test(other_kinds_of_file_are_named),
        cmocka_unit_test(missing_file_is_named),
        cmocka_unit_test(text_loads_like_a_file),
        cmocka_unit_test(builtin_kernels_are_known),
    };
    return cmocka_run_group_tests_name("scenario", tests, NULL, NULL);
}
