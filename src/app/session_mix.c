/* session_mix — changing the mix at an epoch boundary: kernels join from the library and
 * leave, with stable indices (session.h says what happens at the boundary). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/preset.h"
#include "corun/util.h"
#include "session_internal.h"

unsigned session_live(const struct session *s, unsigned *slot)
{
    unsigned n = 0;
    for (unsigned k = 0; k < s->sc->nkernels; k++)
        if (!s->gone[k])
            slot[n++] = k;
    return n;
}

bool session_kernel_in_mix(const struct session *s, unsigned k)
{
    return k < s->sc->nkernels && !s->gone[k];
}

const char *session_pending_mix(const struct session *s)
{
    return s->pending_text;
}

static void update_pending_text(struct session *s)
{
    size_t used = 0, len = sizeof s->pending_text;
    s->pending_text[0] = '\0';
    for (unsigned k = 0; k < s->sc->nkernels && used < len; k++)
        if (s->pending_remove[k])
            used += (size_t)snprintf(s->pending_text + used, len - used, "%s-%s", used ? " " : "",
                                     s->sc->kernels[k].name);
    for (unsigned i = 0; i < s->npending_add && used < len; i++)
        used += (size_t)snprintf(s->pending_text + used, len - used, "%s+%s", used ? " " : "",
                                 s->pending_add[i]);
}

/* Kernels in the mix once the pending changes are applied. */
static unsigned live_after(const struct session *s)
{
    unsigned n = s->npending_add;
    for (unsigned k = 0; k < s->sc->nkernels; k++)
        n += !s->gone[k] && !s->pending_remove[k];
    return n;
}

/* 0 when library kernel name can run on s's GPU, else -1 with the loader's message. */
static int check_kernel(const struct session *s, const char *name, char *err, size_t errlen)
{
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    struct kernel_profile p;
    memset(&p, 0, sizeof p);
    char *where = xasprintf("kernel %s", name);
    int rc = preset_kernel_find(datadir, name, where, &p, &d);
    free(where);
    if (rc != 0)
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "cannot load the kernel");
    else if (preset_kernel_check(datadir, NULL, &s->sc->gpu, &p, err, errlen) != 0)
        rc = -1;
    free(datadir);
    kernel_profile_done(&p);
    diag_done(&d);
    return rc;
}

int session_add_kernel(struct session *s, const char *name, char *err, size_t errlen)
{
    if (!s->gpu) {
        snprintf(err, errlen, "a replay does not change its mix: branch it first");
        return -1;
    }
    unsigned total = s->sc->nkernels + s->npending_add;
    if (total >= GPU_MAX_KERNELS) {
        snprintf(err, errlen,
                 "kernel %s: a run holds at most %d kernels over its life, removed ones "
                 "included, and this one has had %u",
                 name, GPU_MAX_KERNELS, total);
        return -1;
    }
    if (strlen(name) >= sizeof s->pending_add[0]) {
        snprintf(err, errlen, "kernel %.40s...: expected a name of at most %zu bytes", name,
                 sizeof s->pending_add[0] - 1);
        return -1;
    }
    unsigned live = live_after(s);
    if (live >= s->sc->gpu.sms) {
        snprintf(err, errlen,
                 "kernel %s: the mix would hold %u kernels on %u SM%s (expected at least one SM "
                 "per kernel: remove one first)",
                 name, live + 1, s->sc->gpu.sms, s->sc->gpu.sms == 1 ? "" : "s");
        return -1;
    }
    if (check_kernel(s, name, err, errlen) != 0)
        return -1;
    snprintf(s->pending_add[s->npending_add++], sizeof s->pending_add[0], "%s", name);
    update_pending_text(s);
    return (int)total;
}

int session_remove_kernel(struct session *s, unsigned k, char *err, size_t errlen)
{
    const struct scenario *sc = s->sc;
    if (!s->gpu) {
        snprintf(err, errlen, "a replay does not change its mix: branch it first");
        return -1;
    }
    if (k >= sc->nkernels + s->npending_add) {
        snprintf(err, errlen, "no kernel %u: expected an index from 0 to %u", k,
                 sc->nkernels + s->npending_add - 1);
        return -1;
    }
    if (k >= sc->nkernels) { /* withdraw an addition not applied yet */
        unsigned i = k - sc->nkernels;
        memmove(s->pending_add[i], s->pending_add[i + 1],
                (s->npending_add - i - 1) * sizeof s->pending_add[0]);
        s->npending_add--;
        update_pending_text(s);
        return 0;
    }
    const char *name = sc->kernels[k].name;
    if (s->gone[k] || s->pending_remove[k]) {
        snprintf(err, errlen, "kernel %u (%s) is %s removed", k, name,
                 s->gone[k] ? "already" : "to be");
        return -1;
    }
    if (live_after(s) <= 1) {
        snprintf(err, errlen, "kernel %u (%s) is the last one in the mix: add another first", k,
                 name);
        return -1;
    }
    s->pending_remove[k] = true;
    update_pending_text(s);
    return 0;
}

unsigned session_undo_mix(struct session *s)
{
    unsigned n = s->npending_add;
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++) {
        n += s->pending_remove[k];
        s->pending_remove[k] = false;
    }
    s->npending_add = 0;
    update_pending_text(s);
    return n;
}

/* Split the SMs evenly over the mix, moving few SMs. */
static int even_split(struct session *s, char *text, size_t len)
{
    const struct scenario *sc = s->sc;
    unsigned slot[GPU_MAX_KERNELS], n = session_live(s, slot), nsms = sc->gpu.sms;
    int compact[GPU_MAX_KERNELS], owner[SESSION_MAX_SMS], old[SESSION_MAX_SMS],
        next[SESSION_MAX_SMS];
    for (unsigned k = 0; k < GPU_MAX_KERNELS; k++)
        compact[k] = GPU_SM_IDLE;
    for (unsigned i = 0; i < n; i++)
        compact[slot[i]] = (int)i;
    gpu_get_partition(s->gpu, owner);
    for (unsigned i = 0; i < nsms; i++)
        old[i] = owner[i] >= 0 ? compact[owner[i]] : owner[i];
    struct alloc_decision d;
    memset(&d, 0, sizeof d);
    size_t used = (size_t)snprintf(text, len, "mix change: even split of %u SMs:", nsms);
    for (unsigned i = 0; i < n; i++) {
        d.sms[i] = nsms / n + (i < nsms % n);
        if (used < len)
            used += (size_t)snprintf(text + used, len - used, "%s %s %u", i ? "," : "",
                                     sc->kernels[slot[i]].name, d.sms[i]);
    }
    alloc_place(&d, n, old, nsms, next);
    for (unsigned i = 0; i < nsms; i++)
        next[i] = next[i] >= 0 ? (int)slot[next[i]] : next[i];
    char err[256];
    if (gpu_set_partition(s->gpu, next, nsms, GPU_SWITCH_ADAPTIVE, err, sizeof err) != 0) {
        snprintf(s->error, sizeof s->error, "mix change: %s", err);
        return -1;
    }
    return 0;
}

/* Add the pending library kernels to the scenario, the GPU and the references. */
static int apply_additions(struct session *s)
{
    struct scenario *sc = &s->owned_sc;
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    char err[400];
    int rc = 0;
    for (unsigned i = 0; i < s->npending_add && rc == 0; i++) {
        int k = scenario_add_kernel(sc, s->pending_add[i], datadir, &d);
        if (k < 0) {
            snprintf(s->error, sizeof s->error, "%s", d.count ? d.msgs[0] : "cannot add");
            rc = -1;
        } else if (gpu_add_kernel(s->gpu, &sc->kernels[k].profile, err, sizeof err) != k ||
                   !(s->ref[k] = solo_cache_get(s->solo, &sc->gpu, &sc->kernels[k].profile, 0,
                                                sc->seed, err, sizeof err))) {
            snprintf(s->error, sizeof s->error, "kernel %s: %s", s->pending_add[i], err);
            scenario_keep_kernels(sc, (unsigned)k);
            rc = -1;
        } else {
            s->insts_at_start[k] = 0;
            char text[96];
            snprintf(text, sizeof text, "add %s as kernel %d", sc->kernels[k].name, k);
            rc = session_note(s, "mix", text);
        }
    }
    s->npending_add = 0;
    diag_done(&d);
    free(datadir);
    return rc;
}

int session_apply_mix(struct session *s)
{
    struct scenario *sc = &s->owned_sc;
    bool removing = false;
    for (unsigned k = 0; k < sc->nkernels; k++)
        removing |= s->pending_remove[k];
    if (!removing && s->npending_add == 0)
        return 0;
    int rc = 0;
    for (unsigned k = 0; k < sc->nkernels && rc == 0; k++) {
        if (!s->pending_remove[k])
            continue;
        s->pending_remove[k] = false;
        s->gone[k] = true;
        char text[96];
        snprintf(text, sizeof text, "remove kernel %u (%s)", k, sc->kernels[k].name);
        rc = session_note(s, "mix", text);
    }
    if (rc == 0)
        rc = apply_additions(s);
    update_pending_text(s);
    if (rc != 0)
        return -1;
    /* Weights were shares of the old mix. */
    bool weighted = false;
    for (unsigned k = 0; k < sc->nkernels; k++) {
        weighted |= sc->kernels[k].weight != 0;
        sc->kernels[k].weight = 0;
    }
    char text[256];
    if (even_split(s, text, sizeof text) != 0)
        return -1;
    char err[256];
    for (unsigned k = 0; k < sc->nkernels; k++)
        if (s->gone[k] && !gpu_kernel_retired(s->gpu, k) &&
            gpu_retire_kernel(s->gpu, k, err, sizeof err) != 0) {
            snprintf(s->error, sizeof s->error, "mix change: %s", err);
            return -1;
        }
    if (session_restart_predictor(s) != 0 || session_restart_allocator(s) != 0)
        return -1;
    if (weighted && strlen(text) + 32 < sizeof text)
        strcat(text, "; weights back to equal shares");
    return session_note(s, "repartition", text) != 0 ? -1 : 1;
}
