/* Unit tests: lessons — every committed lesson loads, and bad input gets file:line messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "testutil.h"

#include "corun/datadir.h"
#include "corun/lesson.h"

static void test_committed_lessons(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    size_t n;
    char **names = lesson_names(datadir, &n);
    assert_true(n >= 8);
    for (size_t i = 0; i < n; i++) {
        char *path = lesson_path(datadir, names[i]);
        struct lesson l;
        struct diag d;
        diag_init(&d);
        int rc = lesson_load(path, datadir, &l, &d);
        if (rc != 0)
            fail_msg("%s: %s", path, d.count ? d.msgs[0] : "?");
        assert_string_equal(l.name, names[i]);
        assert_true(*l.title && *l.summary && l.nsteps >= 3);
        assert_int_equal(access(l.scenario_path, R_OK), 0);
        for (size_t s = 0; s < l.nsteps; s++)
            assert_true(*l.steps[s].title && *l.steps[s].text);
        if (i > 0)
            assert_true(strcmp(names[i - 1], names[i]) < 0);
        assert_int_equal(lesson_probe(path), 1);
        lesson_done(&l);
        diag_done(&d);
        free(path);
    }
    assert_null(names[n]);
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    char *scenario = datadir_default_scenario(datadir);
    assert_int_equal(lesson_probe(scenario), 0);
    free(scenario);
    assert_int_equal(lesson_probe("/nonexistent/x.cfg"), -1);
    free(datadir);
}

static void test_bad_lesson(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    char *path = test_write_temp("title = \"t\";\n"
                                 "summary = \"s\";\n"
                                 "scenario = \"../etc/passwd\";\n"
                                 "steps = (\n"
                                 "  { text = \"no title\"; run = 5000; },\n"
                                 "  { title = \"x\"; view = \"movie\"; predict = 3; },\n"
                                 "  { title = \"y\"; set = [\"a=1\", \"=2\"]; colour = \"red\"; }\n"
                                 ");\n");
    struct lesson l;
    struct diag d;
    diag_init(&d);
    assert_int_equal(lesson_load(path, datadir, &l, &d), -1);
    assert_true(test_diag_has(&d, path, ":3: scenario: no scenario file \"../etc/passwd\"", NULL));
    assert_true(test_diag_has(&d, ":5:", "steps[0].title", NULL));
    assert_true(test_diag_has(&d, ":5:", "steps[0].run", "1000", NULL));
    assert_true(test_diag_has(&d, ":6:", "steps[1].view", NULL));
    assert_true(test_diag_has(&d, ":6:", "steps[1].predict", NULL));
    assert_true(test_diag_has(&d, ":7:", "steps[2].set[1]: expected \"KEY=VALUE\"", NULL));
    assert_true(test_diag_has(&d, ":7:", "steps[2].colour", NULL));
    assert_int_equal(l.steps[2].nset, 1);
    lesson_done(&l);
    diag_done(&d);
    unlink(path);
    free(path);

    /* No steps at all. */
    path = test_write_temp("title = \"t\"; summary = \"s\"; scenario = \"demo-pair.cfg\";\n");
    diag_init(&d);
    assert_int_equal(lesson_load(path, datadir, &l, &d), -1);
    assert_true(test_diag_has(&d, "steps: expected a list", NULL));
    lesson_done(&l);
    diag_done(&d);
    unlink(path);
    free(path);
    free(datadir);
}

static void test_lesson_path(void **state)
{
    (void)state;
    char *p = lesson_path("/d", "qos");
    assert_string_equal(p, "/d/scenarios/lessons/qos.cfg");
    free(p);
    assert_null(lesson_path("/d", ""));
    assert_null(lesson_path("/d", "../qos"));
    assert_null(lesson_path("/d", "a/b"));
    assert_null(lesson_path("/d", ".hidden"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_committed_lessons),
        cmocka_unit_test(test_bad_lesson),
        cmocka_unit_test(test_lesson_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
