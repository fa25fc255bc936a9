/* dram — one GPU memory system: per-channel bank state machines, FR-FCFS scheduling,
 * command/data buses, refresh, and the per-application counters predictors read.
 *
 * Embedded the way DRAMsim3 is: the owner ticks it once per memory cycle, asks whether a
 * request will be accepted, adds requests, and is called back when each completes. */
#ifndef CORUN_DRAM_H
#define CORUN_DRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* DRAM timing parameters, in memory-clock cycles (HSM Table 1 names). */
struct dram_timing {
    unsigned rc, rcd, rp, cl, wl, ras;
    unsigned rrd_l, rrd_s, faw, rtp;
    unsigned ccd_l, ccd_s, wtr_l, wtr_s;
    unsigned rfc, refi; /* refresh: duration and interval; refi 0 disables refresh */
};

enum dram_mapping {
    DRAM_MAP_HASHED, /* PAE-style XOR of row bits into channel and bank bits */
    DRAM_MAP_LINEAR, /* low bits up: offset, channel, column, bank group, bank, row */
};

struct dram_config {
    unsigned channels;
    unsigned bank_groups;         /* per channel */
    unsigned banks_per_group;     /* banks per channel = bank_groups * banks_per_group */
    unsigned row_bytes;           /* row (page) size per bank */
    unsigned bus_bytes_per_cycle; /* data bus width per channel per memory cycle */
    unsigned request_bytes;       /* one request's size; occupies request/bus cycles */
    double clock_mhz;             /* memory clock */
    unsigned queue_entries;       /* per channel request queue */
    unsigned row_hit_cap;         /* FR-FCFS: max consecutive row hits before an older miss */
    bool dual_command;            /* HBM: separate row and column command buses, so one ACT/PRE
                                   * and one RD/WR may issue in the same cycle */
    enum dram_mapping mapping;
    struct dram_timing t;
};

/* Peak bandwidth of the whole memory system in GB/s (10^9 bytes per second). */
double dram_config_peak_gbs(const struct dram_config *cfg);

/* Where an address lands under cfg's mapping. */
struct dram_location {
    unsigned channel, bank_group, bank, column; /* bank: 0..banks_per_group-1 within the group */
    uint64_t row;
};
void dram_map(const struct dram_config *cfg, uint64_t addr, struct dram_location *out);

/* Counters for one application (summed over channels), reset by dram_reset_counters. */
struct dram_app_counters {
    uint64_t reads, writes;       /* requests completed */
    uint64_t row_hits;            /* column command to an already open row */
    uint64_t row_misses;          /* needed an ACT to a closed (precharged) bank */
    uint64_t row_conflicts;       /* needed PRE + ACT: another row was open */
    uint64_t activates;           /* ACT commands issued for this application */
    uint64_t bytes;               /* data moved */
    uint64_t queue_cycles;        /* sum over requests: arrival to column command */
    uint64_t read_latency_cycles; /* sum over reads: arrival to data returned */
    uint64_t interference_cycles; /* sum over requests: cycles the request waited while its
                                     channel's data bus or its bank served another application,
                                     or its row was closed by another application */
};

/* Counters for one channel. */
struct dram_channel_counters {
    uint64_t data_busy_cycles; /* data bus transferring */
    uint64_t activates, precharges, refreshes;
    uint64_t row_hits, row_accesses;
};

/* Applications one memory system can serve over its life (dram_new's napps plus dram_add_app):
 * one per kernel index the GPU hands out (SIM_MAX_KERNELS, simenv.h). */
#define DRAM_MAX_APPS 16

struct dram_request {
    uint64_t addr;
    bool write;
    unsigned app; /* application index, < the applications in use (dram_new, dram_add_app) */
    void *user;   /* handed back in the completion callback */
};

/* Called when a read's data has returned or a write has been written. */
typedef void (*dram_done_fn)(void *ctx, const struct dram_request *req, uint64_t mem_cycle);

struct dram;

/* A memory system for cfg with napps (1..DRAM_MAX_APPS) applications; done (may be NULL) is
 * called with ctx on each completion. cfg is copied. Free with dram_delete. */
struct dram *dram_new(const struct dram_config *cfg, unsigned napps, dram_done_fn done, void *ctx);
void dram_delete(struct dram *d);
/* Adds an application (a kernel joining a running mix) and returns its index, the count of
 * applications before the call; it has no requests and zero counters, attained bandwidth and
 * rank history, and the others' scheduling does not change. The caller keeps the count below
 * DRAM_MAX_APPS (asserted). */
unsigned dram_add_app(struct dram *d);

/* true when the channel that addr maps to has a free queue entry. */
bool dram_will_accept(const struct dram *d, uint64_t addr);
/* Queue a request; the caller checked dram_will_accept. */
void dram_add(struct dram *d, const struct dram_request *req);
/* Advance one memory-clock cycle: issue at most one command per channel, move data, complete. */
void dram_tick(struct dram *d);
/* The ticks from now on that would do nothing but count (no command, completion, refresh or
 * re-ranking falls in them) as long as no request is added: 0 when the next one does work. */
uint64_t dram_quiet_ticks(const struct dram *d);
/* The ticks from now on in which nothing but refreshes would happen as long as no request is
 * added: dram_quiet_ticks, or more when nothing is queued or moving and the channels due only
 * refresh (every bank closed; no command hook or checker, which must see each command). */
uint64_t dram_idle_ticks(const struct dram *d);
/* Advances over n such ticks at once (n <= dram_idle_ticks), the refreshes in them computed
 * rather than stepped: the same state as n dram_tick. */
void dram_skip_ticks(struct dram *d, uint64_t n);
/* Memory cycles ticked since dram_new. */
uint64_t dram_now(const struct dram *d);
/* true when no request is queued or in flight. */
bool dram_idle(const struct dram *d);

void dram_app_counters(const struct dram *d, unsigned app, struct dram_app_counters *out);
void dram_channel_counters(const struct dram *d, unsigned channel,
                           struct dram_channel_counters *out);
void dram_reset_counters(struct dram *d);

/* ---- Additions: validation, inverse mapping, scheduler choice, command hook, checker ---- */

/* 0 when cfg describes a memory system dram_new can build, else -1 with a message naming the
 * field, its value and the valid range in err. */
int dram_config_check(const struct dram_config *cfg, char *err, size_t errlen);

/* The address (offset 0 within the request) that dram_map sends to loc; the inverse of
 * dram_map for every field in range. */
uint64_t dram_address(const struct dram_config *cfg, const struct dram_location *loc);

/* The channel addr maps to, and whether that channel has a free queue entry; cheaper than
 * dram_will_accept when the caller already bucketed its requests by channel. */
unsigned dram_channel_of(const struct dram *d, uint64_t addr);
bool dram_channel_will_accept(const struct dram *d, unsigned channel);

/* Channel schedulers, by name: "frfcfs" (the default) and "bw-app" (HSM §6: the application
 * with the lowest attained bandwidth first, FR-FCFS among equals). dram_set_scheduler may be
 * called at any cycle; it returns 0, or -1 (nothing changed) when name is unknown. The names
 * are for menus and error messages. */
int dram_set_scheduler(struct dram *d, const char *name);
/* The name of d's scheduler. */
const char *dram_scheduler(const struct dram *d);
size_t dram_scheduler_count(void);
const char *dram_scheduler_name(size_t i);

enum dram_command { DRAM_CMD_ACT, DRAM_CMD_PRE, DRAM_CMD_RD, DRAM_CMD_WR, DRAM_CMD_REF };

/* One command on a channel's command bus. */
struct dram_command_info {
    enum dram_command cmd;
    unsigned channel, bank_group, bank; /* bank within its group; unused by REF */
    uint64_t row;                       /* ACT, RD, WR */
    uint64_t cycle;
    unsigned app; /* application served; DRAM_APP_NONE for refresh and its precharges */
};
#define DRAM_APP_NONE 0xffffffffu

/* ASM's priority epochs: from now on app's requests go first at every channel (FR-FCFS among
 * them, then the scheduler's order for the rest), until the next call; DRAM_APP_NONE ends it. */
void dram_set_priority_app(struct dram *d, unsigned app);
unsigned dram_priority_app(const struct dram *d);

/* Observe every command d issues (the TUI's row-buffer view, the tests); NULL stops it. */
typedef void (*dram_command_fn)(void *ctx, const struct dram_command_info *cmd);
void dram_set_command_hook(struct dram *d, dram_command_fn fn, void *ctx);

/* An independent legality checker over a command stream, kept apart from the scheduler's own
 * bookkeeping so that one can verify the other. dram_set_checking runs one inside a dram,
 * asserting on each command (the unit tests turn it on; it costs the normal build time).
 * Free with dram_checker_delete. */
struct dram_checker;
/* Turns the built-in checker on or off; call before the first dram_tick. */
void dram_set_checking(struct dram *d, bool on);
struct dram_checker *dram_checker_new(const struct dram_config *cfg);
void dram_checker_delete(struct dram_checker *c);
/* Checks cmd against the commands recorded so far, then records it. Returns NULL when legal,
 * else the name of the first rule it breaks (e.g. "tRP", "tFAW", "data bus"); static text. */
const char *dram_checker_check(struct dram_checker *c, const struct dram_command_info *cmd);

#endif
