/* lesson — loading and validating classroom lessons. */
#include "corun/lesson.h"

#include <dirent.h>
#include <libconfig.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "corun/confread.h"
#include "corun/util.h"

#define LE_FIELD(field_, help_)                                                                    \
    {                                                                                              \
#field_, CONF_STRING, 0, 0, NULL, NULL, help_, offsetof(struct lesson, field_), NULL, NULL \
    }

static const struct conf_setting lesson_settings[] = {
    LE_FIELD(title, "the lesson's title, one line"),
    LE_FIELD(summary, "what the class learns, one line (corun lesson list shows it)"),
    LE_FIELD(scenario, "the scenario it runs: a path relative to the lesson file's directory "
                       "(looked in first) or to the scenarios directory, or an absolute one"),
    {"steps", CONF_CUSTOM, 0, 0, NULL, NULL, "a list ( {...}, ... ) of 1 to 32 steps, below", 0,
     NULL, &lesson_step_table},
};
const struct conf_table lesson_table = {"lesson", lesson_settings, CORUN_ARRAY_LEN(lesson_settings),
                                        "lesson"};

const char *const lesson_view_names[] = {"none", "kernels", "chart",   "smmap", "system",
                                         "dram", "log",     "explain", NULL};

#define ST_TEXT(field_, def_, help_)                                                               \
    {                                                                                              \
#field_, CONF_STRING, 0, 0, def_, NULL, help_, offsetof(struct lesson_step, field_), NULL, \
            NULL                                                                                   \
    }

static const struct conf_setting step_settings[] = {
    ST_TEXT(title, NULL, "the step's heading"),
    ST_TEXT(text, "", "what is going on, for the class"),
    ST_TEXT(task, "", "what to do now"),
    ST_TEXT(question, "", "a question for the class"),
    ST_TEXT(notice, "", "what to notice: mechanisms, not numbers the simulator produces"),
    {"run", CONF_UINT, 0, 1000, "0", "epochs", "epochs to run when the step opens",
     offsetof(struct lesson_step, run), NULL, NULL},
    ST_TEXT(predictor, "", "switch to this predictor when the step opens (none: no predictor)"),
    ST_TEXT(allocator, "", "switch to this allocator when the step opens"),
    ST_TEXT(add, "", "add this library kernel to the mix when the step opens"),
    ST_TEXT(remove, "", "remove the kernel of this name from the mix when the step opens"),
    {"set", CONF_CUSTOM, 0, 0, NULL, NULL,
     "a list [\"KEY=VALUE\", ...] of up to 8 parameter changes, as the e editor makes them", 0,
     NULL, NULL},
    {"view", CONF_CHOICE, 0, 0, "none", NULL,
     "the panel to show: kernels, chart, smmap, system, dram, log or explain",
     offsetof(struct lesson_step, view), lesson_view_names, NULL},
    {"predict", CONF_BOOL, 0, 0, "false", NULL,
     "predict, then reveal: hide true NP, fairness and STP until the class has guessed",
     offsetof(struct lesson_step, predict), NULL, NULL},
};
const struct conf_table lesson_step_table = {"lesson step", step_settings,
                                             CORUN_ARRAY_LEN(step_settings), "lesson"};

#define MAX_STEPS 32

static int line_of(const config_setting_t *s)
{
    return (int)config_setting_source_line(s);
}

static void load_sets(struct lesson *l, struct lesson_step *st, const config_setting_t *set,
                      const char *where, struct diag *d)
{
    int len = config_setting_length(set);
    int type = config_setting_type(set);
    if ((type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST) || len > LESSON_MAX_SETS) {
        diag_add(d, "%s:%d: %s.set: expected an array [\"KEY=VALUE\", ...] of up to %d changes",
                 l->path, line_of(set), where, LESSON_MAX_SETS);
        return;
    }
    for (int i = 0; i < len; i++) {
        const char *v = config_setting_get_string_elem(set, i);
        const char *eq = v ? strchr(v, '=') : NULL;
        if (!eq || eq == v || !eq[1]) {
            diag_add(d, "%s:%d: %s.set[%d]: expected \"KEY=VALUE\" (e.g. \"hp_share=0.25\")",
                     l->path, line_of(set), where, i);
            continue;
        }
        st->set[st->nset++] = xstrdup(v);
    }
}

/* A required line given as "": the panel and `lesson list` would show nothing (check said ok);
 * or with a line break, tab or other control character, which broke the panel's frame (its
 * title row drawn over the next). prefix names the group ("steps[2]." or ""). */
static void require_text(const struct lesson *l, const config_setting_t *group, const char *key,
                         const char *value, const char *prefix, struct diag *d)
{
    const config_setting_t *s = config_setting_get_member(group, key);
    if (!s || !value)
        return;
    size_t at = 0;
    while (value[at] && (unsigned char)value[at] >= 0x20 && value[at] != 0x7f)
        at++;
    if (!*value)
        diag_add(d, "%s:%d: %s%s: expected some text, got an empty string", l->path, line_of(s),
                 prefix, key);
    else if (value[at])
        diag_add(d, "%s:%d: %s%s: expected one line, got %s at character %zu", l->path, line_of(s),
                 prefix, key,
                 value[at] == '\n'   ? "a line break"
                 : value[at] == '\t' ? "a tab"
                                     : "a control character",
                 at + 1);
}

static void load_step(struct lesson *l, size_t i, const config_setting_t *ss, struct diag *d)
{
    struct lesson_step *st = &l->steps[i];
    st->line = line_of(ss);
    char *where = xasprintf("steps[%zu]", i);
    if (config_setting_type(ss) != CONFIG_TYPE_GROUP) {
        diag_add(d, "%s:%d: %s: expected a group { title = \"...\"; text = \"...\"; ... }", l->path,
                 st->line, where);
        free(where);
        return;
    }
    char *prefix = xasprintf("%s.", where);
    conf_apply(&lesson_step_table, (const struct conf_group *)ss, st, CONF_FULL, l->path, prefix,
               d);
    require_text(l, ss, "title", st->title, prefix, d);
    free(prefix);
    const config_setting_t *set = config_setting_get_member(ss, "set");
    if (set)
        load_sets(l, st, set, where, d);
    free(where);
}

/* The lesson's scenario: an absolute path, else a path relative to the lesson file's own
 * directory (a teacher's lesson beside its scenario, which comes first: a copy of a shipped
 * scenario edited beside the lesson was passed over for the shipped one), else to
 * DATADIR/scenarios (a shipped lesson's). */
static void load_scenario(struct lesson *l, const config_setting_t *root, const char *datadir,
                          struct diag *d)
{
    if (!l->scenario)
        return;
    const config_setting_t *sc = config_setting_get_member(root, "scenario");
    l->scenario_line = sc ? line_of(sc) : 0;
    struct stat st;
    const char *slash = strrchr(l->path, '/');
    if (l->scenario[0] == '/')
        l->scenario_path = xstrdup(l->scenario);
    else
        l->scenario_path =
            xasprintf("%.*s%s", slash ? (int)(slash - l->path + 1) : 0, l->path, l->scenario);
    if (stat(l->scenario_path, &st) == 0 && S_ISREG(st.st_mode))
        return;
    if (l->scenario[0] != '/') {
        char *shipped = xasprintf("%s/scenarios/%s", datadir, l->scenario);
        if (stat(shipped, &st) == 0 && S_ISREG(st.st_mode)) {
            free(l->scenario_path);
            l->scenario_path = shipped;
            return;
        }
        free(shipped);
        diag_add(d,
                 "%s:%d: scenario: no scenario file \"%s\" beside the lesson or in %s/scenarios "
                 "(expected a path relative to either, e.g. \"demo-pair.cfg\", or an absolute "
                 "one)",
                 l->path, sc ? line_of(sc) : 0, l->scenario, datadir);
        return;
    }
    diag_add(d, "%s:%d: scenario: no scenario file \"%s\"", l->path, sc ? line_of(sc) : 0,
             l->scenario);
}

static char *stem_of(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (n > 4 && strcmp(base + n - 4, ".cfg") == 0)
        n -= 4;
    return xasprintf("%.*s", (int)n, base);
}

int lesson_load(const char *path, const char *datadir, struct lesson *out, struct diag *diags)
{
    memset(out, 0, sizeof(*out));
    out->path = xstrdup(path);
    out->name = stem_of(path);
    size_t before = diags->count;
    struct conf_file *f = confread_open(path, diags);
    if (!f)
        return -1;
    char *hint = confread_kind_hint(f, path, "steps", "a lesson");
    if (hint) { /* a scenario or suite given for a lesson: say so, not its every setting */
        diag_add(diags, "%s", hint);
        free(hint);
        confread_close(f);
        return -1;
    }
    conf_apply(&lesson_table, confread_root(f), out, CONF_FULL, path, "", diags);
    const config_setting_t *root = (const config_setting_t *)confread_root(f);
    require_text(out, root, "title", out->title, "", diags);
    require_text(out, root, "summary", out->summary, "", diags);
    load_scenario(out, root, datadir, diags);
    const config_setting_t *ss = config_setting_get_member(root, "steps");
    int n = ss ? config_setting_length(ss) : 0;
    if (!ss) {
        diag_add(diags,
                 "%s: steps: required setting is missing (expected a list ( {...}, ... ) "
                 "of 1 to %d steps)",
                 path, MAX_STEPS);
    } else if (config_setting_type(ss) != CONFIG_TYPE_LIST || n < 1 || n > MAX_STEPS) {
        diag_add(diags, "%s:%d: steps: expected a list ( {...}, ... ) of 1 to %d steps", path,
                 line_of(ss), MAX_STEPS);
    } else {
        out->nsteps = (size_t)n;
        out->steps = xcalloc(out->nsteps, sizeof(*out->steps));
        for (size_t i = 0; i < out->nsteps; i++)
            load_step(out, i, config_setting_get_elem(ss, (unsigned)i), diags);
    }
    confread_close(f);
    return diags->count > before ? -1 : 0;
}

void lesson_done(struct lesson *l)
{
    for (size_t i = 0; i < l->nsteps; i++) {
        for (unsigned k = 0; k < l->steps[i].nset; k++)
            free(l->steps[i].set[k]);
        conf_free_strings(&lesson_step_table, &l->steps[i]);
    }
    free(l->steps);
    conf_free_strings(&lesson_table, l);
    free(l->scenario_path);
    free(l->name);
    free(l->path);
    memset(l, 0, sizeof(*l));
}

int lesson_probe(const char *path)
{
    static const char *const keys[] = {"steps", "summary", "title"};
    return confread_probe_any(path, keys, CORUN_ARRAY_LEN(keys));
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

char **lesson_names(const char *datadir, size_t *n)
{
    char *dir = xasprintf("%s/scenarios/lessons", datadir);
    DIR *d = opendir(dir);
    free(dir);
    char **names = xcalloc(1, sizeof(*names));
    *n = 0;
    if (!d)
        return names;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || strcmp(e->d_name + len - 4, ".cfg") != 0 || e->d_name[0] == '.')
            continue;
        names = xrealloc(names, (*n + 2) * sizeof(*names));
        names[(*n)++] = stem_of(e->d_name);
        names[*n] = NULL;
    }
    closedir(d);
    qsort(names, *n, sizeof(*names), by_name);
    return names;
}

char *lesson_path(const char *datadir, const char *name)
{
    if (!*name || strchr(name, '/') || name[0] == '.')
        return NULL;
    return xasprintf("%s/scenarios/lessons/%s.cfg", datadir, name);
}
