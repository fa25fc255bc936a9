/* suite — loading and validating mix suites. */
#include "corun/suite.h"

#include <libconfig.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "corun/confread.h"
#include "corun/preset.h"
#include "corun/util.h"

#define SU_FIELD(field_, type_, def_, lo_, hi_, unit_, help_)                                      \
    {                                                                                              \
#field_, type_, lo_, hi_, def_, unit_, help_, offsetof(struct suite, field_), NULL, NULL   \
    }

static const struct conf_setting suite_settings[] = {
    SU_FIELD(name, CONF_STRING, NULL, 0, 0, NULL, "the suite's name"),
    SU_FIELD(description, CONF_STRING, "", 0, 0, NULL, "what the suite is for, and its source"),
    SU_FIELD(gpu, CONF_STRING, NULL, 0, 0, NULL, "GPU preset: the stem of a file in data/gpus"),
    SU_FIELD(epochs, CONF_UINT, "10", 1, 1000000, "epochs", "run length of each mix"),
    SU_FIELD(epoch_cycles, CONF_UINT, "500000", 1000, 100000000, "core cycles", "epoch length"),
    {"tags", CONF_CUSTOM, 0, 0, NULL, NULL, "a list [\"...\", ...] of the tags mixes may carry", 0,
     NULL, NULL},
    {"mixes", CONF_CUSTOM, 0, 0, NULL, NULL, "a list ( {...}, ... ) of mixes, settings below", 0,
     NULL, &suite_mix_table},
};
const struct conf_table suite_table = {"suite", suite_settings, CORUN_ARRAY_LEN(suite_settings),
                                       "suite"};

static const struct conf_setting mix_settings[] = {
    {"tag", CONF_STRING, 0, 0, NULL, NULL, "one of the suite's tags",
     offsetof(struct suite_mix, tag), NULL, NULL},
    {"kernels", CONF_CUSTOM, 0, 0, NULL, NULL, "a list [\"a\", \"b\", ...] of 1 to 8 kernel names",
     0, NULL, NULL},
    {"sms", CONF_CUSTOM, 0, 0, NULL, NULL,
     "optional SM split [n1, n2, ...], one per kernel, each >= 1, summing to at most the GPU's", 0,
     NULL, NULL},
};
const struct conf_table suite_mix_table = {"mix", mix_settings, CORUN_ARRAY_LEN(mix_settings),
                                           "suite"};

static int line_of(const config_setting_t *s)
{
    return (int)config_setting_source_line(s);
}

/* The array of strings st into *out / *n; a message and -1 when it is not one. */
static int string_array(const struct suite *s, const config_setting_t *st, const char *what,
                        size_t lo, size_t hi, char ***out, size_t *n, struct diag *d)
{
    int len = config_setting_length(st);
    int type = config_setting_type(st);
    if ((type != CONFIG_TYPE_ARRAY && type != CONFIG_TYPE_LIST) || len < (int)lo || len > (int)hi) {
        diag_add(d, "%s:%d: %s: expected an array [\"...\", ...] of %zu to %zu names", s->path,
                 line_of(st), what, lo, hi);
        return -1;
    }
    *out = xcalloc((size_t)len + 1, sizeof(**out));
    *n = 0;
    for (int i = 0; i < len; i++) {
        const char *v = config_setting_get_string_elem(st, i);
        if (!v) {
            diag_add(d, "%s:%d: %s[%d]: expected a quoted name", s->path, line_of(st), what, i);
            return -1;
        }
        (*out)[(*n)++] = xstrdup(v);
    }
    return 0;
}

static void check_name(const struct suite *s, const struct name_list *known, const char *name,
                       const char *what, int line, const char *where, struct diag *d)
{
    if (name_list_has(known, name))
        return;
    char *hint = conf_known_names(name, (const char *const *)known->names, known->count);
    diag_add(d, "%s:%d: %s: unknown %s \"%s\"%s", s->path, line, where, what, name, hint);
    free(hint);
}

static void load_split(const struct suite *s, struct suite_mix *m, const config_setting_t *st,
                       const char *where, struct diag *d)
{
    int len = config_setting_length(st);
    if (config_setting_type(st) != CONFIG_TYPE_ARRAY || len != (int)m->nkernels) {
        diag_add(d, "%s:%d: %s.sms: expected an array of %u whole numbers, one per kernel", s->path,
                 line_of(st), where, m->nkernels);
        return;
    }
    unsigned sum = 0;
    for (int i = 0; i < len; i++) {
        const config_setting_t *e = config_setting_get_elem(st, (unsigned)i);
        int v = config_setting_get_int(e);
        if (config_setting_type(e) != CONFIG_TYPE_INT || v < 1 || v > (int)s->gpu_sms) {
            diag_add(d, "%s:%d: %s.sms[%d]: expected a whole number from 1 to %u", s->path,
                     line_of(st), where, i, s->gpu_sms);
            return;
        }
        m->sms[i] = (unsigned)v;
        sum += (unsigned)v;
    }
    if (s->gpu_sms && sum > s->gpu_sms)
        diag_add(d, "%s:%d: %s.sms: the split uses %u SMs; %s has %u", s->path, line_of(st), where,
                 sum, s->gpu, s->gpu_sms);
}

static void load_mix(struct suite *s, size_t i, const config_setting_t *ms,
                     const struct name_list *kernels, struct diag *d)
{
    struct suite_mix *m = &s->mixes[i];
    m->line = line_of(ms);
    char *where = xasprintf("mixes[%zu]", i);
    if (config_setting_type(ms) != CONFIG_TYPE_GROUP) {
        diag_add(d, "%s:%d: %s: expected a group { tag = \"...\"; kernels = [...]; }", s->path,
                 m->line, where);
        goto out;
    }
    char *prefix = xasprintf("%s.", where);
    conf_apply(&suite_mix_table, (const struct conf_group *)ms, m, CONF_FULL, s->path, prefix, d);
    free(prefix);
    const config_setting_t *tag = config_setting_get_member(ms, "tag");
    if (m->tag && s->tags) {
        struct name_list tags = {s->tags, s->ntags};
        check_name(s, &tags, m->tag, "tag", line_of(tag), where, d);
    }
    const config_setting_t *ks = config_setting_get_member(ms, "kernels");
    char **names = NULL;
    size_t n = 0;
    char *kwhere = xasprintf("%s.kernels", where);
    if (!ks)
        diag_add(d, "%s:%d: %s: required setting is missing (expected a list of 1 to %d names)",
                 s->path, m->line, kwhere, SUITE_MAX_KERNELS);
    else if (string_array(s, ks, kwhere, 1, SUITE_MAX_KERNELS, &names, &n, d) == 0)
        for (size_t k = 0; k < n; k++)
            check_name(s, kernels, names[k], "kernel", line_of(ks), kwhere, d);
    free(kwhere);
    for (size_t k = 0; k < n; k++)
        m->kernels[k] = names[k];
    m->nkernels = (unsigned)n;
    free(names);
    const config_setting_t *sms = config_setting_get_member(ms, "sms");
    if (sms && m->nkernels)
        load_split(s, m, sms, where, d);
out:
    free(where);
}

/* The same kernels in the same order on the same split: one mix. */
static bool same_mix(const struct suite_mix *a, const struct suite_mix *b)
{
    if (a->nkernels != b->nkernels || !a->nkernels)
        return false;
    for (unsigned k = 0; k < a->nkernels; k++)
        if (!a->kernels[k] || !b->kernels[k] || strcmp(a->kernels[k], b->kernels[k]) != 0 ||
            a->sms[k] != b->sms[k])
            return false;
    return true;
}

/* A mix given twice was counted twice and run once (a sweep keys its results by the mix). */
static void refuse_repeats(const struct suite *s, struct diag *d)
{
    for (size_t i = 1; i < s->nmixes; i++)
        for (size_t j = 0; j < i; j++)
            if (same_mix(&s->mixes[i], &s->mixes[j])) {
                diag_add(d,
                         "%s:%d: mixes[%zu]: the same kernels on the same split as mixes[%zu] "
                         "(line %d); expected each mix once",
                         s->path, s->mixes[i].line, i, j, s->mixes[j].line);
                break;
            }
}

/* The kernel mix i names k-th, loaded from its profile and checked against the suite's GPU
 * cfg as a run of the mix loads and checks it (scenario.c's load_kernel); each mistake goes to
 * d at the mix's line. A sweep found them mix by mix, exit 1, after check said ok. */
static void check_kernel(const struct suite *s, size_t i, unsigned k, const char *datadir,
                         const struct gpu_config *cfg, struct diag *d)
{
    const struct suite_mix *m = &s->mixes[i];
    const char *name = m->kernels[k];
    unsigned more = 0; /* the later mixes naming it, which are not told again */
    for (size_t j = i + 1; j < s->nmixes; j++)
        for (unsigned l = 0; l < s->mixes[j].nkernels; l++)
            if (strcmp(s->mixes[j].kernels[l], name) == 0) {
                more++;
                break;
            }
    char also[64] = "";
    if (more)
        snprintf(also, sizeof also, " (also in %u later mix%s)", more, more == 1 ? "" : "es");
    struct kernel_profile p;
    struct diag mine;
    diag_init(&mine);
    char why[256];
    if (preset_kernel_load(datadir, name, &p, &mine) != 0) {
        for (size_t e = 0; e < mine.count; e++)
            diag_add(d, "%s:%d: mixes[%zu].kernels[%u]%s: kernel \"%s\" does not load: %s", s->path,
                     m->line, i, k, also, name, mine.msgs[e]);
    } else if (preset_kernel_check(datadir, NULL, cfg, &p, why, sizeof why) != 0) {
        diag_add(d, "%s:%d: mixes[%zu].kernels[%u]%s: on GPU %s: %s", s->path, m->line, i, k, also,
                 s->gpu, why);
    }
    kernel_profile_done(&p);
    diag_done(&mine);
}

/* Whether mix i is the first to name its k-th kernel. */
static bool first_use(const struct suite *s, size_t i, unsigned k)
{
    for (size_t j = 0; j <= i; j++)
        for (unsigned l = 0; l < (j < i ? s->mixes[j].nkernels : k); l++)
            if (strcmp(s->mixes[j].kernels[l], s->mixes[i].kernels[k]) == 0)
                return false;
    return true;
}

/* Every kernel the mixes name, once each, at the first mix naming it. */
static void check_kernels(const struct suite *s, const char *datadir, const struct gpu_config *cfg,
                          const struct name_list *known, struct diag *d)
{
    for (size_t i = 0; i < s->nmixes; i++)
        for (unsigned k = 0; k < s->mixes[i].nkernels; k++)
            if (name_list_has(known, s->mixes[i].kernels[k]) && first_use(s, i, k))
                check_kernel(s, i, k, datadir, cfg, d);
}

static void load_body(struct suite *s, const struct conf_file *f, const char *datadir,
                      struct diag *d)
{
    const config_setting_t *root = (const config_setting_t *)confread_root(f);
    struct gpu_config cfg;
    bool have_gpu = false;
    if (s->gpu) {
        const config_setting_t *g = config_setting_get_member(root, "gpu");
        char *where = xasprintf("%s:%d: gpu", s->path, line_of(g));
        have_gpu = preset_gpu_find(datadir, s->gpu, where, &cfg, d) == 0;
        if (have_gpu)
            s->gpu_sms = s->split_sms = cfg.sms;
        free(where);
    }
    const config_setting_t *tags = config_setting_get_member(root, "tags");
    if (!tags)
        diag_add(d, "%s: tags: required setting is missing (expected an array of tag names)",
                 s->path);
    else
        string_array(s, tags, "tags", 1, 1000, &s->tags, &s->ntags, d);
    const config_setting_t *ms = config_setting_get_member(root, "mixes");
    if (!ms) {
        diag_add(d,
                 "%s: mixes: required setting is missing (expected a list ( {...}, ... ) of at "
                 "least one mix)",
                 s->path);
        return;
    }
    if (config_setting_type(ms) != CONFIG_TYPE_LIST || config_setting_length(ms) < 1) {
        diag_add(d, "%s:%d: mixes: expected a list ( {...}, ... ) of at least one mix", s->path,
                 line_of(ms));
        return;
    }
    struct name_list kernels;
    preset_kernel_names(datadir, &kernels);
    s->nmixes = (size_t)config_setting_length(ms);
    s->mixes = xcalloc(s->nmixes, sizeof(*s->mixes));
    for (size_t i = 0; i < s->nmixes; i++)
        load_mix(s, i, config_setting_get_elem(ms, (unsigned)i), &kernels, d);
    if (have_gpu)
        check_kernels(s, datadir, &cfg, &kernels, d);
    name_list_done(&kernels);
    refuse_repeats(s, d);
}

int suite_load(const char *path, const char *datadir, struct suite *out, struct diag *diags)
{
    memset(out, 0, sizeof(*out));
    out->path = xstrdup(path);
    size_t before = diags->count;
    struct conf_file *f = confread_open(path, diags);
    if (!f)
        return -1;
    char *hint = confread_kind_hint(f, path, "mixes", "a suite");
    if (hint) {
        diag_add(diags, "%s", hint);
        free(hint);
        confread_close(f);
        return -1;
    }
    conf_apply(&suite_table, confread_root(f), out, CONF_FULL, path, "", diags);
    load_body(out, f, datadir, diags);
    confread_close(f);
    return diags->count > before ? -1 : 0;
}

int suite_probe(const char *path)
{
    return confread_probe(path, "mixes");
}

void suite_done(struct suite *s)
{
    for (size_t i = 0; i < s->nmixes; i++) {
        free(s->mixes[i].tag);
        for (unsigned k = 0; k < s->mixes[i].nkernels; k++)
            free(s->mixes[i].kernels[k]);
    }
    free(s->mixes);
    for (size_t i = 0; i < s->ntags; i++)
        free(s->tags[i]);
    free(s->tags);
    conf_free_strings(&suite_table, s);
    free(s->path);
    memset(s, 0, sizeof(*s));
}

int suite_retarget(struct suite *s, const char *datadir, const char *gpu, const char *where,
                   struct diag *diags)
{
    struct gpu_config cfg;
    if (preset_gpu_find(datadir, gpu, where, &cfg, diags) != 0)
        return -1;
    free(s->gpu);
    s->gpu = xstrdup(gpu);
    s->gpu_sms = cfg.sms;
    return 0;
}

void suite_split(const struct suite *s, const struct suite_mix *m, unsigned *out)
{
    unsigned sum = 0;
    for (unsigned k = 0; k < m->nkernels; k++)
        sum += out[k] = m->sms[k];
    if (sum == 0 || s->split_sms == s->gpu_sms || s->split_sms == 0)
        return;
    /* Hamilton's method: each gets the whole part of its scaled share, and the SMs left go
     * to the largest remainders (the earlier kernel on a tie). */
    double scale = (double)s->gpu_sms / s->split_sms, rest[SUITE_MAX_KERNELS];
    unsigned total = (unsigned)lround(sum * scale), given = 0;
    if (total < m->nkernels)
        total = m->nkernels;
    for (unsigned k = 0; k < m->nkernels; k++) {
        double share = m->sms[k] * (double)total / sum;
        out[k] = (unsigned)share;
        rest[k] = share - out[k];
        given += out[k];
    }
    for (; given < total; given++) {
        unsigned best = 0;
        for (unsigned k = 1; k < m->nkernels; k++)
            if (rest[k] > rest[best])
                best = k;
        out[best]++;
        rest[best] = -1;
    }
    /* A share rounded to 0 takes one SM from the largest. */
    for (unsigned k = 0; k < m->nkernels; k++) {
        if (out[k] > 0)
            continue;
        unsigned big = 0;
        for (unsigned i = 1; i < m->nkernels; i++)
            if (out[i] > out[big])
                big = i;
        out[big]--;
        out[k] = 1;
    }
}
