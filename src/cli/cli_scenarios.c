/* cli_scenarios — SCENARIO named without its directory: the files corun ships, found and
 * listed. */
#include "corun/cli.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corun/datadir.h"
#include "corun/suggest.h"
#include "corun/util.h"
#include "corun/wrap.h"

static int cfg_file(const struct dirent *e)
{
    return e->d_name[0] != '.' && util_ends_with(e->d_name, ".cfg");
}

/* The names of the .cfg files in dir (without .cfg), appended to names[*n..max). */
static void cfg_names(const char *dir, char **names, size_t *n, size_t max)
{
    struct dirent **ents = NULL;
    int count = scandir(dir, &ents, cfg_file, alphasort);
    for (int i = 0; i < count; i++) {
        if (*n < max)
            names[(*n)++] = xasprintf("%.*s", (int)(strlen(ents[i]->d_name) - 4), ents[i]->d_name);
        free(ents[i]);
    }
    free(ents);
}

/* A bare name that is no file here nor one corun ships: says where it looked, with the
 * closest name there when one is a plausible typo. */
static void note_missing(const char *arg, const char *datadir, const char *const *unders,
                         size_t nunders)
{
    char *names[256];
    size_t n = 0;
    fprintf(stderr, "corun: %s: no such file here, nor in", arg);
    for (size_t u = 0; u < nunders; u++) {
        char *dir = xasprintf("%s/%s", datadir, unders[u]);
        fprintf(stderr, "%s %s/", u ? (u + 1 == nunders ? " or" : ",") : "", dir);
        cfg_names(dir, names, &n, CORUN_ARRAY_LEN(names));
        free(dir);
    }
    /* NAME.cfg was looked for as it is (not as NAME.cfg.cfg), and its typo is one in NAME. */
    bool cfg = util_ends_with(arg, ".cfg");
    char *stem = xasprintf("%.*s", (int)(strlen(arg) - (cfg ? 4 : 0)), arg);
    char *near = suggest_names(stem, (const char *const *)names, n, "", cfg ? ".cfg" : "");
    if (cfg)
        fprintf(stderr, " (as %s)", arg);
    else
        fprintf(stderr, " (as %s or %s.cfg)", arg, arg);
    fprintf(stderr, "%s%s%s\n", near ? "; did you mean " : "", near ? near : "", near ? "?" : "");
    free(near);
    free(stem);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
}

char *cli_find_scenario_in(const char *arg, const char *datadir, const char *const *unders,
                           size_t nunders)
{
    struct stat st;
    if (!datadir || !arg[0] || arg[0] == '/' || strcmp(arg, "-") == 0 || stat(arg, &st) == 0)
        return xstrdup(arg);
    /* NAME.cfg here before the files corun ships (the message below says it looked here). */
    if (!util_ends_with(arg, ".cfg")) {
        char *path = xasprintf("%s.cfg", arg);
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            fprintf(stderr, "corun: %s: using %s\n", arg, path);
            return path;
        }
        free(path);
    }
    for (size_t u = 0; u < nunders; u++) {
        for (int i = 0; i < (util_ends_with(arg, ".cfg") ? 1 : 2); i++) {
            char *path = xasprintf("%s/%s/%s%s", datadir, unders[u], arg, i ? ".cfg" : "");
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                fprintf(stderr, "corun: %s: no such file here; using %s\n", arg, path);
                return path;
            }
            free(path);
        }
    }
    if (!strchr(arg, '/')) {
        note_missing(arg, datadir, unders, nunders);
        return NULL; /* said once: the loader would add "cannot open" */
    }
    return xstrdup(arg);
}

char *cli_find_scenario(const char *arg, const char *datadir, const char *under)
{
    return cli_find_scenario_in(arg, datadir, &under, 1);
}

/* ": NAME" for the first scenario file in datadir/scenarios/sub (sub "" or "studies/"), ",
 * NAME" for the others, to out; *count counts them. */
static void list_scenarios(FILE *out, const char *datadir, const char *sub, size_t *count)
{
    char *dir = xasprintf("%s/scenarios/%s", datadir, sub), *names[256];
    size_t n = 0;
    cfg_names(dir, names, &n, CORUN_ARRAY_LEN(names));
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%s%s%s", (*count)++ ? ", " : ": ", sub, names[i]);
        free(names[i]);
    }
    free(dir);
}

void cli_print_shipped_scenarios(FILE *out)
{
    char *datadir = datadir_locate(), *text = NULL;
    size_t len, count = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        free(datadir);
        return;
    }
    fprintf(mem,
            "\nA SCENARIO may also be named without its directory and .cfg when corun "
            "ships it (NAME or NAME.cfg in the working directory comes first; in %s/scenarios)",
            datadir);
    list_scenarios(mem, datadir, "", &count);
    list_scenarios(mem, datadir, "studies/", &count);
    fputs(".\n", mem);
    fclose(mem);
    if (count)
        util_fputs_wrapped(text, CLI_HELP_WIDTH, true, out);
    free(text);
    free(datadir);
}
