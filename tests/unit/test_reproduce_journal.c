/* Unit tests: reproduce_journal — results survive a close and reopen byte for byte, the last put
 * of a key wins, another run's or a foreign file is refused untouched, an empty or half-created
 * file starts afresh, a torn or corrupt tail is cut off and appending continues after the last
 * intact record, a damaged record in the middle alone is skipped, a merge's source is read
 * without a change, a failed append is undone, a second process is locked out, unopenable paths
 * give the system's reason, and the build id is stable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corun/reproduce_journal.h"

#define RESULT_BYTES 1024
#define HEAD_BYTES   16
#define RECORD_BYTES (HEAD_BYTES + RESULT_BYTES + 8)
#define IDENTITY     "hsm --quick | build 0123456789abcdef"

struct result {
    unsigned char bytes[RESULT_BYTES];
};

struct dir {
    char path[64];
    char file[128];
};

static int dir_setup(void **state)
{
    struct dir *d = calloc(1, sizeof *d);
    snprintf(d->path, sizeof d->path, "/tmp/test_journal_XXXXXX");
    if (!mkdtemp(d->path)) {
        free(d);
        return -1;
    }
    snprintf(d->file, sizeof d->file, "%s/journal", d->path);
    *state = d;
    return 0;
}

static int dir_teardown(void **state)
{
    struct dir *d = *state;
    DIR *dp = opendir(d->path);
    struct dirent *e;
    while (dp && (e = readdir(dp))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[400];
        snprintf(p, sizeof p, "%s/%s", d->path, e->d_name);
        unlink(p);
    }
    if (dp)
        closedir(dp);
    int rc = rmdir(d->path);
    free(d);
    return rc;
}

/* A result whose every byte depends on seed and its position. */
static struct result make_result(unsigned seed)
{
    struct result r;
    for (size_t i = 0; i < sizeof r.bytes; i++)
        r.bytes[i] = (unsigned char)(seed * 131u + i * 7u + (i >> 8));
    return r;
}

static struct repro_journal *open_ok(const char *path, const char *identity)
{
    char err[512] = "";
    struct repro_journal *j = repro_journal_open(path, identity, RESULT_BYTES, err, sizeof err);
    if (!j)
        fail_msg("open %s: %s", path, err);
    return j;
}

static void put_ok(struct repro_journal *j, unsigned part, size_t index, unsigned seed)
{
    char err[512] = "";
    struct result r = make_result(seed);
    if (repro_journal_put(j, part, index, &r, err, sizeof err) != 0)
        fail_msg("put (%u, %zu): %s", part, index, err);
}

static void assert_holds(const struct repro_journal *j, unsigned part, size_t index, unsigned seed)
{
    const struct result *got = repro_journal_get(j, part, index);
    assert_non_null(got);
    struct result want = make_result(seed);
    assert_memory_equal(got->bytes, want.bytes, RESULT_BYTES);
}

static off_t file_size(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    return st.st_size;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* (0,0), (0,7) and (1,0) with seeds 1, 2, 3, then closed. */
static void write_three(const char *path)
{
    struct repro_journal *j = open_ok(path, IDENTITY);
    put_ok(j, 0, 0, 1);
    put_ok(j, 0, 7, 2);
    put_ok(j, 1, 0, 3);
    assert_int_equal(repro_journal_count(j), 3);
    repro_journal_close(j);
}

static void round_trip(void **state)
{
    struct dir *d = *state;
    write_three(d->file);

    struct repro_journal *j = open_ok(d->file, IDENTITY);
    assert_string_equal(repro_journal_path(j), d->file);
    assert_int_equal(repro_journal_count(j), 3);
    assert_int_equal(repro_journal_dropped(j), 0);
    assert_holds(j, 0, 0, 1);
    assert_holds(j, 0, 7, 2);
    assert_holds(j, 1, 0, 3);
    assert_null(repro_journal_get(j, 0, 1));
    assert_null(repro_journal_get(j, 1, 7));
    assert_null(repro_journal_get(j, 2, 0));
    repro_journal_close(j);
}

static void the_last_put_wins(void **state)
{
    struct dir *d = *state;
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    put_ok(j, 0, 3, 10);
    put_ok(j, 0, 3, 11);
    assert_int_equal(repro_journal_count(j), 1);
    assert_holds(j, 0, 3, 11);
    repro_journal_close(j);

    j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 1);
    assert_holds(j, 0, 3, 11);
    repro_journal_close(j);
}

/* Results put in any order are each found, and listed in (part, index) order. */
static void puts_in_any_order(void **state)
{
    struct dir *d = *state;
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    const unsigned part[] = {0, 0, 1, 0}, seed[] = {20, 21, 22, 23};
    const size_t index[] = {9, 2, 0, 5};
    for (int i = 0; i < 4; i++)
        put_ok(j, part[i], index[i], seed[i]);
    for (int i = 0; i < 4; i++)
        assert_holds(j, part[i], index[i], seed[i]);
    const size_t order[][2] = {{0, 2}, {0, 5}, {0, 9}, {1, 0}};
    for (size_t i = 0; i < 4; i++) {
        unsigned p;
        size_t x;
        assert_non_null(repro_journal_at(j, i, &p, &x));
        assert_int_equal(p, order[i][0]);
        assert_int_equal(x, order[i][1]);
    }
    repro_journal_close(j);
}

static void another_identity_is_refused(void **state)
{
    struct dir *d = *state;
    write_three(d->file);
    off_t size = file_size(d->file);

    char err[1024] = "";
    assert_null(repro_journal_open(d->file, "themis --quick | build 0123456789abcdef", RESULT_BYTES,
                                   err, sizeof err));
    assert_non_null(strstr(err, d->file));
    assert_non_null(strstr(err, "written for another run"));
    /* Only the items that differ (two whole lines overflowed the message, cutting its
     * advice). */
    assert_non_null(strstr(err, "(it holds: hsm --quick; this run: themis --quick); give another "
                                "file or remove it"));

    err[0] = '\0';
    assert_null(repro_journal_open(d->file, IDENTITY, RESULT_BYTES / 2, err, sizeof err));
    assert_non_null(strstr(err, d->file));
    assert_non_null(strstr(err, "result 1024 bytes"));
    assert_non_null(strstr(err, "result 512 bytes"));

    /* Long lines that differ in one item: the message names it and keeps its advice. */
    char long_id[400];
    snprintf(long_id, sizeof long_id, "%s (suite s.cfg, %0300d, seed 2) | build 0123456789abcdef",
             "hsm --quick", 0);
    char long_file[160];
    snprintf(long_file, sizeof long_file, "%s/long", d->path);
    struct repro_journal *lj = open_ok(long_file, long_id);
    repro_journal_close(lj);
    char shorter[512];
    *strstr(long_id, "seed 2") = '\0';
    snprintf(shorter, sizeof shorter, "%sseed 3) | build 0123456789abcdef", long_id);
    assert_null(repro_journal_open(long_file, shorter, RESULT_BYTES, err, 512));
    char want[512];
    snprintf(want, sizeof want,
             "%s: written for another run (it holds: seed 2; this run: seed 3); give another "
             "file or remove it",
             long_file);
    assert_string_equal(err, want);

    /* Refusing left the file alone. */
    assert_int_equal(file_size(d->file), size);
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 3);
    repro_journal_close(j);
}

static void a_foreign_file_is_refused_untouched(void **state)
{
    struct dir *d = *state;
    write_file(d->file, "mix,stp,antt\npvc+lbm,1.2,3.4\n");

    char err[512] = "";
    assert_null(repro_journal_open(d->file, IDENTITY, RESULT_BYTES, err, sizeof err));
    assert_non_null(strstr(err, d->file));
    assert_non_null(strstr(err, "not a corun reproduce journal (its first line is "
                                "'mix,stp,antt'"));
    assert_int_equal(file_size(d->file), 29);

    /* A binary file without a newline: shown cut short, and printable. */
    char junk[200];
    for (size_t i = 0; i < sizeof junk - 1; i++)
        junk[i] = (char)(i % 3 == 0 ? 1 : 'x');
    junk[sizeof junk - 1] = '\0';
    write_file(d->file, junk);
    assert_null(repro_journal_open(d->file, IDENTITY, RESULT_BYTES, err, sizeof err));
    assert_non_null(strstr(err, "first line is '?xx?xx"));
    assert_non_null(strstr(err, "...'"));
    assert_int_equal(file_size(d->file), 199);
    /* A short line without a newline, read whole: not cut; DEL shown as '?' too. */
    write_file(d->file, "ab\x7f"
                        "c");
    assert_null(repro_journal_open(d->file, IDENTITY, RESULT_BYTES, err, sizeof err));
    assert_non_null(strstr(err, "first line is 'ab?c';"));
}

static void an_empty_file_starts_afresh(void **state)
{
    struct dir *d = *state;
    write_file(d->file, "");
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 0);
    assert_int_equal(repro_journal_dropped(j), 0);
    put_ok(j, 2, 4, 5);
    repro_journal_close(j);

    j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 1);
    assert_holds(j, 2, 4, 5);
    repro_journal_close(j);
}

static void a_half_written_header_starts_afresh(void **state)
{
    struct dir *d = *state;
    write_file(d->file, "corun reproduce journal 1\nhsm --qu");
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 0);
    assert_int_equal(repro_journal_dropped(j), 34);
    put_ok(j, 0, 1, 6);
    repro_journal_close(j);

    j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 1);
    assert_holds(j, 0, 1, 6);
    repro_journal_close(j);
}

/* A journal of its header alone (opened, nothing put): reopened, nothing is dropped; and no
 * journal at all has nothing dropped either. */
static void a_header_alone_is_whole(void **state)
{
    struct dir *d = *state;
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    repro_journal_close(j);
    off_t header = file_size(d->file);
    assert_true(header > 0);
    j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 0);
    assert_int_equal(repro_journal_dropped(j), 0);
    repro_journal_close(j);
    assert_int_equal(file_size(d->file), header);
    assert_int_equal(repro_journal_dropped(NULL), 0);
}

static void a_torn_tail_is_cut_off(void **state)
{
    struct dir *d = *state;
    write_three(d->file);
    off_t size = file_size(d->file);
    assert_int_equal(truncate(d->file, size - 5), 0);

    struct repro_journal *j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 2);
    assert_int_equal(repro_journal_dropped(j), RECORD_BYTES - 5);
    assert_holds(j, 0, 0, 1);
    assert_holds(j, 0, 7, 2);
    assert_null(repro_journal_get(j, 1, 0));
    assert_int_equal(file_size(d->file), size - RECORD_BYTES);
    put_ok(j, 1, 0, 4);
    repro_journal_close(j);

    j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 3);
    assert_int_equal(repro_journal_dropped(j), 0);
    assert_holds(j, 0, 0, 1);
    assert_holds(j, 0, 7, 2);
    assert_holds(j, 1, 0, 4);
    repro_journal_close(j);
}

/* Flips one payload byte of the record that starts `back` records before the end. */
static void damage_record(const char *path, int back)
{
    FILE *f = fopen(path, "r+");
    assert_non_null(f);
    off_t at = file_size(path) - back * RECORD_BYTES + HEAD_BYTES + 100;
    assert_int_equal(fseeko(f, at, SEEK_SET), 0);
    int c = fgetc(f);
    assert_int_equal(fseeko(f, at, SEEK_SET), 0);
    fputc(c ^ 0x40, f);
    assert_int_equal(fclose(f), 0);
}

/* A damaged record with an intact one after it is damage in the middle, not a torn end: it
 * alone is skipped and the file is kept whole (everything from it on was cut off, the intact
 * records with it); a put of its key appends after the last record. */
static void a_damaged_middle_record_alone_is_skipped(void **state)
{
    struct dir *d = *state;
    write_three(d->file);
    off_t size = file_size(d->file);
    damage_record(d->file, 2); /* (0,7), the middle one */

    struct repro_journal *j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 2);
    assert_int_equal(repro_journal_damaged(j), 1);
    assert_int_equal(repro_journal_dropped(j), 0);
    assert_holds(j, 0, 0, 1);
    assert_null(repro_journal_get(j, 0, 7));
    assert_holds(j, 1, 0, 3);
    assert_int_equal(file_size(d->file), size);
    put_ok(j, 0, 7, 5);
    repro_journal_close(j);

    j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 3);
    assert_int_equal(repro_journal_damaged(j), 1);
    assert_holds(j, 0, 7, 5);
    assert_holds(j, 1, 0, 3);
    repro_journal_close(j);
    assert_int_equal(file_size(d->file), size + RECORD_BYTES);
}

/* A damaged last record is a torn end: cut off, and nothing counted as damaged. */
static void a_bad_last_checksum_is_a_torn_tail(void **state)
{
    struct dir *d = *state;
    write_three(d->file);
    off_t size = file_size(d->file);
    damage_record(d->file, 1);

    struct repro_journal *j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_count(j), 2);
    assert_int_equal(repro_journal_damaged(j), 0);
    assert_int_equal(repro_journal_dropped(j), RECORD_BYTES);
    assert_null(repro_journal_get(j, 1, 0));
    repro_journal_close(j);
    assert_int_equal(file_size(d->file), size - RECORD_BYTES);
}

/* A merge's source is read, never changed: its torn tail and damaged records are left out of
 * what it holds and stay in the file (merging cut them off the source). */
static void a_source_is_read_untouched(void **state)
{
    struct dir *d = *state;
    write_three(d->file);
    damage_record(d->file, 2);
    assert_int_equal(truncate(d->file, file_size(d->file) + 7), 0); /* a torn tail */
    off_t size = file_size(d->file);

    char err[512] = "";
    struct repro_journal *j =
        repro_journal_open_source(d->file, IDENTITY, RESULT_BYTES, err, sizeof err);
    if (!j)
        fail_msg("%s", err);
    assert_int_equal(repro_journal_count(j), 2);
    assert_int_equal(repro_journal_damaged(j), 1);
    assert_int_equal(repro_journal_dropped(j), 7);
    assert_holds(j, 1, 0, 3);
    /* Another reader may open it beside this one. */
    struct repro_journal *k =
        repro_journal_open_source(d->file, IDENTITY, RESULT_BYTES, err, sizeof err);
    assert_non_null(k);
    repro_journal_close(k);
    repro_journal_close(j);
    assert_int_equal(file_size(d->file), size);
}

/* The check before a Slurm job is submitted opens the journal as the run would, and changes
 * nothing: a torn end stays (the run cuts it), an empty file gets no header; another run's
 * journal is refused with the run's message. */
static void a_check_changes_nothing(void **state)
{
    struct dir *d = *state;
    const char *datadir = getenv("CORUN_DATADIR");
    assert_non_null(datadir);
    char err[1024] = "";
    struct repro_journal *j =
        repro_journal_open_run(d->file, datadir, "run x", RESULT_BYTES, err, sizeof err);
    assert_non_null(j);
    put_ok(j, 0, 0, 1);
    put_ok(j, 0, 1, 2);
    repro_journal_close(j);
    assert_int_equal(truncate(d->file, file_size(d->file) - 5), 0);
    off_t size = file_size(d->file);
    assert_int_equal(
        repro_journal_check_run(d->file, datadir, "run x", RESULT_BYTES, err, sizeof err), 0);
    assert_int_equal(file_size(d->file), size);
    assert_int_equal(
        repro_journal_check_run(d->file, datadir, "run y", RESULT_BYTES, err, sizeof err), -1);
    assert_non_null(strstr(err, "written for another run"));
    write_file(d->file, "");
    assert_int_equal(
        repro_journal_check_run(d->file, datadir, "run x", RESULT_BYTES, err, sizeof err), 0);
    assert_int_equal(file_size(d->file), 0);
}

static void a_missing_directory_gives_the_reason(void **state)
{
    struct dir *d = *state;
    char path[256];
    snprintf(path, sizeof path, "%s/no/such/dir/journal", d->path);
    char err[512] = "";
    assert_null(repro_journal_open(path, IDENTITY, RESULT_BYTES, err, sizeof err));
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, strerror(ENOENT)));

    /* A directory is not a journal either. */
    assert_null(repro_journal_open(d->path, IDENTITY, RESULT_BYTES, err, sizeof err));
    assert_non_null(strstr(err, strerror(EISDIR)));
}

/* The file may grow by limit bytes; a write past that fails with EFBIG. */
static void limit_growth(const char *path, off_t limit, struct rlimit *old)
{
    assert_int_equal(getrlimit(RLIMIT_FSIZE, old), 0);
    struct rlimit lim = *old;
    lim.rlim_cur = (rlim_t)(file_size(path) + limit);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
}

static void a_failed_append_is_undone(void **state)
{
    struct dir *d = *state;
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    put_ok(j, 0, 0, 1);
    off_t size = file_size(d->file);

    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    struct rlimit old;
    limit_growth(d->file, HEAD_BYTES + 300, &old);
    struct result r = make_result(2);
    char err[512] = "";
    int rc = repro_journal_put(j, 0, 1, &r, err, sizeof err);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    signal(SIGXFSZ, old_handler);

    assert_int_equal(rc, -1);
    assert_non_null(strstr(err, d->file));
    assert_non_null(strstr(err, "part 0, mix 1"));
    assert_non_null(strstr(err, strerror(EFBIG)));
    assert_null(strstr(err, "failed too"));
    assert_null(repro_journal_get(j, 0, 1));
    assert_int_equal(repro_journal_count(j), 1);
    assert_int_equal(file_size(d->file), size);

    put_ok(j, 0, 2, 3);
    repro_journal_close(j);
    j = open_ok(d->file, IDENTITY);
    assert_int_equal(repro_journal_dropped(j), 0);
    assert_int_equal(repro_journal_count(j), 2);
    assert_holds(j, 0, 0, 1);
    assert_holds(j, 0, 2, 3);
    repro_journal_close(j);
}

static void a_second_process_is_locked_out(void **state)
{
    struct dir *d = *state;
    int ready[2], done[2];
    assert_int_equal(pipe(ready), 0);
    assert_int_equal(pipe(done), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(ready[0]);
        close(done[1]);
        char err[512];
        struct repro_journal *j =
            repro_journal_open(d->file, IDENTITY, RESULT_BYTES, err, sizeof err);
        char c = j ? 'y' : 'n';
        if (write(ready[1], &c, 1) != 1 || read(done[0], &c, 1) < 0)
            _exit(2);
        repro_journal_close(j);
        _exit(j ? 0 : 1);
    }
    close(ready[1]);
    close(done[0]);
    char c = 0;
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(c, 'y');

    char err[512] = "";
    assert_null(repro_journal_open(d->file, IDENTITY, RESULT_BYTES, err, sizeof err));
    assert_non_null(strstr(err, d->file));
    assert_non_null(strstr(err, "in use by another process"));

    close(done[1]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ready[0]);
    repro_journal_close(open_ok(d->file, IDENTITY));
}

static void bad_arguments_are_refused(void **state)
{
    struct dir *d = *state;
    char err[512] = "";
    assert_null(repro_journal_open(d->file, "two\nlines", RESULT_BYTES, err, sizeof err));
    assert_non_null(strstr(err, "one line"));

#if SIZE_MAX > UINT32_MAX
    struct repro_journal *j = open_ok(d->file, IDENTITY);
    struct result r = make_result(1);
    size_t too_big = (size_t)UINT32_MAX + 1;
    assert_int_equal(repro_journal_put(j, 0, too_big, &r, err, sizeof err), -1);
    assert_non_null(strstr(err, "4294967296"));
    assert_int_equal(repro_journal_count(j), 0);
    assert_null(repro_journal_get(j, 0, too_big));
    put_ok(j, 0, 0, 1);
    assert_null(repro_journal_get(j, 0, too_big));
    repro_journal_close(j);
#endif
}

static void build_id_is_16_hex_digits_and_stable(void **state)
{
    (void)state;
    char a[REPRO_BUILD_ID_LEN], b[REPRO_BUILD_ID_LEN];
    memset(a, 'z', sizeof a);
    repro_build_id(a, sizeof a);
    repro_build_id(b, sizeof b);
    assert_int_equal(strlen(a), 16);
    assert_int_equal(strspn(a, "0123456789abcdef"), 16);
    assert_string_equal(a, b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(round_trip, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(the_last_put_wins, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(puts_in_any_order, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(another_identity_is_refused, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(a_foreign_file_is_refused_untouched, dir_setup,
                                        dir_teardown),
        cmocka_unit_test_setup_teardown(an_empty_file_starts_afresh, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(a_half_written_header_starts_afresh, dir_setup,
                                        dir_teardown),
        cmocka_unit_test_setup_teardown(a_header_alone_is_whole, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(a_torn_tail_is_cut_off, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(a_damaged_middle_record_alone_is_skipped, dir_setup,
                                        dir_teardown),
        cmocka_unit_test_setup_teardown(a_bad_last_checksum_is_a_torn_tail, dir_setup,
                                        dir_teardown),
        cmocka_unit_test_setup_teardown(a_source_is_read_untouched, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(a_check_changes_nothing, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(a_missing_directory_gives_the_reason, dir_setup,
                                        dir_teardown),
        cmocka_unit_test_setup_teardown(a_failed_append_is_undone, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(a_second_process_is_locked_out, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(bad_arguments_are_refused, dir_setup, dir_teardown),
        cmocka_unit_test(build_id_is_16_hex_digits_and_stable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
