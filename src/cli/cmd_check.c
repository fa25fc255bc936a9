/* cmd_check — `corun check FILE`: load and validate a scenario, lesson, suite, kernel profile or
 * application profile without running it. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_scenario.h"
#include "corun/cli.h"
#include "corun/confread.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/lesson.h"
#include "corun/preset.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/suite.h"
#include "corun/util.h"

#define CHECK_KERNEL_GPU "hbm80" /* the default preset, the one `corun kernels show` uses */

/* The name a profile file is known by: its base name without .cfg. Heap. */
static char *name_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t len = strlen(base);
    int stem = (int)(len > 4 && strcmp(base + len - 4, ".cfg") == 0 ? len - 4 : len);
    return xasprintf("%.*s", stem, base);
}

/* A kernel profile file, wherever it is: its settings, its phases, and the rules between them
 * that do not depend on the GPU, then whether one thread block fits an SM of the default
 * preset (a scenario's GPU is checked when a scenario names the kernel). */
static int check_kernel(const char *path, const char *datadir, struct diag *diags)
{
    char *name = name_of(path);
    struct kernel_profile p;
    int rc = preset_kernel_load_path(path, name, &p, diags);
    bool loaded = rc == 0; /* a failed load freed what it had */
    struct gpu_config gpu;
    if (rc == 0 && preset_gpu_load(datadir, CHECK_KERNEL_GPU, &gpu, diags) != 0)
        rc = -1;
    char err[512];
    if (rc == 0 && preset_kernel_check(datadir, path, &gpu, &p, err, sizeof err) != 0) {
        diag_add(diags, "%s (on GPU %s)", err, CHECK_KERNEL_GPU); /* as solo says it */
        rc = -1;
    }
    if (rc == 0) {
        /* Whether scenarios can name it already: it is the data directory's file of its name. */
        char *lib = xasprintf("%s/data/kernels/%s.cfg", datadir, name);
        bool named = cli_same_file(lib, path);
        if (named)
            printf("ok (a kernel profile; fits an SM of %s; scenarios name it \"%s\")\n",
                   CHECK_KERNEL_GPU, name);
        else
            printf("ok (a kernel profile; fits an SM of %s; scenarios can name it \"%s\" once it "
                   "is copied to %s)\n",
                   CHECK_KERNEL_GPU, name, lib);
        free(lib);
    }
    if (loaded)
        kernel_profile_done(&p);
    free(name);
    return rc;
}

#define CHECK_APP_GPU "k40" /* the accelerator scenarios' GPU, as in Prophet */

/* An accelerator application profile (a file with tasks, data/apps/NAME.cfg), wherever it
 * is: its settings and tasks, and whether each kernel's thread block fits an SM of k40 (an
 * accelerator scenario's GPU is checked when it names the application). It was checked as a
 * spatial scenario, every setting unknown. */
static int check_app(const char *path, const char *datadir, struct diag *diags)
{
    char *name = name_of(path);
    struct accel_trace t;
    size_t before = diags->count;
    int rc = accel_trace_load_path(path, name, datadir, &t, diags);
    bool loaded = rc == 0; /* a failed load freed what it had */
    struct gpu_config gpu;
    if (rc == 0 && preset_gpu_load(datadir, CHECK_APP_GPU, &gpu, diags) != 0)
        rc = -1;
    unsigned kernels = 0;
    for (unsigned k = 0; rc == 0 && k < t.ntasks; k++)
        kernels += t.tasks[k].type == ACCEL_KERNEL;
    if (rc == 0)
        accel_trace_check_gpu(path, &t, &gpu, CHECK_APP_GPU, diags);
    if (rc == 0 && diags->count != before)
        rc = -1;
    if (rc == 0) {
        char *lib = xasprintf("%s/data/apps/%s.cfg", datadir, name);
        printf("ok (an application profile of %u task%s, %u kernel%s fitting an SM of %s; "
               "accelerator scenarios %s \"%s\"",
               t.ntasks, t.ntasks == 1 ? "" : "s", kernels, kernels == 1 ? "" : "s", CHECK_APP_GPU,
               cli_same_file(lib, path) ? "name it" : "can name it", name);
        if (!cli_same_file(lib, path))
            printf(" once it is copied to %s", lib);
        printf(")\n");
        free(lib);
    }
    if (loaded)
        accel_trace_done(&t);
    free(name);
    return rc;
}

/* A lesson: its settings and steps, the scenario it runs, and what its steps change. */
static int check_lesson(const char *path, const char *datadir, struct diag *diags)
{
    struct lesson l;
    int rc = lesson_load(path, datadir, &l, diags);
    if (rc == 0) {
        struct scenario sc;
        rc = cli_lesson_scenario(&l, &sc, datadir, diags);
        if (rc == 0) /* each step's changes (names included), as the workbench makes them */
            rc = cli_lesson_check_steps(&l, &sc, diags);
        scenario_done(&sc);
    }
    lesson_done(&l);
    return rc;
}

static int check_run(int argc, char **argv)
{
    if (cli_operands(&cmd_check, argc, argv, 1, 1,
                     "a scenario, lesson, suite, kernel or application file") != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    /* A scenario corun ships, else a lesson (as `corun lesson list` names them), else a suite. */
    static const char *const unders[] = {"scenarios", "scenarios/lessons", "scenarios/suites"};
    char *path = cli_find_scenario_in(argv[1], datadir, unders, CORUN_ARRAY_LEN(unders));
    if (!path) {
        free(datadir);
        return CLI_BAD_INPUT;
    }
    struct diag diags;
    diag_init(&diags);
    int rc;
    bool said_ok = false; /* a kernel profile's ok says what it checked */
    if (lesson_probe(path) == 1) {
        rc = check_lesson(path, datadir, &diags);
    } else if (suite_probe(path) == 1) {
        struct suite su;
        rc = suite_load(path, datadir, &su, &diags);
        suite_done(&su);
    } else if (confread_probe(path, "insts_per_warp") == 1 &&
               confread_probe(path, "kernels") != 1) {
        rc = check_kernel(path, datadir, &diags);
        said_ok = rc == 0; /* with what it checked */
    } else if (confread_probe(path, "tasks") == 1 && confread_probe(path, "mode") != 1) {
        rc = check_app(path, datadir, &diags);
        said_ok = rc == 0; /* with what it checked */
    } else if (accel_scenario_probe(path) == 1) {
        struct accel_scenario sc;
        rc = accel_scenario_load(&sc, path, datadir, &diags);
        if (rc == 0)
            cli_warn_long_span(path, &sc);
        accel_scenario_done(&sc);
    } else {
        struct scenario sc;
        rc = scenario_load(&sc, path, datadir, &diags);
        if (rc == 0)
            rc = session_check_choices(&sc, &diags); /* both names, where a session stops */
        if (rc == 0) {
            /* What `run` builds before its first epoch (the GPU, the predictor, the
             * allocator), so that check accepts exactly what run does. */
            char err[512] = "";
            struct session *s = session_new(&sc, err, sizeof(err));
            if (!s)
                diag_add(&diags, "%s", err);
            session_delete(s);
            rc = s ? 0 : -1;
        }
        scenario_done(&sc);
    }
    if (rc == 0 && !said_ok)
        printf("ok\n");
    else if (rc != 0)
        diag_print(&diags, stderr);
    diag_done(&diags);
    free(path);
    free(datadir);
    return rc == 0 ? CLI_OK : CLI_BAD_INPUT;
}

const struct cli_command cmd_check = {
    .name = "check",
    .args = "SCENARIO | LESSON | SUITE | KERNEL.cfg | APP.cfg",
    .summary =
        "validate a scenario, lesson, suite, kernel or application file: prints ok, or every "
        "mistake with its line",
    .help = "Loads SCENARIO, its GPU preset and its kernels as a run would, and reports each\n"
            "mistake as FILE:LINE: SETTING: what was expected. Exit status 2 when any is found.\n"
            "'corun help scenario' lists every setting with its range and default. A lesson\n"
            "(a file with steps, see 'corun help lesson') is checked with the scenario it runs,\n"
            "and each step's changes are tried as the workbench will make them (a parameter out\n"
            "of range, a kernel removed that is not in the mix by then, and so on).\n"
            "An accelerator scenario (mode = \"accelerator\", see 'corun help accelerator') is\n"
            "checked with its application profiles and kernels, a suite (a file with mixes, see\n"
            "'corun help suite') as `corun sweep` loads it, a kernel profile (a file with\n"
            "insts_per_warp, see 'corun help kernel') wherever it is, with the rules between\n"
            "its settings and whether a thread block fits an SM of hbm80, and an accelerator\n"
            "application profile (a file with tasks, as in data/apps) wherever it is, with\n"
            "whether each kernel's thread block fits an SM of k40. A scenario, lesson or suite\n"
            "corun ships may be named without its directory and .cfg (`corun check default`,\n"
            "`corun check even-split`, `corun check hsm-pairs`).\n",
    .run = check_run,
};
