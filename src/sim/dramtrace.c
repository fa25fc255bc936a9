/* dramtrace — a trace-driven frontend for the DRAM model; see the header for the frontend. */
#include "corun/dramtrace.h"
#include "corun/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct last_done {
    uint64_t cycle;
};

static void note_done(void *ctx, const struct dram_request *req, uint64_t mem_cycle)
{
    (void)req;
    struct last_done *last = ctx;
    if (mem_cycle > last->cycle)
        last->cycle = mem_cycle;
}

/* The requests grouped by channel, trace order kept within a channel: channel c's are
 * [start[c], start[c + 1]) of addr and write. Copied rather than indexed so that feeding reads
 * each channel's requests sequentially. */
struct by_channel {
    size_t *start; /* [channels + 1] */
    uint64_t *addr;
    bool *write;
};

static void bucket_by_channel(const struct dram *d, unsigned channels, const uint64_t *addrs,
                              const bool *writes, size_t n, struct by_channel *out)
{
    unsigned *chan = xmalloc(n * sizeof(*chan));
    size_t *start = xcalloc(channels + 1, sizeof(*start));
    for (size_t i = 0; i < n; i++) {
        chan[i] = dram_channel_of(d, addrs[i]);
        start[chan[i] + 1]++;
    }
    for (unsigned c = 0; c < channels; c++)
        start[c + 1] += start[c];
    size_t *fill = xmalloc(channels * sizeof(*fill));
    memcpy(fill, start, channels * sizeof(*fill));
    out->addr = xmalloc(n * sizeof(*out->addr));
    out->write = xmalloc(n * sizeof(*out->write));
    for (size_t i = 0; i < n; i++) {
        size_t k = fill[chan[i]]++;
        out->addr[k] = addrs[i];
        out->write[k] = writes && writes[i];
    }
    out->start = start;
    free(fill);
    free(chan);
}

int dramtrace_run(const struct dram_config *cfg, unsigned request_bytes, const uint64_t *addrs,
                  const bool *writes, size_t n, util_progress_fn progress, void *ctx,
                  struct dramtrace_result *out, char *err, size_t errlen)
{
    struct dram_config c = *cfg;
    if (request_bytes)
        c.request_bytes = request_bytes;
    if (dram_config_check(&c, err, errlen) != 0)
        return -1;
    if (n == 0) {
        snprintf(err, errlen, "the trace holds no requests");
        return -1;
    }
    struct last_done last = {0};
    struct dram *d = dram_new(&c, 1, note_done, &last);
    struct by_channel reqs;
    bucket_by_channel(d, c.channels, addrs, writes, n, &reqs);
    size_t *next = xmalloc(c.channels * sizeof(*next));
    memcpy(next, reqs.start, c.channels * sizeof(*next));

    /* Channels whose frontend still holds requests, compacted as they run dry. */
    unsigned *feeding = xmalloc(c.channels * sizeof(*feeding));
    unsigned nfeeding = 0;
    for (unsigned ch = 0; ch < c.channels; ch++) {
        if (reqs.start[ch] < reqs.start[ch + 1])
            feeding[nfeeding++] = ch;
    }
    /* Told as each further 2 % of the requests goes in (the last share: once all are done). */
    size_t added = 0, tell_at = n / 50 + 1;
    while (nfeeding || !dram_idle(d)) {
        if (progress && added >= tell_at && added < n) {
            progress(ctx, (double)added / (double)n);
            tell_at = added + n / 50 + 1;
        }
        for (unsigned k = 0; k < nfeeding;) {
            unsigned ch = feeding[k];
            size_t end = reqs.start[ch + 1];
            while (next[ch] < end && dram_channel_will_accept(d, ch)) {
                struct dram_request req = {reqs.addr[next[ch]], reqs.write[next[ch]], 0, NULL};
                dram_add(d, &req);
                next[ch]++;
                added++;
            }
            if (next[ch] == end)
                feeding[k] = feeding[--nfeeding];
            else
                k++;
        }
        dram_tick(d);
    }
    if (progress)
        progress(ctx, 1);

    struct dram_app_counters a;
    dram_app_counters(d, 0, &a);
    memset(out, 0, sizeof(*out));
    out->requests = n;
    out->reads = a.reads;
    out->writes = a.writes;
    out->request_bytes = c.request_bytes;
    out->cycles = last.cycle;
    out->bytes = a.bytes;
    out->seconds = (double)last.cycle / (c.clock_mhz * 1e6);
    out->bandwidth_gbs = out->seconds > 0 ? (double)a.bytes / out->seconds / 1e9 : 0;
    out->peak_gbs = dram_config_peak_gbs(&c);
    out->utilization_pct = 100.0 * out->bandwidth_gbs / out->peak_gbs;
    out->row_hits = a.row_hits;
    out->row_misses = a.row_misses;
    out->row_conflicts = a.row_conflicts;
    out->activates = a.activates;
    for (unsigned ch = 0; ch < c.channels; ch++) {
        struct dram_channel_counters cc;
        dram_channel_counters(d, ch, &cc);
        out->refreshes += cc.refreshes;
    }
    out->row_hit_rate = (double)a.row_hits / (double)n;
    out->mean_read_latency_cycles = a.reads ? (double)a.read_latency_cycles / (double)a.reads : 0;
    out->mean_queue_cycles = (double)a.queue_cycles / (double)n;

    free(feeding);
    free(next);
    free(reqs.addr);
    free(reqs.write);
    free(reqs.start);
    dram_delete(d);
    return 0;
}
