/* Unit tests: util and diag. */
#ifdef __linux__
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <sched.h>
#endif
#include <locale.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <unistd.h>

#include "corun/columns.h"
#include "corun/diag.h"
#include "corun/suggest.h"
#include "corun/util.h"
#include "corun/wrap.h"

static void edit_distance_counts_edits(void **state)
{
    (void)state;
    assert_int_equal(util_edit_distance("hbm80", "hbm80"), 0);
    assert_int_equal(util_edit_distance("hbm08", "hbm80"), 2);
    assert_int_equal(util_edit_distance("strem", "stream"), 1);
    assert_int_equal(util_edit_distance("", "abc"), 3);
    assert_int_equal(util_edit_distance("HBM80", "hbm80"), 0);
    assert_int_equal(util_edit_distance("hbm", "hbm80"), 2);      /* a tail left off: insertions */
    assert_int_equal(util_edit_distance("kitten", "sitting"), 3); /* two substitutions, one more */
}

static void suggest_finds_near_misses_only(void **state)
{
    (void)state;
    const char *names[] = {"gddr5_40", "hbm80", "smqos24", "themis60"};
    assert_string_equal(util_suggest("hbm08", names, 4), "hbm80");
    assert_string_equal(util_suggest("HBM80", names, 4), "hbm80");
    assert_string_equal(util_suggest("themis6", names, 4), "themis60");
    assert_null(util_suggest("hbm80", names, 4)); /* exact: nothing to suggest */
    assert_null(util_suggest("volta", names, 4)); /* too far from everything */
    assert_null(util_suggest("ab", names, 0));
    /* One edit in two letters is still near enough, two in four too; two for one letter not. */
    const char *lbm[] = {"lbm"};
    assert_string_equal(util_suggest("lb", lbm, 1), "lbm");
    assert_string_equal(util_suggest("lbxy", lbm, 1), "lbm");
    assert_null(util_suggest("l", lbm, 1));
    /* Two at distance 1: the one sharing the longer beginning, in either order. */
    const char *lb[] = {"lbbm", "lbm"}, *bl[] = {"lbm", "lbbm"};
    assert_string_equal(util_suggest("lbmm", lb, 2), "lbm");
    assert_string_equal(util_suggest("lbmm", bl, 2), "lbm");
    /* Too far for a typo, but the beginning of one name only: that name ("hsm" suggested
     * nothing though hsm-fair exists); of two, or of one letter, nothing. */
    const char *lessons[] = {"evicted", "hsm-fair", "rbh-shift", "rbh-shift-dram"};
    assert_string_equal(util_suggest("hsm", lessons, 4), "hsm-fair");
    assert_string_equal(util_suggest("HSM-f", lessons, 4), "hsm-fair");
    assert_string_equal(util_suggest("evic", lessons, 4), "evicted");
    assert_null(util_suggest("rbh", lessons, 4));
    assert_null(util_suggest("e", lessons, 4));
}

/* A word that begins several names suggested none of them ("corun lesson ev" for even-split
 * and evicted): suggest_names offers them all, a few spelled out, and otherwise what
 * util_suggest offers. */
static void suggest_names_lists_every_beginning(void **state)
{
    (void)state;
    const char *lessons[] = {"even-split", "evicted", "hsm-fair", "rbh-shift", "rbh-shift-dram"};
    char *s = suggest_names("ev", lessons, 5, "", "");
    assert_non_null(s);
    assert_string_equal(s, "evicted or even-split"); /* the closer (shorter) first */
    free(s);
    s = suggest_names("RBH", lessons, 5, "'", "'");
    assert_non_null(s);
    assert_string_equal(s, "'rbh-shift' or 'rbh-shift-dram'");
    free(s);
    s = suggest_names("hsm", lessons, 5, "--", ""); /* one beginning: util_suggest's name */
    assert_non_null(s);
    assert_string_equal(s, "--hsm-fair");
    free(s);
    s = suggest_names("evicte", lessons, 5, "", ".cfg"); /* a near miss */
    assert_non_null(s);
    assert_string_equal(s, "evicted.cfg");
    free(s);
    assert_null(suggest_names("e", lessons, 5, "", ""));
    assert_null(suggest_names("volta", lessons, 5, "", ""));
    assert_null(suggest_names("ev", lessons, 0, "", ""));

    const char *demos[] = {"demo-a", "demo-b", "demo-a", "demo-c", "demo-d", "demo-e", "default"};
    s = suggest_names("demo", demos, 4, "", ""); /* demo-a found twice is offered once */
    assert_non_null(s);
    assert_string_equal(s, "demo-a, demo-b or demo-c");
    free(s);
    s = suggest_names("demo-", demos, 7, "", "");
    assert_non_null(s);
    assert_string_equal(s, "demo-a, demo-b, demo-c or 2 more");
    free(s);
    const char *settings[] = {"epoch_cycles", "epochs", "seed", "set"};
    s = suggest_names("epoch", settings, 4, "", ""); /* a letter short of one: that one */
    assert_non_null(s);
    assert_string_equal(s, "epochs");
    free(s);
    s = suggest_names("epo", settings, 4, "", "");
    assert_non_null(s);
    assert_string_equal(s, "epochs or epoch_cycles");
    free(s);
    s = suggest_names("se", settings, 4, "--", ""); /* a letter short of set, two of seed */
    assert_non_null(s);
    assert_string_equal(s, "--set or --seed");
    free(s);
    const char *hbm[] = {"hbm80", "hbm800"};
    s = suggest_names("HBM80", hbm, 2, "", ""); /* miscased, not a beginning */
    assert_non_null(s);
    assert_string_equal(s, "hbm80");
    free(s);
}

static void asprintf_formats(void **state)
{
    (void)state;
    char *s = xasprintf("%s:%d: %s", "f.cfg", 12, "epochs");
    assert_string_equal(s, "f.cfg:12: epochs");
    free(s);
    s = xasprintf("%s", ""); /* nothing to print is no failure */
    assert_string_equal(s, "");
    free(s);
    assert_true(util_ends_with("a.cfg", ".cfg"));
    assert_false(util_ends_with("cfg", ".cfg"));
}

static void diag_keeps_every_message(void **state)
{
    (void)state;
    struct diag d;
    diag_init(&d);
    for (int i = 0; i < 20; i++)
        diag_add(&d, "message %d", i);
    assert_int_equal(d.count, 20);
    assert_string_equal(d.msgs[0], "message 0");
    assert_string_equal(d.msgs[19], "message 19");
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    diag_print(&d, f); /* every message, the first too, one to a line */
    fclose(f);
    assert_int_equal(strncmp(out, "message 0\nmessage 1\n", 20), 0);
    assert_non_null(strstr(out, "\nmessage 19\n"));
    assert_int_equal(out[len - 1], '\n');
    assert_null(strstr(out, "(null)"));
    free(out);
    /* joined: a line each, no newline after the last, cut at the buffer's size */
    char buf[32];
    assert_string_equal(diag_join(&d, buf, sizeof buf), "message 0\nmessage 1\nmessage 2\nm");
    diag_done(&d);
    assert_int_equal(d.count, 0);
    assert_string_equal(diag_join(&d, buf, sizeof buf), "");
}

/* The catalog stores run files by absolute path (issue 21, defect 13). */
static void absolute_paths(void **state)
{
    (void)state;
    char cwd[4096], want[4200];
    assert_non_null(getcwd(cwd, sizeof cwd));
    char *p = util_absolute_path("/a/b.h5");
    assert_string_equal(p, "/a/b.h5");
    free(p);
    p = util_absolute_path("./r.h5");
    snprintf(want, sizeof want, "%s/r.h5", cwd);
    assert_string_equal(p, want);
    free(p);
    p = util_absolute_path("d/r.h5");
    snprintf(want, sizeof want, "%s/d/r.h5", cwd);
    assert_string_equal(p, want);
    free(p);
}

/* FNV-1a: the published 64-bit values for "" and "a", and a field folded in byte by byte. */
static void hash_is_fnv1a(void **state)
{
    (void)state;
    uint64_t h = UTIL_HASH_START;
    assert_true(h == 0xcbf29ce484222325ull);
    util_hash_bytes(&h, "a", 1);
    assert_true(h == 0xaf63dc4c8601ec8cull);
    uint64_t x = UTIL_HASH_START, y = UTIL_HASH_START;
    util_hash_u64(&x, 7);
    const uint64_t seven = 7;
    util_hash_bytes(&y, &seven, sizeof seven);
    assert_true(x == y && x != UTIL_HASH_START);
    double d = 0.5;
    util_hash_double(&x, d);
    util_hash_bytes(&y, &d, sizeof d);
    assert_true(x == y);
}

/* The CPUs available follow the process's affinity mask (a Slurm task or taskset), not the
 * CPUs online. */
static void cpus_follow_the_affinity(void **state)
{
    (void)state;
    unsigned all = util_cpus_available();
    assert_true(all >= 1);
#ifdef __linux__
    cpu_set_t set, one;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    assert_int_equal((unsigned)CPU_COUNT(&set), all);
    int first = 0;
    while (!CPU_ISSET(first, &set))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    assert_int_equal(util_cpus_available(), 1);
    assert_int_equal(sched_setaffinity(0, sizeof set, &set), 0);
    assert_int_equal(util_cpus_available(), all);
#endif
}

/* util_fputs_wrapped, through util_wrapped, which writes it to a string. */
static void wrap_leaves_what_fits(void **state)
{
    (void)state;
    const char *text = "usage: corun x A [--b C]\n\nsome prose\n  --opt N   what it does\n"
                       "                         an odd indent\nno newline at the end";
    char *out = util_wrapped(text, 40, true);
    assert_string_equal(out, text);
    free(out);
}

static void wrap_refills_a_paragraph(void **state)
{
    (void)state;
    char *out =
        util_wrapped("one two three four\nfive six seven eight nine ten\n\nnext\n", 20, true);
    assert_string_equal(out, "one two three four\nfive six seven eight\nnine ten\n\nnext\n");
    free(out);
    /* The block is the whole paragraph, its short last line refilled with the rest; a line
     * exactly as wide as the room is left as written, blanks and all. */
    out = util_wrapped("one two three four five six seven\neight\n", 20, true);
    assert_string_equal(out, "one two three four\nfive six seven eight\n");
    free(out);
    out = util_wrapped("ab  cd\n", 6, true);
    assert_string_equal(out, "ab  cd\n");
    free(out);
}

/* A table row hangs at its description; its separate range line stays apart without
 * refilling; a usage line hangs after the command's name and keeps an option's brackets
 * together; a word wider than a line stays whole. */
static void wrap_hangs_rows_and_usage(void **state)
{
    (void)state;
    char *out = util_wrapped("  --set K=V  change a setting of the\n             scenario file\n",
                             30, true);
    assert_string_equal(out, "  --set K=V  change a setting\n             of the scenario\n"
                             "             file\n");
    free(out);
    /* A term wider than the term column: the row goes on at the column its continuation
     * lines are written at, not under its own description. */
    out = util_wrapped("  --long-term X  one two three four five six\n"
                       "          seven eight\n  -a        nine\n",
                       40, true);
    assert_string_equal(out, "  --long-term X  one two three four five\n"
                             "          six seven eight\n  -a        nine\n");
    free(out);
    out = util_wrapped("  sms   streaming multiprocessors\n        an integer\n", 24, false);
    assert_string_equal(out, "  sms   streaming\n        multiprocessors\n        an integer\n");
    free(out);
    out = util_wrapped("usage: corun run S [--out RUN.h5] [--seed S]\n", 40, true);
    assert_string_equal(out, "usage: corun run S [--out RUN.h5]\n                 [--seed S]\n");
    free(out);
    /* A group exactly as wide as the room after the hang (25 of 40 - 15) stays whole; a
     * one-letter command's usage hangs after it. */
    out = util_wrapped("usage: corun r X [--ab CDEFGHIJKLMNOPQRST]\n", 40, true);
    assert_string_equal(out, "usage: corun r X\n               [--ab CDEFGHIJKLMNOPQRST]\n");
    free(out);
    out = util_wrapped("a supercalifragilistic b\n", 10, true);
    assert_string_equal(out, "a\nsupercalifragilistic\nb\n");
    free(out);
    /* From a column the cursor is at: the words filled beside it. */
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_non_null(f);
    fputs("  run  ", f);
    util_fputs_filled("run a scenario headless and record it", 7, 24, f);
    fclose(f);
    assert_string_equal(out, "  run  run a scenario\n       headless and\n       record it\n");
    free(out);
}

/* The words of s (blank- and newline-separated), joined by single blanks. */
static void words_of(const char *s, char *out, size_t n)
{
    size_t w = 0;
    for (const char *c = s; *c && w + 2 < n; c++) {
        bool blank = *c == ' ' || *c == '\n';
        if (!blank)
            out[w++] = *c;
        else if (w && out[w - 1] != ' ')
            out[w++] = ' ';
    }
    if (w && out[w - 1] == ' ')
        w--;
    out[w] = '\0';
}

/* Random texts (words, brackets, runs of blanks, blank lines) at random widths: the words come
 * out in order, none lost or split; prose (no indentation, single blanks) has no line wider
 * than the width but for a word (or a bracketed group) that is wider on its own. */
static void wrap_keeps_every_word(void **state)
{
    (void)state;
    uint64_t x = 12345;
    for (int round = 0; round < 400; round++) {
        char text[400], want[400], got[400];
        bool prose = round % 2;
        size_t n = 0;
        int len = 20 + (int)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 58) * 6;
        for (int i = 0; i < len && n + 8 < sizeof text; i++) {
            x = x * 6364136223846793005ull + 1442695040888963407ull;
            unsigned r = (unsigned)(x >> 59);
            if (r < 3 && n && text[n - 1] != ' ' && text[n - 1] != '\n')
                text[n++] = r == 0 && !prose ? '\n' : ' ';
            else if (r == 3 && !prose)
                n += (size_t)snprintf(text + n, sizeof text - n, "   ");
            else if (r == 4)
                n += (size_t)snprintf(text + n, sizeof text - n, "[--o N]");
            else
                text[n++] = (char)('a' + r % 7);
        }
        text[n] = '\0';
        int width = 10 + (int)(x >> 60) * 3;
        char *out = util_wrapped(text, width, round % 3 != 0);
        words_of(text, want, sizeof want);
        words_of(out, got, sizeof got);
        assert_string_equal(got, want);
        if (prose)
            for (char *line = out; *line;) {
                size_t l = strcspn(line, "\n");
                char one[400];
                snprintf(one, sizeof one, "%.*s", (int)l, line);
                bool single = !strchr(one, ' ') || (one[0] == '[' && one[l - 1] == ']');
                if ((int)l > width && !single)
                    fail_msg("width %d: \"%s\" from \"%s\"", width, one, text);
                line += l + (line[l] == '\n');
            }
        free(out);
    }
}

/* Tables pad a name the user gave by the columns it takes, not its bytes: 日本語 is nine bytes
 * and six columns, so "%-12s" left it three columns short and the columns after it out of line. */
static void columns_count_glyphs_not_bytes(void **state)
{
    (void)state;
    assert_int_equal(util_columns("stream"), 6);
    assert_int_equal(util_pad_width("stream", 12), 12);
    assert_int_equal(util_pad_width("a_kernel_named_long", 12), 0); /* not cut, no padding */
    if (!setlocale(LC_CTYPE, "C.UTF-8"))
        skip();
    const char *wide = "\u65e5\u672c\u8a9e", *accents = "\u00fcn\u00efc\u00f6d\u00e9";
    assert_int_equal(util_columns(wide), 6);
    assert_int_equal(util_columns(accents), 7);
    assert_int_equal(util_columns("e\u0301"), 1);   /* a combining accent takes no column */
    assert_int_equal(util_pad_width(wide, 12), 15); /* 9 bytes + 6 spaces */
    assert_int_equal(util_pad_width(accents, 12), 16);
    char row[64];
    snprintf(row, sizeof row, "%-*s|", util_pad_width(wide, 12), wide);
    assert_int_equal(util_columns(row), 13);
    int cols;
    assert_int_equal(util_glyph(wide, &cols), 3);
    assert_int_equal(cols, 2);
    /* A byte that starts no character: one column, with its continuation bytes. */
    assert_int_equal(util_glyph("\xff\x80\x80x", &cols), 3);
    assert_int_equal(cols, 1);
    assert_int_equal(util_columns("\xe6\x97"), 1); /* a glyph cut at the end of the text */
    setlocale(LC_CTYPE, "C");
}

/* A cut at a byte count drops the character it split, and only that. */
static void utf8_whole_drops_a_split_character(void **state)
{
    (void)state;
    const char *cases[][2] = {
        {"mrigr 7\xe2", "mrigr 7"},                     /* "→" cut after its first byte */
        {"mrigr 7\xe2\x86", "mrigr 7"},                 /* and after its second */
        {"mrigr 7\xe2\x86\x92", "mrigr 7\xe2\x86\x92"}, /* whole: kept */
        {"caf\xc3", "caf"},                             /* é, two bytes, cut */
        {"caf\xc3\xa9", "caf\xc3\xa9"},
        {"x\xf0\x9f\x98", "x"}, /* a four-byte glyph cut at three */
        {"x\xf0\x9f\x98\x80", "x\xf0\x9f\x98\x80"},
        {"plain", "plain"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%s", cases[i][0]);
        util_utf8_whole(buf);
        assert_string_equal(buf, cases[i][1]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(edit_distance_counts_edits),
        cmocka_unit_test(suggest_finds_near_misses_only),
        cmocka_unit_test(suggest_names_lists_every_beginning),
        cmocka_unit_test(asprintf_formats),
        cmocka_unit_test(diag_keeps_every_message),
        cmocka_unit_test(absolute_paths),
        cmocka_unit_test(hash_is_fnv1a),
        cmocka_unit_test(cpus_follow_the_affinity),
        cmocka_unit_test(wrap_leaves_what_fits),
        cmocka_unit_test(wrap_refills_a_paragraph),
        cmocka_unit_test(wrap_hangs_rows_and_usage),
        cmocka_unit_test(wrap_keeps_every_word),
        cmocka_unit_test(columns_count_glyphs_not_bytes),
        cmocka_unit_test(utf8_whole_drops_a_split_character),
    };
    return cmocka_run_group_tests_name("util", tests, NULL, NULL);
}
