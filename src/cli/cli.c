/* cli — the subcommand table, shared usage text and option parsing; what commands print alike
 * is in cli_output.c. */
#include "corun/cli.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "corun/accel_scenario.h"
#include "corun/catalog.h"
#include "corun/gpu_sets.h"
#include "corun/suggest.h"
#include "corun/util.h"
#include "corun/wrap.h"

static const struct cli_command *const commands[] = {
    &cmd_tui,       &cmd_lesson,  &cmd_replay,    &cmd_check, &cmd_run,   &cmd_show,
    &cmd_plot,      &cmd_export,  &cmd_branch,    &cmd_runs,  &cmd_solo,  &cmd_dram_trace,
    &cmd_bench,     &cmd_kernels, &cmd_calibrate, &cmd_suite, &cmd_train, &cmd_sweep,
    &cmd_reproduce, &cmd_slurm,   &cmd_rbhshift,  &cmd_help,
};

const struct cli_command *cli_at(size_t i)
{
    return i < CORUN_ARRAY_LEN(commands) ? commands[i] : NULL;
}

const struct cli_command *cli_find(const char *name)
{
    for (size_t i = 0; i < CORUN_ARRAY_LEN(commands); i++)
        if (strcmp(commands[i]->name, name) == 0)
            return commands[i];
    return NULL;
}

char *cli_suggest(const char *word, const char *const *extra, size_t nextra)
{
    const char *names[CORUN_ARRAY_LEN(commands) + 16];
    size_t n = 0;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(commands); i++)
        names[n++] = commands[i]->name;
    for (size_t i = 0; i < nextra && n < CORUN_ARRAY_LEN(names); i++)
        names[n++] = extra[i];
    return suggest_names(word, names, n, "'", "'");
}

const struct cli_command *cli_lookup(const char *name)
{
    const struct cli_command *cmd = cli_find(name);
    if (cmd)
        return cmd;
    char *near = cli_suggest(name, NULL, 0);
    fprintf(stderr, "corun: '%s' is not a command", name);
    if (near)
        fprintf(stderr, " (did you mean %s?)", near);
    free(near);
    fprintf(stderr, "; see 'corun --help'\n");
    return NULL;
}

void cli_print_command_help(const struct cli_command *cmd, FILE *out)
{
    char *text = xasprintf("usage: corun %s %s\n\n%s\n%s%s", cmd->name, cmd->args, cmd->summary,
                           cmd->help && *cmd->help ? "\n" : "", cmd->help ? cmd->help : "");
    util_fputs_wrapped(text, CLI_HELP_WIDTH, true, out);
    free(text);
}

bool cli_help_verb(int argc, char **argv, const char *verb, const char *help, FILE *out)
{
    if (argc < 2 || strcmp(argv[1], verb) != 0)
        return false;
    fputs(help, out); /* through cli_help_for, which wraps it */
    return true;
}

bool cli_help_for(const struct cli_command *cmd, int argc, char **argv, FILE *out)
{
    if (!cmd->help_for)
        return false;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) /* no memory for a buffer: as it is written */
        return cmd->help_for(argc, argv, out);
    bool done = cmd->help_for(argc, argv, mem);
    fclose(mem);
    if (done)
        util_fputs_wrapped(text, CLI_HELP_WIDTH, true, out);
    free(text);
    return done;
}

void cli_usage_error(const struct cli_command *cmd)
{
    char *text = xasprintf("usage: corun %s %s\n", cmd->name, cmd->args);
    util_fputs_wrapped(text, CLI_HELP_WIDTH, true, stderr);
    free(text);
}

int cli_theme_option(int argc, char **argv, int i, bool *projector)
{
    const char *name;
    int used;
    if (strcmp(argv[i], "--theme") == 0) {
        if (i + 1 >= argc) {
            fprintf(stderr, "corun: --theme: expected a theme name (projector or default)\n");
            return -1;
        }
        name = argv[i + 1];
        used = 2;
    } else if (strncmp(argv[i], "--theme=", 8) == 0) {
        name = argv[i] + 8;
        used = 1;
    } else {
        return 0;
    }
    if (strcmp(name, "projector") != 0 && strcmp(name, "default") != 0) {
        fprintf(stderr, "corun: --theme: unknown theme \"%s\" (expected projector or default)\n",
                name);
        return -1;
    }
    *projector = strcmp(name, "projector") == 0;
    return used;
}

/* The option names (without dashes, n of them) nearest the long option arg ("--NAME" or
 * "--NAME=V") as "--A or --B", or NULL when arg is no long option or none is near. */
static char *near_option(const char *arg, const char *const *names, size_t n)
{
    if (!n || arg[0] != '-' || arg[1] != '-' || !arg[2])
        return NULL;
    char *word = xasprintf("%.*s", (int)strcspn(arg + 2, "="), arg + 2);
    char *near = suggest_names(word, names, n, "--", "");
    free(word);
    return near;
}

/* "unknown option" for command name's argument arg (cli_getopt): with the nearest of
 * longopts' names when one is near (a long option), else pointing at the command's --help. */
static void unknown_option(const char *name, const char *arg, const struct option *longopts)
{
    size_t n = 0;
    while (longopts && longopts[n].name)
        n++;
    const char **names = xcalloc(n ? n : 1, sizeof(*names));
    for (size_t i = 0; i < n; i++)
        names[i] = longopts[i].name;
    char *near = near_option(arg, names, n);
    free(names);
    if (near)
        fprintf(stderr, "corun: %s: unknown option '%s' (did you mean %s?)\n", name, arg, near);
    else
        fprintf(stderr, "corun: %s: unknown option '%s' (`corun %s --help` lists its options)\n",
                name, arg, name);
    free(near);
}

void cli_refused_arg(const char *name, const char *arg, const char *first,
                     const char *const *options)
{
    if ((arg[0] == '-' && arg[1]) || !first) { /* "-" first: no command here reads stdin */
        size_t n = 0;
        while (options && options[n])
            n++;
        char *near = near_option(arg, options, n);
        fprintf(stderr, "corun: %s: unknown option '%s'", name, arg); /* usage follows */
        if (near)
            fprintf(stderr, " (did you mean %s?)", near);
        fputc('\n', stderr);
        free(near);
    } else {
        fprintf(stderr, "corun: %s: unexpected second argument '%s' (after '%s')\n", name, arg,
                first);
    }
}

int cli_operands(const struct cli_command *cmd, int argc, char **argv, int first, int n,
                 const char *what)
{
    int have = argc - first;
    /* An option the command does not take, before its operand too (check --json F said
     * "unexpected second argument 'F'"); a file whose name begins with '-' is ./-NAME. */
    for (int i = first; i < argc; i++)
        if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "corun: %s: unknown option '%s'\n", cmd->name, argv[i]);
            cli_usage_error(cmd);
            return -1;
        }
    if (have == n)
        return 0;
    if (have < n)
        fprintf(stderr, "corun: %s: expected %s%s\n", cmd->name, what,
                have ? ", got one argument" : "");
    else if (n == 1)
        cli_refused_arg(cmd->name, argv[first + 1], argv[first], NULL);
    else
        fprintf(stderr, "corun: %s: unexpected argument '%s' (after the %d it takes)\n", cmd->name,
                argv[first + n], n);
    cli_usage_error(cmd);
    return -1;
}

/* argv[i] as --catalog PATH or --catalog=PATH: the arguments it takes (1 or 2), 0 when argv[i]
 * is something else, -1 after a message for a missing or empty PATH. */
static int catalog_option(int argc, char **argv, int i, const char **catalog)
{
    int used = 1;
    if (strcmp(argv[i], "--catalog") == 0) {
        *catalog = i + 1 < argc ? argv[i + 1] : NULL;
        used = 2;
    } else if (strncmp(argv[i], "--catalog=", 10) == 0) {
        *catalog = argv[i] + 10;
    } else {
        return 0;
    }
    if (!*catalog || !**catalog) {
        fprintf(stderr, "corun: --catalog: expected the catalog's file name (PATH)\n");
        return -1;
    }
    return used;
}

int cli_workbench_args(int argc, char **argv, const struct cli_command *cmd, bool dash_ok,
                       struct cli_workbench_args *wa)
{
    *wa = (struct cli_workbench_args){0};
    for (int i = 1; i < argc; i++) {
        int used = cli_theme_option(argc, argv, i, &wa->projector);
        if (used == 0)
            used = catalog_option(argc, argv, i, &wa->catalog);
        if (used < 0) {
            cli_usage_error(cmd);
            return -1;
        }
        if (used > 0) {
            i += used - 1;
        } else if (!wa->arg && (argv[i][0] != '-' || (dash_ok && !argv[i][1]))) {
            wa->arg = argv[i];
        } else {
            static const char *const options[] = {"theme", "catalog", NULL};
            cli_refused_arg(argv[0], argv[i], wa->arg, options);
            cli_usage_error(cmd);
            return -1;
        }
    }
    return 0;
}

int cli_workbench_catalog(const char *catalog)
{
    if (!catalog)
        return 0;
    char err[512];
    struct catalog *cat = catalog_open(catalog, err, sizeof err);
    if (!cat) {
        fprintf(stderr, "corun: %s; the workbench was not opened\n", err);
        return -1;
    }
    catalog_close(cat);
    return 0;
}

int cli_catalog_writable(const char *catalog, const char *what)
{
    char err[512];
    struct catalog *cat = catalog_open(catalog, err, sizeof err);
    int rc = cat ? catalog_writable(cat, what, err, sizeof err) : -1;
    catalog_close(cat);
    if (rc != 0)
        fprintf(stderr, "corun: %s; the run was not started\n", err);
    return rc;
}

void cli_warn_long_span(const char *path, const struct accel_scenario *sc)
{
    unsigned a;
    double span = accel_scenario_arrival_span(sc, &a);
    const char *batch = NULL; /* keeps the GPU busy over the whole span */
    for (unsigned i = 0; i < sc->napps && !batch; i++)
        batch = sc->apps[i].role == ACCEL_BATCH ? sc->apps[i].name : NULL;
    if (span > (batch ? ACCEL_LONG_BUSY_SPAN_S : ACCEL_LONG_SPAN_S))
        fprintf(stderr,
                "corun: warning: %s: %s's %u queries at %g per second arrive over about %.*f s "
                "of GPU time%s%s%s (the scenarios corun ships span under 1 s): a very long "
                "simulation\n",
                path, sc->apps[a].name, sc->apps[a].queries, sc->apps[a].rate_qps,
                span < 10 ? 1 : 0, span, batch ? ", with " : "", batch ? batch : "",
                batch ? "'s batch work running throughout" : "");
    /* A copy that alone takes as long over the link (1 TiB: minutes of GPU time). */
    for (unsigned i = 0; i < sc->napps; i++)
        for (unsigned k = 0; k < sc->apps[i].trace.ntasks; k++) {
            const struct accel_task *t = &sc->apps[i].trace.tasks[k];
            double gbs = t->copy == ACCEL_COPY_EXCLUSIVE ? sc->gpu.pcie.exclusive_gbs
                                                         : sc->gpu.pcie.shared_gbs;
            double s = t->type != ACCEL_KERNEL && gbs > 0 ? (double)t->bytes / (gbs * 1e9) : 0;
            if (s > ACCEL_LONG_SPAN_S) {
                fprintf(stderr,
                        "corun: warning: %s: %s's task %u copies %llu bytes, about %.0f s over "
                        "the link at %g GB/s: a very long simulation\n",
                        path, sc->apps[i].name, k + 1, (unsigned long long)t->bytes, s, gbs);
                return; /* one is enough to say it */
            }
        }
}

void cli_print_usage(FILE *out)
{
    enum { COL = 26, WIDTH = 80 };
    fprintf(out, "usage: corun [--help] [--version] [COMMAND [ARGS...]]\n\n"
                 "corun is a terminal workbench for GPU multitasking experiments. Without a\n"
                 "command it opens the workbench on the default scenario.\n\ncommands:\n");
    for (size_t i = 0; i < CORUN_ARRAY_LEN(commands); i++) {
        const struct cli_command *c = commands[i];
        /* The name and its operands; the options are left to the command's own help. */
        char *left =
            xasprintf("%s %s", c->name, c->args[0] == '[' && c->args[1] == '-' ? "" : c->args);
        char *opt = strstr(left, " [-"), *dashes = strstr(left, " --");
        if (dashes && (!opt || dashes < opt))
            opt = dashes;
        if (opt && strstr(opt, " | ")) /* other forms after the options: no short form */
            left[strlen(c->name)] = '\0';
        else if (opt)
            *opt = '\0';
        if ((int)strlen(left) > COL - 3)
            left[strlen(c->name)] = '\0';
        fprintf(out, "  %-*s ", COL - 3, left);
        util_fputs_filled(c->summary, COL, WIDTH, out);
        free(left);
    }
    fprintf(out, "\n'corun help COMMAND' describes a command and its options; 'corun help "
                 "scenario'\nlists every scenario setting. Exit status: 0 success, 1 failure while "
                 "running,\n2 bad input or usage.\n");
    cli_print_shipped_scenarios(out);
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

_Static_assert(sizeof(unsigned long) >= 8, "--seed takes a 64-bit value (CLI_SEED_MAX)");

int cli_parse_uint(const char *opt, const char *text, unsigned long lo, unsigned long hi,
                   unsigned long *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    /* Digits only: strtoul also takes blanks and a sign before them (" 2" and "+1" were
     * taken, "2 " refused). */
    if (errno || end == text || *end || !isdigit((unsigned char)text[0]) || v < lo || v > hi) {
        fprintf(stderr, "corun: %s: expected a whole number from %lu to %lu, got '%s'\n", opt, lo,
                hi, text);
        return -1;
    }
    *out = v;
    return 0;
}

/* The directory path is in (stat'd) and its last name: "x.h5" and "/tmp/./x.h5" run in /tmp
 * name the same place, made or not. false when the directory cannot be stat'd. */
static bool place_of(const char *path, struct stat *dir, const char **base)
{
    const char *slash = strrchr(path, '/');
    char *d = !slash          ? xstrdup(".")
              : slash == path ? xstrdup("/")
                              : xasprintf("%.*s", (int)(slash - path), path);
    bool ok = stat(d, dir) == 0;
    free(d);
    *base = slash ? slash + 1 : path;
    return ok;
}

bool cli_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (strcmp(a, b) == 0)
        return true;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    /* One or both not made yet: the same name in the same directory, spelt another way. */
    const char *ba, *bb;
    return place_of(a, &sa, &ba) && place_of(b, &sb, &bb) && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino && *ba && strcmp(ba, bb) == 0;
}

int cli_names_once(const char *cmd, const char *const *names, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0) {
                fprintf(stderr, "corun: %s: %s is named twice: expected each once\n", cmd,
                        names[i]);
                return -1;
            }
    return 0;
}

int cli_nonempty(const char *opt, const char *text)
{
    if (*text)
        return 0;
    fprintf(stderr, "corun: %s: expected a name, got an empty one\n", opt);
    return -1;
}

int cli_catalog_exists(const char *cmd, const char *path, const char *what)
{
    struct stat st;
    if (!path)
        return 0;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            return 0; /* another error is catalog_open's to report */
        fprintf(stderr, "corun: %s: --catalog %s: no such file (expected %s)\n", cmd, path, what);
        return -1;
    }
    /* SQLite takes an empty file for an empty database and would make it a catalog. */
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        fprintf(stderr, "corun: %s: --catalog %s: empty: not a corun catalog (expected %s)\n", cmd,
                path, what);
        return -1;
    }
    return 0;
}

void cli_catalog_cache_warn(const char *cmd, const char *path)
{
    char err[512];
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (cat)
        catalog_close(cat);
    else
        fprintf(stderr,
                "corun: %s: warning: %s; the run goes on without the catalog, so nothing is "
                "cached in it or read from it\n",
                cmd, err);
}

int cli_resume_usable(const char *cmd, const char *path)
{
    if (!path)
        return 0;
    if (!path[0]) {
        fprintf(stderr, "corun: %s: --resume: expected a file name, got an empty one\n", cmd);
        return -1;
    }
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK); /* a FIFO is not waited on */
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && !S_ISREG(st.st_mode)) {
        close(fd); /* it took every result and kept none (a device), or hung the run (a FIFO) */
        fprintf(stderr,
                "corun: %s: %s: not a regular file (a FIFO or a device); a journal is a file "
                "corun keeps results in, give the name of one (it is made when missing)\n",
                cmd, path);
        return -1;
    }
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    int e = errno;
    if (e == ENOENT) { /* made on first use: its directory must take it (as train's --out) */
        char *copy = xstrdup(path);
        int ok = access(dirname(copy), W_OK | X_OK);
        e = errno;
        free(copy);
        if (ok == 0)
            return 0;
    }
    fprintf(stderr, "corun: %s: %s: cannot open for reading and writing: %s\n", cmd, path,
            strerror(e));
    return -1;
}

unsigned cli_default_threads(void)
{
    unsigned n = util_cpus_available();
    return n > 8 ? 8 : n;
}

unsigned cli_threads_per_job(unsigned jobs)
{
    unsigned n = cli_default_threads() / (jobs ? jobs : 1);
    return n ? n : 1;
}

void cli_getopt_reset(void)
{
    optind = 1;
    opterr = 0;
}

/* The argument getopt_long just refused. A long option and the last letter of a group are
 * behind optind; a letter inside a group ("-2.5") is not, and then argv[optind - 1] may be
 * a non-option that getopt skipped over (permuting). */
static const char *refused_arg(int argc, char **argv)
{
    const char *prev = argv[optind - 1];
    size_t n = strlen(prev);
    if (optopt == 0 || optind >= argc || (prev[0] == '-' && n > 1 && prev[n - 1] == optopt))
        return prev;
    return argv[optind];
}

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    int c = getopt_long(argc, argv, shortopts, longopts, NULL);
    if (c == ':') {
        fprintf(stderr, "corun: %s: %s needs a value (`corun %s --help` says which)\n", argv[0],
                argv[optind - 1], argv[0]);
        return CLI_OPT_BAD;
    }
    if (c == '?') {
        const char *a = refused_arg(argc, argv);
        if (a[0] == '-' && (isdigit((unsigned char)a[1]) || a[1] == '.'))
            fprintf(stderr,
                    "corun: %s: '%s' is not an option, and a negative number is not "
                    "accepted here\n",
                    argv[0], a);
        else
            unknown_option(argv[0], a, longopts);
        return CLI_OPT_BAD;
    }
    return c;
}

int cli_add_gpu_set(struct gpu_sets *sets, const char *cmd, const char *assignment)
{
    char err[512];
    if (gpu_sets_add(sets, assignment, err, sizeof err) == 0)
        return CLI_OK;
    fprintf(stderr, "corun: %s: %s\n", cmd, err);
    return CLI_BAD_INPUT;
}

int cli_parse_shard(const char *text, unsigned *k, unsigned *n)
{
    unsigned kk, nn;
    char tail;
    if (sscanf(text, "%u/%u%c", &kk, &nn, &tail) != 2 || nn == 0 || nn > CLI_MAX_SHARDS ||
        kk == 0 || kk > nn) {
        fprintf(stderr, "corun: --shard: expected K/N with 1 <= K <= N <= %d, got '%s'\n",
                CLI_MAX_SHARDS, text);
        return -1;
    }
    *k = kk;
    *n = nn;
    return 0;
}
