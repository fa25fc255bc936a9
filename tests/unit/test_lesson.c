/* Unit tests: lessons — every committed lesson loads, bad input gets file:line messages, and
 * the limits (steps, changes per step, where a scenario is found) hold at their edges. */
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
#include "corun/util.h"

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
    /* Required texts given as "" (check said ok, and the panel showed nothing). */
    char *empty = test_write_temp("title = \"\";\nsummary = \"\";\nscenario = \"demo-pair.cfg\";\n"
                                  "steps = ( { title = \"\"; } );\n");
    struct lesson l;
    struct diag d;
    diag_init(&d);
    assert_int_equal(lesson_load(empty, datadir, &l, &d), -1);
    assert_true(test_diag_has(&d, ":1: title: expected some text, got an empty string", NULL));
    assert_true(test_diag_has(&d, ":2: summary: expected some text", NULL));
    assert_true(test_diag_has(&d, ":4: steps[0].title: expected some text", NULL));
    lesson_done(&l);
    diag_done(&d);
    unlink(empty);
    free(empty);
    /* A lesson that lacks its steps is still a lesson (it was checked as a scenario). */
    char *stepless = test_write_temp("title = \"t\";\nsummary = \"s\";\nscenario = \"x.cfg\";\n");
    assert_int_equal(lesson_probe(stepless), 1);
    unlink(stepless);
    free(stepless);
    free(datadir);
}

static void test_bad_lesson(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    char *path = test_write_temp("title = \"t\";\n"
                                 "summary = \"s\";\n"
                                 "scenario = \"../no/such.cfg\";\n"
                                 "steps = (\n"
                                 "  { text = \"no title\"; run = 5000; },\n"
                                 "  { title = \"x\"; view = \"movie\"; predict = 3; },\n"
                                 "  { title = \"y\"; set = [\"a=1\", \"=2\"]; colour = \"red\"; }\n"
                                 ");\n");
    struct lesson l;
    struct diag d;
    diag_init(&d);
    assert_int_equal(lesson_load(path, datadir, &l, &d), -1);
    assert_true(test_diag_has(&d, path, ":3: scenario: no scenario file \"../no/such.cfg\"", NULL));
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

    /* A title or summary of more than one line (or with a tab or an escape) broke the panel's
     * frame, and check said ok; a step's text keeps its paragraphs. */
    path = test_write_temp("title = \"one\\ntwo\";\n"
                           "summary = \"a\\tb\";\n"
                           "scenario = \"demo-pair.cfg\";\n"
                           "steps = ( { title = \"x\\x1b[31m\"; text = \"p\\n\\nq\"; } );\n");
    diag_init(&d);
    assert_int_equal(lesson_load(path, datadir, &l, &d), -1);
    assert_true(
        test_diag_has(&d, ":1: title: expected one line, got a line break at character 4", NULL));
    assert_true(
        test_diag_has(&d, ":2: summary: expected one line, got a tab at character 2", NULL));
    assert_true(test_diag_has(
        &d, ":4: steps[0].title: expected one line, got a control character at character 2", NULL));
    assert_int_equal(d.count, 3);
    lesson_done(&l);
    diag_done(&d);
    unlink(path);
    free(path);

    /* No steps at all. */
    path = test_write_temp("title = \"t\"; summary = \"s\"; scenario = \"demo-pair.cfg\";\n");
    diag_init(&d);
    assert_int_equal(lesson_load(path, datadir, &l, &d), -1);
    /* Missing, so no line to name (it said line 0). */
    assert_true(test_diag_has(&d, ": steps: required setting is missing (expected a list", NULL));
    assert_false(test_diag_has(&d, ":0:", NULL));
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

/* Writes text to dir/name; returns the path (free it). */
static char *write_in(const char *dir, const char *name, const char *text)
{
    char *path = xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

/* A lesson of n steps, the first with `sets` changes, on the scenario named sc. */
static int load_steps(const char *dir, const char *sc, int n, int sets, struct lesson *l,
                      struct diag *d)
{
    char text[8192];
    size_t used = (size_t)snprintf(
        text, sizeof text, "title = \"t\"; summary = \"s\"; scenario = \"%s\";\nsteps = (\n", sc);
    for (int i = 0; i < n; i++) {
        used += (size_t)snprintf(text + used, sizeof text - used, "%s  { title = \"s%d\"; set = [",
                                 i ? ",\n" : "", i);
        for (int k = 0; i == 0 && k < sets; k++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s\"hp_share=0.%d\"",
                                     k ? ", " : "", k + 1);
        used += (size_t)snprintf(text + used, sizeof text - used, "]; }");
    }
    snprintf(text + used, sizeof text - used, "\n);\n");
    char *datadir = datadir_locate();
    char *path = write_in(dir, "l.cfg", text);
    diag_init(d);
    int rc = lesson_load(path, datadir, l, d);
    unlink(path);
    free(path);
    free(datadir);
    return rc;
}

/* The edges: one step and 32 load, 33 do not; a step may make 8 changes, not 9; a scenario
 * beside the lesson comes before the data directory's; an absolute path is taken as it is (one
 * that does not exist is refused, even where the data directory's scenarios have its name). */
static void test_lesson_edges(void **state)
{
    (void)state;
    char dir[] = "/tmp/corun-lesson-XXXXXX";
    assert_non_null(mkdtemp(dir));
    struct lesson l;
    struct diag d;
    static const struct {
        int steps, sets, rc;
    } cases[] = {{1, 8, 0}, {32, 0, 0}, {33, 0, -1}, {1, 9, -1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int rc = load_steps(dir, "demo-pair.cfg", cases[i].steps, cases[i].sets, &l, &d);
        if (rc != cases[i].rc)
            fail_msg("%d steps, %d changes: %d (%s)", cases[i].steps, cases[i].sets, rc,
                     d.count ? d.msgs[0] : "no message");
        if (rc == 0) {
            assert_int_equal(l.nsteps, (size_t)cases[i].steps);
            assert_int_equal(l.steps[0].nset, (size_t)cases[i].sets);
        }
        lesson_done(&l);
        diag_done(&d);
    }
    char *mine = write_in(dir, "mine.cfg", "name = \"m\";\n");
    assert_int_equal(load_steps(dir, "mine.cfg", 1, 0, &l, &d), 0);
    assert_string_equal(l.scenario_path, mine);
    lesson_done(&l);
    diag_done(&d);
    /* A scenario beside the lesson comes first, even where the data directory has one of
     * that name (a teacher's edited copy of a shipped one was passed over); an absolute path
     * and one with .. are taken as they are. */
    char *copy = write_in(dir, "demo-pair.cfg", "name = \"copy\";\n");
    assert_int_equal(load_steps(dir, "demo-pair.cfg", 1, 0, &l, &d), 0);
    assert_string_equal(l.scenario_path, copy);
    lesson_done(&l);
    diag_done(&d);
    unlink(copy);
    free(copy);
    assert_int_equal(load_steps(dir, mine, 1, 0, &l, &d), 0);
    assert_string_equal(l.scenario_path, mine);
    lesson_done(&l);
    diag_done(&d);
    const char *base = strrchr(dir, '/') + 1;
    char up[64];
    snprintf(up, sizeof up, "../%s/mine.cfg", base);
    assert_int_equal(load_steps(dir, up, 1, 0, &l, &d), 0);
    lesson_done(&l);
    diag_done(&d);
    assert_int_equal(load_steps(dir, "/demo-pair.cfg", 1, 0, &l, &d), -1);
    assert_true(test_diag_has(&d, "scenario: no scenario file \"/demo-pair.cfg\"", NULL));
    lesson_done(&l);
    diag_done(&d);
    unlink(mine);
    free(mine);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_committed_lessons),
        cmocka_unit_test(test_bad_lesson),
        cmocka_unit_test(test_lesson_path),
        cmocka_unit_test(test_lesson_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
