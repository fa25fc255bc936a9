/* cmd_solo — `corun solo KERNEL --gpu P`: a kernel alone on N SMs (private mode). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/preset.h"
#include "corun/scenario.h"
#include "corun/solo.h"
#include "corun/util.h"

struct options {
    const char *kernel;
    const char *gpu;
    const char *sms_text; /* --sms, read once the preset says how many SMs there are */
    unsigned long sms;    /* 0: all */
    unsigned long cycles;
    unsigned long seed;
    int json;
    char **sets; /* --set gpu.K=V, in order */
    int nsets;
};

static int parse(int argc, char **argv, struct options *o, char **sets)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"sms", required_argument, NULL, 'n'},
        {"cycles", required_argument, NULL, 'c'},
        {"seed", required_argument, NULL, 's'},
        {"json", no_argument, NULL, 'j'},
        {"set", required_argument, NULL, 'S'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.gpu = "hbm80", .cycles = 200000, .seed = 1, .sets = sets};
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        switch (c) {
        case 'S': o->sets[o->nsets++] = optarg; break;
        case 'g': o->gpu = optarg; break;
        case 'n': o->sms_text = optarg; break;
        case 'c':
            if (cli_parse_uint("--cycles", optarg, 1000, 1000000000, &o->cycles) != 0)
                return -1;
            break;
        case 's':
            if (cli_parse_uint("--seed", optarg, 0, CLI_SEED_MAX, &o->seed) != 0)
                return -1;
            break;
        case 'j': o->json = 1; break;
        default: return -1;
        }
    }
    if (cli_operands(&cmd_solo, argc, argv, optind, 1, "a kernel's name (KERNEL)") != 0)
        return -1;
    o->kernel = argv[optind];
    return 0;
}

static int solo_run(int argc, char **argv)
{
    struct options o;
    char **sets = xcalloc((size_t)argc + 1, sizeof(*sets));
    if (parse(argc, argv, &o, sets) != 0) {
        free(sets);
        return CLI_BAD_INPUT;
    }
    char *datadir = datadir_locate();
    struct diag diags;
    diag_init(&diags);
    struct gpu_config gpu;
    struct kernel_profile p = {0};
    int rc = CLI_BAD_INPUT;
    if (preset_gpu_find(datadir, o.gpu, "corun: --gpu", &gpu, &diags) != 0 ||
        preset_kernel_find(datadir, o.kernel, "corun: solo", &p, &diags) != 0) {
        diag_print(&diags, stderr);
        goto out;
    }
    for (int i = 0; i < o.nsets; i++)
        if (scenario_set_gpu(&gpu, o.sets[i], &diags) != 0) {
            cli_print_diags("solo", &diags);
            goto out;
        }
    char err[512];
    if (o.nsets && gpu_config_check(&gpu, err, sizeof err) != 0) {
        fprintf(stderr, "corun: solo: --set: %s\n", err);
        goto out;
    }
    char what[96];
    snprintf(what, sizeof what, "--sms (%s%s has %u SMs)", o.gpu, o.nsets ? " with its --set" : "",
             gpu.sms);
    if (o.sms_text && cli_parse_uint(what, o.sms_text, 1, gpu.sms, &o.sms) != 0)
        goto out;
    /* A profile that does not fit this GPU, said as `corun check` says it: its file and line. */
    if (preset_kernel_check(datadir, NULL, &gpu, &p, err, sizeof err) != 0) {
        fprintf(stderr, "%s%s (on GPU %s%s)\n",
                preset_kernel_is_builtin(datadir, o.kernel) ? "corun: solo: " : "", err, o.gpu,
                o.nsets ? " with its --set" : "");
        goto out;
    }
    struct solo_result r;
    char label[128];
    snprintf(label, sizeof label, "%s alone on %s", o.kernel, o.gpu);
    if (solo_characterize(&gpu, &p, (unsigned)o.sms, o.cycles, o.seed, cli_progress_fn, label, &r,
                          err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        goto out;
    }
    const char *limit;
    unsigned occ = gpu_occupancy(&gpu, &p, &limit);
    if (o.json) {
        printf("{\"kernel\": ");
        cli_json_string(stdout, o.kernel);
        printf(", \"gpu\": ");
        cli_json_string(stdout, o.gpu);
        printf(", \"sets\": [");
        for (int i = 0; i < o.nsets; i++) {
            fputs(i ? ", " : "", stdout);
            cli_json_string(stdout, o.sets[i]);
        }
        printf("]");
        printf(", \"sms\": %u, \"cycles\": %llu, \"instructions\": %llu, \"ipc\": %.4f, "
               "\"bandwidth_gbs\": %.3f, \"bandwidth_pct\": %.3f, \"rbh\": ",
               r.sms, (unsigned long long)r.cycles, (unsigned long long)r.instructions, r.ipc,
               r.bandwidth_gbs, r.bandwidth_pct);
        if (r.dram_requests)
            printf("%.4f", r.rbh);
        else
            printf("null"); /* no DRAM request: no row hit rate */
        printf(", \"l1d_miss_rate\": %.4f, \"l1c_miss_rate\": %.4f, \"l2_miss_rate\": %.4f, "
               "\"mpki\": %.4f, \"dram_requests\": %llu, \"occupancy_tbs\": %u, "
               "\"occupancy_warps\": %u, \"occupancy_limit\": ",
               r.l1d_miss_rate, r.l1c_miss_rate, r.l2_miss_rate, r.mpki,
               (unsigned long long)r.dram_requests, occ, occ * p.warps_per_tb);
        cli_json_string(stdout, limit);
        printf("}\n");
    } else {
        /* The preset as --set changed it, or the header named the preset alone. */
        printf("%s alone on %u of %s's %u SMs", o.kernel, r.sms, o.gpu, gpu.sms);
        for (int i = 0; i < o.nsets; i++)
            printf("%s%s", i ? ", " : " with ", o.sets[i]);
        printf(", %llu cycles measured after %llu of warm-up\n", (unsigned long long)r.cycles,
               (unsigned long long)r.warmup_cycles);
        cli_print_occupancy("  occupancy    ", &gpu, &p);
        if ((uint64_t)p.tbs < (uint64_t)occ * r.sms) /* a grid too small to fill them */
            printf("  grid         %u TBs over %u SMs: at most %.1f TBs per SM at once on average "
                   "(%.0f %% "
                   "of the warp slots)%s\n",
                   p.tbs, r.sms, (double)p.tbs / r.sms,
                   100.0 * p.tbs * p.warps_per_tb / ((double)r.sms * gpu.warps_per_sm),
                   p.nphases > 1 ? ", first kernel" : "");
        printf("  IPC          %.2f warp instructions per cycle (%.3f per SM)\n", r.ipc,
               r.ipc / r.sms);
        printf("  bandwidth    %.1f GB/s, %.1f %% of peak\n", r.bandwidth_gbs, r.bandwidth_pct);
        if (r.dram_requests)
            printf("  RBH          %.3f\n", r.rbh);
        else
            printf("  RBH          - (no DRAM requests)\n");
        printf("  miss rates   L1d %.3f, L1c %.3f, L2 %.3f\n", r.l1d_miss_rate, r.l1c_miss_rate,
               r.l2_miss_rate);
        printf("  MPKI         %.2f LLC misses per 1000 warp instructions\n", r.mpki);
    }
    rc = CLI_OK;
out:
    kernel_profile_done(&p);
    diag_done(&diags);
    free(datadir);
    free(sets);
    return rc;
}

const struct cli_command cmd_solo = {
    .name = "solo",
    .args = "KERNEL [--gpu P] [--sms N] [--cycles C] [--seed S] [--set gpu.K=V]... [--json]",
    .summary = "characterize a kernel alone on N SMs: IPC, bandwidth, RBH, miss rates, MPKI",
    .help = "  --gpu P      GPU preset (default hbm80)\n"
            "  --sms N      SMs to give the kernel; the rest are power-gated (default: all)\n"
            "  --cycles C   core cycles to measure, after C/10 of warm-up (default 200000)\n"
            "  --seed S     seed of the kernel's address streams (default 1)\n"
            "  --set gpu.K=V\n"
            "               change a setting of the preset (gpu.llc.latency_cycles=240,\n"
            "               gpu.sfu.lanes=32, ...: `corun help gpu`); repeatable\n"
            "  --json       one JSON object on stdout\n\n"
            "A progress bar goes to stderr when it is a terminal.\n",
    .run = solo_run,
};
