/* noc — the SM-to-LLC crossbar: one input and one output port per SM and per LLC slice, each
 * moving noc_bytes_per_cycle per core cycle, plus a fixed traversal latency.
 *
 * A packet is timed by reserving its source port and then its destination port; a busy port
 * delays later packets, so contention for a slice (or for an SM's reply port) emerges from
 * the reservations rather than from any formula. Flow control (credits) is the receiver's. */
#ifndef CORUN_NOC_H
#define CORUN_NOC_H

#include <stdbool.h>
#include <stdint.h>

struct noc;

/* A crossbar between sms and slices; bytes_per_cycle > 0. Free with noc_delete. */
struct noc *noc_new(unsigned sms, unsigned slices, unsigned bytes_per_cycle,
                    unsigned latency_cycles);
void noc_delete(struct noc *n);

/* Port cycles a packet of `bytes` occupies (at least one). */
unsigned noc_flits(const struct noc *n, unsigned bytes);
/* First cycle at which SM sm's request port is free. */
uint64_t noc_sm_port_free(const struct noc *n, unsigned sm);
/* Sends a request packet from sm to slice at cycle now (the SM port must be free); returns the
 * cycle its last byte reaches the slice. */
uint64_t noc_send_request(struct noc *n, unsigned sm, unsigned slice, unsigned bytes, uint64_t now);
/* The two halves of noc_send_request, for a crossbar that grants the slices' ports apart from
 * the SMs' (gpu.order_free): the packet leaves sm's port at now, and is granted slice's port
 * as sent at now, returning the cycle its last byte reaches the slice. */
void noc_take_sm_port(struct noc *n, unsigned sm, unsigned bytes, uint64_t now);
uint64_t noc_take_slice_port(struct noc *n, unsigned slice, unsigned bytes, uint64_t now);
/* Sends a reply packet from slice to sm, leaving no earlier than now; returns the cycle its
 * last byte reaches the SM. */
uint64_t noc_send_reply(struct noc *n, unsigned slice, unsigned sm, unsigned bytes, uint64_t now);

#endif
