/* sweep — a suite's mixes times predictor/allocator combinations, into the catalog. */
#include "corun/sweep.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "corun/alloc.h"
#include "corun/catalog.h"
#include "corun/diag.h"
#include "corun/predict.h"
#include "corun/session.h"
#include "corun/suite.h"
#include "corun/util.h"

static int known_predictor(const char *name)
{
    return strcmp(name, "none") == 0 || predict_registry_find(name) != NULL;
}

int sweep_parse_combos(struct sweep_options *o, const char *text, char *err, size_t errlen)
{
    char *copy = xstrdup(text), *save = NULL;
    o->ncombos = 0;
    int rc = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
        char *colon = strchr(tok, ':');
        if (!colon || o->ncombos == SWEEP_MAX_COMBOS) {
            snprintf(err, errlen,
                     "--combos: expected up to %d PREDICTOR:ALLOCATOR pairs separated by commas, "
                     "got \"%s\"",
                     SWEEP_MAX_COMBOS, tok);
            rc = -1;
            break;
        }
        *colon = '\0';
        const char *p = tok, *a = colon + 1;
        if (!known_predictor(p)) {
            const char *names[32];
            size_t n = predict_registry_names(names, 31);
            names[n++] = "none";
            const char *near = util_suggest(p, names, n);
            snprintf(err, errlen,
                     "--combos: unknown predictor \"%s\"%s%s%s; see `corun help sweep`", p,
                     near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
            rc = -1;
        } else if (!alloc_registry_find(a)) {
            const char *names[32];
            size_t n = alloc_registry_names(names, 32);
            const char *near = util_suggest(a, names, n < 32 ? n : 32);
            snprintf(err, errlen,
                     "--combos: unknown allocator \"%s\"%s%s%s; see `corun help allocators`", a,
                     near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
            rc = -1;
        } else {
            struct sweep_combo *c = &o->combos[o->ncombos++];
            snprintf(c->predictor, sizeof c->predictor, "%s", p);
            snprintf(c->allocator, sizeof c->allocator, "%s", a);
        }
    }
    if (rc == 0 && o->ncombos == 0) {
        snprintf(err, errlen, "--combos: expected at least one PREDICTOR:ALLOCATOR pair");
        rc = -1;
    }
    free(copy);
    return rc;
}

void sweep_mix_key(const char *const *kernels, const unsigned *sms, unsigned n, char *out,
                   size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (unsigned k = 0; k < n && used < len; k++)
        used += (size_t)snprintf(out + used, len - used, "%s%s", k ? "+" : "", kernels[k]);
    if (n && sms[0])
        for (unsigned k = 0; k < n && used < len; k++)
            used += (size_t)snprintf(out + used, len - used, "%s%u", k ? ":" : "@", sms[k]);
}

/* One item: a mix with a combination. */
struct item {
    const struct suite_mix *mix;
    const struct sweep_combo *combo;
    char key[256];
};

static struct catalog_sweep_key catalog_key(const struct sweep_options *o, const struct suite *s,
                                            const struct item *it)
{
    return (struct catalog_sweep_key){s->name, it->key, it->combo->predictor, it->combo->allocator,
                                      o->seed};
}

/* The scenario text of an item: recorded nowhere, but the same text gives the same run. */
static char *scenario_text(const struct sweep_options *o, const struct suite *s,
                           const struct item *it)
{
    size_t cap = 1024, used = 0;
    char *t = xmalloc(cap);
    used += (size_t)snprintf(
        t + used, cap - used,
        "name = \"%s %s\";\ngpu = \"%s\";\nseed = %llu;\nepochs = %u;\n"
        "epoch_cycles = %u;\npredictor = \"%s\";\nallocator = \"%s\";\nkernels = (",
        s->name, it->key, s->gpu, (unsigned long long)o->seed, o->epochs ? o->epochs : s->epochs,
        s->epoch_cycles, it->combo->predictor, it->combo->allocator);
    for (unsigned k = 0; k < it->mix->nkernels && used < cap; k++)
        used += (size_t)snprintf(t + used, cap - used, "%s { name = \"%s\"; sms = %u; }",
                                 k ? "," : "", it->mix->kernels[k], it->mix->sms[k]);
    if (used < cap)
        snprintf(t + used, cap - used, " );\n");
    return t;
}

/* Simulate one item and store its result. Returns 0, or -1 with a message. */
static int run_item(const struct sweep_options *o, const struct suite *s, const struct item *it,
                    struct catalog *cat, char *err, size_t errlen)
{
    char *text = scenario_text(o, s, it);
    char *name = xasprintf("%s:%d", s->path, it->mix->line);
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    int rc = scenario_load_text(&sc, name, text, o->datadir, &d);
    if (rc != 0)
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "cannot build the mix's scenario");
    struct session *sess = rc == 0 ? session_new(&sc, err, errlen) : NULL;
    if (rc == 0 && !sess)
        rc = -1;
    if (rc == 0)
        rc = session_traces_from_catalog(sess, cat, err, errlen);
    for (unsigned i = 0; rc == 0 && i < sc.epochs; i++)
        if (session_step_epoch(sess, NULL, NULL) != 0) {
            snprintf(err, errlen, "%s", session_error(sess));
            rc = -1;
        }
    if (rc == 0)
        rc = session_traces_to_catalog(sess, cat, err, errlen);
    if (rc == 0) {
        struct catalog_metrics m;
        session_summary(sess, &m);
        struct catalog_sweep_key key = catalog_key(o, s, it);
        rc = catalog_put_sweep_result(cat, &key, 0, &m, NULL, err, errlen);
    }
    session_delete(sess);
    scenario_done(&sc);
    diag_done(&d);
    free(name);
    free(text);
    return rc;
}

/* Run items[i] for i % jobs == worker that are not done yet. Returns the failures. */
static unsigned run_items(const struct sweep_options *o, const struct suite *s,
                          const struct item *items, size_t n, unsigned worker, unsigned jobs,
                          struct sweep_summary *sum)
{
    char err[512];
    struct catalog *cat = catalog_open(o->catalog, err, sizeof err);
    if (!cat) {
        fprintf(stderr, "corun: sweep: %s\n", err);
        return 1;
    }
    unsigned failed = 0;
    for (size_t i = worker; i < n; i += jobs) {
        struct catalog_sweep_key key = catalog_key(o, s, &items[i]);
        bool done = false;
        if (catalog_sweep_done(cat, &key, &done, err, sizeof err) != 0 ||
            (!done && run_item(o, s, &items[i], cat, err, sizeof err) != 0)) {
            fprintf(stderr, "corun: sweep: %s (%s with %s:%s): %s\n", s->name, items[i].key,
                    items[i].combo->predictor, items[i].combo->allocator, err);
            failed++;
        } else if (sum) {
            done ? sum->skipped++ : sum->run++;
        }
    }
    catalog_close(cat);
    return failed;
}

/* Items of items[0..n) already in the catalog. */
static unsigned count_done(const struct sweep_options *o, const struct suite *s,
                           const struct item *items, size_t n)
{
    char err[512];
    struct catalog *cat = catalog_open(o->catalog, err, sizeof err);
    if (!cat)
        return 0;
    unsigned done_count = 0;
    for (size_t i = 0; i < n; i++) {
        struct catalog_sweep_key key = catalog_key(o, s, &items[i]);
        bool done = false;
        if (catalog_sweep_done(cat, &key, &done, err, sizeof err) == 0 && done)
            done_count++;
    }
    catalog_close(cat);
    return done_count;
}

/* Fork o->jobs workers over items and wait, reporting progress from the catalog. */
static unsigned run_forked(const struct sweep_options *o, const struct suite *s,
                           const struct item *items, size_t n, void (*progress)(unsigned, unsigned))
{
    pid_t pids[64];
    unsigned jobs = o->jobs < 64 ? o->jobs : 64, failed = 0, alive = 0;
    fflush(NULL);
    for (unsigned w = 0; w < jobs; w++) {
        pids[w] = fork();
        if (pids[w] == 0)
            _exit(run_items(o, s, items, n, w, jobs, NULL) ? 1 : 0);
        if (pids[w] < 0)
            failed++;
        else
            alive++;
    }
    while (alive > 0) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0) {
            alive--;
            failed += !(WIFEXITED(status) && WEXITSTATUS(status) == 0);
            continue;
        }
        if (progress)
            progress(count_done(o, s, items, n), (unsigned)n);
        struct timespec pause = {0, 300 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return failed;
}

int sweep_run(const struct sweep_options *o, void (*progress)(unsigned done, unsigned total),
              struct sweep_summary *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct suite s;
    struct diag d;
    diag_init(&d);
    if (suite_load(o->suite, o->datadir, &s, &d) != 0) {
        snprintf(err, errlen, "%s", d.count ? d.msgs[0] : "cannot load the suite");
        diag_done(&d);
        suite_done(&s);
        return -1;
    }
    diag_done(&d);
    struct item *items = xcalloc(s.nmixes * o->ncombos + 1, sizeof(*items));
    size_t n = 0, index = 0;
    for (size_t m = 0; m < s.nmixes; m++)
        for (unsigned c = 0; c < o->ncombos; c++, index++) {
            if (index % o->shards != o->shard - 1)
                continue;
            struct item *it = &items[n++];
            it->mix = &s.mixes[m];
            it->combo = &o->combos[c];
            sweep_mix_key((const char *const *)s.mixes[m].kernels, s.mixes[m].sms,
                          s.mixes[m].nkernels, it->key, sizeof it->key);
        }
    out->items = (unsigned)n;
    unsigned before = count_done(o, &s, items, n);
    if (o->jobs > 1) {
        out->failed = run_forked(o, &s, items, n, progress);
        out->skipped = before;
        out->run = count_done(o, &s, items, n) - before;
    } else {
        for (size_t i = 0; i < n; i++) {
            out->failed += run_items(o, &s, items + i, 1, 0, 1, out);
            if (progress)
                progress((unsigned)(i + 1), (unsigned)n);
        }
    }
    if (progress)
        progress((unsigned)n, (unsigned)n);
    int rc = out->failed ? -1 : 0;
    if (rc)
        snprintf(err, errlen, "%u of %u items failed (messages above)", out->failed, out->items);
    free(items);
    suite_done(&s);
    return rc;
}
