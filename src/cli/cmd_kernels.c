/* cmd_kernels — `corun kernels list` and `corun kernels show NAME`: the kernel library, and one
 * profile with its solo characteristics measured by the app layer (calibrate). */
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/calibrate.h"
#include "corun/catalog.h"
#include "corun/cli.h"
#include "corun/columns.h"
#include "corun/conftable.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/kernel.h"
#include "corun/preset.h"
#include "corun/solo.h"
#include "corun/util.h"

struct options {
    const char *gpu;     /* NULL: the profile's target preset, else hbm80 */
    const char *catalog; /* NULL: the default catalog */
    unsigned long cycles;
    int json;
    const char *sub, *name;
};

static int usage(void)
{
    cli_usage_error(&cmd_kernels);
    return -1;
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"cycles", required_argument, NULL, 'c'},
        {"json", no_argument, NULL, 'j'},
        {"catalog", required_argument, NULL, 'C'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.cycles = CALIBRATE_DEFAULT_CYCLES};
    cli_getopt_reset();
    int c;
    const char *show_only = NULL; /* an option of show's given */
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        switch (c) {
        case 'g':
            o->gpu = optarg;
            show_only = "--gpu";
            break;
        case 'c':
            if (cli_parse_uint("--cycles", optarg, 1000, 1000000000, &o->cycles) != 0)
                return -1;
            show_only = "--cycles";
            break;
        case 'j': o->json = 1; break;
        case 'C':
            o->catalog = optarg;
            show_only = "--catalog";
            break;
        default: return -1;
        }
    }
    o->sub = optind < argc ? argv[optind++] : "list"; /* no verb: the list */
    bool show = strcmp(o->sub, "show") == 0;
    if (!show && strcmp(o->sub, "list") != 0)
        fprintf(stderr,
                "corun: kernels: '%s': expected list or show (one kernel: corun kernels show "
                "NAME)\n",
                o->sub);
    else if (show && optind == argc)
        fprintf(stderr, "corun: kernels show: expected a kernel's name (NAME)\n");
    else if (optind < argc - show)
        fprintf(stderr, "corun: kernels %s: unexpected argument '%s'\n", o->sub,
                argv[optind + show]);
    else if (!show && show_only) /* taken, and nothing measured on it */
        fprintf(stderr, "corun: kernels list: %s is for kernels show (the list measures nothing)\n",
                show_only);
    else if (show && cli_catalog_exists("kernels show", o->catalog,
                                        "a catalog `corun calibrate` stored kernels in; "
                                        "without --catalog, the default one") != 0)
        return -1;
    else {
        o->name = show ? argv[optind] : NULL;
        return 0;
    }
    return usage();
}

/* Where a profile comes from, for the list: the paper it models, else built into corun, else
 * a file of the data directory that names no paper (a user's own). */
static const char *source_of(const char *datadir, const struct kernel_profile *p)
{
    if (p->paper != KERNEL_PAPER_NONE)
        return calibrate_paper_name(p->paper);
    return preset_kernel_is_builtin(datadir, p->name) ? "built-in" : "own";
}

static int list(const char *datadir, int json)
{
    struct name_list names;
    preset_kernel_names(datadir, &names);
    struct diag diags;
    diag_init(&diags);
    if (json)
        printf("[");
    int width = 12; /* the longest name's, so that the columns stay in line */
    for (size_t i = 0; i < names.count; i++)
        if (util_columns(names.names[i]) > width)
            width = util_columns(names.names[i]);
    size_t listed = 0; /* a profile that does not load is left out, comma and all */
    for (size_t i = 0; i < names.count; i++) {
        struct kernel_profile p;
        if (preset_kernel_load(datadir, names.names[i], &p, &diags) != 0)
            continue;
        const char *cls = calibrate_class_name(p.target_class);
        if (json) {
            printf("%s\n  {\"name\": ", listed++ ? "," : "");
            cli_json_string(stdout, p.name);
            printf(", \"source\": \"%s\", \"class\": \"%s\", \"split\": \"%s\", "
                   "\"target_mpki\": %g, \"description\": ",
                   source_of(datadir, &p), cls, calibrate_split_name(p.split), p.target_mpki);
            cli_json_string(stdout, p.description);
            printf("}");
        } else {
            char lead[96];
            snprintf(lead, sizeof lead, "%-*s %-9s %-9s ", util_pad_width(p.name, width), p.name,
                     source_of(datadir, &p), p.target_class ? cls : "-");
            cli_print_row(lead, p.description);
        }
        kernel_profile_done(&p);
    }
    if (json)
        printf("\n]\n");
    name_list_done(&names);
    int rc = diags.count ? -1 : 0;
    diag_print(&diags, stderr);
    diag_done(&diags);
    return rc;
}

/* Print setting s of p as its file would hold it (a JSON value when json). */
static void print_value(const struct kernel_profile *p, const struct conf_setting *s, int json)
{
    const void *f = (const char *)p + s->offset;
    switch (s->type) {
    case CONF_UINT: printf("%u", *(const unsigned *)f); break;
    case CONF_U64: printf("%" PRIu64, *(const uint64_t *)f); break;
    case CONF_FLOAT: printf("%g", *(const double *)f); break;
    case CONF_BOOL: printf("%s", *(const bool *)f ? "true" : "false"); break;
    case CONF_STRING:
        if (json)
            cli_json_string(stdout, *(char *const *)f ? *(char *const *)f : "");
        else
            printf("%s", *(char *const *)f ? *(char *const *)f : "");
        break;
    case CONF_CHOICE: printf(json ? "\"%s\"" : "%s", s->choices[*(const int *)f]); break;
    case CONF_GROUP:
    case CONF_CUSTOM: printf(json ? "null" : "-"); break;
    }
}

/* Whether setting s differs between profiles a and b (numbers, flags and choices only). */
static bool differs(const struct kernel_profile *a, const struct kernel_profile *b,
                    const struct conf_setting *s)
{
    const char *x = (const char *)a + s->offset, *y = (const char *)b + s->offset;
    switch (s->type) {
    case CONF_UINT: return *(const unsigned *)x != *(const unsigned *)y;
    case CONF_U64: return *(const uint64_t *)x != *(const uint64_t *)y;
    case CONF_FLOAT: return *(const double *)x != *(const double *)y;
    case CONF_BOOL: return *(const bool *)x != *(const bool *)y;
    case CONF_CHOICE: return *(const int *)x != *(const int *)y;
    default: return false;
    }
}

/* What 0 means for setting s, as its help says it ("... (0: none; ...)"): the words after
 * "0: " up to ';' or ')'; false when the help gives 0 no meaning of its own. */
static bool zero_meaning(const struct conf_setting *s, char *buf, size_t n)
{
    const char *m = s->help ? strstr(s->help, "(0: ") : NULL;
    if (!m)
        return false;
    m += 4;
    size_t len = strcspn(m, ";)");
    snprintf(buf, n, "%.*s", (int)len, m);
    return true;
}

/* Each kernel of an application of several: the settings it runs with that differ from the
 * profile's above, one line a kernel (json: an array of objects). */
static void print_phases(const struct kernel_profile *p, int json)
{
    const struct conf_table *t = &preset_kernel_table;
    printf(json ? "[" : "%u kernels run in order, then from the first again:\n", p->nphases);
    for (unsigned i = 0; i < p->nphases; i++) {
        struct kernel_profile q;
        kernel_phase_profile(p, i, &q);
        if (json)
            printf("%s{", i ? ", " : "");
        else {
            char lead[32];
            snprintf(lead, sizeof lead, "    kernel %u of %u", i + 1, p->nphases);
            printf("%-23s", lead); /* under the settings' values */
        }
        unsigned shown = 0;
        for (size_t j = 0; j < t->count; j++) {
            const struct conf_setting *s = &t->settings[j];
            if (!differs(p, &q, s))
                continue;
            printf(json ? "%s\"%s\": " : "%s%s ", shown++ ? ", " : "", s->name);
            print_value(&q, s, json);
        }
        printf("%s", json ? "}" : shown ? "\n" : "the settings above\n");
    }
    if (json)
        printf("]");
}

static void print_show(const struct kernel_profile *p, const struct gpu_config *g, const char *gpu,
                       const struct calib_measure *m, unsigned long cycles, int json)
{
    const struct conf_table *t = &preset_kernel_table;
    if (json) {
        const char *limit;
        unsigned occ = gpu_occupancy(g, p, &limit);
        printf("{\"name\": ");
        cli_json_string(stdout, p->name);
        printf(", \"profile\": {");
        for (size_t i = 0; i < t->count; i++) {
            printf("%s\"%s\": ", i ? ", " : "", t->settings[i].name);
            if (t->settings[i].type == CONF_CUSTOM && strcmp(t->settings[i].name, "phases") == 0 &&
                p->nphases > 1)
                print_phases(p, 1);
            else
                print_value(p, &t->settings[i], 1);
        }
        printf("}, \"gpu\": ");
        cli_json_string(stdout, gpu);
        printf(", \"cycles\": %lu, \"measured\": {\"sms\": %u, \"ipc\": %.4f, \"ipc_half\": "
               "%.4f, \"scaling\": %.4f, \"mpki_warp\": %.4f, \"mpki_thread\": %.5f, \"rbh\": ",
               cycles, m->sms, m->ipc, m->ipc_half, m->scaling, m->mpki_warp, m->mpki_thread);
        if (m->bandwidth_gbs > 0)
            printf("%.4f", m->rbh);
        else
            printf("null"); /* no DRAM traffic: no row hit rate */
        printf(", \"bandwidth_gbs\": %.3f, \"bandwidth_pct\": %.3f, \"l2_miss_rate\": %.4f, "
               "\"class\": \"%s\", \"occupancy_tbs\": %u, \"occupancy_warps\": %u, "
               "\"occupancy_limit\": ",
               m->bandwidth_gbs, m->bandwidth_pct, m->l2_miss_rate,
               calibrate_class_name(m->measured_class), occ, occ * p->warps_per_tb);
        cli_json_string(stdout, limit);
        printf("}}\n");
        return;
    }
    printf("%s\n", p->name);
    for (size_t i = 0; i < t->count; i++) {
        const struct conf_setting *s = &t->settings[i];
        char zero[128];
        printf("  %-20s ", s->name);
        if (s->type == CONF_CUSTOM && strcmp(s->name, "phases") == 0 && p->nphases > 1) {
            print_phases(p, 0);
            continue;
        }
        print_value(p, s, 0);
        printf("%s%s", s->unit ? " " : "", s->unit ? s->unit : "");
        static const struct kernel_profile none; /* every setting 0 */
        if (!differs(p, &none, s) && zero_meaning(s, zero, sizeof zero))
            printf(" (%s)", zero);
        printf("\n");
    }
    char *lead = xasprintf("occupancy on %s: ", gpu);
    cli_print_occupancy(lead, g, p);
    free(lead);
    printf("measured alone on %s, %lu cycles:\n", gpu, cycles);
    printf("  IPC on %u SMs      %.2f (on %u: %.2f; scaling %.2f)\n", m->sms, m->ipc, m->sms / 2,
           m->ipc_half, m->scaling);
    printf("  MPKI               %.2f per 1000 warp instructions = %.4f per 1000 thread "
           "instructions\n",
           m->mpki_warp, m->mpki_thread);
    if (m->bandwidth_gbs > 0)
        printf("  RBH                %.3f\n", m->rbh);
    else
        printf("  RBH                - (no DRAM traffic)\n");
    printf("  bandwidth          %.1f GB/s, %.1f %% of peak\n", m->bandwidth_gbs, m->bandwidth_pct);
    printf("  class              %s (by measurement)\n", calibrate_class_name(m->measured_class));
}

/* ctx: the shown profile's hash (hex), to tell a calibration of an earlier version of it: the
 * catalog keeps the hash of the profile it measured (calibrating the changed one replaces it
 * and its measurements). */
static int print_measured_row(void *ctx, size_t ncols, const char *const *names,
                              const char *const *values)
{
    (void)names;
    if (!values || ncols != 4)
        return 0;
    bool earlier = values[3] && strcmp(values[3], (const char *)ctx) != 0;
    printf("  last calibrated    on %s (%s SMs) at %s%s\n", values[0] ? values[0] : "?",
           values[1] ? values[1] : "?", values[2] ? values[2] : "?",
           earlier ? ", against an earlier version of the profile (its settings changed since: "
                     "`corun calibrate` measures this one)"
                   : "");
    return 0;
}

/* When `corun calibrate` last stored kernel name in the catalog cat (NULL: the default one,
 * opened here), per preset. Quiet when the default catalog cannot be read: the line is a
 * courtesy, the measurement above stands on its own. Closes cat. */
static void print_last_calibrated(struct catalog *cat, const struct kernel_profile *p)
{
    char err[512];
    if (!cat)
        cat = catalog_open(NULL, err, sizeof err);
    if (!cat)
        return;
    char *quoted = cli_sql_quoted(p->name);
    char *sql = xasprintf("SELECT m.gpu, m.sms, m.measured_utc, k.profile_hash "
                          "FROM kernel_measurements m LEFT JOIN kernels k ON k.name = m.kernel "
                          "WHERE m.kernel = '%s' ORDER BY m.gpu, m.sms",
                          quoted);
    char hash[17];
    snprintf(hash, sizeof hash, "%016" PRIx64, solo_profile_hash(p));
    catalog_query(cat, sql, print_measured_row, hash, err, sizeof err);
    free(sql);
    free(quoted);
    catalog_close(cat);
}

static int show(const char *datadir, const struct options *o)
{
    struct diag diags;
    diag_init(&diags);
    struct kernel_profile p;
    struct gpu_config gpu;
    int rc = -1;
    if (preset_kernel_find(datadir, o->name, "corun: kernels show", &p, &diags) != 0)
        goto out;
    /* A catalog named that cannot be read (a directory, not a catalog) is said before the
     * measurement; it was passed over in silence, as if it held no calibration. */
    struct catalog *cat = NULL;
    if (o->catalog) {
        char err[512];
        cat = catalog_open(o->catalog, err, sizeof err);
        if (!cat) {
            diag_add(&diags, "corun: kernels show: --catalog %s: %s", o->catalog, err);
            kernel_profile_done(&p);
            goto out;
        }
    }
    const char *gpu_name = o->gpu ? o->gpu : calibrate_target_gpu(&p);
    if (!gpu_name)
        gpu_name = "hbm80";
    if (preset_gpu_find(datadir, gpu_name, "corun: --gpu", &gpu, &diags) == 0) {
        struct calib_measure m;
        char err[512];
        char label[128];
        snprintf(label, sizeof label, "%s alone on %s", p.name, gpu_name);
        if (preset_kernel_check(datadir, NULL, &gpu, &p, err, sizeof err) != 0) {
            /* as `corun check` and solo say it: the profile's file and line */
            diag_add(&diags, "%s%s (on GPU %s)",
                     preset_kernel_is_builtin(datadir, p.name) ? "corun: kernels show: " : "", err,
                     gpu_name);
        } else if (calibrate_measure(&gpu, &p, o->cycles, 1, cli_progress_fn, label, &m, err,
                                     sizeof err) != 0) {
            diag_add(&diags, "corun: kernels show: %s", err);
        } else {
            print_show(&p, &gpu, gpu_name, &m, o->cycles, o->json);
            if (!o->json) {
                print_last_calibrated(cat, &p);
                cat = NULL;
            }
            rc = 0;
        }
    }
    if (cat)
        catalog_close(cat);
    kernel_profile_done(&p);
out:
    diag_print(&diags, stderr);
    diag_done(&diags);
    return rc;
}

static int kernels_run(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    int rc = o.name ? show(datadir, &o) : list(datadir, o.json);
    free(datadir);
    return rc == 0 ? CLI_OK : CLI_BAD_INPUT;
}

const struct cli_command cmd_kernels = {
    .name = "kernels",
    .args = "list [--json] | show NAME [--gpu P] [--cycles C] [--catalog PATH] [--json]",
    .summary = "the kernel library; one profile with its measured solo characteristics",
    .help = "  list         every kernel: name, source (the paper it models; built-in; own: a\n"
            "               profile file that names no paper), class the paper gives,\n"
            "               description (also what `corun kernels` alone prints)\n"
            "  show NAME    the profile's settings (one at 0 says what 0 means), its occupancy\n"
            "               on the preset from its resources, then IPC on all SMs and on half,\n"
            "               MPKI, RBH, bandwidth and the class by measurement (see corun\n"
            "               calibrate)\n"
            "  --gpu P      preset to measure on (default: the one the paper's targets are for,\n"
            "               else hbm80)\n"
            "  --cycles C   cycles measured per run (default 50000)\n"
            "  --catalog PATH\n"
            "               where show looks up when `corun calibrate` last stored the kernel\n"
            "               (default: $XDG_DATA_HOME/corun/catalog.db; one named must exist)\n"
            "  --json       JSON on stdout\n\n"
            "scaling is the IPC on all SMs over twice the IPC on half of them: 1 for a kernel\n"
            "that runs twice as fast on twice the SMs, 0.5 for one that gains nothing from them\n"
            "(the memory-bound). show draws a progress bar on stderr when it is a terminal.\n",
    .run = kernels_run,
};
