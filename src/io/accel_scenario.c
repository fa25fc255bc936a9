/* accel_scenario — loading and validating accelerator scenarios and application profiles. */
#include "corun/accel_scenario.h"

#include <libconfig.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/confread.h"
#include "corun/preset.h"
#include "corun/util.h"

static const char *const mode_names[] = {"spatial", "accelerator", NULL};
static const char *const type_names[] = {"h2d", "kernel", "d2h", NULL};
static const char *const copy_names[] = {"shared", "exclusive", NULL};
static const char *const role_names[] = {"ls", "batch", NULL};
static const char *const arrival_names[] = {"closed", "poisson", NULL};

#define SC_FIELD(field_, type_, def_, lo_, hi_, unit_, help_)                                      \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, unit_, help_, offsetof(struct accel_scenario, field_),     \
            NULL, NULL                                                                             \
    }

static const struct conf_setting scenario_settings[] = {
    {"mode", CONF_CUSTOM, 0, 0, NULL, NULL,
     "\"accelerator\": applications share a non-preemptive GPU as streams of tasks", 0, NULL, NULL},
    SC_FIELD(name, CONF_STRING, NULL, 1, 0, NULL, "a short title, shown in the header"),
    SC_FIELD(description, CONF_STRING, "", 0, 0, NULL, "what the scenario explores"),
    {"gpu", CONF_STRING, 0, 0, NULL, NULL, "GPU preset: the stem of a file in data/gpus (k40)",
     offsetof(struct accel_scenario, gpu_name), NULL, NULL},
    SC_FIELD(seed, CONF_U64, "1", 0, 1e18, NULL, "seed of every random stream (Poisson arrivals)"),
    SC_FIELD(warmup_ms, CONF_FLOAT, "0", 0, 10000, "ms",
             "the batch applications run this long before the LS queries start arriving (0: "
             "all from the start, when every batch instance begins its first task at once); "
             "the solo runs have no warm-up; predictions need 0"),
    {"applications", CONF_CUSTOM, 0, 0, NULL, NULL,
     "a list ( {...}, ... ) of applications, each with the settings of an application entry", 0,
     NULL, NULL},
};
const struct conf_table accel_scenario_table = {"accelerator scenario", scenario_settings,
                                                CORUN_ARRAY_LEN(scenario_settings), "accelerator"};

#define APP_FIELD(field_, type_, def_, lo_, hi_, unit_, help_)                                     \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, unit_, help_, offsetof(struct accel_app, field_), NULL,    \
            NULL                                                                                   \
    }

static const struct conf_setting app_settings[] = {
    APP_FIELD(name, CONF_STRING, NULL, 1, 0, NULL,
              "the application: data/apps/NAME.cfg gives its tasks unless `tasks` is set"),
    {"role", CONF_CHOICE, 0, 0, NULL, NULL,
     "ls (latency-sensitive: issues queries, has a QoS target) or batch (loops)",
     offsetof(struct accel_app, role), role_names, NULL},
    APP_FIELD(instances, CONF_UINT, "1", 1, 15, NULL,
              "batch: copies that run side by side (at most 16 processes on the GPU in all, MPS's "
              "limit)"),
    APP_FIELD(stagger_ms, CONF_FLOAT, "0", 0, 10000, "ms",
              "batch: instance j of the n begins its first pass j x stagger_ms / n late, so the "
              "instances are out of step (0: all at once); predictions need 0"),
    {"arrival", CONF_CHOICE, 0, 0, "closed", NULL,
     "ls: closed (the next query when the last one completes) or poisson (at rate_qps)",
     offsetof(struct accel_app, arrival), arrival_names, NULL},
    APP_FIELD(rate_qps, CONF_FLOAT, "0", 0.001, 1e6, "queries/s", "ls, poisson: mean arrival rate"),
    APP_FIELD(queries, CONF_UINT, "100", 1, 1000000, "queries", "ls: queries measured"),
    APP_FIELD(qos_target, CONF_FLOAT, "0", 1, 100, "x solo p99",
              "ls, required: 99th-percentile latency bound, as a multiple of the solo one"),
    {"tasks", CONF_CUSTOM, 0, 0, NULL, NULL,
     "its own trace instead of data/apps/NAME.cfg: a list of tasks, each with the settings of a "
     "task",
     0, NULL, NULL},
};
const struct conf_table accel_app_table = {"application entry", app_settings,
                                           CORUN_ARRAY_LEN(app_settings), "accelerator"};

static const struct conf_setting task_settings[] = {
    {"type", CONF_CHOICE, 0, 0, NULL, NULL,
     "h2d (copy to the GPU), kernel, d2h (copy back); an application's tasks run in order",
     offsetof(struct accel_task, type), type_names, NULL},
    {"bytes", CONF_U64, 1, 1ull << 40, "0", "bytes", "copies, required: bytes moved",
     offsetof(struct accel_task, bytes), NULL, NULL},
    {"copy", CONF_CHOICE, 0, 0, "shared", NULL,
     "copies: shared (pageable: shares the link) or exclusive (pinned: takes it whole)",
     offsetof(struct accel_task, copy), copy_names, NULL},
    {"kernel", CONF_CUSTOM, 0, 0, NULL, NULL,
     "kernels, required: a kernel's name (built in or data/kernels) or its profile inline "
     "{ ... } (see `corun help kernel`); one kernel, without phases",
     0, NULL, NULL},
};
const struct conf_table accel_task_table = {"task", task_settings, CORUN_ARRAY_LEN(task_settings),
                                            "accelerator"};

static int line_of(const config_setting_t *s)
{
    return (int)config_setting_source_line(s);
}

static void load_task_kernel(struct accel_task *t, const config_setting_t *ts, const char *file,
                             const char *prefix, const char *owner, unsigned i, const char *datadir,
                             struct diag *d)
{
    const config_setting_t *ks = config_setting_get_member(ts, "kernel");
    if (t->type != ACCEL_KERNEL) {
        if (ks)
            diag_add(d, "%s:%d: %skernel: only a kernel task runs a kernel (this one is %s)", file,
                     line_of(ks), prefix, type_names[t->type]);
        return;
    }
    if (!ks) {
        diag_add(d,
                 "%s:%d: %skernel: required for a kernel task (expected a kernel's name or its "
                 "profile inline { ... })",
                 file, line_of(ts), prefix);
        return;
    }
    if (config_setting_type(ks) == CONFIG_TYPE_STRING) {
        char *where = xasprintf("%s:%d: %skernel", file, line_of(ks), prefix);
        /* A task launches one grid: a library kernel of phases was taken here, and its run
         * failed at the launch (exit 1), as an inline one with phases is refused. */
        if (preset_kernel_find(datadir, config_setting_get_string(ks), where, &t->kernel, d) == 0 &&
            t->kernel.nphases)
            diag_add(d,
                     "%s: kernel \"%s\" has %u phases (expected one kernel per task: list each "
                     "phase as a kernel task of its own)",
                     where, t->kernel.name, t->kernel.nphases);
        free(where);
    } else if (config_setting_is_group(ks)) {
        char *sub = xasprintf("%skernel.", prefix);
        char *name = xasprintf("%s-k%u", owner, i);
        preset_kernel_from_group((const struct conf_group *)ks, file, sub, name, &t->kernel, d);
        free(name);
        free(sub);
    } else {
        diag_add(d, "%s:%d: %skernel: expected a kernel's name or its profile inline { ... }", file,
                 line_of(ks), prefix);
    }
}

/* The list ts of tasks into t; prefix names the list ("tasks" or "applications[0].tasks"). */
static void load_tasks(struct accel_trace *t, const config_setting_t *ts, const char *file,
                       const char *prefix, const char *owner, const char *datadir, struct diag *d)
{
    int n = config_setting_is_list(ts) ? config_setting_length(ts) : -1;
    if (n < 1 || n > ACCEL_MAX_TASKS) {
        diag_add(d, "%s:%d: %s: expected a list ( {...}, ... ) of 1 to %d tasks, got %s", file,
                 line_of(ts), prefix, ACCEL_MAX_TASKS,
                 n < 0 ? "something else" : (n < 1 ? "an empty list" : "too many tasks"));
        return;
    }
    t->ntasks = (unsigned)n;
    t->tasks = xcalloc((size_t)n, sizeof(*t->tasks));
    for (unsigned i = 0; i < t->ntasks; i++) {
        const config_setting_t *e = config_setting_get_elem(ts, i);
        char *p = xasprintf("%s[%u].", prefix, i);
        if (!config_setting_is_group(e)) {
            diag_add(d, "%s:%d: %s[%u]: expected a group { type = \"...\"; ... }", file, line_of(e),
                     prefix, i);
            free(p);
            continue;
        }
        struct accel_task *k = &t->tasks[i];
        size_t before = d->count;
        conf_apply(&accel_task_table, (const struct conf_group *)e, k, CONF_FULL, file, p, d);
        if (d->count == before) {
            const config_setting_t *bs = config_setting_get_member(e, "bytes");
            if (k->type != ACCEL_KERNEL && k->bytes == 0)
                diag_add(d,
                         "%s:%d: %sbytes: required for a copy (expected an integer from 1 to "
                         "1099511627776)",
                         file, line_of(e), p);
            else if (k->type == ACCEL_KERNEL && bs)
                diag_add(d, "%s:%d: %sbytes: a kernel task moves no bytes over the link", file,
                         line_of(bs), p);
            const config_setting_t *cs = config_setting_get_member(e, "copy");
            if (k->type == ACCEL_KERNEL && cs)
                diag_add(d,
                         "%s:%d: %scopy: a kernel task moves no bytes over the link (copy is "
                         "an h2d or d2h task's)",
                         file, line_of(cs), p);
            load_task_kernel(k, e, file, p, owner, i, datadir, d);
        }
        free(p);
    }
}

void accel_trace_done(struct accel_trace *t)
{
    for (unsigned i = 0; t->tasks && i < t->ntasks; i++)
        kernel_profile_done(&t->tasks[i].kernel);
    free(t->tasks);
    free(t->description);
    free(t->source);
    memset(t, 0, sizeof(*t));
}

static const struct conf_setting trace_settings[] = {
    {"description", CONF_STRING, 0, 0, "", NULL, "what the application does",
     offsetof(struct accel_trace, description), NULL, NULL},
    {"source", CONF_STRING, 1, 0, NULL, NULL, "where its numbers come from",
     offsetof(struct accel_trace, source), NULL, NULL},
    {"tasks", CONF_CUSTOM, 0, 0, NULL, NULL, "its trace: a list of tasks run in order", 0, NULL,
     NULL},
};
/* No help lists a profile's own three settings (`corun help accelerator` lists its tasks'). */
static const struct conf_table trace_table = {"application profile", trace_settings,
                                              CORUN_ARRAY_LEN(trace_settings), NULL};

int accel_trace_load(const char *datadir, const char *name, struct accel_trace *t,
                     struct diag *diags)
{
    char *path = xasprintf("%s/data/apps/%s.cfg", datadir, name);
    int rc = accel_trace_load_path(path, name, datadir, t, diags);
    free(path);
    return rc;
}

int accel_trace_load_path(const char *path, const char *name, const char *datadir,
                          struct accel_trace *t, struct diag *diags)
{
    memset(t, 0, sizeof(*t));
    size_t before = diags->count;
    struct conf_file *f = confread_open(path, diags);
    if (f) {
        conf_apply(&trace_table, confread_root(f), t, CONF_FULL, path, "", diags);
        const config_setting_t *ts =
            config_setting_get_member((const config_setting_t *)confread_root(f), "tasks");
        if (!ts)
            diag_add(diags, "%s: tasks: required setting is missing (expected a list of tasks)",
                     path);
        else
            load_tasks(t, ts, path, "tasks", name, datadir, diags);
        confread_close(f);
    }
    if (diags->count != before) {
        accel_trace_done(t);
        return -1;
    }
    return 0;
}

/* The line of task k's kernel in the list ts (NULL: none) that the refusal why concerns: of
 * the setting it names in an inline profile, else of the kernel, else of the task; 0 when ts
 * has no such task. */
static int task_kernel_line(const config_setting_t *ts, unsigned k, const char *why)
{
    const config_setting_t *te =
        ts && config_setting_is_list(ts) ? config_setting_get_elem(ts, k) : NULL;
    const config_setting_t *ks =
        te && config_setting_is_group(te) ? config_setting_get_member(te, "kernel") : NULL;
    if (!ks)
        return te ? line_of(te) : 0;
    int line = config_setting_is_group(ks)
                   ? preset_kernel_refusal_line((const struct conf_group *)ks, why)
                   : 0;
    return line ? line : line_of(ks);
}

/* ":LINE" of task_kernel_line in the application profile at path, read again for its lines
 * as preset_kernel_check reads a kernel file; "" when it cannot be read. */
static void profile_kernel_at(const char *path, unsigned k, const char *why, char *at, size_t len)
{
    struct diag quiet;
    diag_init(&quiet);
    struct conf_file *f = confread_open(path, &quiet);
    const config_setting_t *ts =
        f ? config_setting_get_member((const config_setting_t *)confread_root(f), "tasks") : NULL;
    int line = task_kernel_line(ts, k, why);
    if (line)
        snprintf(at, len, ":%d", line);
    else
        snprintf(at, len, "%s", "");
    confread_close(f);
    diag_done(&quiet);
}

unsigned accel_trace_check_gpu(const char *path, const struct accel_trace *t,
                               const struct gpu_config *gpu, const char *gpu_name,
                               struct diag *diags)
{
    unsigned misfits = 0;
    for (unsigned k = 0; k < t->ntasks; k++) {
        char why[256], at[24];
        if (t->tasks[k].type != ACCEL_KERNEL ||
            gpu_profile_check(gpu, &t->tasks[k].kernel, why, sizeof why) == 0)
            continue;
        profile_kernel_at(path, k, why, at, sizeof at);
        diag_add(diags, "%s%s: tasks[%u].kernel: on GPU %s: %s", path, at, k, gpu_name, why);
        misfits++;
    }
    return misfits;
}

/* The settings that mean something for one role only. */
static void check_role(const struct accel_app *a, const config_setting_t *e, const char *file,
                       const char *p, struct diag *d)
{
    static const char *const ls_only[] = {"arrival", "rate_qps", "queries", "qos_target"};
    if (a->role == ACCEL_BATCH) {
        for (size_t i = 0; i < CORUN_ARRAY_LEN(ls_only); i++) {
            const config_setting_t *s = config_setting_get_member(e, ls_only[i]);
            if (s)
                diag_add(d, "%s:%d: %s%s: only an LS application has it (this one is batch)", file,
                         line_of(s), p, ls_only[i]);
        }
        return;
    }
    const config_setting_t *is = config_setting_get_member(e, "instances");
    if (is)
        diag_add(d, "%s:%d: %sinstances: an LS application runs once (batch ones may repeat)", file,
                 line_of(is), p);
    const config_setting_t *st = config_setting_get_member(e, "stagger_ms");
    if (st)
        diag_add(d, "%s:%d: %sstagger_ms: only a batch application has it (this one is LS)", file,
                 line_of(st), p);
    if (!config_setting_get_member(e, "qos_target"))
        diag_add(d,
                 "%s:%d: %sqos_target: required for an LS application (expected a number from 1 "
                 "to 100: its 99th-percentile latency bound as a multiple of the solo one)",
                 file, line_of(e), p);
    if (a->arrival == ACCEL_POISSON && !config_setting_get_member(e, "rate_qps"))
        diag_add(d,
                 "%s:%d: %srate_qps: required for Poisson arrivals (expected a number from "
                 "0.001 to 1000000 queries per second)",
                 file, line_of(e), p);
    else if (a->arrival == ACCEL_CLOSED && config_setting_get_member(e, "rate_qps"))
        diag_add(d,
                 "%s:%d: %srate_qps: closed-loop queries have no rate (set arrival = "
                 "\"poisson\" for one)",
                 file, line_of(config_setting_get_member(e, "rate_qps")), p);
}

static void load_app(struct accel_scenario *sc, unsigned i, const config_setting_t *e,
                     const char *datadir, struct diag *d)
{
    struct accel_app *a = &sc->apps[i];
    char *p = xasprintf("applications[%u].", i);
    if (!config_setting_is_group(e)) {
        diag_add(d, "%s:%d: applications[%u]: expected a group { name = \"...\"; ... }", sc->path,
                 line_of(e), i);
        free(p);
        return;
    }
    conf_apply(&accel_app_table, (const struct conf_group *)e, a, CONF_FULL, sc->path, p, d);
    const config_setting_t *rs = config_setting_get_member(e, "role");
    const char *role = rs ? config_setting_get_string(rs) : NULL;
    if (role && (strcmp(role, "ls") == 0 || strcmp(role, "batch") == 0))
        check_role(a, e, sc->path, p, d);
    const config_setting_t *ts = config_setting_get_member(e, "tasks");
    if (ts) {
        char *list = xasprintf("applications[%u].tasks", i);
        load_tasks(&a->trace, ts, sc->path, list, a->name ? a->name : "app", datadir, d);
        free(list);
    } else if (a->name) {
        struct name_list known;
        char *dir = xasprintf("%s/data/apps", datadir);
        preset_cfg_names(dir, &known);
        free(dir);
        if (name_list_has(&known, a->name)) {
            accel_trace_load(datadir, a->name, &a->trace, d);
        } else if (known.count == 0) {
            diag_add(d,
                     "%s:%d: %sname: unknown application \"%s\"; none is known (expected "
                     "data/apps/*.cfg under the data directory \"%s\", or its own tasks = "
                     "( ... ))",
                     sc->path, line_of(config_setting_get_member(e, "name")), p, a->name, datadir);
        } else {
            char *names = conf_known_names(a->name, (const char *const *)known.names, known.count);
            diag_add(d,
                     "%s:%d: %sname: unknown application \"%s\" (no data/apps/%s.cfg, no tasks = "
                     "( ... ) of its own)%s",
                     sc->path, line_of(config_setting_get_member(e, "name")), p, a->name, a->name,
                     names);
            free(names);
        }
        name_list_done(&known);
    }
    char why[256];
    for (unsigned k = 0; sc->gpu.sms && k < a->trace.ntasks; k++) {
        const struct accel_task *t = &a->trace.tasks[k];
        if (t->type != ACCEL_KERNEL || !t->kernel.name ||
            gpu_profile_check(&sc->gpu, &t->kernel, why, sizeof(why)) == 0)
            continue;
        /* The task's own line when the scenario lists the tasks; else the application's,
         * naming the profile whose task it is and the line there. */
        if (ts) {
            diag_add(d, "%s:%d: %stasks[%u].kernel: on GPU %s: %s", sc->path,
                     task_kernel_line(ts, k, why), p, k, sc->gpu_name, why);
        } else {
            char *profile = xasprintf("%s/data/apps/%s.cfg", datadir, a->name ? a->name : "?");
            char at[24];
            profile_kernel_at(profile, k, why, at, sizeof at);
            diag_add(d, "%s:%d: %stasks[%u].kernel (of data/apps/%s.cfg%s): on GPU %s: %s",
                     sc->path, line_of(e), p, k, a->name ? a->name : "?", at, sc->gpu_name, why);
            free(profile);
        }
    }
    free(p);
}

static void load_apps(struct accel_scenario *sc, const config_setting_t *root, const char *datadir,
                      struct diag *d)
{
    const config_setting_t *as = config_setting_get_member(root, "applications");
    if (!as) {
        diag_add(d,
                 "%s: applications: required setting is missing (expected a list ( {...}, ... ) "
                 "of 1 to %d applications)",
                 sc->path, ACCEL_MAX_APPS);
        return;
    }
    int n = config_setting_is_list(as) ? config_setting_length(as) : -1;
    if (n < 1 || n > ACCEL_MAX_APPS) {
        diag_add(d,
                 "%s:%d: applications: expected a list ( {...}, ... ) of 1 to %d "
                 "applications, got %s",
                 sc->path, line_of(as), ACCEL_MAX_APPS,
                 n < 0 ? "something else" : (n < 1 ? "an empty list" : "too many"));
        return;
    }
    sc->napps = (unsigned)n;
    for (unsigned i = 0; i < sc->napps; i++)
        load_app(sc, i, config_setting_get_elem(as, i), datadir, d);
    /* The rows, files and catalog tell applications apart by name: two of one name printed
     * rows that differed only in their numbers. */
    for (unsigned i = 1; i < sc->napps; i++)
        for (unsigned j = 0; j < i && sc->apps[i].name; j++)
            if (sc->apps[j].name && strcmp(sc->apps[i].name, sc->apps[j].name) == 0) {
                const config_setting_t *ns =
                    config_setting_get_member(config_setting_get_elem(as, i), "name");
                diag_add(d,
                         "%s:%d: applications[%u].name: \"%s\" is applications[%u]'s too "
                         "(expected a name of its own: a batch application repeats with "
                         "instances = N; another LS one needs its profile under another name)",
                         sc->path, line_of(ns), i, sc->apps[i].name, j);
                break;
            }
    unsigned processes = 0;
    for (unsigned i = 0; i < sc->napps; i++)
        processes += sc->apps[i].role == ACCEL_BATCH ? sc->apps[i].instances : 1;
    if (processes > ACCEL_MAX_APPS)
        diag_add(d,
                 "%s:%d: applications: expected at most %d processes on the GPU (MPS's limit; "
                 "each batch instance is one), got %u",
                 sc->path, line_of(as), ACCEL_MAX_APPS, processes);
}

static int load_parsed(struct accel_scenario *sc, struct conf_file *f, const char *datadir,
                       struct diag *d, size_t before)
{
    const config_setting_t *root = (const config_setting_t *)confread_root(f);
    sc->text = xstrdup(confread_text(f));
    const config_setting_t *ms = config_setting_get_member(root, "mode");
    const char *mode = ms ? config_setting_get_string(ms) : NULL;
    if (!mode || strcmp(mode, mode_names[1]) != 0) {
        diag_add(d, "%s:%d: mode: expected \"accelerator\" in an accelerator scenario", sc->path,
                 ms ? line_of(ms) : 0);
    } else {
        conf_apply(&accel_scenario_table, confread_root(f), sc, CONF_FULL, sc->path, "", d);
        const config_setting_t *gs = config_setting_get_member(root, "gpu");
        if (sc->gpu_name && gs) {
            char *where = xasprintf("%s:%d: gpu", sc->path, line_of(gs));
            preset_gpu_find(datadir, sc->gpu_name, where, &sc->gpu, d);
            free(where);
        }
        load_apps(sc, root, datadir, d);
    }
    confread_close(f);
    if (d->count != before) {
        char *path = xstrdup(sc->path);
        accel_scenario_done(sc);
        sc->path = path;
        return -1;
    }
    return 0;
}

int accel_scenario_load(struct accel_scenario *sc, const char *path, const char *datadir,
                        struct diag *diags)
{
    memset(sc, 0, sizeof(*sc));
    sc->path = xstrdup(path);
    size_t before = diags->count;
    struct conf_file *f = confread_open(path, diags);
    return f ? load_parsed(sc, f, datadir, diags, before) : -1;
}

int accel_scenario_load_text(struct accel_scenario *sc, const char *name, const char *text,
                             const char *datadir, struct diag *diags)
{
    memset(sc, 0, sizeof(*sc));
    sc->path = xstrdup(name);
    size_t before = diags->count;
    struct conf_file *f = confread_parse(name, text, diags);
    return f ? load_parsed(sc, f, datadir, diags, before) : -1;
}

void accel_scenario_done(struct accel_scenario *sc)
{
    for (unsigned i = 0; i < sc->napps; i++) {
        free(sc->apps[i].name);
        accel_trace_done(&sc->apps[i].trace);
    }
    free(sc->path);
    free(sc->text);
    free(sc->name);
    free(sc->description);
    free(sc->gpu_name);
    memset(sc, 0, sizeof(*sc));
}

int accel_scenario_probe(const char *path)
{
    if (!confread_probeable(path))
        return -1;
    config_t cfg;
    config_init(&cfg);
    int rc = -1;
    if (config_read_file(&cfg, path) == CONFIG_TRUE) {
        const char *mode = NULL;
        rc = config_lookup_string(&cfg, "mode", &mode) == CONFIG_TRUE &&
             strcmp(mode, mode_names[1]) == 0;
    }
    config_destroy(&cfg);
    return rc;
}

double accel_scenario_arrival_span(const struct accel_scenario *sc, unsigned *app)
{
    double longest = 0;
    *app = 0;
    for (unsigned a = 0; a < sc->napps; a++) {
        const struct accel_app *x = &sc->apps[a];
        if (x->role != ACCEL_LS || x->arrival != ACCEL_POISSON || !(x->rate_qps > 0))
            continue;
        double span = x->queries / x->rate_qps;
        if (span > longest) {
            longest = span;
            *app = a;
        }
    }
    return longest;
}
