/* Unit tests: the crossbar's port timing, with every cycle worked out by hand — flits of a
 * power-of-two and of another port width, a request's two ports, a slice port shared by two
 * SMs, a reply behind another on both of its ports, and ports that are each other's only by
 * name (an SM's request and reply ports, a slice's input and output). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "corun/noc.h"

static void flits_round_up_and_are_never_zero(void **state)
{
    (void)state;
    struct noc *n = noc_new(2, 2, 32, 10); /* a shift */
    assert_int_equal(noc_flits(n, 0), 1);
    assert_int_equal(noc_flits(n, 1), 1);
    assert_int_equal(noc_flits(n, 32), 1);
    assert_int_equal(noc_flits(n, 33), 2);
    assert_int_equal(noc_flits(n, 128), 4);
    noc_delete(n);
    n = noc_new(2, 2, 24, 10); /* a division */
    assert_int_equal(noc_flits(n, 24), 1);
    assert_int_equal(noc_flits(n, 25), 2);
    assert_int_equal(noc_flits(n, 128), 6); /* 5.33 rounded up */
    noc_delete(n);
    n = noc_new(1, 1, 1, 0); /* one byte a cycle: a shift of 0 */
    assert_int_equal(noc_flits(n, 7), 7);
    noc_delete(n);
    n = noc_new(1, 1, 3, 0); /* one below a power of two is not one */
    assert_int_equal(noc_flits(n, 7), 3);
    noc_delete(n);
}

static void a_request_takes_its_sm_port_then_its_slice_port(void **state)
{
    (void)state;
    /* 32 bytes a cycle, 10 cycles to cross: a 64-byte request sent at 100 holds the SM's port
     * for 2 cycles and reaches the slice at 100 + 10 + 2. */
    struct noc *n = noc_new(4, 2, 32, 10);
    assert_int_equal(noc_sm_port_free(n, 1), 0);
    assert_int_equal(noc_send_request(n, 1, 0, 64, 100), 112);
    assert_int_equal(noc_sm_port_free(n, 1), 102);
    assert_int_equal(noc_sm_port_free(n, 0), 0); /* the other SMs' ports are free */
    /* Another SM's request to the same slice at 101 would arrive at 113, but the slice's port
     * is busy until 112: it takes 112..114. */
    assert_int_equal(noc_send_request(n, 2, 0, 64, 101), 114);
    /* To the other slice, nothing is in the way. */
    assert_int_equal(noc_send_request(n, 3, 1, 64, 101), 113);
    /* Long after, the slice port is free again: latency and flits only. */
    assert_int_equal(noc_send_request(n, 1, 0, 32, 500), 511);
    assert_int_equal(noc_sm_port_free(n, 1), 501);
    noc_delete(n);
}

static void the_halves_are_the_whole(void **state)
{
    (void)state;
    struct noc *a = noc_new(2, 2, 32, 7), *b = noc_new(2, 2, 32, 7);
    const unsigned sm[] = {0, 1, 0, 1, 1}, slice[] = {1, 1, 0, 1, 1},
                   bytes[] = {64, 32, 128, 64, 1};
    const uint64_t at[] = {0, 0, 2, 3, 9};
    for (unsigned i = 0; i < 5; i++) {
        uint64_t whole = noc_send_request(a, sm[i], slice[i], bytes[i], at[i]);
        noc_take_sm_port(b, sm[i], bytes[i], at[i]);
        assert_int_equal(noc_take_slice_port(b, slice[i], bytes[i], at[i]), whole);
        assert_int_equal(noc_sm_port_free(b, sm[i]), noc_sm_port_free(a, sm[i]));
    }
    noc_delete(a);
    noc_delete(b);
}

static void a_reply_waits_for_both_of_its_ports(void **state)
{
    (void)state;
    struct noc *n = noc_new(2, 2, 32, 10);
    /* A 128-byte reply (4 flits) leaving slice 0 at 50 holds the slice's output port for
     * 50..54 and reaches SM 0 at 50 + 10 + 4. */
    assert_int_equal(noc_send_reply(n, 0, 0, 128, 50), 64);
    /* The next from that slice, to SM 1, leaves at 54 when its port frees: 54 + 10 + 4. */
    assert_int_equal(noc_send_reply(n, 0, 1, 128, 51), 68);
    /* From the other slice to SM 0 at 52: it would arrive at 66, but SM 0's input port holds
     * the first reply until 64, so it takes 64..68. */
    assert_int_equal(noc_send_reply(n, 1, 0, 128, 52), 68);
    /* A reply that leaves later than both ports free waits for neither. */
    assert_int_equal(noc_send_reply(n, 1, 0, 32, 200), 211);
    noc_delete(n);
}

static void requests_and_replies_use_different_ports(void **state)
{
    (void)state;
    struct noc *n = noc_new(1, 1, 32, 10);
    /* A reply to the SM and out of the slice occupies neither the SM's request port nor the
     * slice's input port. */
    assert_int_equal(noc_send_reply(n, 0, 0, 128, 0), 14);
    assert_int_equal(noc_sm_port_free(n, 0), 0);
    assert_int_equal(noc_send_request(n, 0, 0, 32, 0), 11);
    /* And the request occupies neither of the reply's ports: the next reply leaves when the
     * slice's output port frees, at 4, and reaches the SM behind the first, at 14 + 1. */
    assert_int_equal(noc_send_reply(n, 0, 0, 32, 1), 15);
    noc_delete(n);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(flits_round_up_and_are_never_zero),
        cmocka_unit_test(a_request_takes_its_sm_port_then_its_slice_port),
        cmocka_unit_test(the_halves_are_the_whole),
        cmocka_unit_test(a_reply_waits_for_both_of_its_ports),
        cmocka_unit_test(requests_and_replies_use_different_ports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
