/* catalog — opening the SQLite catalog, its schema and migrations. The helpers every catalog
 * file shares (error messages, transactions, columns) are in catalog_util.c, runs and sweeps in
 * catalog_runs.c, the kernel library and the trace cache in catalog_kernels.c, the user's
 * queries in catalog_query.c. */
#include "corun/catalog.h"

#include <errno.h>
#include <pwd.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "catalog_internal.h"
#include "corun/preset.h"
#include "corun/util.h"

/* UPSERT (ON CONFLICT ... DO UPDATE / DO NOTHING) needs 3.24. */
#define CATALOG_MIN_SQLITE 3024000

/* ---- the file ---- */

char *catalog_default_path(void)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    if (xdg && xdg[0] == '/') /* the XDG spec says to ignore relative paths */
        return xasprintf("%s/corun/catalog.db", xdg);
    const char *home = getenv("HOME");
    if (!home || !*home) {
        struct passwd *pw = getpwuid(getuid());
        home = pw ? pw->pw_dir : NULL;
    }
    if (!home || !*home)
        return NULL;
    return xasprintf("%s/.local/share/corun/catalog.db", home);
}

const char *catalog_path(const struct catalog *cat)
{
    return cat->path;
}

void catalog_set_busy_timeout(struct catalog *cat, unsigned ms)
{
    cat->busy_ms = ms;
    sqlite3_busy_timeout(cat->db, (int)(ms > INT32_MAX ? INT32_MAX : ms));
}

/* mkdir -p of the directory that holds path. */
static int make_parent_dirs(const char *path, char *err, size_t errlen)
{
    char *dir = xstrdup(path);
    char *slash = strrchr(dir, '/');
    int rc = 0;
    if (!slash || slash == dir) {
        free(dir);
        return 0;
    }
    *slash = '\0';
    for (char *p = dir + 1;; p++) {
        if (*p != '/' && *p != '\0')
            continue;
        char c = *p;
        *p = '\0';
        struct stat st;
        if (stat(dir, &st) != 0) {
            if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
                snprintf(err, errlen, "cannot create directory %s for catalog %s: %s", dir, path,
                         strerror(errno));
                rc = -1;
                break;
            }
        } else if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "cannot use catalog %s: %s is not a directory", path, dir);
            rc = -1;
            break;
        }
        *p = c;
        if (c == '\0')
            break;
    }
    free(dir);
    return rc;
}

/* An existing non-empty file must start with SQLite's header; SQLite itself would only notice
 * at the first statement, with a less helpful message. */
static int check_header(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return 0; /* created below, or SQLite reports why it cannot be */
    if (S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "catalog %s is a directory; give a file path with --catalog", path);
        return -1;
    }
    /* A FIFO would block the header's read, and SQLite cannot seek in one or keep a WAL beside
     * a device ("Illegal seek", "disk I/O error"). */
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen,
                 "catalog %s is not a regular file (a FIFO, device or socket); give a file path "
                 "with --catalog",
                 path);
        return -1;
    }
    if (st.st_size == 0)
        return 0;
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(err, errlen, "cannot open catalog %s: %s", path, strerror(errno));
        return -1;
    }
    char head[16];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    if (n < sizeof head || memcmp(head, "SQLite format 3", sizeof head) != 0) {
        snprintf(err, errlen, "%s is not a corun catalog (not an SQLite database)", path);
        return -1;
    }
    return 0;
}

/* Read-write, or read-only when the file or its directory cannot be written: WAL mode needs
 * to create files beside the catalog, and SQLite reads a WAL database without them only when
 * it is opened read-only. */
static int open_flags(const char *path, int *flags, char *err, size_t errlen)
{
    const char *slash = strrchr(path, '/');
    char *dir = !slash          ? xstrdup(".")
                : slash == path ? xstrdup("/")
                                : xasprintf("%.*s", (int)(slash - path), path);
    struct stat st;
    bool exists = stat(path, &st) == 0;
    bool dir_writable = access(dir, W_OK | X_OK) == 0;
    int rc = 0;
    if (!exists && !dir_writable) {
        snprintf(err, errlen, "cannot create catalog %s: cannot write in directory %s (%s)", path,
                 dir, strerror(errno));
        rc = -1;
    }
    *flags = exists && (!dir_writable || access(path, W_OK) != 0)
                 ? SQLITE_OPEN_READONLY
                 : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    free(dir);
    return rc;
}

/* ---- schema ---- */

static const char *column_type(const struct conf_setting *s)
{
    switch (s->type) {
    case CONF_UINT:
    case CONF_U64:
    case CONF_BOOL: return "INTEGER";
    case CONF_FLOAT: return "REAL";
    case CONF_STRING:
    case CONF_CHOICE: return "TEXT";
    case CONF_GROUP:
    case CONF_CUSTOM: break;
    }
    return NULL;
}

/* sweep_results' columns but the configuration, as versions 1 and 2 both declare them. */
#define SWEEP_KEY_COLUMNS                                                                          \
    "    suite TEXT NOT NULL,\n"                                                                   \
    "    mix TEXT NOT NULL,\n"                                                                     \
    "    predictor TEXT NOT NULL,\n"                                                               \
    "    allocator TEXT NOT NULL,\n"                                                               \
    "    seed INTEGER NOT NULL,\n"
#define SWEEP_RESULT_COLUMNS                                                                       \
    "    run_id INTEGER REFERENCES runs (id) ON DELETE SET NULL,\n"                                \
    "    mean_stp REAL, mean_antt REAL, mean_fairness REAL, min_fairness REAL,\n"                  \
    "    mean_are REAL, max_are REAL,\n"                                                           \
    "    created_utc TEXT NOT NULL,\n"

/* Version 1. The kernels table is created from preset_kernel_table, one column per profile
 * setting; settings added to the table later become columns when a catalog is opened. */
static char *schema_v1(void)
{
    char *cols = xstrdup("");
    for (size_t i = 0; i < preset_kernel_table.count; i++) {
        const struct conf_setting *s = &preset_kernel_table.settings[i];
        const char *type = column_type(s);
        if (!type)
            continue;
        char *next = xasprintf("%s    \"%s\" %s,\n", cols, s->name, type);
        free(cols);
        cols = next;
    }
    char *sql = xasprintf(
        "CREATE TABLE runs (\n"
        "    id INTEGER PRIMARY KEY,\n"
        "    run_path TEXT,\n"
        "    scenario_name TEXT NOT NULL,\n"
        "    scenario_path TEXT,\n"
        "    gpu TEXT NOT NULL,\n"
        "    mix TEXT NOT NULL,\n"
        "    predictor TEXT NOT NULL DEFAULT 'none',\n"
        "    allocator TEXT NOT NULL,\n"
        "    seed INTEGER NOT NULL,\n"
        "    epochs INTEGER NOT NULL,\n"
        "    epoch_cycles INTEGER NOT NULL,\n"
        "    created_utc TEXT NOT NULL,\n"
        "    corun_version TEXT NOT NULL,\n"
        "    mean_stp REAL, mean_antt REAL, mean_fairness REAL, min_fairness REAL,\n"
        "    mean_are REAL, max_are REAL\n"
        ");\n"
        "CREATE INDEX runs_by_scenario ON runs (scenario_name);\n"
        "CREATE TABLE kernels (\n"
        "    name TEXT PRIMARY KEY,\n"
        "    source TEXT NOT NULL,\n"
        "%s"
        "    profile_hash TEXT NOT NULL,\n"
        "    updated_utc TEXT NOT NULL\n"
        ");\n"
        "CREATE TABLE kernel_measurements (\n"
        "    kernel TEXT NOT NULL REFERENCES kernels (name) ON DELETE CASCADE,\n"
        "    gpu TEXT NOT NULL,\n"
        "    sms INTEGER NOT NULL,\n"
        "    ipc REAL, bandwidth_gbs REAL, bandwidth_pct REAL, rbh REAL, mpki REAL,\n"
        "    class TEXT,\n"
        "    measured_utc TEXT NOT NULL,\n"
        "    PRIMARY KEY (kernel, gpu, sms)\n"
        ");\n"
        "CREATE TABLE solo_traces (\n"
        "    config_hash TEXT NOT NULL,\n"
        "    profile_hash TEXT NOT NULL,\n"
        "    sms INTEGER NOT NULL,\n"
        "    seed INTEGER NOT NULL,\n"
        "    kernel TEXT,\n"
        "    gpu TEXT,\n"
        "    sample_cycles INTEGER NOT NULL,\n"
        "    sample_count INTEGER NOT NULL,\n"
        "    samples BLOB NOT NULL, -- sample_count little-endian uint64: cumulative insts\n"
        "    created_utc TEXT NOT NULL,\n"
        "    PRIMARY KEY (config_hash, profile_hash, sms, seed),\n"
        "    CHECK (length(samples) = 8 * sample_count)\n"
        ");\n"
        "CREATE TABLE sweep_results (\n"
        "    id INTEGER PRIMARY KEY,\n" SWEEP_KEY_COLUMNS SWEEP_RESULT_COLUMNS
        "    UNIQUE (suite, mix, predictor, allocator, seed)\n"
        ");\n"
        "CREATE INDEX sweep_results_by_run ON sweep_results (run_id);\n",
        cols);
    free(cols);
    return sql;
}

/* Version 2: a sweep result is keyed by its configuration too (the preset, epochs and cycles,
 * corun's build and data, as the sweep words it), so a sweep with other epochs or another
 * corun does not take an older result for its own. Version 1's results keep an empty one and
 * are never taken for a new sweep's. */
static char *schema_v2(void)
{
    return xstrdup(
        "CREATE TABLE sweep_results_v2 (\n"
        "    id INTEGER PRIMARY KEY,\n" SWEEP_KEY_COLUMNS
        "    config TEXT NOT NULL,\n" SWEEP_RESULT_COLUMNS
        "    UNIQUE (suite, mix, predictor, allocator, seed, config)\n"
        ");\n"
        "INSERT INTO sweep_results_v2 SELECT id, suite, mix, predictor, allocator, seed, '', "
        "run_id, mean_stp, mean_antt, mean_fairness, min_fairness, mean_are, max_are, "
        "created_utc FROM sweep_results;\n"
        "DROP TABLE sweep_results;\n"
        "ALTER TABLE sweep_results_v2 RENAME TO sweep_results;\n"
        "CREATE INDEX sweep_results_by_run ON sweep_results (run_id);\n");
}

/* migrations[v] takes a catalog from version v to v + 1. */
static char *(*const migrations[])(void) = {schema_v1, schema_v2};
_Static_assert(CORUN_ARRAY_LEN(migrations) == CATALOG_SCHEMA_VERSION,
               "one migration per schema version");

static int read_int_pragma(struct catalog *cat, const char *sql, int *out, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (catalog_prepare(cat, sql, &st, "reading the schema version", err, errlen) != 0)
        return -1;
    int rc = sqlite3_step(st);
    if (rc != SQLITE_ROW) {
        sqlite3_finalize(st);
        return catalog_fail(cat, rc, "reading the schema version", err, errlen);
    }
    *out = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    return 0;
}

/* The kernel-profile settings that have no column yet (a newer build added them): *missing
 * (heap, the caller frees; pointers into preset_kernel_table) and *n. */
static int missing_kernel_columns(struct catalog *cat, const struct conf_setting ***missing,
                                  size_t *n, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    *missing = NULL;
    *n = 0;
    if (catalog_prepare(cat, "SELECT name FROM pragma_table_info('kernels')", &st,
                        "reading the kernels table", err, errlen) != 0)
        return -1;
    size_t ncols = 0, cap = 0;
    char **cols = NULL;
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        if (ncols == cap) {
            cap = cap ? 2 * cap : 32;
            cols = xrealloc(cols, cap * sizeof(*cols));
        }
        cols[ncols++] = catalog_column_strdup(st, 0);
    }
    sqlite3_finalize(st);
    if (rc == SQLITE_DONE) {
        *missing = xcalloc(preset_kernel_table.count + 1, sizeof(**missing));
        for (size_t i = 0; i < preset_kernel_table.count; i++) {
            const struct conf_setting *s = &preset_kernel_table.settings[i];
            bool have = !column_type(s);
            for (size_t j = 0; j < ncols && !have; j++)
                have = cols[j] && strcmp(cols[j], s->name) == 0;
            if (!have)
                (*missing)[(*n)++] = s;
        }
    }
    for (size_t j = 0; j < ncols; j++)
        free(cols[j]);
    free(cols);
    return rc == SQLITE_DONE ? 0 : catalog_fail(cat, rc, "reading the kernels table", err, errlen);
}

static int exec(struct catalog *cat, const char *sql, const char *what, char *err, size_t errlen)
{
    int rc = sqlite3_exec(cat->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : catalog_fail(cat, rc, what, err, errlen);
}

static int newer_schema(const struct catalog *cat, int version, char *err, size_t errlen)
{
    snprintf(err, errlen,
             "catalog %s has schema version %d, newer than this corun's %d; use a newer corun or "
             "another --catalog",
             cat->path, version, CATALOG_SCHEMA_VERSION);
    return -1;
}

/* Bring the schema to CATALOG_SCHEMA_VERSION and add missing kernel columns, in one
 * transaction. Another process may have done it meanwhile: the version is re-read inside. */
static int migrate(struct catalog *cat, char *err, size_t errlen)
{
    const char *what = "creating the catalog's tables";
    if (catalog_begin_write(cat, what, err, errlen) != 0)
        return -1;
    int version;
    if (read_int_pragma(cat, "PRAGMA user_version", &version, err, errlen) != 0)
        goto fail;
    if (version > CATALOG_SCHEMA_VERSION) {
        newer_schema(cat, version, err, errlen);
        goto fail;
    }
    for (int v = version; v < CATALOG_SCHEMA_VERSION; v++) {
        char *sql = migrations[v]();
        int rc = exec(cat, sql, what, err, errlen);
        free(sql);
        if (rc != 0)
            goto fail;
    }
    const struct conf_setting **missing;
    size_t nmissing;
    if (missing_kernel_columns(cat, &missing, &nmissing, err, errlen) != 0)
        goto fail;
    for (size_t i = 0; i < nmissing; i++) {
        char *sql = xasprintf("ALTER TABLE kernels ADD COLUMN \"%s\" %s", missing[i]->name,
                              column_type(missing[i]));
        int rc = exec(cat, sql, "adding a kernel column", err, errlen);
        free(sql);
        if (rc != 0) {
            free(missing);
            goto fail;
        }
    }
    free(missing);
    char *sql = xasprintf("PRAGMA application_id = %d; PRAGMA user_version = %d",
                          CATALOG_APPLICATION_ID, CATALOG_SCHEMA_VERSION);
    int rc = exec(cat, sql, what, err, errlen);
    free(sql);
    if (rc != 0)
        goto fail;
    return catalog_commit(cat, what, err, errlen);
fail:
    catalog_rollback(cat);
    return -1;
}

/* Check what the file holds and migrate it when it needs it. */
static int prepare_schema(struct catalog *cat, char *err, size_t errlen)
{
    int version, app_id, tables;
    if (read_int_pragma(cat, "PRAGMA user_version", &version, err, errlen) != 0 ||
        read_int_pragma(cat, "PRAGMA application_id", &app_id, err, errlen) != 0 ||
        read_int_pragma(cat, "SELECT count(*) FROM sqlite_master", &tables, err, errlen) != 0)
        return -1;
    if ((app_id != 0 && app_id != CATALOG_APPLICATION_ID) ||
        (app_id == 0 && (version != 0 || tables != 0))) {
        snprintf(err, errlen,
                 "%s is not a corun catalog (an SQLite database of another program); give "
                 "another path with --catalog",
                 cat->path);
        return -1;
    }
    if (version > CATALOG_SCHEMA_VERSION)
        return newer_schema(cat, version, err, errlen);
    size_t nmissing = 0;
    if (version == CATALOG_SCHEMA_VERSION) {
        const struct conf_setting **missing;
        if (missing_kernel_columns(cat, &missing, &nmissing, err, errlen) != 0)
            return -1;
        free(missing);
    }
    if (version == CATALOG_SCHEMA_VERSION && nmissing == 0)
        return 0;
    if (cat->readonly) {
        snprintf(err, errlen,
                 "catalog %s is read-only and needs its schema brought from version %d to %d; "
                 "open it once with write permission or use --catalog",
                 cat->path, version, CATALOG_SCHEMA_VERSION);
        return -1;
    }
    return migrate(cat, err, errlen);
}

/* WAL lets readers go on while one process writes; NORMAL sync is safe in WAL mode (a crash
 * may lose the last commits, never corrupts) and spares a sweep one fsync per row. */
static int set_journal(struct catalog *cat, char *err, size_t errlen)
{
    /* Two processes opening a new catalog at once race to switch it: SQLite may refuse the
     * loser at once (SQLITE_BUSY, not after the busy timeout), and by the time it reads the
     * mode again the other has switched it. So read, switch, and on BUSY read again, for up
     * to the busy timeout (the one catalog_fail reports) in steps of step_ms. */
    const unsigned step_ms = 50;
    for (unsigned waited = 0;; waited += step_ms) {
        sqlite3_stmt *st;
        if (catalog_prepare(cat, "PRAGMA journal_mode", &st, "reading the journal mode", err,
                            errlen) != 0)
            return -1;
        int rc = sqlite3_step(st);
        bool wal = rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(st, 0), "wal") == 0;
        sqlite3_finalize(st);
        if (rc != SQLITE_ROW)
            return catalog_fail(cat, rc, "reading the journal mode", err, errlen);
        if (wal)
            break;
        /* A file system without shared memory keeps the rollback journal: slower, still safe. */
        rc = sqlite3_exec(cat->db, "PRAGMA journal_mode = WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            break;
        if ((rc & 0xff) != SQLITE_BUSY || waited >= cat->busy_ms)
            return catalog_fail(cat, rc, "switching to WAL mode", err, errlen);
        nanosleep(&(struct timespec){0, (long)step_ms * 1000 * 1000}, NULL);
    }
    return exec(cat, "PRAGMA synchronous = NORMAL", "setting the sync mode", err, errlen);
}

struct catalog *catalog_open(const char *path, char *err, size_t errlen)
{
    if (sqlite3_libversion_number() < CATALOG_MIN_SQLITE) {
        snprintf(err, errlen, "SQLite %s is too old for the catalog; it needs 3.24 or newer",
                 sqlite3_libversion());
        return NULL;
    }
    char *own = path ? xstrdup(path) : catalog_default_path();
    if (!own) {
        snprintf(err, errlen,
                 "cannot place the catalog: neither XDG_DATA_HOME nor HOME is set; use "
                 "--catalog PATH");
        return NULL;
    }
    if (!*own) {
        snprintf(err, errlen, "the catalog path is empty; use --catalog PATH");
        free(own);
        return NULL;
    }
    /* Only the default place is made: a path the user gives names a directory that exists. */
    if ((!path && make_parent_dirs(own, err, errlen) != 0) || check_header(own, err, errlen) != 0) {
        free(own);
        return NULL;
    }
    int flags;
    if (open_flags(own, &flags, err, errlen) != 0) {
        free(own);
        return NULL;
    }
    struct stat st;
    bool made = lstat(own, &st) != 0; /* by this open, so removed again if it fails */
    struct catalog *cat = xcalloc(1, sizeof(*cat));
    cat->path = own;
    cat->query_limit_s = CATALOG_QUERY_LIMIT_S;
    int rc = sqlite3_open_v2(own, &cat->db, flags, NULL);
    if (rc != SQLITE_OK) {
        int sys = cat->db ? sqlite3_system_errno(cat->db) : 0;
        snprintf(err, errlen, "cannot open catalog %s: %s", own,
                 sys       ? strerror(sys)
                 : cat->db ? sqlite3_errmsg(cat->db)
                           : sqlite3_errstr(rc));
        catalog_close(cat);
        return NULL;
    }
    sqlite3_extended_result_codes(cat->db, 1);
    catalog_set_busy_timeout(cat, CATALOG_BUSY_TIMEOUT_MS);
    cat->readonly = sqlite3_db_readonly(cat->db, "main") == 1;
    if (exec(cat, "PRAGMA foreign_keys = ON", "enabling foreign keys", err, errlen) != 0 ||
        (!cat->readonly && set_journal(cat, err, errlen) != 0) ||
        prepare_schema(cat, err, errlen) != 0) {
        char *gone = made ? xstrdup(own) : NULL;
        catalog_close(cat);
        /* A catalog this open made and could not set up (a full disk) was left behind empty;
         * one that has anything in it is another process's by now, and stays. */
        if (gone && stat(gone, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
            unlink(gone);
        free(gone);
        return NULL;
    }
    return cat;
}

void catalog_close(struct catalog *cat)
{
    if (!cat)
        return;
    sqlite3_close(cat->db);
    free(cat->path);
    free(cat);
}
