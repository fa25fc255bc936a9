/* Unit tests: tempfile, the names written beside a target before they are renamed over it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/tempfile.h"
#include "corun/util.h"

static char dir[] = "/tmp/corun-test-tempfile-XXXXXX";

static int make_dir(void **state)
{
    (void)state;
    return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    (void)state;
    return rmdir(dir); /* each test removes what it made: a file left fails here */
}

static void names_carry_tag_pid_and_number(void **state)
{
    (void)state;
    long pid = (long)getpid();
    char *want = xasprintf("out/run.h5.partial-%ld-3", pid);
    char *got = tempfile_name("out/run.h5", "partial", 3);
    assert_string_equal(got, want);
    free(got);
    free(want);
    want = xasprintf("model.cfg.tmp-%ld-0", pid);
    got = tempfile_name("model.cfg", "tmp", 0);
    assert_string_equal(got, want);
    free(got);
    free(want);
}

/* A base name of `len` bytes in directory d/ (d and a slash before it). */
static char *path_with_base(size_t len)
{
    char *base = xmalloc(len + 1);
    memset(base, 'a', len);
    base[len] = '\0';
    char *p = xasprintf("d/%s", base);
    free(base);
    return p;
}

static void a_name_past_255_bytes_is_short(void **state)
{
    (void)state;
    long pid = (long)getpid();
    /* ".tmp-PID-0" beside a base name: the long form while the whole is 255 bytes at most. */
    size_t suffix = (size_t)snprintf(NULL, 0, ".tmp-%ld-0", pid);
    char *fits = path_with_base(255 - suffix);
    char *got = tempfile_name(fits, "tmp", 0);
    char *want = xasprintf("%s.tmp-%ld-0", fits, pid);
    assert_string_equal(got, want);
    assert_int_equal(strlen(strrchr(got, '/') + 1), 255);
    free(got);
    free(want);
    free(fits);

    char *over = path_with_base(256 - suffix);
    got = tempfile_name(over, "tmp", 0);
    want = xasprintf("d/.corun-tmp-%ld-0", pid);
    assert_string_equal(got, want); /* in the same directory */
    free(got);
    free(want);
    free(over);

    /* No directory part: the short name has none either. */
    char *bare = path_with_base(300);
    got = tempfile_name(bare + 2, "part", 7);
    want = xasprintf(".corun-part-%ld-7", pid);
    assert_string_equal(got, want);
    free(got);
    free(want);
    free(bare);
}

static void open_never_writes_over_a_file_there(void **state)
{
    (void)state;
    char *path = xasprintf("%s/model.cfg", dir);
    char *first = tempfile_name(path, "tmp", 0);
    FILE *f = fopen(first, "w"); /* a user's own file, or another writer's */
    assert_non_null(f);
    fputs("keep me\n", f);
    fclose(f);

    char err[512] = "", *tmp = NULL;
    mode_t mask = umask(022);
    FILE *fp = tempfile_open(path, &tmp, err, sizeof err);
    umask(mask);
    assert_non_null(fp);
    char *second = tempfile_name(path, "tmp", 1);
    assert_string_equal(tmp, second);
    fputs("new\n", fp);
    assert_int_equal(fclose(fp), 0);

    struct stat st;
    assert_int_equal(stat(tmp, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644); /* 0666 less the umask, not mkstemp's 0600 */
    assert_int_equal(st.st_size, 4);
    assert_int_equal(stat(first, &st), 0);
    assert_int_equal(st.st_size, 8);          /* untouched */
    assert_int_equal(access(path, F_OK), -1); /* the target itself is not made */

    unlink(first);
    unlink(tmp);
    free(tmp);
    free(second);
    free(first);
    free(path);
}

static void open_names_the_target_when_refused(void **state)
{
    (void)state;
    char *path = xasprintf("%s/no-such-dir/model.cfg", dir);
    char err[512] = "", *tmp = NULL;
    assert_null(tempfile_open(path, &tmp, err, sizeof err));
    assert_null(tmp);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, strerror(ENOENT)));
    assert_non_null(strstr(err, "cannot write"));
    char *first = tempfile_name(path, "tmp", 0); /* the first name tried, not the hundredth */
    assert_non_null(strstr(err, first));
    free(first);
    free(path);
}

static void link_is_the_same_file(void **state)
{
    (void)state;
    char *path = xasprintf("%s/run.h5", dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("data", f);
    fclose(f);

    char err[512] = "";
    char *first = tempfile_link(path, err, sizeof err);
    assert_non_null(first);
    char *want = tempfile_name(path, "tmp", 0);
    assert_string_equal(first, want);
    free(want);
    char *second = tempfile_link(path, err, sizeof err); /* the first name is passed over */
    assert_non_null(second);
    want = tempfile_name(path, "tmp", 1);
    assert_string_equal(second, want);
    free(want);
    struct stat a, b;
    assert_int_equal(stat(path, &a), 0);
    assert_int_equal(stat(second, &b), 0);
    assert_true(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
    assert_int_equal(a.st_nlink, 3);

    unlink(second);
    unlink(first);
    unlink(path);
    free(second);
    free(first);

    /* A file that is not there: no link, and a message naming it, the first name tried and
     * why (not a hundred names tried for a refusal that is not a name taken). */
    assert_null(tempfile_link(path, err, sizeof err));
    want = tempfile_name(path, "tmp", 0);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, want));
    assert_non_null(strstr(err, strerror(ENOENT)));
    free(want);
    free(path);
}

/* A process started with its standard input closed gets descriptor 0 for its first file. */
static void open_takes_descriptor_0(void **state)
{
    (void)state;
    int saved = dup(STDIN_FILENO);
    assert_true(saved >= 0);
    close(STDIN_FILENO);
    char *path = xasprintf("%s/plot.svg", dir);
    char err[512] = "", *tmp = NULL;
    FILE *fp = tempfile_open(path, &tmp, err, sizeof err);
    int fd = fp ? fileno(fp) : -1;
    if (fp)
        fclose(fp);
    dup2(saved, STDIN_FILENO);
    close(saved);
    assert_non_null(fp);
    assert_int_equal(fd, 0);
    assert_int_equal(access(tmp, F_OK), 0);
    unlink(tmp);
    free(tmp);
    free(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_carry_tag_pid_and_number),
        cmocka_unit_test(a_name_past_255_bytes_is_short),
        cmocka_unit_test(open_never_writes_over_a_file_there),
        cmocka_unit_test(open_names_the_target_when_refused),
        cmocka_unit_test(link_is_the_same_file),
        cmocka_unit_test(open_takes_descriptor_0),
    };
    return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
