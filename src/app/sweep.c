/* sweep — a suite's mixes times predictor/allocator combinations, into the catalog. */
#include "corun/sweep.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "corun/alloc.h"
#include "corun/catalog.h"
#include "corun/conftable.h"
#include "corun/diag.h"
#include "corun/forkpool.h"
#include "corun/predict.h"
#include "corun/reproduce_journal.h"
#include "corun/session.h"
#include "corun/suggest.h"
#include "corun/suite.h"
#include "corun/util.h"

static int known_predictor(const char *name)
{
    return strcmp(name, "none") == 0 || predict_registry_find(name) != NULL;
}

int sweep_parse_combos(struct sweep_options *o, const char *text, char *err, size_t errlen)
{
    o->ncombos = 0;
    /* strtok_r passes over an empty pair: "hsm:static," was taken as one pair, unsaid */
    size_t len = strlen(text);
    if (strspn(text, ",") < len && (text[0] == ',' || text[len - 1] == ',' || strstr(text, ",,"))) {
        snprintf(err, errlen,
                 "--combos: an empty pair in \"%s\"; expected PREDICTOR:ALLOCATOR pairs "
                 "separated by single commas",
                 text);
        return -1;
    }
    char *copy = xstrdup(text), *save = NULL;
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
            char *known = conf_known_names(p, names, n); /* as run's --predictor says it */
            snprintf(err, errlen, "--combos: unknown predictor \"%s\"%s", p, known);
            free(known);
            rc = -1;
        } else if (!alloc_registry_find(a)) {
            const char *names[32];
            size_t n = alloc_registry_names(names, 32);
            char *near = suggest_names(a, names, n < 32 ? n : 32, "", "");
            snprintf(err, errlen,
                     "--combos: unknown allocator \"%s\"%s%s%s; see `corun help allocators`", a,
                     near ? " (did you mean " : "", near ? near : "", near ? "?)" : "");
            free(near);
            rc = -1;
        } else {
            struct sweep_combo *c = &o->combos[o->ncombos];
            snprintf(c->predictor, sizeof c->predictor, "%s", p);
            snprintf(c->allocator, sizeof c->allocator, "%s", a);
            for (unsigned i = 0; i < o->ncombos && rc == 0; i++)
                if (strcmp(o->combos[i].predictor, c->predictor) == 0 &&
                    strcmp(o->combos[i].allocator, c->allocator) == 0) {
                    /* counted twice, run once: the items said 4 for 2 results */
                    snprintf(err, errlen, "--combos: %s:%s is given twice; expected each pair once",
                             p, a);
                    rc = -1;
                }
            o->ncombos += rc == 0;
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
    const char *config; /* the sweep's (sweep_summary.config) */
    char key[256];
};

static struct catalog_sweep_key catalog_key(const struct sweep_options *o, const struct suite *s,
                                            const struct item *it)
{
    return (struct catalog_sweep_key){
        s->name, it->key, it->combo->predictor, it->combo->allocator, o->seed, it->config};
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
    else
        rc = gpu_sets_apply(&o->sets, &sc, err, errlen);
    struct session *sess = rc == 0 ? session_new(&sc, err, errlen) : NULL;
    if (rc == 0 && !sess)
        rc = -1;
    if (sess)
        session_set_threads(sess, o->threads ? o->threads : 1);
    if (rc == 0)
        rc = session_traces_from_catalog(sess, cat, err, errlen) < 0 ? -1 : 0;
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

/* What became of one item, sent back from whichever process ran it. */
enum { ITEM_RUN, ITEM_SKIPPED, ITEM_FAILED, ITEM_NO_CATALOG };
struct outcome {
    int state;
    char err[512];
};

/* The items of a sweep as forkpool tasks; each process has its own catalog connection. */
struct pool_ctx {
    const struct sweep_options *o;
    const struct suite *s;
    const struct item *items;
    struct catalog *cat; /* NULL: open_err says why */
    char open_err[512];
    void (*progress)(unsigned done, unsigned total);
    struct sweep_summary *sum;
};

static void open_catalog(void *user)
{
    struct pool_ctx *pc = user;
    pc->cat = catalog_open(pc->o->catalog, pc->open_err, sizeof pc->open_err);
}

static void close_catalog(void *user)
{
    struct pool_ctx *pc = user;
    catalog_close(pc->cat);
    pc->cat = NULL;
}

/* Skip the item when the catalog has it, else run it; a failure travels in the outcome. */
static int run_task(void *user, struct forkpool_task *task, void *result)
{
    struct pool_ctx *pc = user;
    struct outcome *out = result;
    if (!pc->cat) {
        out->state = ITEM_NO_CATALOG;
        snprintf(out->err, sizeof out->err, "%s", pc->open_err);
        return 0;
    }
    const struct item *it = &pc->items[task->index];
    struct catalog_sweep_key key = catalog_key(pc->o, pc->s, it);
    bool done = false;
    if (catalog_sweep_done(pc->cat, &key, &done, out->err, sizeof out->err) != 0 ||
        (!done && run_item(pc->o, pc->s, it, pc->cat, out->err, sizeof out->err) != 0))
        out->state = ITEM_FAILED;
    else
        out->state = done ? ITEM_SKIPPED : ITEM_RUN;
    return 0;
}

static void collect(void *user, size_t index, const void *result, const char *error)
{
    struct pool_ctx *pc = user;
    const struct outcome *out = result;
    const struct item *it = &pc->items[index];
    if (out && out->state == ITEM_RUN) {
        pc->sum->run++;
    } else if (out && out->state == ITEM_SKIPPED) {
        pc->sum->skipped++;
    } else {
        if (out && out->state == ITEM_NO_CATALOG)
            fprintf(stderr, "corun: sweep: %s\n", out->err);
        else
            fprintf(stderr, "corun: sweep: %s (%s with %s:%s): %s\n", pc->s->name, it->key,
                    it->combo->predictor, it->combo->allocator, out ? out->err : error);
        pc->sum->failed++;
    }
}

static void progress_of(void *user, double done, size_t ntasks)
{
    struct pool_ctx *pc = user;
    if (pc->progress)
        pc->progress((unsigned)done, (unsigned)ntasks);
}

int sweep_check_catalog(const char *catalog, bool keep_made, char *err, size_t errlen)
{
    char *path = catalog ? xstrdup(catalog) : catalog_default_path();
    bool existed = !path || access(path, F_OK) == 0;
    struct catalog *cat = catalog_open(catalog, err, errlen);
    int rc = !cat || catalog_writable(cat, "storing the sweep's results", err, errlen) != 0 ||
                     catalog_check_sweep_results(cat, err, errlen) != 0
                 ? -1
                 : 0;
    catalog_close(cat);
    if (cat && !existed && !keep_made) {
        const char *made[] = {"", "-wal", "-shm", "-journal"};
        for (size_t i = 0; i < CORUN_ARRAY_LEN(made); i++) {
            char *file = xasprintf("%s%s", path, made[i]);
            unlink(file);
            free(file);
        }
    }
    free(path);
    return rc;
}

int sweep_run(const struct sweep_options *o, void (*progress)(unsigned done, unsigned total),
              struct sweep_summary *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    struct suite s;
    struct diag d;
    diag_init(&d);
    if (suite_load(o->suite, o->datadir, &s, &d) != 0) {
        /* Every mistake, a line each, as `corun suite check` lists them (it said the first). */
        if (d.count)
            diag_join(&d, err, errlen);
        else
            snprintf(err, errlen, "cannot load the suite");
        diag_done(&d);
        suite_done(&s);
        return -1;
    }
    diag_done(&d);
    if (gpu_sets_check(&o->sets, o->datadir, s.gpu, err, errlen) != 0) {
        suite_done(&s);
        return -1;
    }
    /* The catalog is made (or found) here first: one that cannot be is one message, not one
     * per item from every worker. */
    if (sweep_check_catalog(o->catalog, true, err, errlen) != 0) {
        suite_done(&s);
        return -1;
    }
    snprintf(out->suite, sizeof out->suite, "%s", s.name);
    /* A result depends on more than its key's names: the preset, the epochs and their length,
     * and the simulator, predictors and profiles that made it. Results made with other ones
     * are not reused (nor shown) for this sweep. */
    char build[REPRO_BUILD_ID_LEN], data[REPRO_BUILD_ID_LEN];
    repro_build_id(build, sizeof build);
    repro_data_id(o->datadir, data, sizeof data);
    char sets[1024]; /* named only when given, so that other sweeps' results keep their config */
    gpu_sets_describe(&o->sets, ", set ", " ", sets, sizeof sets);
    snprintf(out->config, sizeof out->config, "%s%s, %u x %u cycles; corun build %s, data %s",
             s.gpu, sets, o->epochs ? o->epochs : s.epochs, s.epoch_cycles, build, data);
    struct item *items = xcalloc(s.nmixes * o->ncombos + 1, sizeof(*items));
    size_t n = 0, index = 0;
    for (size_t m = 0; m < s.nmixes; m++)
        for (unsigned c = 0; c < o->ncombos; c++, index++) {
            if (index % o->shards != o->shard - 1)
                continue;
            struct item *it = &items[n++];
            it->mix = &s.mixes[m];
            it->combo = &o->combos[c];
            it->config = out->config;
            sweep_mix_key((const char *const *)s.mixes[m].kernels, s.mixes[m].sms,
                          s.mixes[m].nkernels, it->key, sizeof it->key);
        }
    out->items = (unsigned)n;
    struct pool_ctx pc = {.o = o, .s = &s, .items = items, .progress = progress, .sum = out};
    const struct forkpool_ops ops = {.run = run_task,
                                     .collect = collect,
                                     .progress = progress_of,
                                     .child_init = open_catalog,
                                     .child_done = close_catalog};
    if (o->jobs <= 1)
        open_catalog(&pc);
    forkpool_run(&ops, &pc, n, sizeof(struct outcome), o->jobs);
    if (o->jobs <= 1)
        close_catalog(&pc);
    if (progress)
        progress((unsigned)n, (unsigned)n);
    int rc = out->failed ? -1 : 0;
    if (rc)
        snprintf(err, errlen, "%u of %u items failed (messages above)", out->failed, out->items);
    free(items);
    suite_done(&s);
    return rc;
}
