/* Unit tests for replacing a model file (modelfile_replace): the model replaced is kept as
 * PATH.prev; a write that fails leaves the model and PATH.prev as they were; a second writer
 * of the same path waits for the first, so neither's model is lost between them. */
#define _DEFAULT_SOURCE /* flock */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corun/modelfile.h"
#include "corun/util.h"
#include "testutil.h"

struct fixture {
    char dir[64];
    char *path, *prev;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof(*f));
    snprintf(f->dir, sizeof f->dir, "/tmp/corun-modelfile-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    f->path = xasprintf("%s/hsm-hbm80.cfg", f->dir);
    f->prev = xasprintf("%s.prev", f->path);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    test_remove_tree(f->dir);
    free(f->path);
    free(f->prev);
    free(f);
    return 0;
}

/* An HSM model told apart by its points. */
static struct modelfile model(unsigned points)
{
    return (struct modelfile){
        .model = "hsm", .gpu = "hbm80", .c1 = 0.4, .c2 = 0.3, .points = points};
}

/* The points of the model in path; 0 when there is none. */
static unsigned points_in(const char *path)
{
    FILE *fp = fopen(path, "r");
    if (!fp)
        return 0;
    char line[256];
    unsigned points = 0;
    while (fgets(line, sizeof line, fp))
        if (sscanf(line, "points = %u;", &points) == 1)
            break;
    fclose(fp);
    return points;
}

static void write_model(const char *path, unsigned points)
{
    char err[512];
    struct modelfile m = model(points);
    if (modelfile_write(path, &m, NULL, err, sizeof err) != 0)
        fail_msg("%s", err);
}

/* The directory holds these two files alone (no temporary file left). */
static void assert_only(const struct fixture *f, unsigned in_path, unsigned in_prev)
{
    assert_int_equal(points_in(f->path), in_path);
    assert_int_equal(points_in(f->prev), in_prev);
    DIR *d = opendir(f->dir);
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.' && strcmp(e->d_name, "hsm-hbm80.cfg") != 0 &&
            strcmp(e->d_name, "hsm-hbm80.cfg.prev") != 0)
            fail_msg("%s/%s was left behind", f->dir, e->d_name);
    closedir(d);
}

static void test_replace_keeps_the_model_before(void **state)
{
    struct fixture *f = *state;
    char err[512], *kept = NULL;
    struct modelfile m = model(1);
    assert_int_equal(modelfile_replace(f->path, &m, NULL, &kept, err, sizeof err), 0);
    assert_null(kept); /* nothing to keep */
    assert_only(f, 1, 0);
    m = model(2);
    assert_int_equal(modelfile_replace(f->path, &m, NULL, &kept, err, sizeof err), 0);
    assert_non_null(kept);
    assert_string_equal(kept, f->prev);
    free(kept);
    assert_only(f, 2, 1);
}

/* A model that cannot be written (a full disk, here a file size limit of 8 bytes) leaves the
 * model and the one before it where they were: PATH.prev was removed before. */
static void test_failed_write_keeps_both(void **state)
{
    struct fixture *f = *state;
    write_model(f->prev, 1);
    write_model(f->path, 2);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        signal(SIGXFSZ, SIG_IGN);
        struct rlimit lim = {8, 8};
        setrlimit(RLIMIT_FSIZE, &lim);
        char err[512], *kept = NULL;
        struct modelfile m = model(3);
        int rc = modelfile_replace(f->path, &m, NULL, &kept, err, sizeof err);
        _exit(rc == -1 && strstr(err, "File too large") && !kept ? 0 : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_only(f, 2, 1);
}

/* Whether /proc/locks shows process pid waiting for a lock: 1, 0, or -1 when it cannot say. */
static int waiting_for_lock(pid_t pid)
{
    FILE *fp = fopen("/proc/locks", "r");
    if (!fp)
        return -1;
    char line[512], want[32];
    snprintf(want, sizeof want, " %ld ", (long)pid);
    int waiting = 0;
    while (!waiting && fgets(line, sizeof line, fp))
        waiting = strstr(line, "->") && strstr(line, "FLOCK") && strstr(line, want);
    fclose(fp);
    return waiting;
}

/* Two trainings to one model ending together: each kept the model it found as PATH.prev, then
 * renamed its own over the path, so the first renamed was in neither. The second waits while
 * the first holds the directory (as the test does here, in the first one's place), and then
 * keeps the model it finds. */
static void test_second_writer_waits(void **state)
{
    struct fixture *f = *state;
    write_model(f->path, 1);
    int dirfd = open(f->dir, O_RDONLY | O_DIRECTORY);
    assert_true(dirfd >= 0);
    assert_int_equal(flock(dirfd, LOCK_EX), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(dirfd);
        char err[512], *kept = NULL;
        struct modelfile m = model(3);
        _exit(modelfile_replace(f->path, &m, NULL, &kept, err, sizeof err) == 0 && kept ? 0 : 1);
    }
    int status, waiting;
    /* Until it waits for the lock or has ended without: no time limit, either comes. */
    while ((waiting = waiting_for_lock(pid)) == 0 && waitpid(pid, &status, WNOHANG) == 0)
        usleep(1000);
    if (waiting < 0) {
        close(dirfd);
        waitpid(pid, &status, 0);
        skip(); /* no /proc/locks to tell */
    }
    if (!waiting) {
        close(dirfd);
        fail_msg("the second writer replaced %s while the first held its directory (it now "
                 "holds the model of %u points)",
                 f->path, points_in(f->path));
    }
    /* In the first one's place: its model goes in while the second waits. */
    write_model(f->prev, 1);
    write_model(f->path, 2);
    close(dirfd);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_only(f, 3, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_replace_keeps_the_model_before, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failed_write_keeps_both, setup, teardown),
        cmocka_unit_test_setup_teardown(test_second_writer_waits, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
