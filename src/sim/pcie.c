/* pcie — one direction of the host link: sharing copies split it evenly, exclusive copies
 * take it whole, one at a time, and pause the sharing ones. */
#include "corun/pcie.h"

#include "corun/util.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct copy {
    uint64_t id;
    enum pcie_kind kind;
    double bytes, left; /* bytes: as submitted; left: still to move */
    double moved_ns;    /* when it last moved (or was submitted) */
};

struct pcie_link {
    double shared_rate, exclusive_rate; /* bytes per ns (GB/s) */
    double now_ns, busy_ns, moved;
    struct copy *copies; /* in submission order */
    size_t ncopies, cap;
    struct pcie_done *done; /* completed, not yet handed out */
    size_t ndone, done_cap, done_head;
};

struct pcie_link *pcie_link_new(const struct pcie_config *cfg)
{
    assert(cfg->shared_gbs > 0 && cfg->exclusive_gbs > 0);
    struct pcie_link *l = xcalloc(1, sizeof(*l));
    l->shared_rate = cfg->shared_gbs;
    l->exclusive_rate = cfg->exclusive_gbs;
    return l;
}

void pcie_link_delete(struct pcie_link *l)
{
    if (!l)
        return;
    free(l->copies);
    free(l->done);
    free(l);
}

/* The rate copy i moves at now: the first exclusive copy takes the link; without one, the
 * sharing copies split it. */
static double rate_of(const struct pcie_link *l, size_t i, long first_exclusive)
{
    if (first_exclusive >= 0)
        return (long)i == first_exclusive ? l->exclusive_rate : 0.0;
    return l->shared_rate / (double)l->ncopies;
}

static long first_exclusive(const struct pcie_link *l)
{
    for (size_t i = 0; i < l->ncopies; i++)
        if (l->copies[i].kind == PCIE_EXCLUSIVE)
            return (long)i;
    return -1;
}

/* Time until the first moving copy completes. */
static double next_dt(const struct pcie_link *l, long fe)
{
    double dt = INFINITY;
    for (size_t i = 0; i < l->ncopies; i++) {
        double r = rate_of(l, i, fe);
        if (r > 0 && l->copies[i].left / r < dt)
            dt = l->copies[i].left / r;
    }
    return dt;
}

static void push_done(struct pcie_link *l, uint64_t id, double end_ns)
{
    if (l->ndone == l->done_cap) {
        l->done_cap = l->done_cap ? 2 * l->done_cap : 8;
        l->done = xrealloc(l->done, l->done_cap * sizeof(*l->done));
    }
    l->done[l->ndone++] = (struct pcie_done){id, end_ns};
}

/* Move every copy for dt at its rate; those that finish (the one that set dt exactly, others
 * within rounding) complete at the new time. */
static void step(struct pcie_link *l, double dt, long fe, int finishing)
{
    size_t kept = 0;
    for (size_t i = 0; i < l->ncopies; i++) {
        struct copy *c = &l->copies[i];
        double r = rate_of(l, i, fe);
        double moved = fmin(c->left, r * dt);
        c->left -= moved;
        l->moved += moved;
        if (r > 0 && dt > 0)
            c->moved_ns = l->now_ns + dt;
        if (finishing && r > 0 && c->left <= 1e-9 * c->bytes) {
            l->moved += c->left;
            push_done(l, c->id, l->now_ns + dt);
            continue;
        }
        l->copies[kept++] = *c;
    }
    l->ncopies = kept;
    l->now_ns += dt;
    l->busy_ns += dt;
}

static void run_to(struct pcie_link *l, double t)
{
    assert(t >= l->now_ns);
    while (l->ncopies) {
        long fe = first_exclusive(l);
        double dt = next_dt(l, fe);
        if (l->now_ns + dt > t) {
            step(l, t - l->now_ns, fe, 0);
            return;
        }
        step(l, dt, fe, 1);
    }
    l->now_ns = t;
}

void pcie_link_submit(struct pcie_link *l, double now_ns, uint64_t id, uint64_t bytes,
                      enum pcie_kind kind)
{
    assert(bytes > 0);
    run_to(l, now_ns);
    if (l->ncopies == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 8;
        l->copies = xrealloc(l->copies, l->cap * sizeof(*l->copies));
    }
    l->copies[l->ncopies++] = (struct copy){id, kind, (double)bytes, (double)bytes, now_ns};
}

double pcie_link_next_ns(const struct pcie_link *l)
{
    if (l->done_head < l->ndone)
        return l->done[l->done_head].end_ns;
    if (!l->ncopies)
        return INFINITY;
    return l->now_ns + next_dt(l, first_exclusive(l));
}

size_t pcie_link_advance(struct pcie_link *l, double until_ns, struct pcie_done *out, size_t max)
{
    run_to(l, until_ns);
    size_t n = 0;
    while (n < max && l->done_head < l->ndone)
        out[n++] = l->done[l->done_head++];
    if (l->done_head == l->ndone)
        l->ndone = l->done_head = 0;
    return n;
}

double pcie_link_now_ns(const struct pcie_link *l)
{
    return l->now_ns;
}

size_t pcie_link_copies(const struct pcie_link *l)
{
    return l->ncopies;
}

double pcie_link_bytes_moved(const struct pcie_link *l)
{
    return l->moved;
}

double pcie_link_stalled_ns(const struct pcie_link *l, uint64_t id)
{
    for (size_t i = 0; i < l->ncopies; i++)
        if (l->copies[i].id == id)
            return l->now_ns - l->copies[i].moved_ns;
    return 0;
}

double pcie_link_busy_ns(const struct pcie_link *l)
{
    return l->busy_ns;
}
