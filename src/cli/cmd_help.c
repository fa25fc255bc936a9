/* cmd_help — `corun help [COMMAND | SETTING | scenario | accelerator | gpu | kernel | ...]`. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_predict.h"
#include "corun/accel_scenario.h"
#include "corun/alloc.h"
#include "corun/cli.h"
#include "corun/conftable.h"
#include "corun/gpu.h"
#include "corun/lesson.h"
#include "corun/predict.h"
#include "corun/preset.h"
#include "corun/scenario.h"
#include "corun/suggest.h"
#include "corun/suite.h"
#include "corun/util.h"
#include "corun/wrap.h"

/* Writes the help topic (scenario, accelerator, gpu, kernel, lesson, suite, predictors,
 * allocators) to o; false when topic is none of them. */
static bool print_topic(const char *topic, FILE *o)
{
    if (strcmp(topic, "scenario") == 0) {
        conf_print_help(&scenario_table, o);
        fprintf(o, "\nEach entry of kernels:\n");
        conf_print_help(&scenario_kernel_table, o);
        return true;
    }
    if (strcmp(topic, "accelerator") == 0) {
        fprintf(o, "An accelerator scenario (mode = \"accelerator\"): applications share a\n"
                   "non-preemptive GPU as streams of tasks (docs/accelerator.md).\n\n");
        conf_print_help(&accel_scenario_table, o);
        fprintf(o, "\nEach entry of applications:\n");
        conf_print_help(&accel_app_table, o);
        fprintf(o, "\nEach task of a trace (an entry's tasks, or an application profile's in "
                   "data/apps):\n");
        conf_print_help(&accel_task_table, o);
        return true;
    }
    if (strcmp(topic, "gpu") == 0) {
        conf_print_help(&preset_gpu_table, o);
        /* The rules between settings (gpu_config_check, dram_config_check): a value in its
         * own range was refused by one of them, unsaid here. */
        fprintf(o,
                "\nBesides each setting's range, the GPU as a whole must hold:\n"
                "  - l1d and llc lines are 128 bytes; a cache's size_bytes is a multiple of\n"
                "    ways x line_bytes, and llc_slices divides llc.size_bytes\n"
                "  - the caches' lines, l1d's and l1c's times sms plus llc's, are at most %llu\n"
                "    (the model keeps every line in memory)\n"
                "  - dram.bank_groups x dram.banks_per_group is at most 64\n"
                "  - dram.row_bytes is a multiple of dram.request_bytes, which equals the LLC\n"
                "    line\n"
                "  - dram.timing.refi exceeds dram.timing.rfc, or is 0 (no refresh)\n"
                "  - every kernel of a scenario fits an SM: warps_per_tb within warps_per_sm,\n"
                "    and one thread block's registers and shared memory within the SM's\n",
                (unsigned long long)GPU_MAX_CACHE_LINES);
        return true;
    }
    if (strcmp(topic, "kernel") == 0) {
        conf_print_help(&preset_kernel_table, o);
        /* No path of this machine here: the text is docs/settings.md's too. */
        fprintf(o, "\nA kernel profile is the file data/kernels/NAME.cfg of the data directory\n"
                   "(CORUN_DATADIR, else the data corun was built or installed with): scenarios,\n"
                   "suites and accelerator applications name it NAME (kernels = ( { name =\n"
                   "\"NAME\"; } );). `corun check FILE` validates one wherever it is and names\n"
                   "that path; `corun kernels show NAME` measures it. To add your own, copy the\n"
                   "data directory, put the file in its data/kernels and set CORUN_DATADIR to\n"
                   "the copy.\n");
        return true;
    }
    if (strcmp(topic, "lesson") == 0) { /* after the command's own help (help_run) */
        fprintf(o, "\nA lesson file (scenarios/lessons/NAME.cfg; `corun check` validates one):\n");
        conf_print_help(&lesson_table, o);
        fprintf(o,
                "\nEach entry of steps (in this order when the step opens: predictor, allocator,\n"
                "set, add, remove, then run):\n");
        conf_print_help(&lesson_step_table, o);
        return true;
    }
    if (strcmp(topic, "suite") == 0) { /* after the command's own help (help_run) */
        fprintf(o,
                "\nA suite file (scenarios/suites/NAME.cfg; `corun suite check` validates one):\n");
        conf_print_help(&suite_table, o);
        fprintf(o, "\nEach entry of mixes:\n");
        conf_print_help(&suite_mix_table, o);
        return true;
    }
    if (strcmp(topic, "predictors") == 0) {
        fprintf(
            o,
            "Spatial scenarios, slowdown predictors (scenario: predictor = \"NAME\"; --predictor "
            "NAME):\n");
        fprintf(o, "  %-14s %s\n", "none", "no prediction");
        for (size_t i = 0; i < predict_registry_count(); i++) {
            const struct predictor_ops *p = predict_registry_at(i);
            fprintf(o, "  %-14s %s%s\n", p->name, p->summary,
                    p->needs_private ? " [private-mode truth: simulation only]" : "");
        }
        fprintf(o,
                "\nAccelerator scenarios (mode = \"accelerator\"; corun run SCENARIO --predictor "
                "NAME):\n");
        fprintf(o, "  %-14s %s\n", "none", "no prediction");
        for (int i = ACCEL_PREDICT_NONE + 1; i < ACCEL_PREDICTORS; i++)
            fprintf(o, "  %-14s %s\n", accel_predictor_name(i), accel_predictor_summary(i));
        return true;
    }
    if (strcmp(topic, "allocators") == 0) {
        fprintf(o, "SM allocators (scenario: allocator = \"NAME\"; --allocator NAME):\n");
        for (size_t i = 0; i < alloc_registry_count(); i++) {
            const struct allocator_ops *a = alloc_registry_at(i);
            fprintf(o, "  %-14s %s%s\n", a->name, a->summary,
                    a->uses_predictor ? " [uses the active predictor]" : "");
        }
        return true;
    }
    return false;
}

/* The files whose settings `corun help NAME` finds by name: the table, whose settings they
 * are, the prefix a name may carry for it ("kernels.priority"), and the topic listing them. */
static const struct {
    const struct conf_table *table;
    const char *of, *prefix, *topic;
} setting_tables[] = {
    {&scenario_table, "a scenario", "", "scenario"},
    {&scenario_kernel_table, "each entry of a scenario's kernels", "kernels.", "scenario"},
    {&preset_gpu_table, "a GPU preset, a scenario's gpu_overrides and --set gpu.NAME=V", "gpu.",
     "gpu"},
    {&preset_kernel_table, "a kernel profile", "", "kernel"},
    {&accel_scenario_table, "an accelerator scenario", "", "accelerator"},
    {&accel_app_table, "each entry of an accelerator scenario's applications", "applications.",
     "accelerator"},
    {&accel_task_table, "each task of an accelerator application's trace", "tasks.", "accelerator"},
    {&lesson_table, "a lesson", "", "lesson"},
    {&lesson_step_table, "each entry of a lesson's steps", "steps.", "lesson"},
    {&suite_table, "a suite", "", "suite"},
    {&suite_mix_table, "each entry of a suite's mixes", "mixes.", "suite"},
};

/* Writes the help of every setting named name (as written in a file, --set or the
 * workbench's parameter editor: "epoch_cycles", "gpu.dram.banks_per_group",
 * "kernels[0].priority") to o, each under what it is a setting of; false when none is. */
static bool print_setting_named(const char *name, FILE *o)
{
    /* Indices dropped ("kernels[0].priority" is each entry's priority), and the names the
     * same GPU settings go by elsewhere. */
    char key[256];
    size_t n = 0;
    for (const char *p = name; *p && n + 1 < sizeof key; p++) {
        if (*p == '[') {
            const char *end = strchr(p, ']');
            if (end) {
                p = end;
                continue;
            }
        }
        key[n++] = *p;
    }
    key[n] = '\0';
    static const char *const aliases[][2] = {{"gpu_overrides.", "gpu."},
                                             {"applications.tasks.", "tasks."}};
    const char *k = key;
    char alias[sizeof key + 8];
    for (size_t i = 0; i < CORUN_ARRAY_LEN(aliases); i++) {
        size_t len = strlen(aliases[i][0]);
        if (strncmp(key, aliases[i][0], len) == 0) {
            snprintf(alias, sizeof alias, "%s%s", aliases[i][1], key + len);
            k = alias;
        }
    }
    bool found = false;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(setting_tables); i++) {
        const char *prefix = setting_tables[i].prefix;
        size_t len = strlen(prefix);
        const char *rest = len && strncmp(k, prefix, len) == 0 ? k + len : k;
        char *text = NULL;
        size_t size = 0;
        FILE *mem = open_memstream(&text, &size);
        if (!mem)
            return found;
        bool here = conf_print_setting(setting_tables[i].table, rest, mem);
        fclose(mem);
        if (here)
            fprintf(o, "%sA setting of %s (`corun help %s` lists every one):\n%s",
                    found ? "\n" : "", setting_tables[i].of, setting_tables[i].topic, text);
        found = found || here;
        free(text);
    }
    return found;
}

/* Whether word is one of cmd's verbs: a word of its synopsis ("list | show ID | query SQL"). */
static bool is_verb_of(const struct cli_command *cmd, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = strstr(cmd->args, word); n && p; p = strstr(p + 1, word))
        if ((p == cmd->args || strchr(" |[", p[-1])) && (!p[n] || strchr(" |]", p[n])))
            return true;
    return false;
}

static int help_run(int argc, char **argv)
{
    if (argc < 2) {
        cli_print_usage(stdout);
        return CLI_OK;
    }
    const char *topic = argv[1];
    /* `corun help scenario accelerator`: the accelerator scenario's settings, as `corun help
     * scenario` says (spatial or accelerator). */
    if (argc == 3 && strcmp(topic, "scenario") == 0 && strcmp(argv[2], "accelerator") == 0) {
        topic = "accelerator";
        argc = 2;
    }
    if (argc > 2) { /* `corun help reproduce hsm --threshold`: a command's narrower help, or
                     * its whole help for one of its verbs (`corun help runs query`) */
        const struct cli_command *cmd = cli_find(topic);
        if (cmd == &cmd_reproduce && argv[2][0] != '-' && !cli_reproduce_knows(argv[2])) {
            /* it printed the general help, exit 0 */
            fprintf(stderr,
                    "corun help: reproduce has no experiment '%s' (`corun reproduce --list` "
                    "lists them)\n",
                    argv[2]);
            return CLI_BAD_INPUT;
        }
        if (!cmd || (!cmd->help_for && !is_verb_of(cmd, argv[2]))) {
            if (!cmd) /* the usage alone said nothing of what was wrong */
                fprintf(stderr,
                        "corun help: '%s' is no command (only a command takes more "
                        "words after it)\n",
                        topic);
            else
                fprintf(stderr,
                        "corun help: '%s' is not a word %s takes (`corun help %s` says "
                        "what it does)\n",
                        argv[2], cmd->name, cmd->name);
            cli_usage_error(&cmd_help);
            return CLI_BAD_INPUT;
        }
        if (!cli_help_for(cmd, argc - 1, argv + 1, stdout))
            cli_print_command_help(cmd, stdout);
        return CLI_OK;
    }
    if (strcmp(topic, "lesson") == 0) /* the command, then its file's settings */
        cli_print_command_help(&cmd_lesson, stdout);
    if (strcmp(topic, "suite") == 0)
        cli_print_command_help(&cmd_suite, stdout);
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (mem) {
        bool found = print_topic(topic, mem);
        fclose(mem);
        if (found) /* settings' tables: a row's lines stay apart */
            util_fputs_wrapped(text, CLI_HELP_WIDTH, false, stdout);
        free(text);
        if (found)
            return CLI_OK;
    } else if (print_topic(topic, stdout)) {
        return CLI_OK;
    }
    const struct cli_command *cmd = cli_find(topic);
    if (!cmd) {
        text = NULL;
        len = 0;
        mem = open_memstream(&text, &len);
        bool found = mem && print_setting_named(topic, mem);
        if (mem)
            fclose(mem);
        if (found)
            util_fputs_wrapped(text, CLI_HELP_WIDTH, false, stdout);
        free(text);
        if (found)
            return CLI_OK;
        static const char *const topics[] = {"scenario", "accelerator", "gpu",
                                             "kernel",   "predictors",  "allocators"};
        char *near = cli_suggest(topic, topics, CORUN_ARRAY_LEN(topics));
        /* Else near a setting's name (its table's own; a group's settings by their group). */
        const char *names[512];
        size_t count = 0;
        for (size_t i = 0; i < CORUN_ARRAY_LEN(setting_tables); i++)
            for (size_t j = 0; j < setting_tables[i].table->count && count < 512; j++)
                names[count++] = setting_tables[i].table->settings[j].name;
        if (!near)
            near = suggest_names(topic, names, count, "'", "'");
        fprintf(stderr,
                "corun help: no help on '%s'%s%s%s; topics: a command, a setting's name, "
                "scenario, accelerator, gpu, kernel, predictors or allocators\n",
                topic, near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
        free(near);
        return CLI_BAD_INPUT;
    }
    cli_print_command_help(cmd, stdout);
    return CLI_OK;
}

const struct cli_command cmd_help = {
    .name = "help",
    .args = "[COMMAND [ARGS...] | SETTING | scenario | accelerator | gpu | kernel | predictors | "
            "allocators]",
    .summary = "describe a command, every setting of a scenario (spatial or accelerator), GPU "
               "preset or kernel file, or the predictors and allocators",
    .help = "With ARGS, the help of the command for them where it has one: 'corun help\n"
            "reproduce hsm --threshold' describes that experiment, its policies and options.\n"
            "'corun help lesson' and 'corun help suite' describe the command, then every\n"
            "setting of its file. 'corun help SETTING' describes one setting, named as a file,\n"
            "--set or the workbench's parameter editor names it (epoch_cycles,\n"
            "gpu.dram.timing.rcd, kernels[0].priority), in each kind of file that has it.\n"
            "docs/settings.md in corun's source holds every topic's settings.\n",
    .run = help_run,
};
