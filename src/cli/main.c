/* main — `corun [COMMAND]`: dispatch to the subcommand table; no command opens the workbench. */
#include <errno.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "config.h"
#include "corun/cli.h"
#include "corun_sim_id.h"

/* A CORUN_DATADIR that names no directory would make every kernel, GPU and scenario
 * "not found" without saying why: say it once, up front. */
static void note_bad_datadir(void)
{
    const char *env = getenv("CORUN_DATADIR");
    struct stat st;
    if (env && *env && (stat(env, &st) != 0 || !S_ISDIR(st.st_mode)))
        fprintf(stderr,
                "corun: note: CORUN_DATADIR=%s is not a directory; corun looks there for its "
                "kernels, GPUs and scenarios (unset it for the installed ones)\n",
                env);
}

/* What a command printed must have reached stdout: a full disk under `corun ... --json >
 * FILE` left the file cut short or empty, and the exit status said all was well. rc, or
 * CLI_FAILED when stdout could not take it all. */
static int finish(int rc)
{
    errno = 0;
    bool flushed = fflush(stdout) == 0;
    if (!flushed || ferror(stdout)) {
        fprintf(stderr, "corun: cannot write to standard output: %s; its output is incomplete\n",
                !flushed && errno ? strerror(errno) : "a write failed");
        if (rc == CLI_OK)
            rc = CLI_FAILED;
    }
    return rc;
}

int main(int argc, char **argv)
{
    setlocale(LC_ALL, "");
    /* Past a file-size limit (ulimit -f) a write fails with EFBIG, which the run file's and
     * the catalog's writers report, keeping what they wrote before, instead of the signal
     * killing corun in the middle of a write. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        note_bad_datadir();
        return finish(cmd_tui.run(1, (char *[]){(char *)"tui", NULL}));
    }
    const char *first = argv[1];
    if (strcmp(first, "--help") == 0 || strcmp(first, "-h") == 0) {
        cli_print_usage(stdout);
        return finish(CLI_OK);
    }
    if (strcmp(first, "--version") == 0 || strcmp(first, "-V") == 0) {
        printf("corun %s (simulator %08x)\n", PACKAGE_VERSION, CORUN_SIM_ID);
        return finish(CLI_OK);
    }
    if (first[0] == '-') {
        fprintf(stderr, "corun: unknown option '%s'; see 'corun --help'\n", first);
        return CLI_BAD_INPUT;
    }
    const struct cli_command *cmd = cli_lookup(first);
    if (!cmd)
        return CLI_BAD_INPUT;
    if (cli_wants_help(argc - 1, argv + 1)) {
        if (!cli_help_for(cmd, argc - 1, argv + 1, stdout))
            cli_print_command_help(cmd, stdout);
        return finish(CLI_OK);
    }
    note_bad_datadir();
    return finish(cmd->run(argc - 1, argv + 1));
}
