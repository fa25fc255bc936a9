/* Unit tests: sweep — the --combos parser (pairs, names checked, the limit, malformed pairs)
 * and the catalog's mix key (names, split, a key that does not fit). The sweep itself runs in
 * tests/e2e/sweep.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "corun/sweep.h"

static int parse(struct sweep_options *o, const char *text, char *err, size_t len)
{
    memset(o, 0, sizeof(*o));
    err[0] = '\0';
    return sweep_parse_combos(o, text, err, len);
}

static void test_combos_parsed(void **state)
{
    (void)state;
    struct sweep_options o;
    char err[512];
    assert_int_equal(parse(&o, "none:static,hsm:fair,dase:even", err, sizeof err), 0);
    assert_int_equal(o.ncombos, 3);
    assert_string_equal(o.combos[0].predictor, "none");
    assert_string_equal(o.combos[0].allocator, "static");
    assert_string_equal(o.combos[1].predictor, "hsm");
    assert_string_equal(o.combos[1].allocator, "fair");
    assert_string_equal(o.combos[2].predictor, "dase");
    assert_string_equal(o.combos[2].allocator, "even");
    /* a second parse replaces the first's pairs */
    assert_int_equal(sweep_parse_combos(&o, "asm:static", err, sizeof err), 0);
    assert_int_equal(o.ncombos, 1);
    assert_string_equal(o.combos[0].predictor, "asm");
}

static void test_combos_refused(void **state)
{
    (void)state;
    struct sweep_options o;
    char err[512];
    /* a pair without its colon is refused, not split past the end of the name */
    assert_int_equal(parse(&o, "none:static,hsm", err, sizeof err), -1);
    assert_non_null(strstr(err, "expected up to 16 PREDICTOR:ALLOCATOR pairs"));
    assert_non_null(strstr(err, "got \"hsm\""));
    assert_int_equal(parse(&o, "hsn:static", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown predictor \"hsn\""));
    assert_non_null(strstr(err, "did you mean hsm?"));
    assert_int_equal(parse(&o, "hsm:evne", err, sizeof err), -1);
    assert_non_null(strstr(err, "unknown allocator \"evne\" (did you mean even?)"));
    assert_int_equal(parse(&o, ",", err, sizeof err), -1);
    assert_string_equal(err, "--combos: expected at least one PREDICTOR:ALLOCATOR pair");
    /* an empty pair was passed over unsaid */
    static const char *const empty[] = {"hsm:static,", ",hsm:static", "hsm:static,,none:even"};
    for (size_t i = 0; i < sizeof empty / sizeof empty[0]; i++) {
        assert_int_equal(parse(&o, empty[i], err, sizeof err), -1);
        assert_non_null(strstr(err, "--combos: an empty pair in \""));
        assert_non_null(strstr(err, "separated by single commas"));
    }
    /* a pair given twice was counted twice and run once */
    assert_int_equal(parse(&o, "none:static,hsm:fair,none:static", err, sizeof err), -1);
    assert_string_equal(err, "--combos: none:static is given twice; expected each pair once");
}

/* Sixteen pairs are taken; a seventeenth is refused with the limit named. */
static void test_combos_limit(void **state)
{
    (void)state;
    /* sixteen pairs, each once (a pair given twice is refused) */
    static const char *const preds[] = {"none", "oracle", "hsm", "dase"};
    static const char *const allocs[] = {"static", "even", "proportional", "fair"};
    char text[512] = "";
    for (int i = 0; i < SWEEP_MAX_COMBOS; i++) {
        if (i)
            strcat(text, ",");
        strcat(text, preds[i / 4]);
        strcat(text, ":");
        strcat(text, allocs[i % 4]);
    }
    struct sweep_options o;
    char err[512];
    assert_int_equal(parse(&o, text, err, sizeof err), 0);
    assert_int_equal(o.ncombos, SWEEP_MAX_COMBOS);
    strcat(text, ",asm:even");
    assert_int_equal(parse(&o, text, err, sizeof err), -1);
    assert_non_null(strstr(err, "up to 16"));
    assert_non_null(strstr(err, "got \"asm:even\""));
}

static void test_mix_key(void **state)
{
    (void)state;
    const char *k[] = {"lbm", "bino", "pf"};
    unsigned even[] = {0, 0, 0}, split[] = {10, 50, 20};
    char key[64];
    sweep_mix_key(k, even, 2, key, sizeof key);
    assert_string_equal(key, "lbm+bino");
    sweep_mix_key(k, split, 3, key, sizeof key);
    assert_string_equal(key, "lbm+bino+pf@10:50:20");
    sweep_mix_key(k, split, 0, key, sizeof key);
    assert_string_equal(key, "");
    /* a key longer than the buffer is cut, terminated, and nothing is written past it */
    char small[12];
    memset(small, 'x', sizeof small);
    sweep_mix_key(k, split, 3, small, 10);
    assert_string_equal(small, "lbm+bino+");
    assert_int_equal(small[10], 'x');
    assert_int_equal(small[11], 'x');
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_combos_parsed),
        cmocka_unit_test(test_combos_refused),
        cmocka_unit_test(test_combos_limit),
        cmocka_unit_test(test_mix_key),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
