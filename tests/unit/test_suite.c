/* Unit tests: mix suites — the committed paper suites, and bad input with file:line messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "corun/datadir.h"
#include "corun/suite.h"

struct loaded {
    struct suite s;
    struct diag d;
    int rc;
    char *path;
};

static void load_path(struct loaded *l, const char *path)
{
    char *datadir = datadir_locate();
    diag_init(&l->d);
    l->rc = suite_load(path, datadir, &l->s, &l->d);
    free(datadir);
}

static void load_text(struct loaded *l, const char *text)
{
    l->path = strdup("/tmp/corun-suite-XXXXXX");
    int fd = mkstemp(l->path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
    load_path(l, l->path);
    unlink(l->path);
}

static void unload(struct loaded *l)
{
    suite_done(&l->s);
    diag_done(&l->d);
    free(l->path);
    l->path = NULL;
}

/* 1 when some message contains want. */
static int has_message(const struct loaded *l, const char *want)
{
    for (size_t i = 0; i < l->d.count; i++)
        if (strstr(l->d.msgs[i], want))
            return 1;
    fprintf(stderr, "wanted '%s' among %zu message(s):\n", want, l->d.count);
    for (size_t i = 0; i < l->d.count; i++)
        fprintf(stderr, "  %s\n", l->d.msgs[i]);
    return 0;
}

static size_t count_tag(const struct suite *s, const char *tag)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nmixes; i++)
        n += strcmp(s->mixes[i].tag, tag) == 0;
    return n;
}

static void load_suite_file(struct loaded *l, const char *name)
{
    char *datadir = datadir_locate();
    size_t len = strlen(datadir) + strlen(name) + 32;
    char *path = malloc(len);
    snprintf(path, len, "%s/scenarios/suites/%s.cfg", datadir, name);
    free(datadir);
    load_path(l, path);
    l->path = path;
}

static void paper_suites_load(void **state)
{
    (void)state;
    static const struct {
        const char *name, *gpu;
        size_t mixes;
        unsigned kernels;
    } want[] = {
        {"hsm-pairs", "hbm80", 105, 2},       {"hsm-quads", "hbm80", 20, 4},
        {"themis-pairs", "themis60", 147, 2}, {"themis-triples", "themis60", 343, 3},
        {"themis-quads", "themis60", 150, 4}, {"smqos-pairs", "smqos24", 132, 2},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        struct loaded l = {0};
        load_suite_file(&l, want[i].name);
        assert_int_equal(l.rc, 0);
        assert_string_equal(l.s.gpu, want[i].gpu);
        assert_int_equal(l.s.nmixes, want[i].mixes);
        for (size_t m = 0; m < l.s.nmixes; m++)
            assert_int_equal(l.s.mixes[m].nkernels, want[i].kernels);
        unload(&l);
    }
}

static void hsm_pairs_are_tagged_as_the_paper_counts(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_suite_file(&l, "hsm-pairs");
    assert_int_equal(l.rc, 0);
    assert_int_equal(count_tag(&l.s, "heterogeneous"), 50);
    assert_int_equal(count_tag(&l.s, "memory-homogeneous"), 45);
    assert_int_equal(count_tag(&l.s, "compute-homogeneous"), 10);
    unload(&l);
}

static void themis_pairs_carry_the_three_splits(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_suite_file(&l, "themis-pairs");
    assert_int_equal(l.rc, 0);
    size_t n[3] = {0, 0, 0};
    for (size_t m = 0; m < l.s.nmixes; m++) {
        unsigned a = l.s.mixes[m].sms[0];
        assert_int_equal(a + l.s.mixes[m].sms[1], 60);
        n[a / 10 - 1]++;
    }
    assert_int_equal(n[0], 49);
    assert_int_equal(n[1], 49);
    assert_int_equal(n[2], 49);
    unload(&l);
}

/* --gpu: the Themis suites moved from 60 SMs to hbm80's 80 and gddr5_40's 40 keep their
 * splits as written, and suite_split scales them by largest remainders:
 *   10:50 on 80: 13.33 + 66.67 -> 13 + 66, the SM left to the larger remainder: 13:67
 *   20:40 on 80: 26.67 + 53.33 -> 26 + 53 + 1 to the first: 27:53;  30:30 -> 40:40
 *   20:20:20 on 80: 26.67 each -> 26 x 3 + 2 to the first two (a tie): 27:27:26
 *   10:50 on 40: 6.67 + 33.33 -> 7:33. An even mix (no split) stays all 0. */
static void retargeted_splits_are_scaled(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct loaded l = {0};
    load_suite_file(&l, "themis-pairs");
    assert_int_equal(l.rc, 0);
    assert_int_equal(suite_retarget(&l.s, datadir, "hbm80", "--gpu", &l.d), 0);
    assert_string_equal(l.s.gpu, "hbm80");
    assert_int_equal(l.s.gpu_sms, 80);
    assert_int_equal(l.s.split_sms, 60);
    static const unsigned want80[3][2] = {{13, 67}, {27, 53}, {40, 40}};
    for (size_t m = 0; m < l.s.nmixes; m++) {
        unsigned out[SUITE_MAX_KERNELS];
        suite_split(&l.s, &l.s.mixes[m], out);
        unsigned row = l.s.mixes[m].sms[0] / 10 - 1; /* still as written */
        assert_int_equal(out[0], want80[row][0]);
        assert_int_equal(out[1], want80[row][1]);
    }
    assert_int_equal(suite_retarget(&l.s, datadir, "gddr5_40", "--gpu", &l.d), 0);
    unsigned out[SUITE_MAX_KERNELS];
    suite_split(&l.s, &l.s.mixes[0], out);
    assert_int_equal(l.s.mixes[0].sms[0], 10);
    assert_int_equal(out[0], 7);
    assert_int_equal(out[1], 33);
    /* An unknown preset: refused, naming where it came from; the suite is unchanged. */
    assert_int_equal(suite_retarget(&l.s, datadir, "hbm8", "--gpu", &l.d), -1);
    assert_true(has_message(&l, "--gpu: unknown GPU preset \"hbm8\""));
    assert_string_equal(l.s.gpu, "gddr5_40");
    unload(&l);

    load_suite_file(&l, "themis-triples");
    assert_int_equal(suite_retarget(&l.s, datadir, "hbm80", "--gpu", &l.d), 0);
    suite_split(&l.s, &l.s.mixes[0], out);
    assert_int_equal(out[0], 27);
    assert_int_equal(out[1], 27);
    assert_int_equal(out[2], 26);
    unload(&l);

    load_suite_file(&l, "hsm-pairs");
    assert_int_equal(suite_retarget(&l.s, datadir, "gddr5_40", "--gpu", &l.d), 0);
    suite_split(&l.s, &l.s.mixes[0], out);
    assert_int_equal(out[0], 0);
    assert_int_equal(out[1], 0);
    unload(&l);
    free(datadir);
}

#define HEAD "name = \"t\";\ngpu = \"hbm80\";\ntags = [\"a\", \"b\"];\nmixes = (\n"

static void good_text_loads(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_text(&l, HEAD "  { tag = \"a\"; kernels = [\"pvc\", \"dxtc\"]; sms = [30, 50]; }\n);\n");
    assert_int_equal(l.rc, 0);
    assert_int_equal(l.s.nmixes, 1);
    assert_string_equal(l.s.mixes[0].kernels[1], "dxtc");
    assert_int_equal(l.s.mixes[0].sms[0], 30);
    assert_int_equal(l.s.epoch_cycles, 500000);
    unload(&l);
}

/* A split at its edges: eight kernels (the most a mix holds), seven of them on a single SM,
 * loads; moved from hbm80's 80 SMs to gddr5_40's 40, the halves of an SM go to the earliest
 * kernels, the three shares rounded to 0 take one SM each from the largest, and a share of
 * exactly 1 keeps it without taking: 1 x 7 and 33. */
static void splits_at_their_edges(void **state)
{
    (void)state;
    char *datadir = datadir_locate();
    struct loaded l = {0};
    load_text(&l, HEAD "  { tag = \"a\"; kernels = [\"pvc\", \"dxtc\", \"lbm\", \"stream\",\n"
                       "    \"compute\", \"hotspot\", \"euler3d\", \"random\"];\n"
                       "    sms = [1, 1, 1, 1, 1, 1, 1, 73]; }\n);\n");
    assert_int_equal(l.rc, 0);
    assert_int_equal(l.s.mixes[0].nkernels, 8);
    assert_int_equal(l.s.mixes[0].sms[0], 1);
    assert_int_equal(suite_retarget(&l.s, datadir, "gddr5_40", "--gpu", &l.d), 0);
    unsigned out[SUITE_MAX_KERNELS];
    suite_split(&l.s, &l.s.mixes[0], out);
    for (unsigned k = 0; k < 7; k++)
        assert_int_equal(out[k], 1);
    assert_int_equal(out[7], 33);
    unload(&l);
    free(datadir);
}

static void unknown_kernel_is_named_with_its_line(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_text(&l, HEAD "  { tag = \"a\"; kernels = [\"pvc\"]; },\n"
                       "  { tag = \"b\"; kernels = [\"pvcc\", \"dxtc\"]; }\n);\n");
    assert_int_equal(l.rc, -1);
    assert_true(has_message(&l, ":6: mixes[1].kernels: unknown kernel \"pvcc\""));
    assert_true(has_message(&l, "did you mean pvc?"));
    unload(&l);
}

static void bad_tag_is_named(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_text(&l, HEAD "  { tag = \"c\"; kernels = [\"pvc\"]; }\n);\n");
    assert_int_equal(l.rc, -1);
    assert_true(has_message(&l, ":5: mixes[0]: unknown tag \"c\"; known: a, b"));
    unload(&l);
}

static void bad_splits_are_named(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_text(&l, HEAD "  { tag = \"a\"; kernels = [\"pvc\", \"dxtc\"]; sms = [50, 50]; },\n"
                       "  { tag = \"a\"; kernels = [\"pvc\", \"dxtc\"]; sms = [80]; },\n"
                       "  { tag = \"a\"; kernels = [\"pvc\", \"dxtc\"]; sms = [0, 10]; }\n);\n");
    assert_int_equal(l.rc, -1);
    assert_true(has_message(&l, ":5: mixes[0].sms: the split uses 100 SMs; hbm80 has 80"));
    assert_true(has_message(&l, ":6: mixes[1].sms: expected an array of 2 whole numbers"));
    assert_true(has_message(&l, ":7: mixes[2].sms[0]: expected a whole number from 1 to 80"));
    unload(&l);
}

static void missing_and_wrong_settings_are_named(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_text(&l, "name = \"t\";\ngpu = \"hbm81\";\nepochs = 0;\nmixes = (\n"
                  "  { kernels = [\"pvc\"]; }\n);\n");
    assert_int_equal(l.rc, -1);
    assert_true(has_message(&l, ":2: gpu: unknown GPU preset \"hbm81\""));
    assert_true(has_message(&l, "epochs"));
    assert_true(has_message(&l, "tags: required setting is missing"));
    assert_true(has_message(&l, "mixes[0].tag"));
    unload(&l);
    /* A group where a list of names belongs: refused with the line, not read as one. */
    load_text(&l, "name = \"t\";\ngpu = \"hbm80\";\ntags = [\"x\"];\nmixes = (\n"
                  "  { tag = \"x\"; kernels = { a = \"pvc\"; }; }\n);\n");
    assert_int_equal(l.rc, -1);
    assert_true(has_message(&l, ":5: mixes[0].kernels: expected an array"));
    unload(&l);
    /* A mix given twice (it was counted twice and run once); the same kernels in another
     * order or on another split are other mixes. */
    load_text(&l, "name = \"t\";\ngpu = \"hbm80\";\ntags = [\"x\", \"y\"];\nmixes = (\n"
                  "  { tag = \"x\"; kernels = [\"pvc\", \"bino\"]; },\n"
                  "  { tag = \"x\"; kernels = [\"bino\", \"pvc\"]; },\n"
                  "  { tag = \"x\"; kernels = [\"pvc\", \"bino\"]; sms = [40, 40]; },\n"
                  "  { tag = \"y\"; kernels = [\"pvc\", \"bino\"]; }\n);\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 1);
    assert_true(has_message(&l, ":8: mixes[3]: the same kernels on the same split as mixes[0] "
                                "(line 5); expected each mix once"));
    unload(&l);
    /* No mixes at all: missing, not at a line 0. */
    load_text(&l, "name = \"t\";\ngpu = \"hbm80\";\ntags = [\"x\"];\n");
    assert_int_equal(l.rc, -1);
    assert_true(has_message(&l, ": mixes: required setting is missing (expected a list"));
    assert_false(has_message(&l, ":0:"));
    unload(&l);
}

/* A scenario, lesson or preset given for a suite: one message saying what the file is and
 * which command takes it, instead of a message for each of its settings. */
static void other_kinds_of_file_are_named(void **state)
{
    (void)state;
    struct loaded l = {0};
    load_text(&l, "name = \"x\";\ngpu = \"hbm80\";\nkernels = ( { name = \"stream\"; } );\n");
    assert_int_equal(l.rc, -1);
    assert_int_equal(l.d.count, 1);
    char want[256];
    snprintf(want, sizeof want,
             "%s: a scenario (it has kernels and no mixes), not a suite: `corun run %s` runs it",
             l.path, l.path);
    assert_string_equal(l.d.msgs[0], want);
    unload(&l);

    load_text(&l, "title = \"t\";\nscenario = \"default\";\nsteps = ( );\n");
    assert_int_equal(l.d.count, 1);
    snprintf(want, sizeof want,
             "%s: a lesson (it has steps and no mixes), not a suite: `corun lesson %s` opens it",
             l.path, l.path);
    assert_string_equal(l.d.msgs[0], want);
    unload(&l);
    /* A lesson is named as `corun lesson` takes it wherever it lies: by its path (its base name
     * alone finds only the data directory's lessons; the hint said `corun lesson intro`). */
    char dir[] = "/tmp/corun-suite-XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/intro.cfg", dir);
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("title = \"t\";\nscenario = \"default\";\nsteps = ( );\n", fp);
    fclose(fp);
    load_path(&l, path);
    assert_int_equal(l.d.count, 1);
    snprintf(want, sizeof want, "not a suite: `corun lesson %s` opens it", path);
    assert_non_null(strstr(l.d.msgs[0], want));
    unload(&l);
    unlink(path);
    rmdir(dir);

    /* An accelerator scenario that says its mode: named as one (the message for one that
     * forgot its mode is the scenario loader's). */
    load_text(&l, "mode = \"accelerator\";\nname = \"x\";\napplications = ( );\n");
    assert_int_equal(l.d.count, 1);
    snprintf(want, sizeof want,
             "%s: an accelerator scenario (it has applications and no mixes), not a suite: "
             "`corun run %s` runs it",
             l.path, l.path);
    assert_string_equal(l.d.msgs[0], want);
    unload(&l);

    /* Neither a suite's mixes nor another kind's setting: the file's own mistakes. */
    load_text(&l, "name = \"t\";\ntags = [\"a\"];\n");
    assert_true(has_message(&l, "mixes"));
    assert_null(strstr(l.d.msgs[0], "not a suite"));
    unload(&l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(paper_suites_load),
        cmocka_unit_test(hsm_pairs_are_tagged_as_the_paper_counts),
        cmocka_unit_test(themis_pairs_carry_the_three_splits),
        cmocka_unit_test(retargeted_splits_are_scaled),
        cmocka_unit_test(good_text_loads),
        cmocka_unit_test(splits_at_their_edges),
        cmocka_unit_test(unknown_kernel_is_named_with_its_line),
        cmocka_unit_test(bad_tag_is_named),
        cmocka_unit_test(bad_splits_are_named),
        cmocka_unit_test(missing_and_wrong_settings_are_named),
        cmocka_unit_test(other_kinds_of_file_are_named),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
