/* scenario — loading and validating scenario files. */
#include "corun/scenario.h"

#include <ctype.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "corun/confread.h"
#include "corun/preset.h"
#include "corun/util.h"

static const char *const priority_names[] = {"low", "high", NULL};
static const char *const unassigned_names[] = {"idle", "gated", NULL};
static const char *const rounding_names[] = {"nearest", "down", NULL};

#define SC_FIELD(field_, type_, def_, lo_, hi_, unit_, help_)                                      \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, unit_, help_, offsetof(struct scenario, field_), NULL,     \
            NULL                                                                                   \
    }

static const struct conf_setting scenario_settings[] = {
    {"mode", CONF_CUSTOM, 0, 0, NULL, NULL,
     "\"spatial\" (the default: kernels own SMs) or \"accelerator\" (applications share the GPU "
     "as streams of tasks; `corun help accelerator`)",
     0, NULL, NULL},
    SC_FIELD(name, CONF_STRING, NULL, 1, 0, NULL, "a short title, shown in the header"),
    SC_FIELD(description, CONF_STRING, "", 0, 0, NULL, "what the scenario explores"),
    {"gpu", CONF_STRING, 0, 0, NULL, NULL, "GPU preset: the stem of a file in data/gpus",
     offsetof(struct scenario, gpu_name), NULL, NULL},
    {"gpu_overrides", CONF_CUSTOM, 0, 0, NULL, NULL,
     "a group of GPU settings that replace the preset's (see `corun help gpu`)", 0, NULL,
     &preset_gpu_table},
    SC_FIELD(seed, CONF_U64, "1", 0, 1e18, NULL, "seed of every random stream"),
    SC_FIELD(epochs, CONF_UINT, "10", 1, 1000000, "epochs", "run length"),
    SC_FIELD(epoch_cycles, CONF_UINT, "500000", 1000, 100000000, "core cycles",
             "epoch length: how often predictors and allocators act"),
    {"kernels", CONF_CUSTOM, 0, 0, NULL, NULL,
     "a list ( {...}, ... ) of 1 to 8 kernels, each with the settings below", 0, NULL,
     &scenario_kernel_table},
    {"unassigned_sms", CONF_CHOICE, 0, 0, "idle", NULL,
     "the SMs that kernels[].sms leave over at the start: idle (static power) or gated (none)",
     offsetof(struct scenario, unassigned_sms), unassigned_names, NULL},
    SC_FIELD(lesson, CONF_STRING, "", 0, 0, NULL,
             "narrative text: the workbench shows it before the first epoch and in its help"),
    SC_FIELD(predictor, CONF_STRING, "none", 0, 0, NULL,
             "slowdown predictor active from the first epoch (`corun help predictors` lists them)"),
    SC_FIELD(
        allocator, CONF_STRING, "static", 0, 0, NULL,
        "SM allocator deciding from the first epoch boundary (`corun help allocators` lists them)"),
    SC_FIELD(fairness_threshold, CONF_FLOAT, "0.9", 0.01, 1, NULL,
             "fair, themis-engine: rebalance when fairness is below it"),
    SC_FIELD(qos_upper, CONF_FLOAT, "0.9", 0.01, 1, NULL,
             "qos: shrink the high-priority kernel when its NP is above it"),
    SC_FIELD(hp_share, CONF_FLOAT, "0.8", 0.01, 1, NULL,
             "proportional: the high-priority kernel's share of the SMs"),
    SC_FIELD(smqos_policy, CONF_FLOAT, "0.9", 0.01, 1, NULL,
             "smqos, static-smqos: IPC target as a fraction of the isolated IPC"),
    SC_FIELD(smqos_interval, CONF_UINT, "10000", 1000, 100000000, "core cycles",
             "smqos: how often it moves one SM"),
    SC_FIELD(smqos_threshold, CONF_FLOAT, "0.01", 0.001, 0.5, NULL,
             "smqos: the relative IPC change of a batch kernel that counts as a gain or a loss "
             "when it learns opt_k (Algorithm 2)"),
    SC_FIELD(smqos_batch_min, CONF_UINT, "1", 0, 1, "SMs",
             "smqos: the fewest SMs it leaves a batch kernel when the LS kernel needs one (the "
             "paper does not say; 0 lets the LS kernel take every SM)"),
    {"static_smqos_rounding", CONF_CHOICE, 0, 0, "nearest", NULL,
     "static-smqos: smqos_policy x SMs rounded to the nearest SM (0.95 x 24: 23) or down (22); "
     "the paper does not say",
     offsetof(struct scenario, static_smqos_rounding), rounding_names, NULL},
};
const struct conf_table scenario_table = {"scenario", scenario_settings,
                                          CORUN_ARRAY_LEN(scenario_settings), "scenario"};

#define SK_FIELD(field_, type_, def_, lo_, hi_, help_)                                             \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, NULL, help_, offsetof(struct scenario_kernel, field_),     \
            NULL, NULL                                                                             \
    }

static const struct conf_setting kernel_entry_settings[] = {
    SK_FIELD(name, CONF_STRING, NULL, 0, 0, "kernel: built-in or the stem of a data/kernels file"),
    {"priority", CONF_CHOICE, 0, 0, "low", NULL, "high: the QoS allocator protects it",
     offsetof(struct scenario_kernel, priority), priority_names, NULL},
    SK_FIELD(qos_target, CONF_FLOAT, "0.8", 0.01, 1, "normalized progress to keep (high priority)"),
    SK_FIELD(weight, CONF_FLOAT, "0", 0, 1,
             "weighted-fairness share; 0 in every kernel means equal, else they sum to 1"),
    SK_FIELD(sms, CONF_UINT, "0", 0, 1024,
             "SMs at the start; 0 in every kernel means an even split, else at most the GPU's"),
};
const struct conf_table scenario_kernel_table = {
    "kernel entry", kernel_entry_settings, CORUN_ARRAY_LEN(kernel_entry_settings), "scenario"};

static const config_setting_t *member(const struct conf_file *f, const char *name)
{
    return config_setting_get_member((const config_setting_t *)confread_root(f), name);
}

static int line_of(const config_setting_t *s)
{
    return (int)config_setting_source_line(s);
}

static void load_gpu(struct scenario *sc, const struct conf_file *f, const char *datadir,
                     struct diag *d)
{
    const config_setting_t *gs = member(f, "gpu");
    if (!sc->gpu_name || !gs)
        return; /* missing: already reported by the table */
    char *where = xasprintf("%s:%d: gpu", sc->path, line_of(gs));
    int rc = preset_gpu_find(datadir, sc->gpu_name, where, &sc->gpu, d);
    free(where);
    if (rc != 0)
        return;
    const config_setting_t *ov = member(f, "gpu_overrides");
    if (ov && config_setting_type(ov) != CONFIG_TYPE_GROUP)
        diag_add(d, "%s:%d: gpu_overrides: expected a group { ... } of gpu settings", sc->path,
                 line_of(ov));
    else if (ov && conf_apply(&preset_gpu_table, (const struct conf_group *)ov, &sc->gpu,
                              CONF_OVERLAY, sc->path, "gpu_overrides.", d) == 0) {
        /* What the core refuses across settings (a line size, a cache's geometry), here, so
         * that `check` and `run` agree and the message names the place. */
        char why[256];
        if (gpu_config_check(&sc->gpu, why, sizeof(why)) != 0)
            diag_add(d, "%s:%d: gpu_overrides: %s", sc->path, line_of(ov), why);
    }
}

static void load_kernel(struct scenario *sc, unsigned i, const config_setting_t *ks,
                        const char *datadir, struct diag *d)
{
    struct scenario_kernel *k = &sc->kernels[i];
    if (config_setting_type(ks) != CONFIG_TYPE_GROUP) {
        diag_add(d, "%s:%d: kernels[%u]: expected a group { name = \"...\"; ... }", sc->path,
                 line_of(ks), i);
        return;
    }
    char *prefix = xasprintf("kernels[%u].", i);
    conf_apply(&scenario_kernel_table, (const struct conf_group *)ks, k, CONF_FULL, sc->path,
               prefix, d);
    free(prefix);
    if (!k->name)
        return; /* missing: already reported by the table */
    char *where = xasprintf("%s:%d: kernels[%u].name", sc->path,
                            line_of(config_setting_get_member(ks, "name")), i);
    size_t before = d->count;
    if (strlen(k->name) >= SCENARIO_KERNEL_NAME_MAX) /* check took it, run --out did not */
        diag_add(d,
                 "%s: \"%s\" has %zu bytes (expected at most %d, the longest name a run file "
                 "keeps)",
                 where, k->name, strlen(k->name), SCENARIO_KERNEL_NAME_MAX - 1);
    else
        preset_kernel_find(datadir, k->name, where, &k->profile, d);
    char why[256];
    if (d->count == before && sc->gpu.sms &&
        preset_kernel_check(datadir, NULL, &sc->gpu, &k->profile, why, sizeof(why)) != 0)
        diag_add(d, "%s: on GPU %s: %s", where, sc->gpu_name, why);
    free(where);
}

static void load_kernels(struct scenario *sc, const struct conf_file *f, const char *datadir,
                         struct diag *d)
{
    const config_setting_t *ks = member(f, "kernels");
    if (!ks) {
        diag_add(d,
                 "%s: kernels: required setting is missing (expected a list ( {...}, ... ) of "
                 "1 to %d kernels)",
                 sc->path, SCENARIO_MAX_KERNELS);
        return;
    }
    int type = config_setting_type(ks);
    int n = config_setting_length(ks);
    if (type != CONFIG_TYPE_LIST || n < 1 || n > SCENARIO_MAX_KERNELS) {
        diag_add(d, "%s:%d: kernels: expected a list ( {...}, ... ) of 1 to %d kernels, got %s",
                 sc->path, line_of(ks), SCENARIO_MAX_KERNELS,
                 type != CONFIG_TYPE_LIST ? "something else"
                                          : (n < 1 ? "an empty list" : "too many kernels"));
        return;
    }
    sc->nkernels = (unsigned)n;
    for (unsigned i = 0; i < sc->nkernels; i++)
        load_kernel(sc, i, config_setting_get_elem(ks, i), datadir, d);

    double sum = 0;
    unsigned weighted = 0;
    for (unsigned i = 0; i < sc->nkernels; i++) {
        sum += sc->kernels[i].weight;
        weighted += sc->kernels[i].weight > 0;
    }
    unsigned split = 0, with_sms = 0;
    for (unsigned i = 0; i < sc->nkernels; i++) {
        split += sc->kernels[i].sms;
        with_sms += sc->kernels[i].sms > 0;
    }
    if (with_sms && (with_sms != sc->nkernels || split > sc->gpu.sms))
        diag_add(d,
                 "%s:%d: kernels: expected sms that are all 0 (an even split) or all positive "
                 "and adding up to at most %u, got %u SMs over %u of %u kernels",
                 sc->path, line_of(ks), sc->gpu.sms, split, with_sms, sc->nkernels);
    if (weighted && (weighted != sc->nkernels || fabs(sum - 1.0) > 1e-6))
        diag_add(d,
                 "%s:%d: kernels: expected weights that are all 0 (equal shares) or all "
                 "positive and summing to 1, got a sum of %g over %u of %u kernels",
                 sc->path, line_of(ks), sum, weighted, sc->nkernels);
}

/* Validate the parsed file f (consumed) into sc. */
static int load_parsed(struct scenario *sc, const char *path, struct conf_file *f,
                       const char *datadir, struct diag *diags, size_t before)
{
    sc->text = xstrdup(confread_text(f));
    const config_setting_t *ms = member(f, "mode");
    const char *mode = ms ? config_setting_get_string(ms) : "spatial";
    if (!mode || strcmp(mode, "spatial") != 0) {
        if (mode && strcmp(mode, "accelerator") == 0)
            diag_add(diags,
                     "%s:%d: mode: an accelerator scenario (`corun check` validates it); this "
                     "command needs a spatial one",
                     path, line_of(ms));
        else
            diag_add(diags, "%s:%d: mode: expected \"spatial\" or \"accelerator\"", path,
                     line_of(ms));
        confread_close(f);
        scenario_done(sc);
        sc->path = xstrdup(path);
        return -1;
    }
    char *hint = confread_kind_hint(f, path, "kernels", "a scenario");
    if (hint) { /* a suite or lesson given for a scenario: say so, not its every setting */
        diag_add(diags, "%s", hint);
        free(hint);
        confread_close(f);
        scenario_done(sc);
        sc->path = xstrdup(path);
        return -1;
    }
    conf_apply(&scenario_table, confread_root(f), sc, CONF_FULL, path, "", diags);
    load_gpu(sc, f, datadir, diags);
    load_kernels(sc, f, datadir, diags);
    const config_setting_t *ps = member(f, "predictor");
    sc->predictor_line = ps ? line_of(ps) : 0;
    const config_setting_t *as = member(f, "allocator");
    sc->allocator_line = as ? line_of(as) : 0;
    /* An empty name was taken for the default, unsaid (an unknown one is refused). */
    if (ps && sc->predictor && !*sc->predictor)
        diag_add(diags,
                 "%s:%d: predictor: expected a name (`corun help predictors`; none for no "
                 "predictor), got an empty string",
                 path, sc->predictor_line);
    if (as && sc->allocator && !*sc->allocator)
        diag_add(diags,
                 "%s:%d: allocator: expected a name (`corun help allocators`; static keeps the "
                 "partition), got an empty string",
                 path, sc->allocator_line);
    if (diags->count == before && sc->nkernels > sc->gpu.sms) {
        const config_setting_t *ks = member(f, "kernels");
        diag_add(diags, "%s:%d: kernels: expected at most %u kernels (one SM each on %s), got %u",
                 path, ks ? line_of(ks) : 0, sc->gpu.sms, sc->gpu_name, sc->nkernels);
    }
    confread_close(f);
    if (diags->count != before) {
        scenario_done(sc);
        sc->path = xstrdup(path);
        return -1;
    }
    return 0;
}

int scenario_load(struct scenario *sc, const char *path, const char *datadir, struct diag *diags)
{
    memset(sc, 0, sizeof(*sc));
    sc->path = xstrdup(path);
    size_t before = diags->count;
    struct conf_file *f = confread_open(path, diags);
    if (!f)
        return -1;
    return load_parsed(sc, path, f, datadir, diags, before);
}

int scenario_load_text(struct scenario *sc, const char *name, const char *text, const char *datadir,
                       struct diag *diags)
{
    memset(sc, 0, sizeof(*sc));
    sc->path = xstrdup(name);
    size_t before = diags->count;
    struct conf_file *f = confread_parse(name, text, diags);
    if (!f)
        return -1;
    return load_parsed(sc, name, f, datadir, diags, before);
}

/* "a.b.c" and "V" as the libconfig text "a = { b = { c = V; }; };". */
static char *nested_text(const char *path, const char *value)
{
    const char *dot = strchr(path, '.');
    if (!dot)
        return xasprintf("%s = %s;", path, value);
    char *head = xasprintf("%.*s", (int)(dot - path), path);
    char *inner = nested_text(dot + 1, value);
    char *text = xasprintf("%s = { %s };", head, inner);
    free(head);
    free(inner);
    return text;
}

/* What a --set's value that does not parse should have been. */
#define SET_EXPECTED "(expected one value for it: one setting per --set)"

/* The key's depth: gpu.llc.mshrs is 3. */
static unsigned key_depth(const char *key)
{
    unsigned n = 1;
    for (const char *p = strchr(key, '.'); p; p = strchr(p + 1, '.'))
        n++;
    return n;
}

/* Parse "KEY = VALUE;" (VALUE quoted when it does not parse bare); NULL when neither does, or
 * when the text holds more than the one setting: a VALUE of "1; gpu = \"k40\"" would set a
 * second one (the gpu, which no --set may change) past every check of KEY. */
static struct conf_file *parse_assignment(const char *key, const char *value)
{
    struct diag ignored;
    diag_init(&ignored);
    char *text = nested_text(key, value);
    struct conf_file *f = confread_parse("--set", text, &ignored);
    free(text);
    if (!f) {
        char *quoted = xasprintf("\"%s\"", value);
        text = nested_text(key, quoted);
        f = confread_parse("--set", text, &ignored);
        free(text);
        free(quoted);
    }
    diag_done(&ignored);
    if (f && confread_single_depth(f) != key_depth(key)) {
        confread_close(f);
        return NULL;
    }
    return f;
}

int scenario_parse_weights(const char *value, unsigned n, double *w, struct diag *diags)
{
    double sum = 0;
    unsigned got = 0, positive = 0;
    const char *p = value;
    bool ok = true;
    /* Decimal numbers as a file writes them, blanks around them taken: strtod alone also took
     * hex ("0x1p-1"), and an empty item after the last comma. */
    while (ok && got <= n) {
        p += strspn(p, " \t");
        size_t digits = strspn(p, "0123456789.eE+-");
        char *end = NULL;
        double v = digits && isdigit((unsigned char)p[strspn(p, "+.")]) ? strtod(p, &end) : -1;
        ok = v >= 0 && v <= 1 && got < n && end == p + digits;
        if (ok) {
            w[got++] = v;
            sum += v;
            positive += v > 0;
            p = end + strspn(end, " \t");
            ok = *p == ',' || !*p;
            if (!*p++)
                break;
        }
    }
    /* As a file's weights: a 0 beside positive ones made the weighted unfairness 1 whatever
     * the split (a kernel of weight 0 is the least slowed by any), which a file refuses. */
    if (!ok || got != n || (positive && (positive != n || fabs(sum - 1.0) > 1e-6))) {
        diag_add(diags,
                 "--set: weights: expected %u number%s from 0 to 1 separated by commas, all "
                 "positive and summing to 1 (or all 0 for equal shares), got \"%s\"",
                 n, n == 1 ? "" : "s", value);
        return -1;
    }
    return 0;
}

/* "weights=W1,W2,...": one weight per kernel, all 0 or all positive and summing to 1. */
static void set_weights(struct scenario *sc, const char *value, struct diag *diags)
{
    double w[SCENARIO_MAX_KERNELS];
    if (scenario_parse_weights(value, sc->nkernels, w, diags) != 0)
        return;
    for (unsigned k = 0; k < sc->nkernels; k++)
        sc->kernels[k].weight = w[k];
}

int scenario_kernel_key(const char *key, unsigned *k, char *setting, size_t len)
{
    const char *p = key + strlen("kernels[");
    if (strncmp(key, "kernels[", strlen("kernels[")) != 0 || !isdigit((unsigned char)*p))
        return -1;
    unsigned long long v = 0;
    for (; isdigit((unsigned char)*p); p++)
        if (v <= UINT_MAX)
            v = v * 10 + (unsigned)(*p - '0');
    if (strncmp(p, "].", 2) != 0)
        return -1;
    p += 2;
    size_t n = strspn(p, "abcdefghijklmnopqrstuvwxyz_");
    if (n == 0 || p[n] != '\0' || n >= len)
        return -1;
    memcpy(setting, p, n);
    setting[n] = '\0';
    *k = v > UINT_MAX ? UINT_MAX : (unsigned)v;
    return 0;
}

/* "kernels[K].SETTING=VALUE" for the settings a run may change (priority, qos_target). */
static void set_kernel(struct scenario *sc, const char *key, const char *value, struct diag *diags)
{
    unsigned k;
    char name[32];
    if (scenario_kernel_key(key, &k, name, sizeof name) == 0 && strcmp(name, "weight") == 0) {
        diag_add(diags,
                 "--set: %s: the weights are set together, as they sum to 1: expected "
                 "weights=W1,W2,... (one per kernel)",
                 key);
        return;
    }
    if (scenario_kernel_key(key, &k, name, sizeof name) != 0 ||
        (strcmp(name, "priority") != 0 && strcmp(name, "qos_target") != 0)) {
        diag_add(diags, "--set: %s: expected kernels[K].priority or kernels[K].qos_target", key);
        return;
    }
    if (k >= sc->nkernels) {
        diag_add(diags, "--set: %s: expected a kernel index from 0 to %u", key, sc->nkernels - 1);
        return;
    }
    struct conf_file *f = parse_assignment(name, value);
    if (!f) {
        diag_add(diags, "--set: %s: cannot read the value \"%s\" " SET_EXPECTED, key, value);
        return;
    }
    char *prefix = xasprintf("kernels[%u].", k);
    conf_apply(&scenario_kernel_table, confread_root(f), &sc->kernels[k], CONF_OVERLAY, "--set",
               prefix, diags);
    free(prefix);
    confread_close(f);
}

/* After a --set of a GPU setting: the mix must still fit, one SM per kernel at least, the
 * kernels' fixed SM counts within the GPU and each kernel's thread block on an SM, as
 * scenario_load demands of a file (a block that no longer fit was blamed on the file). */
static void check_sms_fit(const struct scenario *sc, const char *key, struct diag *diags)
{
    unsigned split = 0;
    for (unsigned i = 0; i < sc->nkernels; i++)
        split += sc->kernels[i].sms;
    char why[256];
    if (gpu_config_check(&sc->gpu, why, sizeof(why)) != 0)
        diag_add(diags, "--set: %s: %s", key, why);
    else if (sc->nkernels > sc->gpu.sms)
        diag_add(diags,
                 "--set: %s: the GPU would have %u SM%s for %u kernels (expected at least one "
                 "SM per kernel)",
                 key, sc->gpu.sms, sc->gpu.sms == 1 ? "" : "s", sc->nkernels);
    else if (split > sc->gpu.sms)
        diag_add(diags,
                 "--set: %s: the GPU would have %u SMs, but the kernels' sms settings add up to "
                 "%u (expected at least that many)",
                 key, sc->gpu.sms, split);
    else
        for (unsigned i = 0; i < sc->nkernels; i++)
            if (gpu_profile_check(&sc->gpu, &sc->kernels[i].profile, why, sizeof why) != 0)
                diag_add(diags, "--set: %s: kernels[%u] would not fit: %s", key, i, why);
}

/* The settings' checks name the place of a mistake as FILE:LINE:; the text of a --set is
 * one line of no file, so its messages from `from` on say just "--set:". */
static void drop_set_lines(struct diag *d, size_t from)
{
    for (size_t i = from; i < d->count; i++) {
        char *m = d->msgs[i];
        if (strncmp(m, "--set:", 6) != 0)
            continue;
        size_t digits = strspn(m + 6, "0123456789");
        if (digits && m[6 + digits] == ':')
            memmove(m + 5, m + 6 + digits, strlen(m + 6 + digits) + 1);
    }
}

int scenario_set(struct scenario *sc, const char *assignment, struct diag *diags)
{
    const char *eq = strchr(assignment, '=');
    if (!eq || eq == assignment || !eq[1]) {
        diag_add(diags, "--set: expected KEY=VALUE (e.g. epochs=5 or gpu.sms=40), got \"%s\"",
                 assignment);
        return -1;
    }
    char *key = xasprintf("%.*s", (int)(eq - assignment), assignment);
    int gpu = strncmp(key, "gpu.", 4) == 0;
    size_t before = diags->count;
    if (strncmp(key, "kernels[", 8) == 0) {
        set_kernel(sc, key, eq + 1, diags);
    } else if (strcmp(key, "weights") == 0) {
        set_weights(sc, eq + 1, diags);
    } else if (!gpu && (strcmp(key, "gpu") == 0 || strcmp(key, "gpu_overrides") == 0 ||
                        strcmp(key, "kernels") == 0 || strchr(key, '.'))) {
        diag_add(diags,
                 "--set: %s: cannot be changed with --set (expected a top-level setting "
                 "or gpu.SETTING; edit the scenario for the preset or the mix)",
                 key);
    } else if (strcmp(key, "mode") == 0) {
        /* A spatial and an accelerator scenario hold different settings: "mode=bogus" and
         * "mode=accelerator" were taken, recorded, and the run stayed spatial. */
        diag_add(diags,
                 "--set: mode: cannot be changed with --set (expected the scenario file to say "
                 "it: a spatial and an accelerator scenario hold different settings)");
    } else if (gpu) {
        if (scenario_set_gpu(&sc->gpu, assignment, diags) == 0)
            check_sms_fit(sc, key, diags);
    } else {
        struct conf_file *f = parse_assignment(key, eq + 1);
        if (!f)
            diag_add(diags, "--set: %s: cannot read the value \"%s\" " SET_EXPECTED, key, eq + 1);
        else
            conf_apply(&scenario_table, confread_root(f), sc, CONF_OVERLAY, "--set", "", diags);
        confread_close(f);
        /* The names are checked when a session is made, which places a mistake at the file's
         * line: one set here is not the file's. An empty one is no name. */
        if (strcmp(key, "predictor") == 0)
            sc->predictor_line = 0;
        if (strcmp(key, "allocator") == 0)
            sc->allocator_line = 0;
        if ((strcmp(key, "predictor") == 0 && sc->predictor && !*sc->predictor) ||
            (strcmp(key, "allocator") == 0 && sc->allocator && !*sc->allocator))
            diag_add(diags, "--set: %s: expected a name, got an empty string", key);
    }
    free(key);
    drop_set_lines(diags, before);
    return diags->count == before ? 0 : -1;
}

int scenario_set_gpu(struct gpu_config *gpu, const char *assignment, struct diag *diags)
{
    const char *eq = strchr(assignment, '=');
    if (strncmp(assignment, "gpu.", 4) != 0 || !eq || eq - assignment < 5 || !eq[1]) {
        diag_add(diags,
                 "--set: expected gpu.SETTING=VALUE (e.g. gpu.llc.latency_cycles=240), "
                 "got \"%s\"",
                 assignment);
        return -1;
    }
    size_t before = diags->count;
    char *key = xasprintf("%.*s", (int)(eq - assignment - 4), assignment + 4);
    struct conf_file *f = parse_assignment(key, eq + 1);
    if (!f)
        diag_add(diags, "--set: gpu.%s: cannot read the value \"%s\" " SET_EXPECTED, key, eq + 1);
    else
        conf_apply(&preset_gpu_table, confread_root(f), gpu, CONF_OVERLAY, "--set", "gpu.", diags);
    confread_close(f);
    free(key);
    drop_set_lines(diags, before);
    return diags->count == before ? 0 : -1;
}

int scenario_add_kernel(struct scenario *sc, const char *name, const char *datadir,
                        struct diag *diags)
{
    if (sc->nkernels >= SCENARIO_MAX_KERNELS) {
        diag_add(diags,
                 "kernel %s: a run holds at most %d kernels over its life, and this one has had %u",
                 name, SCENARIO_MAX_KERNELS, sc->nkernels);
        return -1;
    }
    /* The name becomes a quoted string in a scenario text: keep it a plain word. */
    if (!*name ||
        strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") !=
            strlen(name)) {
        diag_add(diags, "kernel \"%s\": expected a kernel name (letters, digits, '_', '.', '-')",
                 name);
        return -1;
    }
    struct scenario_kernel k;
    memset(&k, 0, sizeof k);
    char *text = xasprintf("name = \"%s\";", name);
    struct conf_file *f = confread_parse("kernel", text, diags);
    free(text);
    size_t before = diags->count;
    if (f) {
        conf_apply(&scenario_kernel_table, confread_root(f), &k, CONF_FULL, "kernel", "", diags);
        confread_close(f);
    }
    char *where = xasprintf("kernel %s", name);
    if (diags->count == before && strlen(name) >= SCENARIO_KERNEL_NAME_MAX)
        diag_add(diags,
                 "%s: the name has %zu bytes (expected at most %d, the longest a run file "
                 "keeps)",
                 where, strlen(name), SCENARIO_KERNEL_NAME_MAX - 1);
    if (diags->count == before)
        preset_kernel_find(datadir, name, where, &k.profile, diags);
    free(where);
    if (!f || diags->count != before) {
        conf_free_strings(&scenario_kernel_table, &k);
        kernel_profile_done(&k.profile);
        return -1;
    }
    sc->kernels[sc->nkernels] = k;
    return (int)sc->nkernels++;
}

void scenario_keep_kernels(struct scenario *sc, unsigned n)
{
    for (; sc->nkernels > n && n >= 1; sc->nkernels--) {
        struct scenario_kernel *k = &sc->kernels[sc->nkernels - 1];
        conf_free_strings(&scenario_kernel_table, k);
        kernel_profile_done(&k->profile);
        memset(k, 0, sizeof(*k));
    }
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void scenario_copy(struct scenario *dst, const struct scenario *src)
{
    *dst = *src;
    dst->path = dup_or_null(src->path);
    dst->text = dup_or_null(src->text);
    dst->name = dup_or_null(src->name);
    dst->description = dup_or_null(src->description);
    dst->gpu_name = dup_or_null(src->gpu_name);
    dst->lesson = dup_or_null(src->lesson);
    dst->predictor = dup_or_null(src->predictor);
    dst->allocator = dup_or_null(src->allocator);
    for (unsigned i = 0; i < src->nkernels; i++) {
        dst->kernels[i].name = dup_or_null(src->kernels[i].name);
        dst->kernels[i].profile.name = dup_or_null(src->kernels[i].profile.name);
        dst->kernels[i].profile.description = dup_or_null(src->kernels[i].profile.description);
    }
}

void scenario_done(struct scenario *sc)
{
    for (unsigned i = 0; i < sc->nkernels; i++) {
        conf_free_strings(&scenario_kernel_table, &sc->kernels[i]);
        kernel_profile_done(&sc->kernels[i].profile);
    }
    conf_free_strings(&scenario_table, sc);
    free(sc->path);
    free(sc->text);
    memset(sc, 0, sizeof(*sc));
}
