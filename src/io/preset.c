/* preset — GPU presets and kernel profiles, loaded through their settings tables
 * (preset_tables.c). */
#include "corun/preset.h"

#include <ctype.h>
#include <dirent.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libconfig.h>

#include "corun/confread.h"
#include "corun/sm.h"
#include "corun/suggest.h"
#include "corun/util.h"

void name_list_done(struct name_list *l)
{
    for (size_t i = 0; i < l->count; i++)
        free(l->names[i]);
    free(l->names);
    l->names = NULL;
    l->count = 0;
}

int name_list_has(const struct name_list *l, const char *name)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->names[i], name) == 0)
            return 1;
    return 0;
}

static void name_list_add(struct name_list *l, const char *name)
{
    if (name_list_has(l, name))
        return;
    l->names = xrealloc(l->names, (l->count + 1) * sizeof(*l->names));
    l->names[l->count++] = xstrdup(name);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add to l the stem of every .cfg file in dir. */
static void scan_cfg_stems(const char *dir, struct name_list *l)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !util_ends_with(e->d_name, ".cfg"))
            continue;
        char *stem = xstrdup(e->d_name);
        stem[strlen(stem) - 4] = '\0';
        name_list_add(l, stem);
        free(stem);
    }
    closedir(d);
}

void preset_cfg_names(const char *dir, struct name_list *out)
{
    out->names = NULL;
    out->count = 0;
    scan_cfg_stems(dir, out);
    if (out->count > 1) /* qsort must not see the NULL of an empty list */
        qsort(out->names, out->count, sizeof(*out->names), compare_names);
}

void preset_gpu_names(const char *datadir, struct name_list *out)
{
    out->names = NULL;
    out->count = 0;
    char *dir = xasprintf("%s/data/gpus", datadir);
    scan_cfg_stems(dir, out);
    free(dir);
    if (out->count > 1) /* qsort must not see the NULL of an empty list */
        qsort(out->names, out->count, sizeof(*out->names), compare_names);
}

void preset_kernel_names(const char *datadir, struct name_list *out)
{
    out->names = NULL;
    out->count = 0;
    for (size_t i = 0; i < kernel_builtin_count(); i++)
        name_list_add(out, kernel_builtin_at(i)->name);
    char *dir = xasprintf("%s/data/kernels", datadir);
    scan_cfg_stems(dir, out);
    free(dir);
    if (out->count > 1) /* qsort must not see the NULL of an empty list */
        qsort(out->names, out->count, sizeof(*out->names), compare_names);
}

/* What the core refuses across a preset's settings (a cache's geometry, the lines it keeps,
 * refresh within its interval): a mistake of the preset file, said with its path and the line
 * of the setting the message begins with (when it begins with one). It was said later, by the
 * GPU's creation, with no file at all. Returns the errors. */
static size_t refuse_incoherent_gpu(const config_setting_t *root, const struct gpu_config *cfg,
                                    const char *path, struct diag *diags)
{
    char why[256];
    if (gpu_config_check(cfg, why, sizeof why) != 0) {
        char first[64];
        const config_setting_t *at = NULL;
        if (sscanf(why, "%63[a-z0-9_]", first) == 1)
            at = config_setting_get_member(root, first);
        if (at)
            diag_add(diags, "%s:%d: %s", path, (int)config_setting_source_line(at), why);
        else
            diag_add(diags, "%s: %s", path, why);
        return 1;
    }
    return 0;
}

int preset_gpu_load(const char *datadir, const char *name, struct gpu_config *cfg,
                    struct diag *diags)
{
    memset(cfg, 0, sizeof(*cfg));
    char *path = xasprintf("%s/data/gpus/%s.cfg", datadir, name);
    struct conf_file *f = confread_open(path, diags);
    size_t errors = 1;
    if (f) {
        const struct conf_group *root = confread_root(f);
        errors = conf_apply(&preset_gpu_table, root, cfg, CONF_FULL, path, "", diags);
        if (!errors)
            errors = refuse_incoherent_gpu((const config_setting_t *)root, cfg, path, diags);
        confread_close(f);
    }
    free(path);
    return errors ? -1 : 0;
}

/* Settings a phase may not change: they describe the application, not one of its kernels. */
static bool application_wide(const char *name)
{
    static const char *const names[] = {"description", "paper", "target_class", "split",
                                        "target_mpki"};
    for (size_t i = 0; i < CORUN_ARRAY_LEN(names); i++)
        if (strcmp(names[i], name) == 0)
            return true;
    return false;
}

static size_t setting_size(const struct conf_setting *st)
{
    switch (st->type) {
    case CONF_UINT: return sizeof(unsigned);
    case CONF_U64: return sizeof(uint64_t);
    case CONF_FLOAT: return sizeof(double);
    case CONF_CHOICE: return sizeof(int);
    default: return 0;
    }
}

/* barrier_interval 1 would make every instruction a barrier (the fractions are of the
 * instructions between barriers, so a memory-bound profile would issue no load): refused with
 * the setting's line, in g (a file's root, a phase or an inline kernel). Returns the errors. */
static size_t refuse_lone_barriers(const config_setting_t *g, const struct kernel_profile *p,
                                   const char *path, const char *prefix, struct diag *diags)
{
    const config_setting_t *b = config_setting_get_member(g, "barrier_interval");
    if (!b || p->barrier_interval != 1)
        return 0;
    diag_add(diags,
             "%s:%d: %sbarrier_interval: 1 would make every instruction a barrier: expected 0 "
             "(none) or at least 2 (the barrier is one of the interval's instructions)",
             path, (int)config_setting_source_line(b), prefix);
    return 1;
}

/* The line of the setting a refusal of gpu_profile_check names first (by its name, or by the
 * limit it gives for an SM no thread block fits) among those set in g, else in root (NULL:
 * none); 0 when it names none set there. */
static int named_setting_line(const config_setting_t *g, const config_setting_t *root,
                              const char *msg)
{
    static const struct {
        const char *phrase, *setting;
    } limits[] = {
        {"(registers:", "regs_per_thread"},
        {"(registers:", "warps_per_tb"},
        {"(shared memory:", "smem_per_tb_bytes"},
        {"(warp slots:", "warps_per_tb"},
    };
    const config_setting_t *groups[] = {g, root};
    for (size_t k = 0; k < CORUN_ARRAY_LEN(groups); k++) {
        if (!groups[k])
            continue;
        const char *best = NULL;
        const config_setting_t *at = NULL;
        for (size_t i = 0; i < preset_kernel_table.count + CORUN_ARRAY_LEN(limits); i++) {
            bool limit = i >= preset_kernel_table.count;
            const char *name = limit ? limits[i - preset_kernel_table.count].setting
                                     : preset_kernel_table.settings[i].name;
            const char *word = limit ? limits[i - preset_kernel_table.count].phrase : name;
            const config_setting_t *st = config_setting_get_member(groups[k], name);
            size_t n = strlen(word);
            for (const char *m = strstr(msg, word); st && m; m = strstr(m + 1, word)) {
                bool whole =
                    limit || ((m == msg || !(isalnum((unsigned char)m[-1]) || m[-1] == '_')) &&
                              !(isalnum((unsigned char)m[n]) || m[n] == '_'));
                if (whole && (!best || m < best)) {
                    best = m;
                    at = st;
                }
                if (whole)
                    break;
            }
        }
        if (at)
            return (int)config_setting_source_line(at);
    }
    return 0;
}

int preset_kernel_refusal_line(const struct conf_group *g, const char *msg)
{
    return named_setting_line((const config_setting_t *)g, NULL, msg);
}

/* The rules between a profile's settings that hold on any GPU: what gpu_profile_check refuses
 * on a GPU that limits nothing is a mistake of the file, said as one with the line of a
 * setting it names (of g, a file's root, a phase or an inline kernel; else of root). p has no
 * phases. Returns the errors. */
static size_t refuse_crossed(const config_setting_t *g, const config_setting_t *root,
                             const struct kernel_profile *p, const char *path, const char *prefix,
                             struct diag *diags)
{
    struct gpu_config any = {.warps_per_sm = SM_MAX_WARPS,
                             .tbs_per_sm = SM_MAX_TBS,
                             .regs_per_sm = UINT_MAX,
                             .smem_per_sm_bytes = UINT_MAX};
    any.llc.line_bytes = 1;
    char err[512];
    if (gpu_profile_check(&any, p, err, sizeof err) == 0)
        return 0;
    const char *msg = err;
    size_t lead = strlen(p->name ? p->name : "(unnamed)") + 7;
    if (strncmp(msg, "kernel ", 7) == 0 && strncmp(msg + lead, ": ", 2) == 0)
        msg += lead + 2; /* "kernel NAME: ": the file says which */
    int line = named_setting_line(g, root, msg);
    int plen = (int)strlen(prefix);
    plen -= plen && prefix[plen - 1] == '.'; /* "phases[1]." as "phases[1]: " */
    char at[24] = "";
    if (line)
        snprintf(at, sizeof at, ":%d", line);
    diag_add(diags, "%s%s: %.*s%s%s", path, at, plen, prefix, plen ? ": " : "", msg);
    return 1;
}

int preset_kernel_check(const char *datadir, const char *path, const struct gpu_config *cfg,
                        const struct kernel_profile *p, char *err, size_t errlen)
{
    char msg[512];
    if (gpu_profile_check(cfg, p, msg, sizeof msg) == 0)
        return 0;
    char *file = path || !p->name ? NULL : xasprintf("%s/data/kernels/%s.cfg", datadir, p->name);
    struct diag quiet;
    diag_init(&quiet);
    struct stat st;
    struct conf_file *f = NULL;
    if (path || (file && stat(file, &st) == 0)) {
        path = path ? path : file;
        f = confread_open(path, &quiet);
    }
    int line = 0;
    if (f) {
        const config_setting_t *root = (const config_setting_t *)confread_root(f);
        const config_setting_t *g = NULL;
        const char *in = strstr(msg, " (in phase ");
        unsigned phase;
        if (in && sscanf(in, " (in phase %u)", &phase) == 1 && phase >= 1) {
            const config_setting_t *ps = config_setting_get_member(root, "phases");
            g = ps ? config_setting_get_elem(ps, phase - 1) : NULL;
        }
        line = named_setting_line(g ? g : root, g ? root : NULL, msg);
    }
    if (!f)
        snprintf(err, errlen, "%s", msg);
    else if (line)
        snprintf(err, errlen, "%s:%d: %s", path, line, msg);
    else
        snprintf(err, errlen, "%s: %s", path, msg);
    confread_close(f);
    diag_done(&quiet);
    free(file);
    return -1;
}

/* Reads the profile's `phases` list from f into p (already loaded): each phase is p with the
 * settings it names changed, kept as the bytes that differ. */
static int load_phases(const struct conf_file *f, const char *path, struct kernel_profile *p,
                       struct diag *diags)
{
    const config_setting_t *ps =
        config_setting_get_member((const config_setting_t *)confread_root(f), "phases");
    if (!ps)
        return 0;
    int line = (int)config_setting_source_line(ps);
    int n = config_setting_is_list(ps) ? config_setting_length(ps) : -1;
    if (n < 2 || n > KERNEL_MAX_PHASES) {
        char got[32] = "";
        if (n >= 0)
            snprintf(got, sizeof got, ", got %d", n);
        diag_add(diags, "%s:%d: phases: expected a list ( {...}, ... ) of 2 to %d kernels%s", path,
                 line, KERNEL_MAX_PHASES, got);
        return -1;
    }
    size_t before = diags->count;
    for (int i = 0; i < n; i++) {
        const config_setting_t *e = config_setting_get_elem(ps, (unsigned)i);
        int eline = (int)config_setting_source_line(e);
        if (!config_setting_is_group(e)) {
            diag_add(diags, "%s:%d: phases[%d]: expected a group { SETTING = VALUE; ... }", path,
                     eline, i);
            continue;
        }
        if (config_setting_get_member(e, "phases")) {
            diag_add(diags, "%s:%d: phases[%d].phases: a phase cannot have phases", path, eline, i);
            continue;
        }
        bool wide = false;
        for (int m = 0; m < config_setting_length(e); m++) {
            const char *mn = config_setting_name(config_setting_get_elem(e, (unsigned)m));
            if (application_wide(mn)) {
                diag_add(diags,
                         "%s:%d: phases[%d].%s: describes the application, not one of "
                         "its kernels: set it once, outside the phases",
                         path, eline, i, mn);
                wide = true;
            }
        }
        if (wide)
            continue;
        struct kernel_profile q = *p; /* its strings are p's: no string setting reaches it */
        char *prefix = xasprintf("phases[%d].", i);
        size_t errs = conf_apply(&preset_kernel_table, (const struct conf_group *)e, &q,
                                 CONF_OVERLAY, path, prefix, diags);
        if (!errs)
            errs = refuse_lone_barriers(e, &q, path, prefix, diags);
        if (!errs)
            errs = refuse_crossed(e, (const config_setting_t *)confread_root(f), &q, path, prefix,
                                  diags);
        free(prefix);
        if (errs)
            continue;
        struct kernel_phase *ph = &p->phase[i];
        ph->nsets = 0;
        for (size_t j = 0; j < preset_kernel_table.count; j++) {
            const struct conf_setting *st = &preset_kernel_table.settings[j];
            size_t size = setting_size(st);
            if (!size || !config_setting_get_member(e, st->name))
                continue;
            if (ph->nsets == KERNEL_PHASE_SETS) {
                diag_add(diags, "%s:%d: phases[%d]: more than %d settings changed", path, eline, i,
                         KERNEL_PHASE_SETS);
                break;
            }
            struct kernel_phase_set *set = &ph->set[ph->nsets++];
            set->offset = (uint16_t)st->offset;
            set->size = (uint8_t)size;
            set->bits = 0;
            memcpy(&set->bits, (const char *)&q + st->offset, size);
        }
    }
    if (diags->count != before)
        return -1;
    p->nphases = (unsigned)n;
    return 0;
}

int preset_kernel_load_path(const char *path, const char *name, struct kernel_profile *out,
                            struct diag *diags)
{
    memset(out, 0, sizeof(*out));
    struct conf_file *f = confread_open(path, diags);
    int rc = -1;
    if (f) {
        size_t errors =
            conf_apply(&preset_kernel_table, confread_root(f), out, CONF_FULL, path, "", diags);
        if (!errors)
            errors = refuse_lone_barriers((const config_setting_t *)confread_root(f), out, path, "",
                                          diags);
        if (!errors)
            errors = refuse_crossed((const config_setting_t *)confread_root(f), NULL, out, path, "",
                                    diags);
        rc = errors ? -1 : load_phases(f, path, out, diags);
        confread_close(f);
    }
    out->name = xstrdup(name);
    if (rc != 0)
        kernel_profile_done(out);
    return rc;
}

bool preset_kernel_is_builtin(const char *datadir, const char *name)
{
    char *path = xasprintf("%s/data/kernels/%s.cfg", datadir, name);
    struct stat st;
    bool file = stat(path, &st) == 0;
    free(path);
    return !file && kernel_builtin_find(name) != NULL;
}

int preset_kernel_load(const char *datadir, const char *name, struct kernel_profile *out,
                       struct diag *diags)
{
    char *path = xasprintf("%s/data/kernels/%s.cfg", datadir, name);
    struct stat st;
    int rc = 0;
    if (stat(path, &st) == 0) {
        rc = preset_kernel_load_path(path, name, out, diags);
    } else {
        const struct kernel_profile *b = kernel_builtin_find(name);
        memset(out, 0, sizeof(*out));
        if (b) {
            *out = *b;
            out->name = xstrdup(b->name);
            out->description = xstrdup(b->description);
        } else {
            diag_add(diags, "%s: cannot open: no such kernel profile", path);
            rc = -1;
        }
    }
    free(path);
    return rc;
}

int preset_kernel_from_group(const struct conf_group *g, const char *file, const char *prefix,
                             const char *name, struct kernel_profile *out, struct diag *diags)
{
    memset(out, 0, sizeof(*out));
    const config_setting_t *cs = (const config_setting_t *)g;
    size_t errors = conf_apply(&preset_kernel_table, g, out, CONF_FULL, file, prefix, diags);
    if (!errors)
        errors = refuse_lone_barriers(cs, out, file, prefix, diags);
    if (!errors)
        errors = refuse_crossed(cs, NULL, out, file, prefix, diags);
    const config_setting_t *ps = config_setting_get_member(cs, "phases");
    if (ps) {
        diag_add(diags,
                 "%s:%d: %sphases: an inline kernel is one kernel (list its phases as tasks)", file,
                 (int)config_setting_source_line(ps), prefix);
        errors++;
    }
    out->name = xstrdup(name);
    if (errors) {
        kernel_profile_done(out);
        return -1;
    }
    return 0;
}

/* Add "WHERE: unknown WHAT "name"; known: ..." to diags unless name is in names. */
/* Lists longer than this are not spelled out in a message; list_cmd shows them instead. */
#define NAMES_SPELLED_OUT 12

static int check_known(const struct name_list *names, const char *name, const char *what,
                       const char *list_cmd, const char *list_dir, const char *datadir,
                       const char *where, struct diag *diags)
{
    if (name_list_has(names, name))
        return 0;
    if (names->count == 0) {
        diag_add(diags,
                 "%s: unknown %s \"%s\"; none is known (expected %s under the data directory "
                 "\"%s\"; set CORUN_DATADIR to corun's source or installed data)",
                 where, what, name, list_dir, datadir);
        return -1;
    }
    /* A file's name or path (lbm.cfg, data/kernels/lbm.cfg) is the name it holds: compared
     * as it is, lbm.cfg was too far from lbm to be suggested. */
    const char *slash = strrchr(name, '/');
    const char *base = slash ? slash + 1 : name;
    char *stem = xstrdup(base);
    if (util_ends_with(stem, ".cfg"))
        stem[strlen(stem) - 4] = '\0';
    const char *as = strcmp(stem, name) != 0 && *stem ? stem : name;
    if (as != name && name_list_has(names, as)) {
        bool dir = base != name, cfg = util_ends_with(base, ".cfg");
        diag_add(diags, "%s: unknown %s \"%s\" (did you mean %s? it is named without %s%s%s)",
                 where, what, name, as, dir ? "its directory" : "", dir && cfg ? " and " : "",
                 cfg ? ".cfg" : "");
        free(stem);
        return -1;
    }
    if (names->count > NAMES_SPELLED_OUT) {
        char *near = suggest_names(as, (const char *const *)names->names, names->count, "", "");
        diag_add(diags, "%s: unknown %s \"%s\"%s%s%s; %zu are known: see `%s`", where, what, name,
                 near ? " (did you mean " : "", near ? near : "", near ? "?)" : "", names->count,
                 list_cmd);
        free(near);
        free(stem);
        return -1;
    }
    char *known = conf_known_names(as, (const char *const *)names->names, names->count);
    diag_add(diags, "%s: unknown %s \"%s\"%s", where, what, name, known);
    free(known);
    free(stem);
    return -1;
}

int preset_gpu_find(const char *datadir, const char *name, const char *where,
                    struct gpu_config *cfg, struct diag *diags)
{
    struct name_list names;
    preset_gpu_names(datadir, &names);
    int rc = check_known(&names, name, "GPU preset", "ls data/gpus", "data/gpus/*.cfg", datadir,
                         where, diags);
    name_list_done(&names);
    return rc == 0 ? preset_gpu_load(datadir, name, cfg, diags) : -1;
}

int preset_kernel_find(const char *datadir, const char *name, const char *where,
                       struct kernel_profile *out, struct diag *diags)
{
    struct name_list names;
    preset_kernel_names(datadir, &names);
    int rc = check_known(&names, name, "kernel", "corun kernels list", "data/kernels/*.cfg",
                         datadir, where, diags);
    name_list_done(&names);
    if (rc != 0) {
        memset(out, 0, sizeof(*out));
        return -1;
    }
    return preset_kernel_load(datadir, name, out, diags);
}
