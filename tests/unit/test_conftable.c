/* Unit tests: conftable, on a small table and libconfig text parsed in memory. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libconfig.h>

#include "corun/confread.h"
#include "corun/conftable.h"

struct inner {
    unsigned depth;
};

struct sample {
    unsigned count;
    uint64_t big;
    double ratio;
    bool flag;
    char *label;
    int mode;
    struct inner in;
};

static const char *const modes[] = {"fast", "exact", NULL};

static const struct conf_setting inner_settings[] = {
    {"depth", CONF_UINT, 1, 8, "2", NULL, "depth", offsetof(struct inner, depth), NULL, NULL},
};
static const struct conf_table inner_table = {"inner", inner_settings, 1, "inner-topic"};

static const struct conf_setting sample_settings[] = {
    {"count", CONF_UINT, 1, 64, NULL, "warps", "required", offsetof(struct sample, count), NULL,
     NULL},
    {"big", CONF_U64, 0, 1e15, "5", "bytes", "64-bit", offsetof(struct sample, big), NULL, NULL},
    {"ratio", CONF_FLOAT, 0, 1, "0.5", NULL, "fraction", offsetof(struct sample, ratio), NULL,
     NULL},
    {"flag", CONF_BOOL, 0, 0, "true", NULL, "a flag", offsetof(struct sample, flag), NULL, NULL},
    {"label", CONF_STRING, 0, 0, "none", NULL, "a label", offsetof(struct sample, label), NULL,
     NULL},
    {"mode", CONF_CHOICE, 0, 0, "exact", NULL, "a mode", offsetof(struct sample, mode), modes,
     NULL},
    {"in", CONF_GROUP, 0, 0, NULL, NULL, "nested", offsetof(struct sample, in), NULL, &inner_table},
};
static const struct conf_table sample_table = {"sample", sample_settings, 7, NULL};

/* Parse text and apply the sample table; returns the number of errors. */
static size_t apply_text(const char *text, struct sample *s, enum conf_apply_mode mode,
                         struct diag *d)
{
    config_t cfg;
    config_init(&cfg);
    assert_int_equal(config_read_string(&cfg, text), CONFIG_TRUE);
    size_t n = conf_apply(&sample_table, (const struct conf_group *)config_root_setting(&cfg), s,
                          mode, "t.cfg", "", d);
    config_destroy(&cfg);
    return n;
}

static void defaults_fill_unset_settings(void **state)
{
    (void)state;
    struct sample s = {0};
    struct diag d;
    diag_init(&d);
    assert_int_equal(apply_text("count = 4;", &s, CONF_FULL, &d), 0);
    assert_int_equal(s.count, 4);
    assert_int_equal(s.big, 5);
    assert_true(s.ratio == 0.5);
    assert_true(s.flag);
    assert_string_equal(s.label, "none");
    assert_int_equal(s.mode, 1);
    assert_int_equal(s.in.depth, 2);
    conf_free_strings(&sample_table, &s);
    diag_done(&d);
}

static void values_are_stored(void **state)
{
    (void)state;
    struct sample s = {0};
    struct diag d;
    diag_init(&d);
    assert_int_equal(apply_text("count = 64; big = 1099511627776L; ratio = 1; flag = false;\n"
                                "label = \"x\"; mode = \"fast\"; in = { depth = 8; };",
                                &s, CONF_FULL, &d),
                     0);
    assert_int_equal(s.count, 64);
    assert_true(s.big == 1099511627776ull);
    assert_true(s.ratio == 1.0);
    assert_false(s.flag);
    assert_string_equal(s.label, "x");
    assert_int_equal(s.mode, 0);
    assert_int_equal(s.in.depth, 8);
    conf_free_strings(&sample_table, &s);
    diag_done(&d);
}

static void every_mistake_is_reported_with_its_line(void **state)
{
    (void)state;
    struct sample s = {0};
    struct diag d;
    diag_init(&d);
    size_t n = apply_text("count = 65;\nratio = \"half\";\nmode = \"fats\";\ncuont = 1;\n"
                          "in = { depth = 0; };\nflag = 1;\n",
                          &s, CONF_FULL, &d);
    assert_int_equal(n, 6);
    assert_int_equal(d.count, 6);
    const char *want[] = {
        "t.cfg:4: cuont: unknown sample setting (did you mean count?)",
        "t.cfg:1: count: expected an integer from 1 to 64 (warps), got 65",
        "t.cfg:2: ratio: expected a number from 0 to 1, got a string \"half\"",
        "t.cfg:6: flag: expected true or false, got an integer 1",
        "t.cfg:3: mode: expected one of fast, exact, got \"fats\" (did you mean fast?)",
        "t.cfg:5: in.depth: expected an integer from 1 to 8, got 0",
    };
    for (size_t i = 0; i < 6; i++)
        assert_string_equal(d.msgs[i], want[i]);
    conf_free_strings(&sample_table, &s);
    diag_done(&d);

    /* A whole number written as a float says so (1e4 was "10000 (not an integer)"), and a
     * number just past the range shows its digits (1.0000000001 was "got 1", from 0 to 1). */
    diag_init(&d);
    struct sample t = {0};
    assert_int_equal(
        apply_text("count = 1e1;\nratio = 1.0000000001;\nbig = 2.5;\n", &t, CONF_FULL, &d), 3);
    assert_string_equal(d.msgs[0], "t.cfg:1: count: expected an integer from 1 to 64 (warps), "
                                   "got 10 written as a float (write 10)");
    assert_non_null(strstr(d.msgs[1], "got 2.5 (not an integer)")); /* in the table's order */
    assert_string_equal(d.msgs[2], "t.cfg:2: ratio: expected a number from 0 to 1, got "
                                   "1.0000000001");
    conf_free_strings(&sample_table, &t);
    diag_done(&d);

    /* A float too large to write as an integer is not told to be written as one: 1e999 (libconfig
     * reads it as infinity) said "got inf written as a float (write inf)", 1e19 "got 1e+19
     * written as a float (write 1e+19)". */
    diag_init(&d);
    struct sample u = {0};
    assert_int_equal(apply_text("count = 1e999;\nbig = 1e19;\n", &u, CONF_FULL, &d), 2);
    assert_string_equal(d.msgs[0], "t.cfg:1: count: expected an integer from 1 to 64 (warps), "
                                   "got inf (not a finite number)");
    assert_string_equal(d.msgs[1], "t.cfg:2: big: expected an integer from 0 to 1000000000000000 "
                                   "(bytes), got 1e+19 written as a float");
    conf_free_strings(&sample_table, &u);
    diag_done(&d);
}

/* The digits of a float after its point or its exponent's sign are not an integer of their
 * own: confread gave them the L that a literal past 32 bits needs (libconfig 1.5 wraps one
 * without it), so 0.3333333333 and 1.5000000001 were "libconfig syntax: syntax error" (with
 * --set, "got a string"), and 1E+4294967296 too. An integer past 32 bits still reads whole. */
static void long_fractions_read_as_floats(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    struct conf_file *f = confread_parse(
        "t.cfg", "ratio = 0.3333333333;\nbig = 4294967298;\nin = { depth = 1; };\n", &d);
    assert_non_null(f);
    struct sample s = {0};
    assert_int_equal(conf_apply(&sample_table, confread_root(f), &s, CONF_OVERLAY, "t.cfg", "", &d),
                     0);
    assert_true(s.ratio == 0.3333333333);
    assert_true(s.big == 4294967298ull);
    confread_close(f);
    f = confread_parse("t.cfg", "ratio = 1.5000000001;\nbig = 1E+4294967296;\n", &d);
    assert_non_null(f);
    assert_int_equal(conf_apply(&sample_table, confread_root(f), &s, CONF_OVERLAY, "t.cfg", "", &d),
                     2);
    assert_string_equal(d.msgs[0], "t.cfg:2: big: expected an integer from 0 to 1000000000000000 "
                                   "(bytes), got inf (not a finite number)");
    assert_string_equal(d.msgs[1], "t.cfg:1: ratio: expected a number from 0 to 1, got "
                                   "1.5000000001");
    confread_close(f);
    diag_done(&d);
}

/* libconfig's arrays hold one type, and an integer past 32 bits is a 64-bit one: an array
 * with one beside smaller ones (a suite's sms = [2147483648, 1]) was "libconfig syntax:
 * mismatched element type in array (expected settings of the form  name = value;)". */
static void array_with_an_integer_past_32_bits(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    assert_null(confread_parse("t.cfg", "a = [1, 2];\nsms = [2147483648, 1];\n", &d));
    assert_null(confread_parse("t.cfg", "sms = [1, -2147483649];\n", &d));
    assert_null(confread_parse("t.cfg", "w = [1, 0.5];\n", &d));
    assert_int_equal(d.count, 3);
    assert_string_equal(d.msgs[0], "t.cfg:2: 2147483648 is out of range in an array (expected "
                                   "whole numbers from -2147483648 to 2147483647 there)");
    assert_string_equal(d.msgs[1], "t.cfg:1: -2147483649 is out of range in an array (expected "
                                   "whole numbers from -2147483648 to 2147483647 there)");
    assert_string_equal(d.msgs[2],
                        "t.cfg:1: an array mixes kinds of value (expected its elements all whole "
                        "numbers, all numbers with a decimal point, or all strings)");
    diag_done(&d);
}

/* A settings file past CONFREAD_MAX_BYTES is refused by its size, before it is read (a 3 GB
 * one took half a minute and 4 GB of memory to be called "binary data"). Sparse: no disk. */
static void too_large_a_file(void **state)
{
    (void)state;
    char path[] = "/tmp/corun-test-large-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(ftruncate(fd, CONFREAD_MAX_BYTES + 1), 0);
    close(fd);
    struct diag d;
    diag_init(&d);
    assert_null(confread_open(path, &d));
    assert_int_equal(d.count, 1);
    char want[256];
    snprintf(want, sizeof want,
             "%s: cannot read: %lld bytes, too large for a settings file (expected a libconfig "
             "text file of at most 64 MiB)",
             path, CONFREAD_MAX_BYTES + 1);
    assert_string_equal(d.msgs[0], want);
    assert_int_equal(confread_probe(path, "name"), -1);
    unlink(path);
    diag_done(&d);
}

/* A name too far from every setting to suggest one points at the help that lists the table,
 * when one does (the table's topic; it used to print the table's description, which named
 * no help: `corun help DRAM timing`), and at nothing otherwise. */
static void unknown_setting_points_at_its_help(void **state)
{
    (void)state;
    struct sample s = {0};
    struct diag d;
    diag_init(&d);
    size_t n = apply_text("count = 2;\nxyzzy = 1;\nin = { plugh = 1; };\n", &s, CONF_OVERLAY, &d);
    assert_int_equal(n, 2);
    assert_int_equal(d.count, 2);
    assert_string_equal(d.msgs[0], "t.cfg:2: xyzzy: unknown sample setting");
    assert_string_equal(d.msgs[1],
                        "t.cfg:3: in.plugh: unknown inner setting (see `corun help inner-topic`)");
    conf_free_strings(&sample_table, &s);
    diag_done(&d);
}

static void missing_required_setting_is_an_error(void **state)
{
    (void)state;
    struct sample s = {0};
    struct diag d;
    diag_init(&d);
    assert_int_equal(apply_text("ratio = 0.25;", &s, CONF_FULL, &d), 1);
    assert_string_equal(d.msgs[0], "t.cfg: count: required setting is missing (expected an "
                                   "integer from 1 to 64)");
    conf_free_strings(&sample_table, &s);
    diag_done(&d);
}

static void overlay_changes_only_what_is_present(void **state)
{
    (void)state;
    struct sample s = {.count = 7, .ratio = 0.1, .in = {.depth = 3}};
    struct diag d;
    diag_init(&d);
    assert_int_equal(apply_text("ratio = 0.9; in = { };", &s, CONF_OVERLAY, &d), 0);
    assert_int_equal(s.count, 7);
    assert_true(s.ratio == 0.9);
    assert_int_equal(s.in.depth, 3);
    assert_null(s.label);
    diag_done(&d);
}

/* What conf_print_help writes for table (heap). */
static char *help_of(const struct conf_table *table)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    conf_print_help(table, out);
    fclose(out);
    return buf;
}

static void help_lists_every_setting(void **state)
{
    (void)state;
    char *buf = help_of(&sample_table);
    assert_non_null(strstr(buf, "count"));
    assert_non_null(strstr(buf, "an integer from 1 to 64, in warps; default: (required)"));
    assert_non_null(strstr(buf, "in.depth"));
    assert_non_null(strstr(buf, "one of fast, exact; default: exact"));
    assert_non_null(strstr(buf, "Settings of a sample (libconfig"));
    free(buf);
    /* "an" before a vowel: "Settings of an application entry" */
    const struct conf_table entry = {"entry", sample_settings, 7, NULL};
    buf = help_of(&entry);
    assert_non_null(strstr(buf, "Settings of an entry (libconfig"));
    free(buf);
}

/* One setting's help by its name, a group's by its dotted name; an unknown name, or a group's
 * setting named without its group, is none. */
static void help_of_one_setting(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    assert_true(conf_print_setting(&sample_table, "count", out));
    assert_true(conf_print_setting(&sample_table, "in.depth", out));
    assert_false(conf_print_setting(&sample_table, "depth", out));
    assert_false(conf_print_setting(&sample_table, "in.count", out));
    assert_false(conf_print_setting(&sample_table, "counts", out));
    fclose(out);
    assert_non_null(strstr(buf, "  count "));
    assert_non_null(strstr(buf, "an integer from 1 to 64, in warps; default: (required)"));
    assert_non_null(strstr(buf, "  in.depth "));
    assert_null(strstr(buf, "mode")); /* only the settings asked for */
    free(buf);
}

/* A number whose default lies outside its own range is unset until an entry gives it (an LS
 * application's qos_target): help says none, not "from 1 to 100; default: 0". */
static void unset_default_is_none(void **state)
{
    (void)state;
    static const struct conf_setting settings[] = {
        {"rate", CONF_FLOAT, 0.001, 10, "0", "q/s", "rate", offsetof(struct sample, ratio), NULL,
         NULL},
        {"count", CONF_UINT, 0, 64, "0", NULL, "count", offsetof(struct sample, count), NULL, NULL},
    };
    const struct conf_table table = {"entry", settings, 2, NULL};
    char *buf = help_of(&table);
    assert_non_null(strstr(buf, "a number from 0.001 to 10, in q/s; default: none"));
    assert_non_null(strstr(buf, "an integer from 0 to 64; default: 0"));
    free(buf);
}

/* A setting with one allowed value says so, not "from 128 to 128". */
static void single_value_range_is_named(void **state)
{
    (void)state;
    const struct conf_setting one = {"line",  CONF_UINT,   128, 128,  "128",
                                     "bytes", "line size", 0,   NULL, NULL};
    char *e = conf_expected(&one);
    assert_string_equal(e, "128, the only value the core models");
    free(e);
    e = conf_expected(&sample_settings[0]);
    assert_string_equal(e, "an integer from 1 to 64");
    free(e);
}

/* conf_diff names every setting that differs, nested ones by their dotted names, with both
 * values as they would be written; skip leaves one out; a short buffer is cut, the count not. */
static void diff_names_what_differs(void **state)
{
    (void)state;
    struct sample a = {0}, b = {0};
    struct diag d;
    diag_init(&d);
    assert_int_equal(apply_text("count = 4;", &a, CONF_FULL, &d), 0);
    assert_int_equal(apply_text("count = 4;", &b, CONF_FULL, &d), 0);
    char out[256];
    memset(out, 'x', sizeof out); /* "nothing differs" must be written, not found */
    assert_int_equal(conf_diff(&sample_table, &a, &b, "x.", NULL, out, sizeof out), 0);
    assert_string_equal(out, "");
    assert_int_equal(apply_text("count = 8; ratio = 0.25; flag = false; label = \"y\";\n"
                                "mode = \"fast\"; in = { depth = 3; };",
                                &b, CONF_OVERLAY, &d),
                     0);
    assert_int_equal(conf_diff(&sample_table, &a, &b, "x.", NULL, out, sizeof out), 6);
    assert_string_equal(out, "x.count 4 -> 8, x.ratio 0.5 -> 0.25, x.flag true -> false, "
                             "x.label \"none\" -> \"y\", x.mode exact -> fast, x.in.depth 2 -> 3");
    assert_int_equal(conf_diff(&sample_table, &a, &b, "x.", "x.in.depth", out, sizeof out), 5);
    assert_null(strstr(out, "depth"));
    assert_int_equal(conf_diff(&sample_table, &a, &b, "", NULL, out, 12), 6);
    assert_string_equal(out, "count 4 -> ");
    conf_free_strings(&sample_table, &a);
    conf_free_strings(&sample_table, &b);
    diag_done(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_fill_unset_settings),
        cmocka_unit_test(values_are_stored),
        cmocka_unit_test(every_mistake_is_reported_with_its_line),
        cmocka_unit_test(long_fractions_read_as_floats),
        cmocka_unit_test(array_with_an_integer_past_32_bits),
        cmocka_unit_test(too_large_a_file),
        cmocka_unit_test(unknown_setting_points_at_its_help),
        cmocka_unit_test(missing_required_setting_is_an_error),
        cmocka_unit_test(overlay_changes_only_what_is_present),
        cmocka_unit_test(help_lists_every_setting),
        cmocka_unit_test(help_of_one_setting),
        cmocka_unit_test(unset_default_is_none),
        cmocka_unit_test(single_value_range_is_named),
        cmocka_unit_test(diff_names_what_differs),
    };
    return cmocka_run_group_tests_name("conftable", tests, NULL, NULL);
}
