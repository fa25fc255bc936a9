/* cmd_lesson — `corun lesson list` and `corun lesson NAME`: the classroom lessons under
 * scenarios/lessons/, listed one line each or opened in the workbench with the lesson panel. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/lesson.h"
#include "corun/scenario.h"
#include "corun/session.h"
#include "corun/suggest.h"
#include "corun/tui.h"
#include "corun/util.h"

/* The kernels of mix[0..n) as "a, b, c" in buf. */
static void mix_text(const char *const *mix, unsigned n, char *buf, size_t len)
{
    buf[0] = '\0';
    for (unsigned k = 0, at = 0; k < n && at < len; k++)
        at += (unsigned)snprintf(buf + at, len - at, "%s%s", k ? ", " : "", mix[k]);
}

/* A step's "KEY=VALUE" tried on s, whose scenario has its first `have` kernels of the `life`
 * the workbench's run has had by this step: one an earlier step added (in the workbench's
 * scenario by now, its epochs ran) is tried on kernel 0's setting. */
static int try_set(struct session *s, unsigned have, unsigned life, const char *assignment,
                   char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '='); /* the loader made sure there is one */
    char key[64], field[40];
    unsigned k;
    snprintf(key, sizeof key, "%.*s", (int)(eq - assignment), assignment);
    bool per_kernel = scenario_kernel_key(key, &k, field, sizeof field) == 0;
    if (per_kernel && k >= life) {
        snprintf(err, errlen,
                 "%s: expected a kernel index from 0 to %u (the kernels of the run by "
                 "this step)",
                 key, life - 1);
        return -1;
    }
    if (!per_kernel || k < have)
        return session_set_param(s, key, eq + 1, err, errlen);
    char zero[64], why[400];
    snprintf(zero, sizeof zero, "kernels[0].%s", field);
    if (session_set_param(s, zero, eq + 1, why, sizeof why) == 0)
        return 0;
    size_t lead = strlen(zero); /* the message names the kernel the lesson named */
    snprintf(err, errlen, "%s%s", key, strncmp(why, zero, lead) == 0 ? why + lead : why);
    return -1;
}

int cli_lesson_check_steps(const struct lesson *l, const struct scenario *sc, struct diag *d)
{
    char err[512];
    if (session_check_choices(sc, d) != 0)
        return -1;
    struct session *s = session_new(sc, err, sizeof err);
    if (!s) {
        diag_add(d, "%s: %s", sc->path, err);
        return -1;
    }
    size_t before = d->count;
    const char *mix[GPU_MAX_KERNELS]; /* the live kernels' names, as the workbench finds them */
    unsigned n = 0, added = 0;
    for (unsigned k = 0; k < sc->nkernels && n < GPU_MAX_KERNELS; k++)
        mix[n++] = sc->kernels[k].name;
    for (size_t i = 0; i < l->nsteps; i++) {
        const struct lesson_step *st = &l->steps[i];
        /* In the order a step opens (src/tui/tui_lesson.c): predictor, allocator, parameters,
         * the kernel added, the kernel removed. */
        if (*st->predictor && session_set_predictor(s, st->predictor, err, sizeof err) != 0)
            diag_add(d, "%s:%d: steps[%zu].predictor: %s", l->path, st->line, i, err);
        if (*st->allocator && session_set_allocator(s, st->allocator, err, sizeof err) != 0)
            diag_add(d, "%s:%d: steps[%zu].allocator: %s", l->path, st->line, i, err);
        for (unsigned j = 0; j < st->nset; j++)
            if (try_set(s, sc->nkernels, sc->nkernels + added, st->set[j], err, sizeof err) != 0)
                diag_add(d, "%s:%d: steps[%zu].set[%u]: %s", l->path, st->line, i, j, err);
        unsigned before_add = n; /* a step's add and remove apply together, at the next epoch */
        bool add_refused = false;
        if (*st->add) {
            if ((add_refused = session_add_kernel(s, st->add, err, sizeof err) < 0))
                diag_add(d, "%s:%d: steps[%zu].add: %s", l->path, st->line, i, err);
            else if (n < GPU_MAX_KERNELS) {
                mix[n++] = st->add;
                added++;
            }
        }
        if (*st->remove) {
            unsigned k = 0;
            while (k < before_add && strcmp(mix[k], st->remove) != 0)
                k++;
            if (k == before_add && *st->add && strcmp(st->add, st->remove) == 0 && add_refused)
                ; /* the add's message says it all (a second one said it was added) */
            else if (k == before_add && *st->add && strcmp(st->add, st->remove) == 0)
                diag_add(d,
                         "%s:%d: steps[%zu].remove: %s is the kernel this step adds, and a "
                         "step's add and remove apply together at the next epoch, so it cannot "
                         "remove it (remove it in a later step)",
                         l->path, st->line, i, st->remove);
            else if (k == before_add) {
                char names[256];
                mix_text(mix, before_add, names, sizeof names);
                diag_add(d, "%s:%d: steps[%zu].remove: %s is not in the mix at this step (%s)",
                         l->path, st->line, i, st->remove, names);
            } else if (n == 1)
                diag_add(d,
                         "%s:%d: steps[%zu].remove: %s is the last kernel of the mix: add "
                         "another first",
                         l->path, st->line, i, st->remove);
            else {
                memmove(&mix[k], &mix[k + 1], (n - k - 1) * sizeof mix[0]);
                n--;
            }
        }
    }
    session_delete(s);
    return d->count > before ? -1 : 0;
}

int cli_lesson_scenario(const struct lesson *l, struct scenario *sc, const char *datadir,
                        struct diag *d)
{
    if (scenario_load(sc, l->scenario_path, datadir, d) == 0)
        return 0;
    /* Its messages name the scenario file alone (an accelerator one's says that "this command
     * needs a spatial one"): the lesson and its line, for the teacher checking the lesson. */
    diag_add(d,
             "%s:%d: scenario: \"%s\" is refused (above): expected a spatial scenario that "
             "`corun check` accepts",
             l->path, l->scenario_line, l->scenario);
    return -1;
}

static int list(const char *datadir)
{
    size_t n;
    char **names = lesson_names(datadir, &n);
    int rc = CLI_OK;
    for (size_t i = 0; i < n; i++) {
        char *path = lesson_path(datadir, names[i]);
        struct lesson l;
        struct diag d;
        diag_init(&d);
        if (lesson_load(path, datadir, &l, &d) == 0) {
            char lead[64], *text = xasprintf("%s: %s", l.title, l.summary);
            snprintf(lead, sizeof lead, "%-16s ", names[i]);
            cli_print_row(lead, text);
            free(text);
        } else {
            diag_print(&d, stderr);
            rc = CLI_BAD_INPUT;
        }
        lesson_done(&l);
        diag_done(&d);
        free(path);
        free(names[i]);
    }
    free(names);
    if (n == 0) {
        fprintf(stderr, "corun: no lessons in %s/scenarios/lessons\n", datadir);
        rc = CLI_BAD_INPUT;
    }
    return rc;
}

static int open_lesson(const char *datadir, const char *name, const struct cli_workbench_args *wa)
{
    /* A name, or a lesson file of one's own (a path, or a name ending in .cfg). */
    bool is_file = strchr(name, '/') || util_ends_with(name, ".cfg");
    char *path = is_file ? xstrdup(name) : lesson_path(datadir, name);
    if (!path) {
        fprintf(stderr,
                "corun: lesson: \"%s\" is not a lesson name; 'corun lesson list' lists "
                "them\n",
                name);
        return CLI_BAD_INPUT;
    }
    if (is_file && access(path, F_OK) != 0 && !strchr(name, '/')) {
        /* NAME.cfg, as the shipped file is called: here, else the lesson corun ships, as
         * `check` and `run` take a file name (it was refused, and `check` said ok to it). */
        free(path);
        if (!(path = cli_find_scenario(name, datadir, "scenarios/lessons")))
            return CLI_BAD_INPUT; /* it said where it looked, and any name near */
    } else if (is_file && access(path, F_OK) != 0) {
        fprintf(stderr, "corun: lesson: %s: cannot open: %s (expected a lesson file)\n", path,
                strerror(errno));
        free(path);
        return CLI_BAD_INPUT;
    }
    if (access(path, F_OK) != 0) {
        char *scenario = xasprintf("%s/scenarios/%s.cfg", datadir, name);
        bool is_scenario = access(scenario, F_OK) == 0;
        free(scenario);
        if (is_scenario) {
            fprintf(stderr,
                    "corun: lesson: no lesson \"%s\": %s is a scenario, which `corun tui %s` "
                    "opens in the workbench; 'corun lesson list' lists the lessons\n",
                    name, name, name);
            free(path);
            return CLI_BAD_INPUT;
        }
        size_t n = 0;
        char **names = lesson_names(datadir, &n);
        char *near = suggest_names(name, (const char *const *)names, n, "", "");
        fprintf(stderr,
                "corun: lesson: no lesson \"%s\" (no %s); %s%s%s'corun lesson list' lists them\n",
                name, path, near ? "did you mean " : "", near ? near : "", near ? "? " : "");
        free(near);
        for (size_t i = 0; i < n; i++)
            free(names[i]);
        free(names);
        free(path);
        return CLI_BAD_INPUT;
    }
    struct lesson l;
    struct diag d;
    diag_init(&d);
    struct scenario sc;
    memset(&sc, 0, sizeof sc);
    bool have_sc = false;
    struct session *s = NULL;
    char err[512];
    int rc = CLI_OK;
    if (lesson_load(path, datadir, &l, &d) != 0) {
        diag_print(&d, stderr);
        rc = CLI_BAD_INPUT;
    } else if (cli_lesson_scenario(&l, &sc, datadir, &d) != 0 ||
               cli_lesson_check_steps(&l, &sc, &d) != 0) {
        have_sc = true;
        diag_print(&d, stderr);
        rc = CLI_BAD_INPUT;
    } else if ((have_sc = true) && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
        fprintf(stderr, "corun: a lesson needs a terminal; 'corun lesson list' lists them\n");
        rc = CLI_BAD_INPUT;
    } else if (cli_workbench_catalog(wa->catalog) != 0) {
        rc = CLI_BAD_INPUT;
    } else if (!(s = session_new(&sc, err, sizeof err))) {
        fprintf(stderr, "corun: %s: %s\n", sc.path, err);
        rc = CLI_BAD_INPUT;
    } else {
        session_set_threads(s, cli_default_threads()); /* as `corun tui` and `run` */
        struct tui_options opt = {
            .datadir = datadir, .projector = wa->projector, .lesson = &l, .catalog = wa->catalog};
        if (tui_main(s, &opt) != 0)
            rc = CLI_FAILED;
    }
    if (have_sc)
        scenario_done(&sc);
    lesson_done(&l);
    diag_done(&d);
    free(path);
    return rc;
}

static int lesson_run(int argc, char **argv)
{
    struct cli_workbench_args wa;
    if (cli_workbench_args(argc, argv, &cmd_lesson, false, &wa) != 0)
        return CLI_BAD_INPUT;
    const char *name = wa.arg;
    char *datadir = datadir_locate();
    int rc = !name || strcmp(name, "list") == 0 ? list(datadir) /* no name: the list */
                                                : open_lesson(datadir, name, &wa);
    free(datadir);
    return rc;
}

const struct cli_command cmd_lesson = {
    .name = "lesson",
    .args = "list | NAME [--theme projector] [--catalog PATH]",
    .summary = "list the classroom lessons, or open lesson NAME in the workbench",
    .help = "A lesson is a scenario and a script of steps (scenarios/lessons/NAME.cfg): each\n"
            "step has its text, what the class does, a question and what to notice, and may run\n"
            "epochs, switch the predictor or allocator, set parameters, change the mix, show a\n"
            "panel, or hide the truth until the class has guessed (predict, then reveal).\n\n"
            "  list             one line per lesson: its name, title and what it teaches (on a\n"
            "                   narrow terminal the text wraps under itself); also what\n"
            "                   `corun lesson` alone prints\n"
            "  NAME             open the lesson: the workbench with the lesson panel showing\n"
            "                   the first step; a path, or a name ending in .cfg, opens a\n"
            "                   lesson file of your own (its scenario may lie beside it);\n"
            "                   NAME.cfg with no such file here is the lesson corun ships\n"
            "  --theme projector  high contrast, a larger chart and lesson panel\n"
            "  --catalog PATH   the catalog for the trace cache and a saved run's row, as in\n"
            "                   'corun help tui'\n\n"
            "Keys besides the workbench's (see 'corun help tui'): n opens the next step and\n"
            "does what it says, N goes back to the previous one (its text only), L shows or\n"
            "hides the lesson panel, Enter on the lesson panel opens the step whole. In a\n"
            "predict step, g opens the guess form: type each kernel's NP, then fairness and\n"
            "STP; Enter reveals the truth beside the guesses with the error, and the step's\n"
            "score joins the event log (and the run file when the run is saved).\n"
            "'corun check LESSON.cfg' validates a lesson file; 'corun help lesson' adds every\n"
            "setting of one to this help.\n",
    .run = lesson_run,
};
