/* noc — crossbar port timing. */
#include "corun/noc.h"

#include "corun/util.h"

#include <assert.h>
#include <stdlib.h>

struct noc {
    unsigned sms, slices, bytes_per_cycle, latency;
    int shift;                      /* log2(bytes_per_cycle) when it is a power of two, else -1 */
    uint64_t *sm_out, *sm_in;       /* cycle each SM port is next free */
    uint64_t *slice_in, *slice_out; /* likewise for slices */
};

struct noc *noc_new(unsigned sms, unsigned slices, unsigned bytes_per_cycle,
                    unsigned latency_cycles)
{
    assert(bytes_per_cycle > 0);
    struct noc *n = xcalloc(1, sizeof(*n));
    n->sms = sms;
    n->slices = slices;
    n->bytes_per_cycle = bytes_per_cycle;
    n->shift = (bytes_per_cycle & (bytes_per_cycle - 1)) == 0 ? __builtin_ctz(bytes_per_cycle) : -1;
    n->latency = latency_cycles;
    n->sm_out = xcalloc(sms, sizeof(uint64_t));
    n->sm_in = xcalloc(sms, sizeof(uint64_t));
    n->slice_in = xcalloc(slices, sizeof(uint64_t));
    n->slice_out = xcalloc(slices, sizeof(uint64_t));
    return n;
}

void noc_delete(struct noc *n)
{
    if (!n)
        return;
    free(n->sm_out);
    free(n->sm_in);
    free(n->slice_in);
    free(n->slice_out);
    free(n);
}

unsigned noc_flits(const struct noc *n, unsigned bytes)
{
    unsigned sum = bytes + n->bytes_per_cycle - 1;
    unsigned f = n->shift >= 0 ? sum >> n->shift : sum / n->bytes_per_cycle;
    return f ? f : 1;
}

uint64_t noc_sm_port_free(const struct noc *n, unsigned sm)
{
    return n->sm_out[sm];
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

uint64_t noc_send_request(struct noc *n, unsigned sm, unsigned slice, unsigned bytes, uint64_t now)
{
    noc_take_sm_port(n, sm, bytes, now);
    return noc_take_slice_port(n, slice, bytes, now);
}

void noc_take_sm_port(struct noc *n, unsigned sm, unsigned bytes, uint64_t now)
{
    assert(n->sm_out[sm] <= now);
    n->sm_out[sm] = now + noc_flits(n, bytes);
}

uint64_t noc_take_slice_port(struct noc *n, unsigned slice, unsigned bytes, uint64_t now)
{
    /* The head needs `latency` to cross; the slice port then takes f cycles, after any packet
     * already granted it. */
    uint64_t done = max64(now + n->latency, n->slice_in[slice]) + noc_flits(n, bytes);
    n->slice_in[slice] = done;
    return done;
}

uint64_t noc_send_reply(struct noc *n, unsigned slice, unsigned sm, unsigned bytes, uint64_t now)
{
    unsigned f = noc_flits(n, bytes);
    uint64_t start = max64(now, n->slice_out[slice]);
    n->slice_out[slice] = start + f;
    uint64_t done = max64(start + n->latency, n->sm_in[sm]) + f;
    n->sm_in[sm] = done;
    return done;
}
