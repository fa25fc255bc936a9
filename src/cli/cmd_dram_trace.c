/* cmd_dram_trace — `corun dram-trace TRACE --gpu P`: the DRAM model alone, driven by a
 * Ramulator-format request trace. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/dramtrace.h"
#include "corun/preset.h"
#include "corun/trace.h"

struct options {
    const char *trace;
    const char *gpu;
    unsigned long request_bytes; /* 0: the preset's */
    int mapping;                 /* -1: the preset's */
    int json;
};

static int parse(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"gpu", required_argument, NULL, 'g'},
        {"request-bytes", required_argument, NULL, 'r'},
        {"mapping", required_argument, NULL, 'm'},
        {"json", no_argument, NULL, 'j'},
        {NULL, 0, NULL, 0},
    };
    *o = (struct options){.gpu = "hbm80", .mapping = -1};
    cli_getopt_reset();
    int c;
    while ((c = cli_getopt(argc, argv, ":", longopts)) != -1) {
        switch (c) {
        case 'g': o->gpu = optarg; break;
        case 'r':
            if (cli_parse_uint("--request-bytes", optarg, 32, 1024, &o->request_bytes) != 0)
                return -1;
            break;
        case 'm':
            if (strcmp(optarg, "hashed") == 0)
                o->mapping = DRAM_MAP_HASHED;
            else if (strcmp(optarg, "linear") == 0)
                o->mapping = DRAM_MAP_LINEAR;
            else {
                fprintf(stderr, "corun: --mapping: expected linear or hashed, got '%s'\n", optarg);
                return -1;
            }
            break;
        case 'j': o->json = 1; break;
        default: return -1;
        }
    }
    if (cli_operands(&cmd_dram_trace, argc, argv, optind, 1, "a trace file (TRACE)") != 0)
        return -1;
    o->trace = argv[optind];
    return 0;
}

/* A wall time in s, or under a millisecond in us or ns, as the simulated time is: a tiny
 * trace's "0.000 s" said nothing. */
static void format_wall(char *buf, size_t len, double s)
{
    if (s >= 1e-3)
        snprintf(buf, len, "%.3f s", s);
    else if (s >= 1e-6)
        snprintf(buf, len, "%.1f us", s * 1e6);
    else
        snprintf(buf, len, "%.1f ns", s * 1e9);
}

static void print_text(const struct options *o, const struct dram_config *d,
                       const struct dramtrace_result *r, double parse_s, double sim_s)
{
    printf("trace          %s: %llu request%s (%llu read%s, %llu write%s) of %u B\n", o->trace,
           (unsigned long long)r->requests, r->requests == 1 ? "" : "s",
           (unsigned long long)r->reads, r->reads == 1 ? "" : "s", (unsigned long long)r->writes,
           r->writes == 1 ? "" : "s", r->request_bytes);
    printf("memory         %s: %u channels x %u banks, %.0f MHz, %s mapping, peak %.1f GB/s\n",
           o->gpu, d->channels, d->bank_groups * d->banks_per_group, d->clock_mhz,
           d->mapping == DRAM_MAP_LINEAR ? "linear" : "hashed", r->peak_gbs);
    /* A short trace's time and speed in units that do not round them to 0. */
    bool under_us = r->seconds < 1e-6;
    printf("time           %llu memory cycles to the last completion (%.1f %s simulated)\n",
           (unsigned long long)r->cycles, r->seconds * (under_us ? 1e9 : 1e6),
           under_us ? "ns" : "us");
    printf("bandwidth      %.1f GB/s, %.1f %% of peak\n", r->bandwidth_gbs, r->utilization_pct);
    printf("row buffer     %llu hits (%.1f %%), %llu misses, %llu conflicts\n",
           (unsigned long long)r->row_hits, r->row_hit_rate * 100,
           (unsigned long long)r->row_misses, (unsigned long long)r->row_conflicts);
    printf("commands       %llu activates, %llu refreshes\n", (unsigned long long)r->activates,
           (unsigned long long)r->refreshes);
    if (r->reads) /* a latency of no reads is not 0 cycles: there is none */
        printf("read latency   %.1f memory cycles mean (%.1f ns); queueing %.1f cycles mean\n",
               r->mean_read_latency_cycles, r->mean_read_latency_cycles * 1e3 / d->clock_mhz,
               r->mean_queue_cycles);
    else
        printf("read latency   - (no reads); queueing %.1f cycles mean\n", r->mean_queue_cycles);
    double per_s = (double)r->requests / (parse_s + sim_s);
    if (per_s < 1e4)
        printf("speed          %.0f requests per wall second", per_s);
    else
        printf("speed          %.2f M requests per wall second", per_s / 1e6);
    char parse[32], sim[32];
    format_wall(parse, sizeof parse, parse_s);
    format_wall(sim, sizeof sim, sim_s);
    printf(" (parse %s, simulate %s)\n", parse, sim);
}

static void print_json(const struct options *o, const struct dramtrace_result *r, double parse_s,
                       double sim_s)
{
    printf("{\"trace\": ");
    cli_json_string(stdout, o->trace);
    printf(", \"gpu\": ");
    cli_json_string(stdout, o->gpu);
    printf(", \"requests\": %llu, \"reads\": %llu, \"writes\": %llu, \"request_bytes\": %u, "
           "\"memory_cycles\": %llu, \"bandwidth_gbs\": %.3f, \"peak_gbs\": %.3f, "
           "\"utilization_pct\": %.3f, \"row_hits\": %llu, \"row_misses\": %llu, "
           "\"row_conflicts\": %llu, \"activates\": %llu, \"refreshes\": %llu, "
           "\"mean_read_latency_cycles\": ",
           (unsigned long long)r->requests, (unsigned long long)r->reads,
           (unsigned long long)r->writes, r->request_bytes, (unsigned long long)r->cycles,
           r->bandwidth_gbs, r->peak_gbs, r->utilization_pct, (unsigned long long)r->row_hits,
           (unsigned long long)r->row_misses, (unsigned long long)r->row_conflicts,
           (unsigned long long)r->activates, (unsigned long long)r->refreshes);
    if (r->reads)
        printf("%.3f", r->mean_read_latency_cycles);
    else
        printf("null"); /* no reads: no latency */
    /* The wall times in full, as the table keeps their digits: six decimals left a tiny
     * trace's 12 us two digits, and a speed the printed times did not give. */
    printf(", \"mean_queue_cycles\": %.3f, \"parse_seconds\": %.9g, \"simulate_seconds\": %.9g, "
           "\"requests_per_second\": %.9g}\n",
           r->mean_queue_cycles, parse_s, sim_s, (double)r->requests / (parse_s + sim_s));
}

static int dram_trace_run(int argc, char **argv)
{
    struct options o;
    if (parse(argc, argv, &o) != 0)
        return CLI_BAD_INPUT;
    char *datadir = datadir_locate();
    struct diag diags;
    diag_init(&diags);
    struct gpu_config gpu;
    int rc = CLI_BAD_INPUT;
    struct trace t = {0};
    char err[512];
    if (preset_gpu_find(datadir, o.gpu, "corun: --gpu", &gpu, &diags) != 0) {
        diag_print(&diags, stderr);
        goto out;
    }
    if (o.mapping >= 0)
        gpu.dram.mapping = (enum dram_mapping)o.mapping;
    /* Before the trace is read: a request must divide the row (the preset's row is in no
     * option, so the message names it). */
    if (o.request_bytes && gpu.dram.row_bytes % o.request_bytes != 0) {
        fprintf(stderr,
                "corun: --request-bytes %lu: expected a divisor of %s's DRAM row of %u bytes "
                "(e.g. 32, 64, 128 or 256)\n",
                o.request_bytes, o.gpu, gpu.dram.row_bytes);
        goto out;
    }
    double t0 = cli_wall_seconds();
    if (trace_load(o.trace, &t, err, sizeof err) != 0) {
        fprintf(stderr, "corun: dram-trace: %s\n", err); /* as bench --traces says it */
        goto out;
    }
    double t1 = cli_wall_seconds();
    struct dramtrace_result r;
    if (dramtrace_run(&gpu.dram, (unsigned)o.request_bytes, t.addrs, t.writes, t.count,
                      cli_progress_fn, (void *)o.trace, &r, err, sizeof err) != 0) {
        fprintf(stderr, "corun: %s\n", err);
        goto out;
    }
    double t2 = cli_wall_seconds();
    if (o.json)
        print_json(&o, &r, t1 - t0, t2 - t1);
    else
        print_text(&o, &gpu.dram, &r, t1 - t0, t2 - t1);
    rc = CLI_OK;
out:
    trace_free(&t);
    diag_done(&diags);
    free(datadir);
    return rc;
}

const struct cli_command cmd_dram_trace = {
    .name = "dram-trace",
    .args = "TRACE [--gpu P] [--request-bytes N] [--mapping linear|hashed] [--json]",
    .summary = "drive the DRAM model alone with a Ramulator-format trace",
    .help = "TRACE holds one request a line, \"0xADDR R\" or \"0xADDR W\" (the format Ramulator\n"
            "reads: ADDR is hexadecimal, with or without 0x; tools/gen_dram_traces.py in corun's\n"
            "source tree writes such files). Requests enter one in-order queue per channel as\n"
            "fast as the channel accepts them.\n\n"
            "  --gpu P              the preset whose memory system to use (default hbm80)\n"
            "  --request-bytes N    bytes per request, 32 to 1024 and a divisor of the\n"
            "                       DRAM row's bytes (default: the preset's)\n"
            "  --mapping M          linear or hashed address mapping (default: the preset's)\n"
            "  --json               one JSON object on stdout instead of the table\n\n"
            "Prints memory cycles to the last completion, bandwidth and % of peak, row hits,\n"
            "misses and conflicts, activates, mean read latency, and requests simulated per\n"
            "wall second (parsing included). A progress bar goes to stderr when it is a\n"
            "terminal.\n",
    .run = dram_trace_run,
};
