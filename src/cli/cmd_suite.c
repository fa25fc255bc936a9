/* cmd_suite — `corun suite check|list SUITE`: validate a mix suite, or list its mixes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/columns.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/preset.h"
#include "corun/suite.h"
#include "corun/util.h"
#include "corun/wrap.h"

static void list(const struct suite *s)
{
    printf("%s (gpu %s, %u epoch%s of %u cycles): %zu mix%s\n", s->name, s->gpu, s->epochs,
           s->epochs == 1 ? "" : "s", s->epoch_cycles, s->nmixes, s->nmixes == 1 ? "" : "es");
    for (size_t i = 0; i < s->nmixes; i++) {
        const struct suite_mix *m = &s->mixes[i];
        printf("%4zu  %-*s", i + 1, util_pad_width(m->tag, 20), m->tag);
        for (unsigned k = 0; k < m->nkernels; k++)
            printf("%s%s", k ? "+" : " ", m->kernels[k]);
        if (m->sms[0]) {
            printf("  sms ");
            for (unsigned k = 0; k < m->nkernels; k++)
                printf("%s%u", k ? ":" : "", m->sms[k]);
        }
        printf("\n");
    }
}

/* `corun suite list` alone: the suites corun ships, a line each. */
static int list_shipped(void)
{
    char *datadir = datadir_locate(), *dir = xasprintf("%s/scenarios/suites", datadir);
    struct name_list names;
    preset_cfg_names(dir, &names);
    int rc = CLI_OK;
    if (!names.count) {
        fprintf(stderr, "corun: suite list: no suite in %s (expected NAME.cfg files there)\n", dir);
        rc = CLI_FAILED;
    } else {
        char *head = xasprintf("The suites corun ships, in %s (`corun suite list NAME` lists "
                               "one's mixes):\n",
                               dir);
        util_fputs_wrapped(head, CLI_HELP_WIDTH, true, stdout);
        free(head);
    }
    for (size_t i = 0; i < names.count; i++) {
        char *path = xasprintf("%s/%s.cfg", dir, names.names[i]);
        struct diag diags;
        diag_init(&diags);
        struct suite s;
        if (suite_load(path, datadir, &s, &diags) == 0) {
            char *row =
                xasprintf("  %-*s  %zu mix%s on %s%s%s\n", util_pad_width(names.names[i], 15),
                          names.names[i], s.nmixes, s.nmixes == 1 ? "" : "es", s.gpu,
                          s.description ? ": " : "", s.description ? s.description : "");
            util_fputs_wrapped(row, CLI_HELP_WIDTH, true, stdout);
            free(row);
        } else {
            printf("  %-*s (does not load: `corun suite check %s` says why)\n",
                   util_pad_width(names.names[i], 16), names.names[i], names.names[i]);
            rc = CLI_FAILED;
        }
        suite_done(&s);
        diag_done(&diags);
        free(path);
    }
    name_list_done(&names);
    free(dir);
    free(datadir);
    return rc;
}

static int suite_run(int argc, char **argv)
{
    if (argc == 1 || (argc == 2 && strcmp(argv[1], "list") == 0))
        return list_shipped(); /* alone too, as `runs`, `lesson` and `kernels` list */
    /* suite list --json took --json for a file; suite --json said "expected check or list" */
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "corun: suite: unknown option '%s'\n", argv[i]);
            cli_usage_error(&cmd_suite);
            return CLI_BAD_INPUT;
        }
    if (argc != 3 || (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "list") != 0)) {
        if (strcmp(argv[1], "check") != 0 && strcmp(argv[1], "list") != 0) /* as runs says it */
            fprintf(stderr, "corun: suite: '%s': expected check or list\n", argv[1]);
        else
            fprintf(stderr,
                    "corun: suite %s: expected one suite file (SUITE; `corun suite list` lists "
                    "the suites corun ships)\n",
                    argv[1]);
        cli_usage_error(&cmd_suite);
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    char *path = cli_find_scenario(argv[2], datadir, "scenarios/suites");
    if (!path) {
        free(datadir);
        return CLI_BAD_INPUT;
    }
    struct diag diags;
    diag_init(&diags);
    struct suite s;
    int rc = suite_load(path, datadir, &s, &diags);
    if (rc == 0 && strcmp(argv[1], "list") == 0)
        list(&s);
    else if (rc == 0)
        printf("%s: ok (%zu mix%s, gpu %s)\n", path, s.nmixes, s.nmixes == 1 ? "" : "es", s.gpu);
    diag_print(&diags, stderr);
    suite_done(&s);
    diag_done(&diags);
    free(path);
    free(datadir);
    return rc == 0 ? CLI_OK : CLI_BAD_INPUT;
}

const struct cli_command cmd_suite = {
    .name = "suite",
    .args = "check|list SUITE | [list]",
    .summary = "validate a mix suite (scenarios/suites/), or list its mixes",
    .help = "  check SUITE  validate every mix: tags, kernel names, SM splits, and each\n"
            "               kernel's profile, loaded and fitted to the suite's GPU as a run of\n"
            "               the mix fits it (a thread block on an SM)\n"
            "  list SUITE   one line per mix: tag, kernels, split\n"
            "  list         the suites corun ships: name, mixes, GPU, description; also what\n"
            "               `corun suite` alone prints\n",
    .run = suite_run,
};
