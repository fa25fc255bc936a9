/* catalog_kernels — the kernel library (one column per kernel-profile setting, driven by
 * preset_kernel_table), measured solo characteristics, and the private-mode trace cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog_internal.h"
#include "corun/preset.h"
#include "corun/util.h"

/* ---- kernels ---- */

static bool has_column(const struct conf_setting *s)
{
    return s->type != CONF_GROUP && s->type != CONF_CUSTOM;
}

/* The profile setting columns, quoted and separated by ", ". */
static char *column_list(void)
{
    char *out = xstrdup("");
    for (size_t i = 0; i < preset_kernel_table.count; i++) {
        const struct conf_setting *s = &preset_kernel_table.settings[i];
        if (!has_column(s))
            continue;
        char *next = xasprintf("%s%s\"%s\"", out, *out ? ", " : "", s->name);
        free(out);
        out = next;
    }
    return out;
}

/* INSERT ... ON CONFLICT DO UPDATE of every column of kernels. */
static char *upsert_sql(void)
{
    char *cols = column_list();
    char *params = xstrdup("");
    char *updates = xstrdup("");
    for (size_t i = 0; i < preset_kernel_table.count; i++) {
        const struct conf_setting *s = &preset_kernel_table.settings[i];
        if (!has_column(s))
            continue;
        char *np = xasprintf("%s, ?", params);
        char *nu = xasprintf("%s, \"%s\" = excluded.\"%s\"", updates, s->name, s->name);
        free(params);
        free(updates);
        params = np;
        updates = nu;
    }
    char *sql = xasprintf("INSERT INTO kernels (name, source, profile_hash, updated_utc, %s) "
                          "VALUES (?, ?, ?, ?%s) ON CONFLICT (name) DO UPDATE SET "
                          "source = excluded.source, profile_hash = excluded.profile_hash, "
                          "updated_utc = excluded.updated_utc%s",
                          cols, params, updates);
    free(cols);
    free(params);
    free(updates);
    return sql;
}

static const void *field_of(const struct kernel_profile *p, const struct conf_setting *s)
{
    return (const char *)p + s->offset;
}

static void bind_setting(sqlite3_stmt *st, int i, const struct kernel_profile *p,
                         const struct conf_setting *s)
{
    const void *f = field_of(p, s);
    switch (s->type) {
    case CONF_UINT: sqlite3_bind_int64(st, i, *(const unsigned *)f); break;
    case CONF_U64: sqlite3_bind_int64(st, i, (sqlite3_int64) * (const uint64_t *)f); break;
    case CONF_FLOAT: catalog_bind_double(st, i, *(const double *)f); break;
    case CONF_BOOL: sqlite3_bind_int(st, i, *(const bool *)f); break;
    case CONF_STRING: catalog_bind_text(st, i, *(char *const *)f); break;
    case CONF_CHOICE: catalog_bind_text(st, i, s->choices[*(const int *)f]); break;
    case CONF_GROUP:
    case CONF_CUSTOM: break;
    }
}

/* Store column i of st (not NULL) into the setting s of p. */
static void read_setting(sqlite3_stmt *st, int i, struct kernel_profile *p,
                         const struct conf_setting *s)
{
    void *f = (char *)p + s->offset;
    switch (s->type) {
    case CONF_UINT: *(unsigned *)f = (unsigned)sqlite3_column_int64(st, i); break;
    case CONF_U64: *(uint64_t *)f = (uint64_t)sqlite3_column_int64(st, i); break;
    case CONF_FLOAT: *(double *)f = sqlite3_column_double(st, i); break;
    case CONF_BOOL: *(bool *)f = sqlite3_column_int(st, i) != 0; break;
    case CONF_STRING:
        free(*(char **)f);
        *(char **)f = catalog_column_strdup(st, i);
        break;
    case CONF_CHOICE: {
        const char *v = (const char *)sqlite3_column_text(st, i);
        for (int c = 0; s->choices[c]; c++)
            if (strcmp(s->choices[c], v) == 0)
                *(int *)f = c;
        break;
    }
    case CONF_GROUP:
    case CONF_CUSTOM: break;
    }
}

/* The stored profile hash of kernel name into hex (empty when there is none). */
static int stored_profile_hash(struct catalog *cat, const char *name, char hex[17],
                               const char *what, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    hex[0] = '\0';
    if (catalog_prepare(cat, "SELECT profile_hash FROM kernels WHERE name = ?", &st, what, err,
                        errlen) != 0)
        return -1;
    catalog_bind_text(st, 1, name);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW && sqlite3_column_text(st, 0))
        snprintf(hex, 17, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

static int upsert_kernel(struct catalog *cat, const struct kernel_profile *p, const char *source,
                         const char *what, char *err, size_t errlen)
{
    char *sql = upsert_sql();
    sqlite3_stmt *st;
    int rc = catalog_prepare(cat, sql, &st, what, err, errlen);
    free(sql);
    if (rc != 0)
        return -1;
    char now[32];
    catalog_now_utc(now);
    catalog_bind_text(st, 1, p->name);
    catalog_bind_text(st, 2, source);
    catalog_bind_hash(st, 3, solo_profile_hash(p));
    catalog_bind_text(st, 4, now);
    int param = 5;
    for (size_t i = 0; i < preset_kernel_table.count; i++)
        if (has_column(&preset_kernel_table.settings[i]))
            bind_setting(st, param++, p, &preset_kernel_table.settings[i]);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

int catalog_put_kernel(struct catalog *cat, const struct kernel_profile *p, const char *source,
                       char *err, size_t errlen)
{
    const char *what = "storing a kernel";
    if (!p->name || !*p->name || !source || !*source) {
        snprintf(err, errlen, "catalog %s: %s failed: the kernel's %s is missing", cat->path, what,
                 !p->name || !*p->name ? "name" : "source");
        return -1;
    }
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    char old[17], new[17];
    snprintf(new, sizeof new, "%016llx", (unsigned long long)solo_profile_hash(p));
    if (stored_profile_hash(cat, p->name, old, what, err, errlen) != 0 ||
        upsert_kernel(cat, p, source, what, err, errlen) != 0)
        goto fail;
    /* Measurements of a profile that changed describe a kernel that no longer exists. */
    if (old[0] && strcmp(old, new) != 0) {
        sqlite3_stmt *st;
        if (catalog_prepare(cat, "DELETE FROM kernel_measurements WHERE kernel = ?", &st, what, err,
                            errlen) != 0)
            goto fail;
        catalog_bind_text(st, 1, p->name);
        if (catalog_step_done(cat, st, what, err, errlen) != 0)
            goto fail;
    }
    return catalog_commit(cat, what, err, errlen);
fail:
    catalog_rollback(cat);
    return -1;
}

int catalog_get_kernel(struct catalog *cat, const char *name, struct kernel_profile *out,
                       char **source_out, bool *found, char *err, size_t errlen)
{
    const char *what = "reading a kernel";
    memset(out, 0, sizeof(*out));
    if (source_out)
        *source_out = NULL;
    *found = false;
    char *cols = column_list();
    char *sql = xasprintf("SELECT source, %s FROM kernels WHERE name = ?", cols);
    free(cols);
    sqlite3_stmt *st;
    int rc = catalog_prepare(cat, sql, &st, what, err, errlen);
    free(sql);
    if (rc != 0)
        return -1;
    catalog_bind_text(st, 1, name);
    rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        /* Columns a newer build added are NULL in older rows: those keep their defaults. */
        conf_defaults(&preset_kernel_table, out);
        int col = 1;
        for (size_t i = 0; i < preset_kernel_table.count; i++) {
            const struct conf_setting *s = &preset_kernel_table.settings[i];
            if (!has_column(s))
                continue;
            if (sqlite3_column_type(st, col) != SQLITE_NULL)
                read_setting(st, col, out, s);
            col++;
        }
        out->name = xstrdup(name);
        if (source_out)
            *source_out = catalog_column_strdup(st, 0);
        *found = true;
    }
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        return catalog_fail(cat, rc, what, err, errlen);
    return 0;
}

/* ---- measurements ---- */

int catalog_put_measurement(struct catalog *cat, const struct catalog_measurement *m, char *err,
                            size_t errlen)
{
    const char *what = "storing a kernel measurement";
    if (!m->kernel || !*m->kernel || !m->gpu || !*m->gpu) {
        snprintf(err, errlen, "catalog %s: %s failed: the %s is missing", cat->path, what,
                 !m->kernel || !*m->kernel ? "kernel name" : "GPU preset");
        return -1;
    }
    char now[32];
    catalog_now_utc(now);
    sqlite3_stmt *st;
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    if (catalog_prepare(cat,
                        "INSERT INTO kernel_measurements (kernel, gpu, sms, ipc, bandwidth_gbs, "
                        "bandwidth_pct, rbh, mpki, class, measured_utc) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (kernel, gpu, sms) DO UPDATE SET ipc = excluded.ipc, "
                        "bandwidth_gbs = excluded.bandwidth_gbs, "
                        "bandwidth_pct = excluded.bandwidth_pct, rbh = excluded.rbh, "
                        "mpki = excluded.mpki, class = excluded.class, "
                        "measured_utc = excluded.measured_utc",
                        &st, what, err, errlen) != 0) {
        catalog_rollback(cat);
        return -1;
    }
    catalog_bind_text(st, 1, m->kernel);
    catalog_bind_text(st, 2, m->gpu);
    sqlite3_bind_int64(st, 3, m->sms);
    catalog_bind_double(st, 4, m->ipc);
    catalog_bind_double(st, 5, m->bandwidth_gbs);
    catalog_bind_double(st, 6, m->bandwidth_pct);
    catalog_bind_double(st, 7, m->rbh);
    catalog_bind_double(st, 8, m->mpki);
    catalog_bind_text(st, 9, m->class_name);
    catalog_bind_text(st, 10, m->measured_utc ? m->measured_utc : now);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        if (rc == SQLITE_CONSTRAINT_FOREIGNKEY)
            snprintf(err, errlen,
                     "catalog %s: %s failed: kernel \"%s\" is not in the kernel library; store "
                     "the kernel first",
                     cat->path, what, m->kernel);
        else
            catalog_fail(cat, rc, what, err, errlen);
        catalog_rollback(cat);
        return -1;
    }
    return catalog_commit(cat, what, err, errlen);
}

/* ---- private-mode traces ---- */

static void bind_solo_key(sqlite3_stmt *st, const struct solo_key *key)
{
    catalog_bind_hash(st, 1, key->config_hash);
    catalog_bind_hash(st, 2, key->profile_hash);
    sqlite3_bind_int64(st, 3, key->sms);
    sqlite3_bind_int64(st, 4, (sqlite3_int64)key->seed);
}

int catalog_put_solo_trace(struct catalog *cat, const struct solo_key *key, const char *kernel,
                           const char *gpu, const uint64_t *insts, size_t n, char *err,
                           size_t errlen)
{
    const char *what = "storing a solo trace";
    if (n > (size_t)INT32_MAX / 8) {
        snprintf(err, errlen, "catalog %s: %s failed: %zu samples are too many", cat->path, what,
                 n);
        return -1;
    }
    unsigned char *blob = xmalloc(n * 8 + 1);
    for (size_t i = 0; i < n; i++)
        for (int b = 0; b < 8; b++)
            blob[i * 8 + (size_t)b] = (unsigned char)(insts[i] >> (8 * b));
    char now[32];
    catalog_now_utc(now);
    sqlite3_stmt *st;
    int rc = -1;
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        goto out;
    /* Like solo_cache_put: a longer trace replaces a shorter one, and one sampled at another
     * period is of no use to this build. */
    if (catalog_prepare(cat,
                        "INSERT INTO solo_traces (config_hash, profile_hash, sms, seed, kernel, "
                        "gpu, sample_cycles, sample_count, samples, created_utc) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
                        "ON CONFLICT (config_hash, profile_hash, sms, seed) DO UPDATE SET "
                        "kernel = excluded.kernel, gpu = excluded.gpu, "
                        "sample_cycles = excluded.sample_cycles, "
                        "sample_count = excluded.sample_count, samples = excluded.samples, "
                        "created_utc = excluded.created_utc "
                        "WHERE excluded.sample_count > solo_traces.sample_count "
                        "OR excluded.sample_cycles <> solo_traces.sample_cycles",
                        &st, what, err, errlen) != 0) {
        catalog_rollback(cat);
        goto out;
    }
    bind_solo_key(st, key);
    catalog_bind_text(st, 5, kernel);
    catalog_bind_text(st, 6, gpu);
    sqlite3_bind_int64(st, 7, SOLO_SAMPLE_CYCLES);
    sqlite3_bind_int64(st, 8, (sqlite3_int64)n);
    sqlite3_bind_blob(st, 9, blob, (int)(n * 8), SQLITE_STATIC);
    catalog_bind_text(st, 10, now);
    int step = sqlite3_step(st);
    sqlite3_finalize(st);
    if (step != SQLITE_DONE) {
        catalog_fail(cat, step, what, err, errlen);
        catalog_rollback(cat);
        goto out;
    }
    rc = catalog_commit(cat, what, err, errlen);
out:
    free(blob);
    return rc;
}

int catalog_get_solo_trace(struct catalog *cat, const struct solo_key *key, uint64_t **insts_out,
                           size_t *n_out, char *err, size_t errlen)
{
    const char *what = "reading a solo trace";
    *insts_out = NULL;
    *n_out = 0;
    sqlite3_stmt *st;
    if (catalog_prepare(cat,
                        "SELECT sample_count, samples FROM solo_traces WHERE config_hash = ? "
                        "AND profile_hash = ? AND sms = ? AND seed = ? AND sample_cycles = ?",
                        &st, what, err, errlen) != 0)
        return -1;
    bind_solo_key(st, key);
    sqlite3_bind_int64(st, 5, SOLO_SAMPLE_CYCLES);
    int rc = sqlite3_step(st);
    if (rc == SQLITE_ROW) {
        sqlite3_int64 n = sqlite3_column_int64(st, 0);
        const unsigned char *blob = sqlite3_column_blob(st, 1);
        int bytes = sqlite3_column_bytes(st, 1);
        if (n < 0 || bytes != n * 8) {
            snprintf(err, errlen,
                     "catalog %s: %s failed: the stored trace holds %d bytes for %lld samples",
                     cat->path, what, bytes, (long long)n);
            sqlite3_finalize(st);
            return -1;
        }
        uint64_t *insts = xmalloc((size_t)n * sizeof(*insts) + 1);
        for (sqlite3_int64 i = 0; i < n; i++) {
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--)
                v = v << 8 | blob[i * 8 + b];
            insts[i] = v;
        }
        *insts_out = insts;
        *n_out = (size_t)n;
    }
    sqlite3_finalize(st);
    return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, what, err, errlen);
}
