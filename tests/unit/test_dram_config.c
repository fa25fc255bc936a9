/* Unit tests: what follows from a DRAM configuration alone (dram_config.c) — its checks, its
 * peak bandwidth, and the address mapping, linear and hashed, with its inverse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/dram.h"
#include "dram_fixtures.h"
#include "testutil.h"

#include <stdbool.h>
#include <string.h>

static void test_peak_and_check(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    char err[200];
    assert_true(dram_config_peak_gbs(&c) > 901.1 && dram_config_peak_gbs(&c) < 901.2);
    assert_int_equal(dram_config_check(&c, err, sizeof(err)), 0);
    c.request_bytes = 96;
    assert_int_equal(dram_config_check(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "dram row_bytes (2048) is not a multiple of request_bytes (96)");
    c = hbm80();
    c.channels = 0;
    assert_int_equal(dram_config_check(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "dram channels is 0; expected 1 to 4096");
    c = hbm80();
    c.t.refi = 100;
    assert_int_equal(dram_config_check(&c, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "tREFI (100) must exceed tRFC (115)"));
}

static void test_map_linear_fields(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    c.mapping = DRAM_MAP_LINEAR;
    struct dram_location loc;
    /* offset 7 bits, channel 5, column 4, bank group 2, bank 2, then row */
    uint64_t addr = 0x55ull | 17ull << 7 | 9ull << 12 | 2ull << 16 | 3ull << 18 | 1234ull << 20;
    dram_map(&c, addr, &loc);
    assert_int_equal(loc.channel, 17);
    assert_int_equal(loc.column, 9);
    assert_int_equal(loc.bank_group, 2);
    assert_int_equal(loc.bank, 3);
    assert_int_equal(loc.row, 1234);
    assert_int_equal(dram_address(&c, &loc), addr & ~0x7full);
}

static void check_roundtrip(struct dram_config c)
{
    struct dram *d = dram_new(&c, 1, NULL, NULL);
    dram_set_checking(d, true);
    uint64_t x = 99;
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t addr = (x >> 20) / c.request_bytes * c.request_bytes;
        struct dram_location loc;
        dram_map(&c, addr, &loc);
        assert_true(loc.channel < c.channels && loc.bank_group < c.bank_groups);
        assert_true(loc.bank < c.banks_per_group && loc.column < c.row_bytes / c.request_bytes);
        assert_int_equal(dram_address(&c, &loc), addr);
        assert_int_equal(dram_channel_of(d, addr), loc.channel);
    }
    dram_delete(d);
}

static void test_map_roundtrip(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    check_roundtrip(c);
    c.mapping = DRAM_MAP_LINEAR;
    check_roundtrip(c);
    c.channels = 11; /* the GDDR5 preset */
    check_roundtrip(c);
    c.mapping = DRAM_MAP_HASHED;
    check_roundtrip(c);
    c.channels = 6;
    c.bank_groups = 3;
    c.request_bytes = 64;
    check_roundtrip(c);
}

static void test_hashed_spreads_row_strides(void **state)
{
    (void)state;
    struct dram_config c = hbm80();
    /* Same linear channel, bank group and bank, consecutive rows: linear mapping sends all of
     * them to one bank; hashing must spread them over channels and banks. */
    for (int hashed = 0; hashed < 2; hashed++) {
        c.mapping = hashed ? DRAM_MAP_HASHED : DRAM_MAP_LINEAR;
        bool chan[32] = {0}, bank[16] = {0};
        unsigned nchan = 0, nbank = 0;
        for (uint64_t row = 0; row < 64; row++) {
            struct dram_location loc;
            dram_map(&c, row << 20, &loc);
            unsigned b = loc.bank_group * 4 + loc.bank;
            nchan += !chan[loc.channel];
            nbank += !bank[b];
            chan[loc.channel] = bank[b] = true;
        }
        if (hashed) {
            assert_int_equal(nchan, 32);
            assert_int_equal(nbank, 16);
        } else {
            assert_int_equal(nchan, 1);
            assert_int_equal(nbank, 1);
        }
    }
}

/* The edges of the checks: the smallest DRAM there can be (one channel of one bank, a row of
 * one request, a queue of one) is accepted and maps every address back to itself; a clock of
 * 0 MHz is refused, and so are more banks than a channel can hold in all (8 groups of 16, each
 * count within its own bound). Two channels under the hashed mapping use both. */
static void test_check_and_map_edges(void **state)
{
    (void)state;
    char err[200];
    struct dram_config c = hbm80();
    c.channels = c.bank_groups = c.banks_per_group = c.queue_entries = 1;
    c.row_bytes = c.request_bytes;
    assert_int_equal(dram_config_check(&c, err, sizeof(err)), 0);
    check_roundtrip(c);
    c.mapping = DRAM_MAP_LINEAR;
    check_roundtrip(c);
    c = hbm80();
    c.clock_mhz = 0;
    assert_int_equal(dram_config_check(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "dram clock_mhz is 0; expected more than 0");
    c = hbm80();
    c.bank_groups = 8;
    c.banks_per_group = 16;
    assert_int_equal(dram_config_check(&c, err, sizeof(err)), -1);
    assert_string_equal(err, "dram bank_groups * banks_per_group is 128; expected at most 64");
    c = hbm80();
    c.channels = 2;
    c.mapping = DRAM_MAP_HASHED;
    check_roundtrip(c);
    unsigned seen[2] = {0};
    for (uint64_t a = 0; a < 64; a++) {
        struct dram_location loc;
        dram_map(&c, a << 20, &loc);
        seen[loc.channel]++;
    }
    assert_true(seen[0] > 0 && seen[1] > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_peak_and_check),
        cmocka_unit_test(test_map_linear_fields),
        cmocka_unit_test(test_map_roundtrip),
        cmocka_unit_test(test_hashed_spreads_row_strides),
        cmocka_unit_test(test_check_and_map_edges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
