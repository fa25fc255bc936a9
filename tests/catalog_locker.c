/* catalog_locker — a driver for tests/e2e/catalog_lock.sh: one process holds a write
 * transaction on a catalog while others try to write through the catalog API.
 *
 *   catalog_locker hold PATH SECONDS READY  create the catalog, add a run inside a write
 *                                           transaction, create the file READY, keep the
 *                                           transaction SECONDS, then commit
 *   catalog_locker write PATH TIMEOUT_MS    add a run with that busy timeout; prints its id,
 *                                           or the message and exits 1
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "corun/catalog.h"

static const struct catalog_run test_run = {
    .scenario_name = "lock-test",
    .gpu = "hbm80",
    .mix = "stream+compute",
    .allocator = "even",
    .seed = 1,
    .epochs = 1,
    .epoch_cycles = 1000,
};

static int hold(const char *path, double seconds, const char *ready)
{
    char err[512];
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (!cat) {
        fprintf(stderr, "catalog_locker: %s\n", err);
        return 1;
    }
    catalog_close(cat);

    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK ||
        sqlite3_exec(db,
                     "BEGIN IMMEDIATE; INSERT INTO runs (scenario_name, gpu, mix, allocator, "
                     "seed, epochs, epoch_cycles, created_utc, corun_version) VALUES "
                     "('holder', 'hbm80', 'stream', 'even', 1, 1, 1000, "
                     "'2024-01-01T00:00:00Z', 'test')",
                     NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "catalog_locker: %s: %s\n", path, sqlite3_errmsg(db));
        sqlite3_close(db);
        return 1;
    }
    FILE *f = fopen(ready, "w");
    if (!f) {
        perror(ready);
        sqlite3_close(db);
        return 1;
    }
    fclose(f);
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    while (nanosleep(&ts, &ts) != 0)
        ;
    int rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        fprintf(stderr, "catalog_locker: commit: %s\n", sqlite3_errmsg(db));
    sqlite3_close(db);
    return rc == SQLITE_OK ? 0 : 1;
}

static int write_run(const char *path, unsigned timeout_ms)
{
    char err[512];
    struct catalog *cat = catalog_open(path, err, sizeof err);
    if (!cat) {
        fprintf(stderr, "catalog_locker: %s\n", err);
        return 1;
    }
    catalog_set_busy_timeout(cat, timeout_ms);
    int64_t id;
    int rc = catalog_add_run(cat, &test_run, &id, err, sizeof err);
    if (rc == 0)
        printf("%lld\n", (long long)id);
    else
        fprintf(stderr, "catalog_locker: %s\n", err);
    catalog_close(cat);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    if (argc == 5 && strcmp(argv[1], "hold") == 0)
        return hold(argv[2], atof(argv[3]), argv[4]);
    if (argc == 4 && strcmp(argv[1], "write") == 0)
        return write_run(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    fprintf(stderr, "usage: catalog_locker hold PATH SECONDS READY | write PATH TIMEOUT_MS\n");
    return 2;
}
