/* tui_chart: the x axis spans the given points over the width, coinciding points stand side by
 * side or show as TUI_CHART_SEVERAL, and values that are negative, NaN or infinite (and a y_max
 * that is not finite) draw nothing and end; the top row has a label when no round one falls
 * there; round labels at least two rows apart; a value above the scale on the top row; more
 * points than columns drawn over each other. Drawn into a pad of a terminal on /dev/null. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>
#include <locale.h>
#include <math.h>
#include <string.h>

#include "../../src/tui/tui_internal.h"

static SCREEN *screen;
static FILE *out, *in;
static struct tui_style style;

static int setup(void **state)
{
    (void)state;
    out = fopen("/dev/null", "w");
    in = fopen("/dev/null", "r");
    screen = newterm("vt100", out, in);
    if (!screen)
        return -1;
    memset(&style, 0, sizeof style); /* monochrome ASCII, as on a vt100 */
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    endwin();
    delscreen(screen);
    fclose(out);
    fclose(in);
    return 0;
}

/* The character at (y, x) of w. */
static char at(WINDOW *w, int y, int x)
{
    return (char)(mvwinch(w, y, x) & A_CHARTEXT);
}

/* Where glyph g is in row y: its first column, or -1. */
static int find(WINDOW *w, int y, char g)
{
    for (int x = 0; x < getmaxx(w); x++)
        if (at(w, y, x) == g)
            return x;
    return -1;
}

static void test_span_and_coincide(void **state)
{
    (void)state;
    WINDOW *w = newpad(6, TUI_CHART_LABEL_COLS + 40);
    /* Two points of 10: each has a slot of 4 columns; A and B coincide at point 0. */
    double a[2] = {0.5, 1.0}, b[2] = {0.5, 0.0};
    struct tui_series s[2] = {{a, 'A', 0}, {b, 'B', 0}};
    assert_false(tui_chart(&style, w, 5, s, 2, 2, 10, 1.0));
    assert_int_equal(at(w, 2, TUI_CHART_LABEL_COLS), 'A'); /* 0.5 is the middle row of 5 */
    assert_int_equal(at(w, 2, TUI_CHART_LABEL_COLS + 1), 'B');
    assert_int_equal(at(w, 0, TUI_CHART_LABEL_COLS + 4), 'A'); /* point 1's slot */
    assert_int_equal(at(w, 4, TUI_CHART_LABEL_COLS + 4), 'B');
    assert_int_equal(find(w, 5, 'A'), -1); /* the rows below the chart are left alone */
    delwin(w);

    /* 40 points on 40 columns: one column each, so coinciding points show as several. */
    w = newpad(6, TUI_CHART_LABEL_COLS + 40);
    double c[40], d[40];
    for (int i = 0; i < 40; i++)
        c[i] = d[i] = 0.25;
    s[0].values = c;
    s[1].values = d;
    assert_true(tui_chart(&style, w, 5, s, 2, 40, 40, 1.0));
    assert_int_equal(at(w, 3, TUI_CHART_LABEL_COLS + 39), TUI_CHART_SEVERAL);
    assert_int_equal(find(w, 3, 'B'), -1);
    delwin(w);
}

static void test_non_finite(void **state)
{
    (void)state;
    WINDOW *w = newpad(6, TUI_CHART_LABEL_COLS + 20);
    double v[5] = {NAN, INFINITY, -INFINITY, -1, 0.75};
    struct tui_series s = {v, 'A', 0};
    assert_false(tui_chart(&style, w, 6, &s, 1, 5, 5, 1.0));
    /* Only the finite, non-negative point is drawn, in the last point's slot. */
    int drawn = 0;
    for (int y = 0; y < 6; y++)
        for (int x = TUI_CHART_LABEL_COLS; x < getmaxx(w); x++)
            drawn += at(w, y, x) == 'A';
    assert_int_equal(drawn, 1);
    assert_int_equal(at(w, 1, TUI_CHART_LABEL_COLS + 16), 'A');
    /* A y_max that is not finite, zero or negative draws nothing and returns. */
    const double bad[] = {INFINITY, NAN, 0, -1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        werase(w);
        assert_false(tui_chart(&style, w, 6, &s, 1, 5, 5, bad[i]));
        assert_int_equal(find(w, 0, '|'), -1);
    }
    /* A huge y_max still ends, its labels on at most every row. */
    werase(w);
    tui_chart(&style, w, 6, &s, 1, 5, 5, 1e300);
    delwin(w);
}

/* The text of row y of w from column 0, TUI_CHART_LABEL_COLS wide (a label and the axis). */
static const char *label_at(WINDOW *w, int y)
{
    static char buf[TUI_CHART_LABEL_COLS + 1];
    mvwinnstr(w, y, 0, buf, TUI_CHART_LABEL_COLS);
    return buf;
}

static void test_top_label(void **state)
{
    (void)state;
    /* Six rows up to 1.5 have round labels at 1.00 and 0.00 only: the top row says 1.50. */
    WINDOW *w = newpad(6, TUI_CHART_LABEL_COLS + 10);
    double v[1] = {1.3};
    struct tui_series s = {v, 'A', 0};
    tui_chart(&style, w, 6, &s, 1, 1, 1, 1.5);
    assert_string_equal(label_at(w, 0), "1.50|");
    assert_string_equal(label_at(w, 2), "1.00|");
    assert_string_equal(label_at(w, 5), "0.00|");
    /* Up to 1.0 the round label is the top one. */
    werase(w);
    tui_chart(&style, w, 6, &s, 1, 1, 1, 1.0);
    assert_string_equal(label_at(w, 0), "1.00|");
    delwin(w);
}

/* The labels of rows 0..rows-1 joined by '/', blanks trimmed ("1.00|/|/0.50|/|/0.00|"). */
static const char *labels(WINDOW *w, int rows)
{
    static char buf[256];
    buf[0] = '\0';
    for (int y = 0; y < rows; y++) {
        const char *l = label_at(w, y);
        while (*l == ' ')
            l++;
        strcat(buf, l);
        if (y < rows - 1)
            strcat(buf, "/");
    }
    return buf;
}

/* Round labels at least two rows apart: steps of 0.25 doubled until they are. */
static void test_axis_labels(void **state)
{
    (void)state;
    WINDOW *w = newpad(12, TUI_CHART_LABEL_COLS + 10);
    double v[1] = {0.1};
    struct tui_series s = {v, 'A', 0};
    struct {
        int rows;
        double y_max;
        const char *want;
    } cases[] = {
        /* 10 rows of 0.1: 0.25 is 2.5 rows, so every quarter (7.5 and 2.5 round up) */
        {11, 1.0, "1.00|/|/|/0.75|/|/0.50|/|/|/0.25|/|/0.00|"},
        /* 4 rows: a quarter is 1 row, a half 2 */
        {5, 1.0, "1.00|/|/0.50|/|/0.00|"},
        {5, 2.0, "2.00|/|/1.00|/|/0.00|"},
        /* two rows: the bottom and the top */
        {2, 1.0, "1.00|/0.00|"},
        /* to 1.05 a half is 1.9 rows, so whole units; 1.00 rounds to the top row and is its
         * label */
        {5, 1.05, "1.00|/|/|/|/0.00|"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        werase(w);
        tui_chart(&style, w, cases[i].rows, &s, 1, 1, 1, cases[i].y_max);
        const char *got = labels(w, cases[i].rows);
        if (strcmp(got, cases[i].want) != 0)
            fail_msg("%d rows to %g: \"%s\", expected \"%s\"", cases[i].rows, cases[i].y_max, got,
                     cases[i].want);
    }
    delwin(w);
}

/* A value above the scale is drawn on the top row; one point per column drawn over an earlier
 * point's cell when there are more points than columns (not shown as several). */
static void test_above_and_crowded(void **state)
{
    (void)state;
    WINDOW *w = newpad(6, TUI_CHART_LABEL_COLS + 40);
    double v[2] = {2.0, 0.5};
    struct tui_series s = {v, 'A', 0};
    assert_false(tui_chart(&style, w, 5, &s, 1, 2, 2, 1.0));
    assert_int_equal(at(w, 0, TUI_CHART_LABEL_COLS), 'A');
    assert_int_equal(at(w, 2, TUI_CHART_LABEL_COLS + 20), 'A');
    delwin(w);

    w = newpad(6, TUI_CHART_LABEL_COLS + 40);
    double c[80];
    for (int i = 0; i < 80; i++)
        c[i] = 0.5;
    s.values = c;
    assert_false(tui_chart(&style, w, 5, &s, 1, 80, 80, 1.0));
    for (int x = TUI_CHART_LABEL_COLS; x < TUI_CHART_LABEL_COLS + 40; x++)
        assert_int_equal(at(w, 2, x), 'A');
    delwin(w);
}

/* A name the user gave may hold wide glyphs (two columns each) and accents: counted one column
 * each, a log line wrapped past its edge and lost a letter, a path was cut before its end. */
static void test_wide_glyphs(void **state)
{
    (void)state;
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        skip();
    assert_int_equal(tui_columns("\u00fcn\u00ef \u65e5\u672c.h5"), 11);
    /* 日本日本日本 (12 columns) in rows of 5: two wide glyphs a row, so three rows. */
    assert_int_equal(tui_wrap(NULL, 0, 0, "\u65e5\u672c\u65e5\u672c\u65e5\u672c", 5), 3);
    /* "ab 日本" is 7 columns: "ab", "日本", "cd" (it fitted 6 counted one a glyph) */
    assert_int_equal(tui_wrap(NULL, 0, 0, "ab \u65e5\u672c cd", 6), 3);
    WINDOW *w = newpad(1, 5);
    assert_int_equal(tui_print(w, 0, 0, "\u65e5\u672c\u65e5"), 4); /* the third would cross */
    delwin(w);
    setlocale(LC_CTYPE, "C");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_and_coincide), cmocka_unit_test(test_non_finite),
        cmocka_unit_test(test_top_label),         cmocka_unit_test(test_axis_labels),
        cmocka_unit_test(test_above_and_crowded), cmocka_unit_test(test_wide_glyphs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
