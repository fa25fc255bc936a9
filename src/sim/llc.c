/* llc — LLC slices: input queue, tags and MSHRs, DRAM request queue; the sampled ATD. */
#include "corun/llc.h"
#include "llc_internal.h"

#include "corun/cache.h"
#include "corun/kstate.h"
#include "corun/noc.h"
#include "corun/rng.h"
#include "corun/sm.h"
#include "corun/util.h"
#include "corun/wake.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct llc *llc_new(const struct gpu_config *cfg, struct sim_env *env)
{
    struct llc *l = xcalloc(1, sizeof(*l));
    l->env = env;
    l->nslices = cfg->llc_slices;
    l->channels = cfg->dram.channels;
    l->per_channel = l->nslices % l->channels == 0 ? l->nslices / l->channels : 0;
    l->line_bytes = cfg->llc.line_bytes;
    l->latency = cfg->llc.latency_cycles;
    l->sm_words = (cfg->sms + 63) / 64;
    l->s = xcalloc(l->nslices, sizeof(*l->s));
    l->listed = xcalloc(l->nslices, sizeof(*l->listed));
    l->view = xcalloc(l->nslices, sizeof(*l->view));
    l->touched = xcalloc(l->nslices, sizeof(*l->touched));
    l->cur = &l->log[0];
    uint64_t slice_bytes = cfg->llc.size_bytes / cfg->llc_slices;
    unsigned sets = (unsigned)(slice_bytes / cfg->llc.line_bytes / cfg->llc.ways);
    l->ways = cfg->llc.ways;
    l->atd_sets = (sets + LLC_ATD_STRIDE - 1) / LLC_ATD_STRIDE;
    /* Room for every kernel the GPU may ever run, not just those of gpu_new: a kernel joining
     * the mix (gpu_add_kernel) gets an empty private copy. */
    size_t atd_lines = (size_t)SIM_MAX_KERNELS * l->atd_sets * l->ways;
    for (unsigned i = 0; i < l->nslices; i++) {
        struct slice *s = &l->s[i];
        s->cache = cache_new(slice_bytes, cfg->llc.ways, cfg->llc.line_bytes, cfg->llc.mshrs,
                             cfg->llc.mshrs * 8, true);
        assert(s->cache);
        s->in_cap = LLC_QUEUE_ENTRIES + l->latency;
        s->in = xcalloc(s->in_cap, sizeof(*s->in));
        s->waiters = xcalloc(l->sm_words, sizeof(uint64_t));
        l->view[i] = (struct split_view){.cap = s->in_cap, .in = s->in, .waiters = s->waiters};
        s->atd_tag = xcalloc(atd_lines, sizeof(uint64_t));
        s->atd_stamp = xcalloc(atd_lines, sizeof(uint64_t));
    }
    return l;
}

void llc_delete(struct llc *l)
{
    if (!l)
        return;
    for (unsigned i = 0; i < l->nslices; i++) {
        cache_delete(l->s[i].cache);
        free(l->s[i].in);
        free(l->s[i].waiters);
        free(l->s[i].atd_tag);
        free(l->s[i].atd_stamp);
    }
    free(l->s);
    free(l->listed);
    free(l->view);
    free(l->touched);
    for (unsigned i = 0; i < LLC_PIPE_SLOTS; i++) {
        free(l->log[i].ev);
        free(l->batch[i].e);
    }
    free(l->mark);
    free(l->mark_ready);
    free(l->def);
    free(l);
}

unsigned llc_slices(const struct llc *l)
{
    return l->nslices;
}

unsigned llc_slice_of(const struct llc *l, uint64_t line)
{
    if (!l->per_channel)
        return (unsigned)(rng_mix64(line) % l->nslices);
    unsigned channel = dram_channel_of(l->env->dram, line * l->line_bytes);
    unsigned n = l->per_channel, sub = 0;
    if (n > 1) /* a mask rather than a division when n is a power of two, as in the presets */
        sub = (n & (n - 1)) == 0 ? (unsigned)(rng_mix64(line) & (n - 1))
                                 : (unsigned)(rng_mix64(line) % n);
    return channel * n + sub;
}

unsigned llc_mshrs_used(const struct llc *l, unsigned slice)
{
    return cache_mshrs_used(l->s[slice].cache);
}

/* The SM side of a split block appends to slice's queue: after the requests it held as the
 * block began, the slices' pops meanwhile notwithstanding (they are disjoint entries). */
static bool split_append(struct llc *l, unsigned slice, uint64_t arrive, uint64_t line, unsigned sm,
                         enum llc_kind kind, unsigned kernel)
{
    struct split_view *v = &l->view[slice];
    unsigned tail = v->head + v->base + v->added; /* < 2 * in_cap */
    struct llc_req *r = &v->in[tail < v->cap ? tail : tail - v->cap];
    *r = (struct llc_req){.ready = arrive + l->latency,
                          .line = line,
                          .sm = (uint16_t)sm,
                          .kind = (uint8_t)kind,
                          .kernel = (uint8_t)kernel};
    if (v->added++ == 0) {
        v->first_ready = r->ready;
        l->touched[l->ntouched++] = slice;
    }
    return true;
}

unsigned llc_request_bytes(const struct llc *l, enum llc_kind kind)
{
    return kind == LLC_WRITE ? l->line_bytes : 8;
}

static bool send(struct llc *l, unsigned sm, unsigned slice, uint64_t line, enum llc_kind kind,
                 unsigned kernel, uint64_t now, bool port_taken)
{
    struct slice *s = &l->s[slice];
    /* Split: the queue as the SMs saw it when they ran before the slices, their own appends
     * kept apart from the slices' pops until the block's end. */
    if (l->split) {
        struct split_view *v = &l->view[slice];
        if (v->base + v->added == v->cap) {
            v->waiters[sm / 64] |= 1ull << (sm % 64);
            return false;
        }
    } else if (s->in_count == s->in_cap) {
        s->waiters[sm / 64] |= 1ull << (sm % 64);
        return false;
    }
    unsigned bytes = llc_request_bytes(l, kind);
    uint64_t arrive = port_taken ? noc_take_slice_port(l->env->noc, slice, bytes, now)
                                 : noc_send_request(l->env->noc, sm, slice, bytes, now);
    if (l->split)
        return split_append(l, slice, arrive, line, sm, kind, kernel);
    unsigned tail = s->in_head + s->in_count; /* < 2 * in_cap */
    struct llc_req *r = &s->in[tail < s->in_cap ? tail : tail - s->in_cap];
    *r = (struct llc_req){.ready = arrive + l->latency,
                          .line = line,
                          .sm = (uint16_t)sm,
                          .kind = (uint8_t)kind,
                          .kernel = (uint8_t)kernel};
    s->in_count++;
    /* Requests become ready in the order they were sent (the slice port serializes them). */
    if (s->in_count == 1) /* SMs run ahead of the slices by up to a block: use the slices' now */
        wake_at(l->env->slice_wake, slice, l->env->now, r->ready);
    return true;
}

bool llc_send(struct llc *l, unsigned sm, unsigned slice, uint64_t line, enum llc_kind kind,
              unsigned kernel, uint64_t now)
{
    return send(l, sm, slice, line, kind, kernel, now, false);
}

bool llc_send_sent(struct llc *l, unsigned sm, unsigned slice, uint64_t line, enum llc_kind kind,
                   unsigned kernel, uint64_t sent_at)
{
    return send(l, sm, slice, line, kind, kernel, sent_at, true);
}

/* Split: the memory side marks a slice whose queue view the SM side must take again. */
static void list_slice(struct llc *l, unsigned slice)
{
    struct split_view *v = &l->view[slice];
    if (!v->listed) {
        v->listed = true;
        l->listed[l->nlisted++] = slice;
    }
}

static void log_event(struct llc *l, struct llc_event e)
{
    struct llc_log *g = l->cur;
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 256;
        g->ev = xrealloc(g->ev, g->cap * sizeof(*g->ev));
    }
    g->ev[g->n++] = e;
}

/* Wakes the next SM (round robin) that waits for room in slice. */
void llc_wake_waiter(struct llc *l, unsigned slice, uint64_t now)
{
    struct split_view *s = &l->view[slice]; /* the waiters are the SM side's */
    unsigned words = l->sm_words;
    for (unsigned i = 0; i <= words; i++) {
        unsigned wi = s->waiter_rr / 64 + i; /* < 2 * words: wrap without a division */
        if (wi >= words)
            wi -= words;
        uint64_t bits = s->waiters[wi];
        if (i == 0)
            bits &= ~0ull << (s->waiter_rr % 64);
        if (!bits)
            continue;
        unsigned sm = wi * 64 + (unsigned)__builtin_ctzll(bits);
        s->waiters[wi] &= ~(1ull << (sm % 64));
        s->waiter_rr = sm + 1 < words * 64 ? sm + 1 : 0;
        sm_room(l->env->sms[sm], now + 1);
        return;
    }
}

static void out_push(struct slice *s, uint64_t line, bool write, unsigned kernel)
{
    assert(s->out_count < LLC_DRAM_ENTRIES);
    s->out[(s->out_head + s->out_count) % LLC_DRAM_ENTRIES] =
        (struct llc_out){.line = line, .write = write, .kernel = (uint8_t)kernel};
    s->out_count++;
}

static void writeback(struct llc *l, struct slice *s, const struct cache_victim *v)
{
    if (!v->valid || !v->dirty)
        return;
    unsigned k = kstate_kernel_of_line(v->line, l->line_bytes);
    l->env->kernels[k]->c.l2_writebacks++;
    out_push(s, v->line, true, k);
}

/* Looks line up in kernel's private copy of sampled set aset of slice s, allocating on a miss
 * exactly as the LLC does (the first invalid way, else the least recently used). */
static bool atd_lookup(const struct llc *l, struct slice *s, unsigned kernel, unsigned aset,
                       uint64_t line)
{
    size_t base = ((size_t)kernel * l->atd_sets + aset) * l->ways;
    uint64_t *tag = s->atd_tag + base, *stamp = s->atd_stamp + base;
    uint64_t now = ++s->atd_clock[kernel];
    for (unsigned w = 0; w < l->ways; w++)
        if (tag[w] == line + 1) {
            stamp[w] = now;
            return true;
        }
    unsigned best = 0;
    for (unsigned w = 0; w < l->ways; w++) {
        if (tag[w] == 0) {
            best = w;
            break;
        }
        if (stamp[w] < stamp[best])
            best = w;
    }
    tag[best] = line + 1;
    stamp[best] = now;
    return false;
}

/* Records a processed access in the ATD when its set is sampled. shared_miss: it allocated in
 * the LLC; merged: it joined an outstanding miss (the LLC's tags did not change). */
static void atd_count(struct llc *l, unsigned slice, const struct llc_req *r, bool shared_miss,
                      bool merged)
{
    struct slice *s = &l->s[slice];
    unsigned set = cache_set_of(s->cache, r->line);
    if (set % LLC_ATD_STRIDE)
        return;
    struct llc_atd_counters *a = &l->atd[r->kernel];
    a->accesses++;
    if (merged)
        return;
    if (!atd_lookup(l, s, r->kernel, set / LLC_ATD_STRIDE, r->line))
        a->misses++;
    if (shared_miss)
        a->shared_misses++;
}

void llc_atd_counters(const struct llc *l, unsigned kernel, struct llc_atd_counters *out)
{
    *out = kernel < SIM_MAX_KERNELS ? l->atd[kernel] : (struct llc_atd_counters){0};
}

void llc_reset_counters(struct llc *l)
{
    memset(l->atd, 0, sizeof l->atd);
}

struct reply_ctx {
    struct llc *l;
    unsigned slice;
    uint64_t line, now;
};

static void send_reply(struct llc *l, unsigned slice, uint64_t line, uint32_t token, uint64_t now)
{
    unsigned sm = token >> 1;
    uint64_t arrive = noc_send_reply(l->env->noc, slice, sm, l->line_bytes, now);
    if (l->split) /* the SM may be running: delivered at the block's end, in this order */
        log_event(l, (struct llc_event){arrive, line, sm, token & 1});
    else
        sm_deliver(l->env->sms[sm], arrive, line, token & 1);
}

static void reply_waiter(void *ctx, uint32_t token)
{
    struct reply_ctx *rc = ctx;
    send_reply(rc->l, rc->slice, rc->line, token, rc->now);
}

/* Handles the request at the head of the input queue; false when it must wait. */
static bool process(struct llc *l, unsigned slice, const struct llc_req *r, uint64_t now)
{
    struct slice *s = &l->s[slice];
    struct kstate_counters *kc = &l->env->kernels[r->kernel]->c;
    struct cache_victim v;
    if (r->kind == LLC_WRITE) {
        if (s->out_count + 1 > LLC_DRAM_ENTRIES)
            return false;
        kc->l2_accesses++;
        bool hit = cache_write(s->cache, r->line, &v);
        if (!hit)
            kc->l2_misses++;
        atd_count(l, slice, r, !hit, false);
        writeback(l, s, &v);
        return true;
    }
    /* A miss may need a read and a write-back. */
    if (s->out_count + 2 > LLC_DRAM_ENTRIES)
        return false;
    uint32_t token = ((uint32_t)r->sm << 1) | (r->kind == LLC_READ_CONST);
    switch (cache_read(s->cache, r->line, token, &v)) {
    case CACHE_STALL: return false;
    case CACHE_HIT:
        kc->l2_accesses++;
        atd_count(l, slice, r, false, false);
        send_reply(l, slice, r->line, token, now);
        return true;
    case CACHE_MISS:
        kc->l2_accesses++;
        kc->l2_misses++;
        atd_count(l, slice, r, true, false);
        out_push(s, r->line, false, r->kernel);
        writeback(l, s, &v);
        return true;
    case CACHE_MERGED:
        kc->l2_accesses++;
        kc->l2_misses++;
        atd_count(l, slice, r, false, true);
        return true;
    }
    return false;
}

uint64_t llc_step(struct llc *l, unsigned slice, uint64_t now)
{
    struct slice *s = &l->s[slice];
    struct dram *d = l->env->dram;
    while (s->out_count) {
        struct llc_out *o = &s->out[s->out_head];
        uint64_t addr = o->line * l->line_bytes;
        bool room = l->per_channel ? dram_channel_will_accept(d, slice / l->per_channel)
                                   : dram_will_accept(d, addr);
        if (!room)
            break;
        struct dram_request req = {
            .addr = addr, .write = o->write, .app = o->kernel, .user = (void *)(uintptr_t)slice};
        dram_add(d, &req);
        s->out_head = (s->out_head + 1) % LLC_DRAM_ENTRIES;
        s->out_count--;
    }
    uint64_t next = UINT64_MAX;
    if (s->in_count) {
        struct llc_req *r = &s->in[s->in_head];
        bool stalled = false;
        if (r->ready <= now) {
            stalled = !process(l, slice, r, now);
            if (!stalled) {
                s->in_head = s->in_head + 1 < s->in_cap ? s->in_head + 1 : 0;
                s->in_count--;
                if (l->split) { /* the waiters' bits are the SM side's until the block ends */
                    log_event(l, (struct llc_event){UINT64_MAX, 0, slice, false});
                    if (!l->pipe) /* a pipelined span's SM side counts the pops itself */
                        list_slice(l, slice);
                } else {
                    llc_wake_waiter(l, slice, now);
                }
                r = &s->in[s->in_head];
            }
        }
        /* A stalled head needs no polling: a DRAM tick (queue room, below) or a fill freeing
         * an MSHR (llc_dram_done) wakes the slice. */
        if (s->in_count && !stalled)
            next = r->ready > now ? r->ready : now + 1;
    }
    if (s->out_count) {
        uint64_t t = l->env->next_dram_tick + 1;
        if (t <= now)
            t = now + 1;
        if (t < next)
            next = t;
    }
    /* Split: with its part of the queue empty, the slice would also have waited for the SM
     * side's appends not merged yet, which it cannot see: a wake-up where one of them could
     * be ready first waits until they are known. */
    if (l->split && !s->in_count && next >= l->defer_from && l->defer_from != UINT64_MAX) {
        if (l->ndef == l->cap_def) {
            l->cap_def = l->cap_def ? 2 * l->cap_def : 64;
            l->def = xrealloc(l->def, l->cap_def * sizeof(*l->def));
        }
        l->def[l->ndef++] = (struct llc_deferred){now, next, l->mem_block, slice};
        return UINT64_MAX;
    }
    return next;
}

void llc_dram_done(void *ctx, const struct dram_request *req, uint64_t mem_cycle)
{
    (void)mem_cycle;
    struct llc *l = ctx;
    if (req->write)
        return;
    unsigned slice = (unsigned)(uintptr_t)req->user;
    uint64_t now = l->env->now;
    struct reply_ctx rc = {.l = l, .slice = slice, .line = req->addr / l->line_bytes, .now = now};
    cache_fill(l->s[slice].cache, rc.line, reply_waiter, &rc);
    /* Split: with its part of the queue empty, a slice that had appends of the SM side would
     * also be woken here, for a step that finds them not ready. With requests out it is due
     * next cycle anyway; without, the step would only wake it for the first append, which
     * llc_split_end does (its last step's wake-up was deferred, or its part was empty when
     * the block began): nothing to do. */
    if (l->s[slice].in_count)
        wake_at(l->env->slice_wake, slice, now, now + 1);
}
