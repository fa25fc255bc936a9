/* Unit tests for the Ramulator trace parser: accepted spellings, every error message, files. */
#define _POSIX_C_SOURCE 200809L

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int parse(const char *text, struct trace *t, char *err, size_t errlen)
{
    return trace_parse("t.trace", text, strlen(text), t, err, errlen);
}

static void expect_error(const char *text, const char *message)
{
    struct trace t;
    char err[256] = "";
    assert_int_equal(parse(text, &t, err, sizeof(err)), -1);
    assert_string_equal(err, message);
    assert_null(t.addrs);
    assert_int_equal(t.count, 0);
}

static void test_accepted_spellings(void **state)
{
    (void)state;
    const char *text = "# a comment\n"
                       "0x1000 R\n"
                       "\n"
                       "0X2A40 w\n"
                       "   0xdeadBEEF80\tr  \r\n"
                       "4096 W\n" /* hexadecimal without 0x, as Ramulator reads it */
                       "\t# indented comment\n"
                       "0xffffffffffffffff R\n"
                       "ffffffffffffffff w\n"
                       "0x80    R"; /* no final newline */
    struct trace t;
    char err[256];
    assert_int_equal(parse(text, &t, err, sizeof(err)), 0);
    assert_int_equal(t.count, 7);
    assert_int_equal(t.nreads, 4);
    assert_int_equal(t.nwrites, 3);
    uint64_t want[] = {0x1000, 0x2a40, 0xdeadbeef80, 0x4096, UINT64_MAX, UINT64_MAX, 0x80};
    bool write[] = {false, true, false, true, false, true, false};
    for (size_t i = 0; i < t.count; i++) {
        assert_int_equal(t.addrs[i], want[i]);
        assert_int_equal(t.writes[i], write[i]);
    }
    trace_free(&t);
    assert_null(t.addrs);
    trace_free(&t); /* freeing an empty trace is harmless */
}

static void test_bad_lines(void **state)
{
    (void)state;
    expect_error("0x10 R\n0x20 R\n0x30 X\n", "t.trace:3: expected \"0xADDR R|W\", got \"0x30 X\"");
    expect_error("# header\n\nR 0x10\n", "t.trace:3: expected \"0xADDR R|W\", got \"R 0x10\"");
    expect_error("0x10\n", "t.trace:1: expected \"0xADDR R|W\", got \"0x10\"");
    expect_error("0x10R\n", "t.trace:1: expected \"0xADDR R|W\", got \"0x10R\"");
    expect_error("0x R\n", "t.trace:1: expected \"0xADDR R|W\", got \"0x R\"");
    expect_error("0x10 R extra\n", "t.trace:1: expected \"0xADDR R|W\", got \"0x10 R extra\"");
    expect_error("0x10 RW\n", "t.trace:1: expected \"0xADDR R|W\", got \"0x10 RW\"");
    expect_error("0x10 R\r\n0xg0 W\r\n", "t.trace:2: expected \"0xADDR R|W\", got \"0xg0 W\"");
    /* Addresses beyond 64 bits. */
    expect_error("0x10000000000000000 R\n",
                 "t.trace:1: expected \"0xADDR R|W\", got \"0x10000000000000000 R\"");
    expect_error("10000000000000000 R\n",
                 "t.trace:1: expected \"0xADDR R|W\", got \"10000000000000000 R\"");
    /* Long lines are cut, control characters shown as '?'. */
    expect_error("0x10 R\n0x1 R 0123456789012345678901234567890123456789012345678901234567\n",
                 "t.trace:2: expected \"0xADDR R|W\", got "
                 "\"0x1 R 012345678901234567890123456789012345678901...\"");
    expect_error("0x10\x01 R\n", "t.trace:1: expected \"0xADDR R|W\", got \"0x10? R\"");
}

static void test_empty_traces(void **state)
{
    (void)state;
    expect_error("", "t.trace: the trace holds no requests");
    expect_error("\n\n# only comments\n   \n", "t.trace: the trace holds no requests");
}

static void test_load_files(void **state)
{
    (void)state;
    char path[] = "/tmp/corun-test-trace-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "0x40 R\n0x80 W\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    struct trace t;
    char err[512];
    assert_int_equal(trace_load(path, &t, err, sizeof(err)), 0);
    assert_int_equal(t.count, 2);
    assert_int_equal(t.addrs[1], 0x80);
    assert_true(t.writes[1]);
    trace_free(&t);

    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs("0x40 R\nbad\n", f);
    fclose(f);
    assert_int_equal(trace_load(path, &t, err, sizeof(err)), -1);
    char want[512];
    snprintf(want, sizeof(want), "%s:2: expected \"0xADDR R|W\", got \"bad\"", path);
    assert_string_equal(err, want);
    unlink(path);

    assert_int_equal(trace_load(path, &t, err, sizeof(err)), -1);
    snprintf(want, sizeof(want), "%s: cannot open: No such file or directory", path);
    assert_string_equal(err, want);
    assert_int_equal(trace_load("/tmp", &t, err, sizeof(err)), -1);
    assert_string_equal(err, "/tmp: cannot read: Is a directory");
}

/* Issue 21, defect 4: /dev/zero was read without end and a FIFO blocked. */
static void test_not_regular_files(void **state)
{
    (void)state;
    struct trace t;
    char err[512];
    assert_int_equal(trace_load("/dev/zero", &t, err, sizeof(err)), -1);
    assert_string_equal(err, "/dev/zero: cannot read: not a regular file (expected a "
                             "Ramulator-format trace file)");
    char dir[] = "/tmp/corun-test-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(trace_load(fifo, &t, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "not a regular file"));
    unlink(fifo);
    rmdir(dir);
}

static void test_large_trace(void **state)
{
    (void)state;
    size_t n = 100000, len = 0;
    char *text = malloc(n * 24 + 1);
    assert_non_null(text);
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "0x%zx %c\n", i * 64, i % 3 ? 'R' : 'W');
    struct trace t;
    char err[256];
    assert_int_equal(trace_parse("big", text, len, &t, err, sizeof(err)), 0);
    assert_int_equal(t.count, n);
    assert_int_equal(t.nwrites, (n + 2) / 3);
    assert_int_equal(t.addrs[n - 1], (n - 1) * 64);
    trace_free(&t);
    free(text);
}

/* The length given bounds the parse, whatever follows it in memory: "0x1f R" cut after its
 * third byte is a line "0x1" without an operation, for hexadecimal and decimal addresses; and
 * an address that ends the buffer is read from it alone (a buffer of exactly its bytes, so that
 * the sanitizers' build sees a read past it). */
static void test_length_bounds_the_parse(void **state)
{
    (void)state;
    struct trace t;
    char err[256] = "";
    assert_int_equal(trace_parse("t.trace", "0x1f R\n", 7, &t, err, sizeof(err)), 0);
    assert_int_equal(t.count, 1);
    assert_true(t.addrs[0] == 0x1f);
    trace_free(&t);
    assert_int_equal(trace_parse("t.trace", "0x1f R\n", 3, &t, err, sizeof(err)), -1);
    assert_string_equal(err, "t.trace:1: expected \"0xADDR R|W\", got \"0x1\"");
    assert_int_equal(trace_parse("t.trace", "12 R\n", 1, &t, err, sizeof(err)), -1);
    assert_string_equal(err, "t.trace:1: expected \"0xADDR R|W\", got \"1\"");
    char *exact = malloc(3);
    assert_non_null(exact);
    memcpy(exact, "0x1", 3);
    assert_int_equal(trace_parse("t.trace", exact, 3, &t, err, sizeof(err)), -1);
    assert_string_equal(err, "t.trace:1: expected \"0xADDR R|W\", got \"0x1\"");
    free(exact);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_spellings),
        cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_empty_traces),
        cmocka_unit_test(test_load_files),
        cmocka_unit_test(test_large_trace),
        cmocka_unit_test(test_not_regular_files),
        cmocka_unit_test(test_length_bounds_the_parse),
    };
    return cmocka_run_group_tests_name("trace", tests, NULL, NULL);
}
