/* trace — Ramulator-format DRAM request traces: one request a line, "0xADDR R" or "0xADDR W"
 * (ADDR hexadecimal, with or without 0x, as Ramulator reads it; r/w in either case; spaces or
 * tabs between). Blank lines and lines starting with '#' are ignored; CRLF line ends are
 * accepted. */
#ifndef CORUN_TRACE_H
#define CORUN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct trace {
    uint64_t *addrs; /* [count] */
    bool *writes;    /* [count]: true for W */
    size_t count;
    size_t nreads, nwrites;
};

/* Reads and parses the whole file at path into *out. Returns 0, or -1 with *out empty and a
 * message in err: "PATH: cannot open: <reason>", "PATH:LINE: expected "0xADDR R|W", got "..."",
 * or "PATH: the trace holds no requests". Free a loaded trace with trace_free. */
int trace_load(const char *path, struct trace *out, char *err, size_t errlen);

/* trace_load on len bytes already in memory; name stands for the file in messages. */
int trace_parse(const char *name, const char *buf, size_t len, struct trace *out, char *err,
                size_t errlen);

/* Releases what trace_load or trace_parse allocated in t and empties it; t may be empty. */
void trace_free(struct trace *t);

#endif
