/* trace — a hand-written Ramulator trace parser: the file is read with one read() loop and
 * scanned once, so a million-line trace parses in a few milliseconds. */
#define _POSIX_C_SOURCE 200809L

#include "corun/trace.h"
#include "corun/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Hexadecimal digit value + 1; 0 marks a non-digit. */
static const unsigned char hex_plus1[256] = {
    ['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
    ['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    ['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* Parses an address at *p (< end); advances *p. false on no digits or overflow. The address
 * is hexadecimal, with or without 0x, as Ramulator reads it (std::stoul(line, &pos, 16)): "4096"
 * is 0x4096, not 4096. */
static bool parse_addr(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    uint64_t v = 0;
    if (end - s > 2 && s[0] == '0' && (s[1] | 0x20) == 'x')
        s += 2;
    const char *first = s;
    for (unsigned d; s < end && (d = hex_plus1[(unsigned char)*s]) != 0; s++) {
        if (v >> 60)
            return false;
        v = v << 4 | (d - 1);
    }
    if (s == first)
        return false;
    *p = s;
    *out = v;
    return true;
}

/* Parses the request at *p (past leading blanks, not a comment) up to and including its line
 * end; advances *p past the line end. false when the line does not parse. */
static bool parse_request(const char **p, const char *end, uint64_t *addr, bool *write)
{
    const char *s = *p;
    if (!parse_addr(&s, end, addr))
        return false;
    if (s == end || (*s != ' ' && *s != '\t'))
        return false;
    while (s < end && is_blank(*s))
        s++;
    if (s == end)
        return false;
    char op = (char)(*s++ | 0x20);
    if (op != 'r' && op != 'w')
        return false;
    *write = op == 'w';
    while (s < end && is_blank(*s))
        s++;
    if (s < end && *s++ != '\n')
        return false;
    *p = s;
    return true;
}

static void bad_line(const char *name, size_t line, const char *p, const char *eol, char *err,
                     size_t errlen)
{
    char shown[64];
    size_t n = 0;
    while (eol > p && (eol[-1] == '\r' || eol[-1] == ' ' || eol[-1] == '\t'))
        eol--;
    for (; p < eol && n < 48; p++)
        shown[n++] = (*p >= 0x20 && *p < 0x7f) ? *p : '?';
    shown[n] = '\0';
    snprintf(err, errlen, "%s:%zu: expected \"0xADDR R|W\", got \"%s%s\"", name, line, shown,
             p < eol ? "..." : "");
}

void trace_free(struct trace *t)
{
    free(t->addrs);
    free(t->writes);
    memset(t, 0, sizeof(*t));
}

int trace_parse(const char *name, const char *buf, size_t len, struct trace *out, char *err,
                size_t errlen)
{
    memset(out, 0, sizeof(*out));
    const char *end = buf + len;
    size_t lines = 1;
    for (const char *q = buf; (q = memchr(q, '\n', (size_t)(end - q))) != NULL; q++)
        lines++;
    out->addrs = xmalloc(lines * sizeof(*out->addrs));
    out->writes = xmalloc(lines * sizeof(*out->writes));

    size_t line = 0, count = 0, nwrites = 0;
    for (const char *p = buf; p < end;) {
        line++;
        while (p < end && is_blank(*p))
            p++;
        if (p == end)
            break;
        if (*p == '\n' || *p == '#') {
            const char *eol = memchr(p, '\n', (size_t)(end - p));
            p = eol ? eol + 1 : end;
            continue;
        }
        const char *start = p;
        if (!parse_request(&p, end, &out->addrs[count], &out->writes[count])) {
            const char *eol = memchr(start, '\n', (size_t)(end - start));
            bad_line(name, line, start, eol ? eol : end, err, errlen);
            trace_free(out);
            return -1;
        }
        nwrites += out->writes[count];
        count++;
    }
    if (count == 0) {
        snprintf(err, errlen, "%s: the trace holds no requests", name);
        trace_free(out);
        return -1;
    }
    out->count = count;
    out->nwrites = nwrites;
    out->nreads = count - nwrites;
    return 0;
}

/* Reads all of fd into a fresh buffer; *len gets its size. NULL with errno on failure. */
static char *read_all(int fd, size_t *len)
{
    struct stat st;
    size_t cap = 1 << 16, used = 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
        cap = (size_t)st.st_size + 1; /* one spare byte shows EOF without a second grow */
    char *buf = xmalloc(cap);
    for (;;) {
        if (used == cap) {
            cap *= 2;
            buf = xrealloc(buf, cap);
        }
        ssize_t got = read(fd, buf + used, cap - used);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            int saved = errno;
            free(buf);
            errno = saved;
            return NULL;
        }
        if (got == 0)
            break;
        used += (size_t)got;
    }
    *len = used;
    return buf;
}

int trace_load(const char *path, struct trace *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof(*out));
    /* Non-blocking, so that a FIFO without a writer is refused rather than waited on. */
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(EISDIR));
        close(fd);
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, errlen,
                 "%s: cannot read: not a regular file (expected a Ramulator-format trace file)",
                 path);
        close(fd);
        return -1;
    }
    size_t len = 0;
    char *buf = read_all(fd, &len);
    int saved = errno;
    close(fd);
    if (!buf) {
        snprintf(err, errlen, "%s: cannot read: %s", path, strerror(saved));
        return -1;
    }
    int rc = trace_parse(path, buf, len, out, err, errlen);
    free(buf);
    return rc;
}
