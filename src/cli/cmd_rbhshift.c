/* cmd_rbhshift — `corun rbh-shift`: HSM Fig. 4, private against shared RBH of each
 * memory-bound HSM application; exit 1 when one shifts by more than the tolerance or a run
 * failed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/rbhshift.h"
#include "corun/util.h"

struct options {
    struct rbhshift_options r;
    int json;
    char **with; /* split from --with A,B,... */
    size_t n_with;
    char *with_text;
};

static void split_with(struct options *o, const char *text)
{
    free(o->with_text);
    free(o->with);
    o->with_text = xstrdup(text);
    o->with = xcalloc(strlen(text) + 1, sizeof(*o->with));
    o->n_with = 0;
    /* Split at every comma, so that an empty name ("bino,") is one, and refused. */
    for (char *s = o->with_text, *comma;; s = comma + 1) {
        comma = strchr(s, ',');
        if (comma)
            *comma = '\0';
        o->with[o->n_with++] = s;
        if (!comma)
            break;
    }
}

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"cycles", required_argument, NULL, 'c'},
        {"quick", no_argument, NULL, 'q'},
        {"jobs", required_argument, NULL, 'j'},
        {"seed", required_argument, NULL, 's'},
        {"with", required_argument, NULL, 'w'},
        {"json", no_argument, NULL, 'J'},
        {"set", required_argument, NULL, 'X'},
        {NULL, 0, NULL, 0},
    };
    unsigned long cycles = RBHSHIFT_DEFAULT_CYCLES, jobs = 1, seed = 1;
    cli_getopt_reset();
    int c, quick = 0, cycles_given = 0;
    while ((c = cli_getopt(argc, argv, ":j:", longopts)) != -1) {
        switch (c) {
        case 'g': o->r.gpu = optarg; break;
        case 'c':
            if (cli_parse_uint("--cycles", optarg, 1000, 1000000000, &cycles) != 0)
                return -1;
            cycles_given = 1;
            break;
        case 'q':
            cycles = RBHSHIFT_QUICK_CYCLES;
            quick = 1;
            break;
        case 'j':
            if (cli_parse_uint("-j", optarg, 1, 64, &jobs) != 0)
                return -1;
            break;
        case 's':
            if (cli_parse_uint("--seed", optarg, 0, CLI_SEED_MAX, &seed) != 0)
                return -1;
            break;
        case 'w':
            split_with(o, optarg);
            for (size_t i = 0; i < o->n_with; i++)
                if (!*o->with[i]) { /* "", "bino," or ",,": a name left out */
                    fprintf(stderr,
                            "corun: --with: expected kernel names separated by commas, got "
                            "'%s'\n",
                            optarg);
                    return -1;
                }
            if (cli_names_once("rbh-shift --with", (const char *const *)o->with, o->n_with) != 0)
                return -1;
            break;
        case 'J': o->json = 1; break;
        case 'X':
            if (cli_add_gpu_set(&o->r.sets, "rbh-shift", optarg) != CLI_OK)
                return -1;
            break;
        default: return -1;
        }
    }
    if (quick && cycles_given) { /* the later one won, unsaid */
        fprintf(stderr,
                "corun: rbh-shift: --quick and --cycles both set the cycles: expected one\n");
        return -1;
    }
    if (cli_names_once("rbh-shift", (const char *const *)argv + optind, (size_t)(argc - optind)) !=
        0)
        return -1;
    o->r.cycles = cycles;
    o->r.jobs = (unsigned)jobs;
    o->r.seed = seed;
    o->r.only = (const char *const *)argv + optind;
    o->r.n_only = (size_t)(argc - optind);
    o->r.with = (const char *const *)o->with;
    o->r.n_with = o->n_with;
    return 0;
}

static void progress(void *user, double done, size_t total)
{
    (void)user;
    cli_progress("rbh-shift", total ? done / (double)total : 1);
}

static void print_text(const struct rbhshift_report *r, const struct gpu_sets *sets)
{
    char set[1024];
    gpu_sets_describe(sets, " with ", ", ", set, sizeof set);
    /* An odd count is split unevenly: the first of a pair by name takes the SM over. */
    char each[96];
    if (r->sms_first != r->sms_second)
        snprintf(each, sizeof each, "%u or %u SMs (shared; the first by name of a pair has %u)",
                 r->sms_second, r->sms_first, r->sms_first);
    else
        snprintf(each, sizeof each, "%u SMs (shared)", r->sms_first);
    printf("HSM Fig. 4 on %s%s: RBH alone on all %u SMs (private) and beside each co-runner on "
           "%s; %llu cycles after %llu of warm-up\n",
           r->gpu, set, r->sms, each, (unsigned long long)r->cycles,
           (unsigned long long)r->warmup_cycles);
    printf("%-10s %7s %7s %7s %7s %7s  %-10s %s\n", "kernel", "private", "min", "mean", "max",
           "|shift|", "against", "verdict");
    for (size_t i = 0; i < r->count; i++) {
        const struct rbhshift_row *w = &r->rows[i];
        printf("%-10s %7.3f %7.3f %7.3f %7.3f %7.3f  %-10s %s\n", w->kernel, w->rbh_private,
               w->rbh_min, w->rbh_mean, w->rbh_max, w->max_shift,
               w->npairs ? w->pairs[w->worst].corunner : "-", w->ok ? "ok" : "OUT");
    }
    printf("%zu of %zu within %.2f (HSM: \"RBH is similar in the shared and private modes\")\n",
           r->count - r->failures, r->count, RBHSHIFT_TOLERANCE);
    if (r->failed_runs)
        printf("%zu of %zu runs failed (named on stderr): a failed pair is left out of its rows, "
               "an application whose run alone failed has no row\n",
               r->failed_runs, r->runs);
}

static void print_json(const struct rbhshift_report *r, const struct gpu_sets *sets)
{
    printf("{\"gpu\": ");
    cli_json_string(stdout, r->gpu);
    printf(", \"sets\": ");
    cli_json_gpu_sets(stdout, sets);
    /* sms_each only where it is true of both: an odd count gives the first by name one more. */
    printf(", \"sms\": %u, \"sms_first\": %u, \"sms_second\": %u", r->sms, r->sms_first,
           r->sms_second);
    if (r->sms_first == r->sms_second)
        printf(", \"sms_each\": %u", r->sms_first);
    printf(", \"cycles\": %llu, \"warmup_cycles\": %llu, \"tolerance\": %g, \"failures\": %zu, "
           "\"runs\": %zu, \"failed_runs\": %zu, \"kernels\": [",
           (unsigned long long)r->cycles, (unsigned long long)r->warmup_cycles, RBHSHIFT_TOLERANCE,
           r->failures, r->runs, r->failed_runs);
    for (size_t i = 0; i < r->count; i++) {
        const struct rbhshift_row *w = &r->rows[i];
        printf("%s\n  {\"name\": ", i ? "," : "");
        cli_json_string(stdout, w->kernel);
        printf(", \"rbh_private\": %.4f, \"max_shift\": %.4f, \"against\": ", w->rbh_private,
               w->max_shift);
        cli_json_string(stdout, w->npairs ? w->pairs[w->worst].corunner : "");
        printf(", \"status\": \"%s\", \"shared\": {", w->ok ? "ok" : "out");
        for (size_t p = 0; p < w->npairs; p++) {
            printf("%s", p ? ", " : "");
            cli_json_string(stdout, w->pairs[p].corunner);
            printf(": %.4f", w->pairs[p].rbh_shared);
        }
        printf("}}");
    }
    printf("\n]}\n");
}

static int rbhshift_cmd_run(int argc, char **argv)
{
    struct options o = {.r = {.gpu = "hbm80"}};
    int rc = CLI_BAD_INPUT;
    if (parse(argc, argv, &o) != 0)
        goto out;
    char *datadir = datadir_locate();
    struct diag diags;
    diag_init(&diags);
    struct rbhshift_report r;
    if (rbhshift_run(datadir, &o.r, progress, NULL, &r, &diags) == 0) {
        if (o.json)
            print_json(&r, &o.r.sets);
        else
            print_text(&r, &o.r.sets);
        rc = r.failures || r.failed_runs ? CLI_FAILED : CLI_OK;
        rbhshift_report_done(&r);
    } else {
        progress(NULL, 1, 1);
    }
    diag_print(&diags, stderr);
    diag_done(&diags);
    free(datadir);
out:
    free(o.with);
    free(o.with_text);
    return rc;
}

const struct cli_command cmd_rbhshift = {
    .name = "rbh-shift",
    .args = "[--gpu P] [--set gpu.K=V]... [--quick] [--cycles C] [-j N] [--seed S] "
            "[--with A,B,...] [--json] [KERNEL...]",
    .summary = "HSM Fig. 4: does a memory-bound application keep its RBH when it shares the GPU?",
    .help =
        "Each memory-bound HSM application (paper \"hsm\", class memory) runs alone on all SMs\n"
        "(private RBH) and beside each other HSM application on an even split (shared RBH);\n"
        "the table gives the shared RBH's min, mean and max and the largest |shared - private|\n"
        "with the co-runner it comes from. HSM's Insight #5 holds when that is <= 0.1.\n"
        "  --gpu P         the preset (default hbm80)\n"
        "  --set gpu.SETTING=VALUE  change a GPU setting for every run, as `corun run --set`\n"
        "                  does (e.g. gpu.order_free=true); repeatable, at most 16\n"
        "  --cycles C      measured cycles per run (default 1000000), after C/10 of warm-up;\n"
        "                  shorter ones are dominated by the start-up transient\n"
        "  --quick         a shorter window (20000 cycles), for tests\n"
        "  -j, --jobs N    runs in N forked processes (default 1)\n"
        "  --seed S        seed of every run (default 1)\n"
        "  --with A,B,...  only these co-runners (default: all 14 others)\n"
        "  --json          one JSON object on stdout; sms_first and sms_second are the SMs\n"
        "                  of a pair's first application by name and of the other (an odd\n"
        "                  SM count gives the first one more), sms_each is there when they\n"
        "                  are equal\n"
        "  KERNEL...       only these memory-bound applications (default: all ten)\n"
        "Exit status 1 when an application shifts by more than 0.1, or when a run failed (a\n"
        "worker killed, say): each is named on stderr and left out, and the table is made of\n"
        "the rest. The full run is 150 runs of 1.1 M cycles, about 8 minutes of one core.\n",
    .run = rbhshift_cmd_run,
};
