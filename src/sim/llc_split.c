/* llc_split — the slices' queues while the SM side and the memory side run on two threads.
 *
 * Split blocks (llc_split_begin … llc_split_end): the two sides of one block side by side,
 * meeting at its end. Pipelined spans (llc_pipe_*): the memory side runs blocks ahead of the
 * SM side. What makes that possible is the time a request takes to become ready at its slice
 * (the crossbar, one flit, the LLC latency: more than a hundred cycles on every preset, a
 * dozen blocks and more): the memory side's block j only needs the SM side's appends of the
 * blocks before j - lead, and the SM side's block b only needs what the memory side did up
 * to block b - 1 (a reply lands a block later at the soonest). So each side hands the other
 * its part block by block, and each applies the other's in the order one thread would have:
 * the SM side applies the memory side's events of block b (replies, pops) after its own
 * block b, as the memory phase follows the SM phase within a block; the memory side merges
 * the SM side's appends of block b before its own block b or later, before any of them can
 * be ready. A slice step that found its queue empty while appends it cannot see yet might
 * have given it an earlier wake-up is held back (llc_deferred) until they are merged. */
#include "corun/sm.h"
#include "corun/util.h"
#include "corun/wake.h"
#include "llc_internal.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The SM side's view of every queue, as it is now (both sides stopped). */
static void view_queues(struct llc *l)
{
    for (unsigned i = 0; i < l->nslices; i++) {
        l->view[i].base = l->s[i].in_count;
        l->view[i].head = l->s[i].in_head;
    }
}

void llc_split_begin(struct llc *l, uint64_t block_start, uint64_t block_end)
{
    assert(!l->cur->n && !l->ndef && !l->ntouched && !l->nlisted && !l->pipe);
    if (!l->split)
        view_queues(l);
    l->split = true;
    l->block_start = block_start;
    l->block_end = block_end;
    l->defer_from = block_end; /* the block's own appends are ready after it */
}

void llc_split_end(struct llc *l)
{
    /* What the memory side did to the SMs, in its order (sm_wake keeps the earliest). */
    struct llc_log *g = l->cur;
    for (size_t i = 0; i < g->n; i++) {
        const struct llc_event *e = &g->ev[i];
        if (e->arrival == UINT64_MAX)
            llc_wake_waiter(l, e->sm_or_slice, l->block_end - 1);
        else
            sm_deliver(l->env->sms[e->sm_or_slice], e->arrival, e->line, e->is_const);
    }
    g->n = 0;
    /* The slices' wake-ups as the appends would have made them. */
    for (size_t i = 0; i < l->ndef; i++) {
        const struct llc_deferred *d = &l->def[i];
        const struct split_view *v = &l->view[d->slice];
        uint64_t next = v->added && v->first_ready < d->next ? v->first_ready : d->next;
        if (next != UINT64_MAX)
            wake_at(l->env->slice_wake, d->slice, d->now, next);
    }
    l->ndef = 0;
    for (unsigned i = 0; i < l->ntouched; i++) {
        unsigned slice = l->touched[i];
        struct slice *s = &l->s[slice];
        struct split_view *v = &l->view[slice];
        /* An append to an empty queue wakes the slice (llc_send). */
        if (v->base == 0)
            wake_at(l->env->slice_wake, slice, l->block_start, v->first_ready);
        s->in_count += v->added;
        v->added = 0;
        v->base = s->in_count;
        v->head = s->in_head;
    }
    l->ntouched = 0;
    for (unsigned i = 0; i < l->nlisted; i++) {
        const struct slice *s = &l->s[l->listed[i]];
        struct split_view *v = &l->view[l->listed[i]];
        v->base = s->in_count;
        v->head = s->in_head;
        v->listed = false;
    }
    l->nlisted = 0;
}

void llc_split_stop(struct llc *l)
{
    l->split = false;
}

/* ---- pipelined spans ---- */

void llc_pipe_begin(struct llc *l)
{
    assert(!l->split && !l->cur->n && !l->ndef && !l->ntouched);
    if (!l->mark) {
        l->mark = xcalloc(l->nslices, sizeof(*l->mark));
        l->mark_ready = xcalloc(l->nslices, sizeof(*l->mark_ready));
        for (unsigned i = 0; i < LLC_PIPE_SLOTS; i++)
            l->batch[i].e = xcalloc(l->nslices, sizeof(*l->batch[i].e));
    }
    view_queues(l);
    memset(l->mark, 0, l->nslices * sizeof(*l->mark));
    l->split = l->pipe = true;
    l->merged = 0;
}

void llc_pipe_publish(struct llc *l, uint64_t b, uint64_t block_start)
{
    struct llc_batch *bt = &l->batch[b % LLC_PIPE_SLOTS];
    bt->start = block_start;
    bt->n = 0;
    for (unsigned i = 0; i < l->ntouched; i++) {
        unsigned slice = l->touched[i];
        struct split_view *v = &l->view[slice];
        bt->e[bt->n++] = (struct llc_batch_entry){.first_ready = v->first_ready,
                                                  .slice = slice,
                                                  .added = v->added,
                                                  .was_empty = !v->base};
        v->base += v->added;
        v->added = 0;
    }
    l->ntouched = 0;
}

void llc_pipe_apply(struct llc *l, uint64_t j, uint64_t block_end)
{
    struct llc_log *g = &l->log[j % LLC_PIPE_SLOTS];
    for (size_t i = 0; i < g->n; i++) {
        const struct llc_event *e = &g->ev[i];
        if (e->arrival != UINT64_MAX) {
            sm_deliver(l->env->sms[e->sm_or_slice], e->arrival, e->line, e->is_const);
            continue;
        }
        /* A pop: the slice's next waiter, and the SM side's view of its queue. */
        unsigned slice = e->sm_or_slice;
        struct split_view *v = &l->view[slice];
        llc_wake_waiter(l, slice, block_end - 1);
        assert(v->base > 0);
        v->base--;
        v->head = v->head + 1 < v->cap ? v->head + 1 : 0;
    }
    g->n = 0;
}

/* Resolves the deferred steps that SM block b's appends decide: those of slices it appended
 * to (the first append is the head they would have seen) and those made in memory block b
 * (every append they could have seen is merged now). */
static void resolve_deferred(struct llc *l, uint64_t b)
{
    size_t keep = 0;
    for (size_t i = 0; i < l->ndef; i++) {
        struct llc_deferred d = l->def[i];
        uint64_t next;
        if (l->mark[d.slice] == b + 1)
            next = l->mark_ready[d.slice] < d.next ? l->mark_ready[d.slice] : d.next;
        else if (d.block == b)
            next = d.next;
        else {
            l->def[keep++] = d;
            continue;
        }
        if (next != UINT64_MAX)
            wake_at(l->env->slice_wake, d.slice, d.now, next);
    }
    l->ndef = keep;
}

void llc_pipe_merge(struct llc *l, uint64_t upto)
{
    for (; l->merged < upto; l->merged++) {
        uint64_t b = l->merged;
        const struct llc_batch *bt = &l->batch[b % LLC_PIPE_SLOTS];
        for (unsigned i = 0; i < bt->n; i++) {
            const struct llc_batch_entry *x = &bt->e[i];
            /* An append to an empty queue wakes the slice (llc_send). */
            if (x->was_empty)
                wake_at(l->env->slice_wake, x->slice, bt->start, x->first_ready);
            l->s[x->slice].in_count += x->added;
            l->mark[x->slice] = b + 1;
            l->mark_ready[x->slice] = x->first_ready;
        }
        if (l->ndef)
            resolve_deferred(l, b);
    }
}

bool llc_pipe_may_run(const struct llc *l, uint64_t block_end)
{
    for (size_t i = 0; i < l->ndef; i++)
        if (l->def[i].next < block_end)
            return false;
    return true;
}

void llc_pipe_block(struct llc *l, uint64_t j, uint64_t block_start, uint64_t block_end,
                    uint64_t defer_from)
{
    assert(l->pipe);
    l->mem_block = j;
    l->block_start = block_start;
    l->block_end = block_end;
    l->defer_from = defer_from;
    l->cur = &l->log[j % LLC_PIPE_SLOTS];
    assert(!l->cur->n);
}

void llc_pipe_finish(struct llc *l, uint64_t blocks)
{
    llc_pipe_merge(l, blocks);
    assert(!l->ndef);
    assert(!l->ntouched);
    l->cur = &l->log[0];
    l->split = l->pipe = false;
}
