/* preset — GPU presets (data/gpus/NAME.cfg) and kernel profiles (data/kernels/NAME.cfg),
 * each validated through its settings table. */
#ifndef CORUN_PRESET_H
#define CORUN_PRESET_H

#include <stdbool.h>
#include <stddef.h>

#include "corun/conftable.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/kernel.h"

extern const struct conf_table preset_gpu_table;
extern const struct conf_table preset_kernel_table;

/* A sorted list of names (file stems or built-ins). */
struct name_list {
    char **names;
    size_t count;
};
void name_list_done(struct name_list *l);
/* 1 when name is in l. */
int name_list_has(const struct name_list *l, const char *name);

/* The GPU presets in DATADIR/data/gpus. */
void preset_gpu_names(const char *datadir, struct name_list *out);
/* The kernels: built-in synthetic ones and the .cfg files in DATADIR/data/kernels. */
void preset_kernel_names(const char *datadir, struct name_list *out);

/* The stems of the .cfg files in dir, sorted (empty when dir cannot be read). */
void preset_cfg_names(const char *dir, struct name_list *out);

/* Resolve a GPU preset or kernel named by the user: an unknown name adds
 * "WHERE: unknown GPU preset "x"; known: ... (did you mean y?)" to diags (where is e.g.
 * "s.cfg:3: gpu" or "--gpu"); a known one is loaded as below. Returns 0 or -1. */
int preset_gpu_find(const char *datadir, const char *name, const char *where,
                    struct gpu_config *cfg, struct diag *diags);
int preset_kernel_find(const char *datadir, const char *name, const char *where,
                       struct kernel_profile *out, struct diag *diags);

/* Load GPU preset name into cfg. Errors (naming the preset file and line) go to diags;
 * returns 0 or -1. */
int preset_gpu_load(const char *datadir, const char *name, struct gpu_config *cfg,
                    struct diag *diags);
/* Load the kernel profile file path as kernel name (corun check reads one wherever it is). */
int preset_kernel_load_path(const char *path, const char *name, struct kernel_profile *out,
                            struct diag *diags);
/* Whether kernel name is a built-in one (no DATADIR/data/kernels/NAME.cfg stands in for it). */
bool preset_kernel_is_builtin(const char *datadir, const char *name);
/* Load kernel name: DATADIR/data/kernels/NAME.cfg when it exists, else the built-in.
 * Release with kernel_profile_done. Returns 0 or -1 with diags. */
int preset_kernel_load(const char *datadir, const char *name, struct kernel_profile *out,
                       struct diag *diags);

/* gpu_profile_check of kernel p on cfg. A refusal of a profile read from a file (path; NULL:
 * DATADIR/data/kernels/NAME.cfg when it exists) names that file and the line of a setting it
 * involves, "PATH:LINE: kernel NAME: ...", in err; a built-in's is gpu_profile_check's.
 * Returns 0 or -1. */
int preset_kernel_check(const char *datadir, const char *path, const struct gpu_config *cfg,
                        const struct kernel_profile *p, char *err, size_t errlen);

/* The line of the setting of the inline profile g (as preset_kernel_from_group reads it) that
 * msg, a refusal of gpu_profile_check, names first; 0 when it names none set in g. */
int preset_kernel_refusal_line(const struct conf_group *g, const char *msg);

/* A kernel profile written inline as the libconfig group g (a kernel file's settings, without
 * phases), named name. Mistakes go to diags as "FILE:LINE: PREFIXSETTING: ...". Release with
 * kernel_profile_done. Returns 0 or -1. */
int preset_kernel_from_group(const struct conf_group *g, const char *file, const char *prefix,
                             const char *name, struct kernel_profile *out, struct diag *diags);

#endif
