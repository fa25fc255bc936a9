/* dram_config — what follows from a dram_config alone: validation, peak bandwidth, and the
 * address mapping (linear, and PAE-style hashed) with its inverse. */
#include "corun/dram.h"
#include "corun/util.h"
#include "dram_internal.h"

#include <stdio.h>

static bool is_pow2(uint64_t n)
{
    return n && !(n & (n - 1));
}

/* Removes the next mixed-radix digit (radix n) from *x. */
static uint64_t take_digit(uint64_t *x, uint64_t n)
{
    uint64_t digit;
    if (is_pow2(n)) {
        digit = *x & (n - 1);
        *x >>= __builtin_ctzll(n);
    } else {
        digit = *x % n;
        *x /= n;
    }
    return digit;
}

/* Row-dependent offset for the hashed mapping: XOR-folding all row bits (PAE) for power-of-two
 * field sizes, a folded row modulo n otherwise. Any function of the row keeps the mapping a
 * permutation of the field for each row, so row-buffer locality is untouched. */
static uint64_t row_hash(uint64_t row, uint64_t n)
{
    if (is_pow2(n))
        return dram_xor_fold(row, (unsigned)__builtin_ctzll(n));
    return (row ^ (row >> 17) ^ (row >> 34)) % n;
}

static uint64_t permute(uint64_t v, uint64_t row, uint64_t n)
{
    if (n == 1)
        return 0;
    uint64_t h = row_hash(row, n);
    return is_pow2(n) ? v ^ h : (v + h) % n;
}

static uint64_t unpermute(uint64_t v, uint64_t row, uint64_t n)
{
    if (n == 1)
        return 0;
    uint64_t h = row_hash(row, n);
    return is_pow2(n) ? v ^ h : (v + n - h) % n;
}

double dram_config_peak_gbs(const struct dram_config *cfg)
{
    return (double)cfg->channels * cfg->bus_bytes_per_cycle * cfg->clock_mhz * 1e6 / 1e9;
}

int dram_config_check(const struct dram_config *cfg, char *err, size_t errlen)
{
    struct {
        const char *name;
        unsigned value, min, max;
    } ranges[] = {
        {"channels", cfg->channels, 1, 4096},
        {"bank_groups", cfg->bank_groups, 1, DRAM_MAX_GROUPS},
        {"banks_per_group", cfg->banks_per_group, 1, DRAM_MAX_BANKS},
        {"bus_bytes_per_cycle", cfg->bus_bytes_per_cycle, 1, 1u << 16},
        {"request_bytes", cfg->request_bytes, 1, 1u << 16},
        {"row_bytes", cfg->row_bytes, 1, 1u << 24},
        {"queue_entries", cfg->queue_entries, 1, 1u << 16},
    };
    for (size_t i = 0; i < CORUN_ARRAY_LEN(ranges); i++) {
        if (ranges[i].value < ranges[i].min || ranges[i].value > ranges[i].max) {
            snprintf(err, errlen, "dram %s is %u; expected %u to %u", ranges[i].name,
                     ranges[i].value, ranges[i].min, ranges[i].max);
            return -1;
        }
    }
    if (cfg->bank_groups * cfg->banks_per_group > DRAM_MAX_BANKS) {
        snprintf(err, errlen, "dram bank_groups * banks_per_group is %u; expected at most %d",
                 cfg->bank_groups * cfg->banks_per_group, DRAM_MAX_BANKS);
        return -1;
    }
    if (cfg->row_bytes % cfg->request_bytes) {
        snprintf(err, errlen, "dram row_bytes (%u) is not a multiple of request_bytes (%u)",
                 cfg->row_bytes, cfg->request_bytes);
        return -1;
    }
    if (!(cfg->clock_mhz > 0)) {
        snprintf(err, errlen, "dram clock_mhz is %g; expected more than 0", cfg->clock_mhz);
        return -1;
    }
    if (cfg->t.refi && cfg->t.refi <= cfg->t.rfc) {
        snprintf(err, errlen, "dram tREFI (%u) must exceed tRFC (%u), or be 0 to disable refresh",
                 cfg->t.refi, cfg->t.rfc);
        return -1;
    }
    return 0;
}

void dram_map(const struct dram_config *cfg, uint64_t addr, struct dram_location *out)
{
    uint64_t x = addr;
    take_digit(&x, cfg->request_bytes);
    uint64_t ch = take_digit(&x, cfg->channels);
    out->column = (unsigned)take_digit(&x, cfg->row_bytes / cfg->request_bytes);
    uint64_t bg = take_digit(&x, cfg->bank_groups);
    uint64_t bank = take_digit(&x, cfg->banks_per_group);
    out->row = x;
    if (cfg->mapping == DRAM_MAP_HASHED) {
        uint64_t nbanks = (uint64_t)cfg->bank_groups * cfg->banks_per_group;
        ch = permute(ch, x, cfg->channels);
        uint64_t flat = permute(bg * cfg->banks_per_group + bank, x, nbanks);
        bg = flat / cfg->banks_per_group;
        bank = flat % cfg->banks_per_group;
    }
    out->channel = (unsigned)ch;
    out->bank_group = (unsigned)bg;
    out->bank = (unsigned)bank;
}

uint64_t dram_address(const struct dram_config *cfg, const struct dram_location *loc)
{
    uint64_t ch = loc->channel, bg = loc->bank_group, bank = loc->bank;
    if (cfg->mapping == DRAM_MAP_HASHED) {
        uint64_t nbanks = (uint64_t)cfg->bank_groups * cfg->banks_per_group;
        ch = unpermute(ch, loc->row, cfg->channels);
        uint64_t flat = unpermute(bg * cfg->banks_per_group + bank, loc->row, nbanks);
        bg = flat / cfg->banks_per_group;
        bank = flat % cfg->banks_per_group;
    }
    uint64_t x = loc->row;
    x = x * cfg->banks_per_group + bank;
    x = x * cfg->bank_groups + bg;
    x = x * (cfg->row_bytes / cfg->request_bytes) + loc->column;
    x = x * cfg->channels + ch;
    return x * cfg->request_bytes;
}

void dram_map_plan_init(struct dram *d)
{
    const struct dram_config *cfg = &d->cfg;
    struct dram_map_plan *p = &d->plan;
    uint64_t sizes[] = {cfg->request_bytes, cfg->channels, d->columns, cfg->bank_groups,
                        cfg->banks_per_group};
    p->shifts = true;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(sizes); i++)
        p->shifts = p->shifts && is_pow2(sizes[i]);
    if (!p->shifts)
        return;
    p->offset_bits = (unsigned)__builtin_ctzll(cfg->request_bytes);
    p->channel_bits = (unsigned)__builtin_ctzll(cfg->channels);
    p->column_bits = (unsigned)__builtin_ctzll(d->columns);
    p->group_bits = (unsigned)__builtin_ctzll(cfg->bank_groups);
    p->bank_bits = (unsigned)__builtin_ctzll(cfg->banks_per_group);
}
