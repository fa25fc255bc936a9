/* reproduce_journal — the results journal of a long `corun reproduce` run.
 *
 * File format, version 1:
 *
 *   corun reproduce journal 1\n
 *   <identity> | result <N> bytes\n
 *   record, record, ...
 *
 * where each record is, without padding:
 *
 *   "REC1"    4 bytes
 *   part      uint32
 *   index     uint32
 *   size      uint32, always N
 *   payload   size bytes: the result struct exactly as it is in memory
 *   checksum  uint64: FNV-1a over part, index, size (their 12 bytes as stored) and payload
 *
 * Numbers and payloads are in the writing machine's native byte order and struct layout. That is
 * safe because callers put repro_build_id() in the identity: only the build that wrote a journal
 * accepts it.
 *
 * Records all have the same size, so opening reads them at that stride to the end of the file:
 * one that has another magic or size or fails its checksum is skipped and counted as damaged
 * when an intact record follows it (damage in the middle: a bad copy, a bad disk; its mix runs
 * again and is appended), and the bytes after the last intact record are a torn tail, cut off
 * (ftruncate) so that appends continue right after it. A file that is empty or
 * holds only the beginning of this run's two header lines (a kill while creating it) starts
 * afresh. A put is a few write()s and an fsync(): a kill tears at most that record, which the
 * next open cuts off. A merge's source is opened for reading only: nothing of it is cut or
 * written. Plain write() rather than stdio so that a failed append can be undone
 * without a stdio buffer holding half of it. */
#include "corun/reproduce_journal.h"

#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "config.h"
#include "corun/util.h"

#define RECORD_MAGIC "REC1"
/* How much of a foreign first line a message shows. */
#define SHOWN_FIRST_LINE_MAX 60
/* How much longer than ours another run's identity line may be and still be shown whole. */
#define OTHER_IDENTITY_SLACK 4096

struct record_head {
    char magic[4];
    uint32_t part, index, size;
};
_Static_assert(sizeof(struct record_head) == 16, "a record head is stored without padding");
_Static_assert(sizeof(unsigned) <= sizeof(uint32_t), "a part number fits a record's uint32");

struct entry {
    uint32_t part, index;
    unsigned char *result; /* result_size bytes, owned */
};

struct repro_journal {
    char *path;
    int fd; /* write-locked; its offset is always `end` */
    size_t result_size;
    struct entry *entries; /* sorted by (part, index) */
    size_t n, cap;
    off_t end;      /* the end of the last intact record: where the next one goes */
    size_t dropped; /* bytes of the torn tail (cut off unless read_only) */
    size_t damaged; /* records skipped in the middle */
    bool read_only; /* a merge's source: a shared lock; nothing cut or written */
};

static uint64_t record_checksum(const struct record_head *h, const void *payload)
{
    uint64_t sum = UTIL_HASH_START;
    util_hash_bytes(&sum, &h->part, sizeof h->part);
    util_hash_bytes(&sum, &h->index, sizeof h->index);
    util_hash_bytes(&sum, &h->size, sizeof h->size);
    util_hash_bytes(&sum, payload, h->size);
    return sum;
}

/* ---- the records in memory ---- */

/* 1 when (part, index) is held, at *pos; else 0 with *pos where it would go. */
static int entry_find(const struct repro_journal *j, uint32_t part, uint32_t index, size_t *pos)
{
    size_t lo = 0, hi = j->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct entry *e = &j->entries[mid];
        if (e->part < part || (e->part == part && e->index < index))
            lo = mid + 1;
        else
            hi = mid;
    }
    *pos = lo;
    return lo < j->n && j->entries[lo].part == part && j->entries[lo].index == index;
}

/* Hold result (heap, taken over) as (part, index), replacing the one held before. */
static void entry_store(struct repro_journal *j, uint32_t part, uint32_t index,
                        unsigned char *result)
{
    size_t pos;
    if (entry_find(j, part, index, &pos)) {
        free(j->entries[pos].result);
        j->entries[pos].result = result;
        return;
    }
    if (j->n == j->cap) {
        j->cap = j->cap ? 2 * j->cap : 64;
        j->entries = xrealloc(j->entries, j->cap * sizeof *j->entries);
    }
    memmove(&j->entries[pos + 1], &j->entries[pos], (j->n - pos) * sizeof *j->entries);
    j->entries[pos] = (struct entry){part, index, result};
    j->n++;
}

/* ---- file access ---- */

/* Read up to n bytes; fewer only at the end of the file. The count, or -1 with errno. */
static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* 0, or -1 with errno. */
static int write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *)buf + done, n - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -1;
        done += (size_t)w;
    }
    return 0;
}

/* Cut the file at length and continue writing there. 0, or -1 with errno. */
static int truncate_at(int fd, off_t length)
{
    if (ftruncate(fd, length) != 0 || lseek(fd, length, SEEK_SET) != length)
        return -1;
    return 0;
}

char *repro_identity_items_not_in(const char *a, const char *b)
{
    static const char *const seps[] = {" (", ")", ", ", "; ", " | "};
    char *out = xstrdup("");
    const char *p = a;
    while (*p) {
        const char *end = p + strlen(p);
        size_t skip = 0;
        for (size_t i = 0; i < CORUN_ARRAY_LEN(seps); i++) {
            const char *at = strstr(p, seps[i]);
            if (at && at < end) {
                end = at;
                skip = strlen(seps[i]);
            }
        }
        size_t n = (size_t)(end - p);
        bool found = false; /* as a whole item of b: bounded by its separators */
        for (const char *q = b; n && *q && !found; q++)
            found = strncmp(q, p, n) == 0 && (q == b || strchr("(, ;|", q[-1])) &&
                    (!q[n] || strchr("), ;|", q[n]));
        if (n && !found) {
            char *more = xasprintf("%s%s%.*s", out, *out ? ", " : "", (int)n, p);
            free(out);
            out = more;
        }
        p = *end ? end + skip : end;
    }
    return out;
}

/* s[0..n) for a message: control and non-ASCII bytes as '?', at most max bytes and "..." when
 * cut (or when cut_already: the caller saw only part of it). The caller frees. */
static char *printable(const char *s, size_t n, size_t max, int cut_already)
{
    int cut = cut_already || n > max;
    if (n > max)
        n = max;
    char *out = xmalloc(n + 4);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        out[i] = c >= 0x20 && c < 0x7f ? (char)c : '?';
    }
    strcpy(out + n, cut ? "..." : "");
    return out;
}

/* ---- opening ---- */

/* Start the file afresh with header[0..len). */
static int write_header(struct repro_journal *j, const char *header, size_t len, char *err,
                        size_t errlen)
{
    if (truncate_at(j->fd, 0) != 0 || write_full(j->fd, header, len) != 0 || fsync(j->fd) != 0) {
        snprintf(err, errlen, "%s: cannot write the journal's header: %s", j->path,
                 strerror(errno));
        return -1;
    }
    j->end = (off_t)len;
    return 0;
}

/* Check the two header lines against header[0..len) (whose second line is identity_line) and
 * leave the file offset after them: 0. An empty file, or one holding only the beginning of
 * header, gets the header and no records: 1. -1 with a message. */
static int check_header(struct repro_journal *j, off_t file_size, const char *header, size_t len,
                        const char *identity_line, char *err, size_t errlen)
{
    size_t cap = len + OTHER_IDENTITY_SLACK;
    char *buf = xmalloc(cap);
    ssize_t got = read_full(j->fd, buf, cap);
    if (got < 0) {
        snprintf(err, errlen, "%s: cannot read: %s", j->path, strerror(errno));
        free(buf);
        return -1;
    }
    if ((off_t)got == file_size && (size_t)got < len && memcmp(buf, header, (size_t)got) == 0) {
        free(buf);
        j->dropped = (size_t)got;
        if (j->read_only)
            return 1;
        return write_header(j, header, len, err, errlen) == 0 ? 1 : -1;
    }

    int rc = -1;
    size_t n = (size_t)got;
    const char *nl1 = memchr(buf, '\n', n);
    const char *line2 = nl1 ? nl1 + 1 : NULL;
    const char *nl2 = nl1 ? memchr(line2, '\n', n - (size_t)(line2 - buf)) : NULL;
    if (!nl1 || (size_t)(nl1 - buf) != strlen(REPRO_JOURNAL_MAGIC_LINE) ||
        memcmp(buf, REPRO_JOURNAL_MAGIC_LINE, strlen(REPRO_JOURNAL_MAGIC_LINE)) != 0) {
        size_t first = nl1 ? (size_t)(nl1 - buf) : n;
        char *shown = printable(buf, first, SHOWN_FIRST_LINE_MAX, !nl1 && (off_t)n < file_size);
        snprintf(err, errlen,
                 "%s: not a corun reproduce journal (its first line is '%s'; a journal's is "
                 "'%s')",
                 j->path, shown, REPRO_JOURNAL_MAGIC_LINE);
        free(shown);
    } else if (!nl2 || (size_t)(nl2 - line2) != strlen(identity_line) ||
               memcmp(line2, identity_line, strlen(identity_line)) != 0) {
        size_t theirs_len = nl2 ? (size_t)(nl2 - line2) : n - (size_t)(line2 - buf);
        char *theirs = printable(line2, theirs_len, theirs_len, !nl2);
        char *only_theirs = repro_identity_items_not_in(theirs, identity_line);
        char *only_ours = repro_identity_items_not_in(identity_line, theirs);
        if (*only_theirs || *only_ours)
            snprintf(err, errlen,
                     "%s: written for another run (it holds: %s; this run: %s); give another "
                     "file or remove it",
                     j->path, *only_theirs ? only_theirs : "nothing more",
                     *only_ours ? only_ours : "nothing more");
        else
            snprintf(err, errlen,
                     "%s: written for another run; it holds: %s; this run is: %s; give another "
                     "file or remove it",
                     j->path, theirs, identity_line);
        free(only_ours);
        free(only_theirs);
        free(theirs);
    } else if (lseek(j->fd, (off_t)len, SEEK_SET) != (off_t)len) {
        snprintf(err, errlen, "%s: cannot seek: %s", j->path, strerror(errno));
    } else {
        rc = 0;
    }
    free(buf);
    return rc;
}

/* Read the records after the header at their stride, skipping damaged ones that an intact
 * record follows; cut off the torn tail after the last intact one (a read-only source keeps
 * it). */
static int load_records(struct repro_journal *j, off_t header_end, off_t file_size, char *err,
                        size_t errlen)
{
    size_t rec = sizeof(struct record_head) + j->result_size + sizeof(uint64_t);
    unsigned char *buf = xmalloc(rec);
    off_t end = header_end; /* the end of the last intact record */
    size_t bad = 0;         /* damaged records since it */
    for (off_t pos = header_end; pos < file_size; pos += (off_t)rec) {
        ssize_t got = 0;
        while (got < (ssize_t)rec) {
            ssize_t r = pread(j->fd, buf + got, rec - (size_t)got, pos + got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0) {
                snprintf(err, errlen, "%s: cannot read: %s", j->path, strerror(errno));
                free(buf);
                return -1;
            }
            if (r == 0)
                break;
            got += r;
        }
        if (got < (ssize_t)rec)
            break; /* cut short: the tail */
        struct record_head h;
        uint64_t sum;
        memcpy(&h, buf, sizeof h);
        memcpy(&sum, buf + sizeof h + j->result_size, sizeof sum);
        if (memcmp(h.magic, RECORD_MAGIC, sizeof h.magic) != 0 || h.size != j->result_size ||
            sum != record_checksum(&h, buf + sizeof h)) {
            bad++;
            continue;
        }
        unsigned char *result = xmalloc(j->result_size);
        memcpy(result, buf + sizeof h, j->result_size);
        entry_store(j, h.part, h.index, result);
        j->damaged += bad;
        bad = 0;
        end = pos + (off_t)rec;
    }
    free(buf);
    j->end = end;
    if (end < file_size) {
        j->dropped = (size_t)(file_size - end);
        if (!j->read_only && (truncate_at(j->fd, end) != 0 || fsync(j->fd) != 0)) {
            snprintf(err, errlen, "%s: cannot cut off its damaged last %zu bytes: %s", j->path,
                     j->dropped, strerror(errno));
            return -1;
        }
    }
    if (!j->read_only && lseek(j->fd, end, SEEK_SET) != end) {
        snprintf(err, errlen, "%s: cannot seek: %s", j->path, strerror(errno));
        return -1;
    }
    return 0;
}

/* Lock the whole file against other processes. */
static int lock_file(struct repro_journal *j, char *err, size_t errlen)
{
    struct flock fl = {
        .l_type = j->read_only ? F_RDLCK : F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0};
    if (fcntl(j->fd, F_SETLK, &fl) == 0)
        return 0;
    if (errno == EACCES || errno == EAGAIN)
        snprintf(err, errlen,
                 "%s: in use by another process (another corun resuming from it?); wait for it "
                 "or give another file",
                 j->path);
    else
        snprintf(err, errlen, "%s: cannot lock: %s", j->path, strerror(errno));
    return -1;
}

static struct repro_journal *journal_open(const char *path, const char *identity,
                                          size_t result_size, bool read_only, char *err,
                                          size_t errlen)
{
    assert(result_size > 0 && result_size <= UINT32_MAX);
    if (strchr(identity, '\n')) {
        snprintf(err, errlen,
                 "%s: a journal's run identity must be one line, and this one has "
                 "a newline",
                 path);
        return NULL;
    }
    /* O_NONBLOCK: a FIFO is refused below, not waited on (a regular file ignores it). */
    int fd = read_only ? open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
                       : open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot open for %s: %s", path,
                 read_only ? "reading" : "reading and writing", strerror(errno));
        return NULL;
    }
    /* A FIFO kept the run waiting forever once its mixes were done, and a device (/dev/null)
     * took every result and kept none. */
    struct stat kind;
    if (fstat(fd, &kind) == 0 && !S_ISREG(kind.st_mode)) {
        snprintf(err, errlen,
                 "%s: not a regular file (a FIFO or a device); a journal is a file corun keeps "
                 "results in, give the name of one (it is made when missing)",
                 path);
        close(fd);
        return NULL;
    }
    struct repro_journal *j = xcalloc(1, sizeof *j);
    j->path = xstrdup(path);
    j->fd = fd;
    j->result_size = result_size;
    j->read_only = read_only;

    char *identity_line = xasprintf("%s | result %zu bytes", identity, result_size);
    char *header = xasprintf("%s\n%s\n", REPRO_JOURNAL_MAGIC_LINE, identity_line);
    struct stat st;
    memset(&st, 0, sizeof st);
    int rc = lock_file(j, err, errlen);
    if (rc == 0 && fstat(fd, &st) != 0) {
        snprintf(err, errlen, "%s: cannot stat: %s", path, strerror(errno));
        rc = -1;
    }
    if (rc == 0)
        rc = check_header(j, st.st_size, header, strlen(header), identity_line, err, errlen);
    if (rc == 0)
        rc = load_records(j, (off_t)strlen(header), st.st_size, err, errlen);
    free(identity_line);
    free(header);
    if (rc < 0) {
        repro_journal_close(j);
        return NULL;
    }
    return j;
}

struct repro_journal *repro_journal_open(const char *path, const char *identity, size_t result_size,
                                         char *err, size_t errlen)
{
    return journal_open(path, identity, result_size, false, err, errlen);
}

struct repro_journal *repro_journal_open_source(const char *path, const char *identity,
                                                size_t result_size, char *err, size_t errlen)
{
    return journal_open(path, identity, result_size, true, err, errlen);
}

/* ---- use ---- */

const void *repro_journal_get(const struct repro_journal *j, unsigned part, size_t index)
{
    size_t pos;
    if (index != (uint32_t)index || !entry_find(j, part, (uint32_t)index, &pos))
        return NULL;
    return j->entries[pos].result;
}

int repro_journal_put(struct repro_journal *j, unsigned part, size_t index, const void *result,
                      char *err, size_t errlen)
{
    assert(!j->read_only);
    if (index != (uint32_t)index) {
        snprintf(err, errlen,
                 "%s: mix index %zu does not fit a journal record (at most %" PRIu32 ")", j->path,
                 index, UINT32_MAX);
        return -1;
    }
    struct record_head h = {
        .part = part, .index = (uint32_t)index, .size = (uint32_t)j->result_size};
    memcpy(h.magic, RECORD_MAGIC, sizeof h.magic);
    uint64_t sum = record_checksum(&h, result);
    if (write_full(j->fd, &h, sizeof h) != 0 || write_full(j->fd, result, j->result_size) != 0 ||
        write_full(j->fd, &sum, sizeof sum) != 0 || fsync(j->fd) != 0) {
        int write_errno = errno;
        /* Undo the partial record so that later ones are not appended after garbage. */
        const char *undo = truncate_at(j->fd, j->end) == 0
                               ? ""
                               : "; cutting the partial record off failed too, so later results "
                                 "will not be found on resuming";
        snprintf(err, errlen, "%s: cannot append the result of part %u, mix %zu: %s%s", j->path,
                 part, index, strerror(write_errno), undo);
        return -1;
    }
    j->end += (off_t)(sizeof h + j->result_size + sizeof sum);

    size_t pos;
    if (entry_find(j, part, (uint32_t)index, &pos)) {
        memcpy(j->entries[pos].result, result, j->result_size);
    } else {
        unsigned char *copy = xmalloc(j->result_size);
        memcpy(copy, result, j->result_size);
        entry_store(j, part, (uint32_t)index, copy);
    }
    return 0;
}

const void *repro_journal_at(const struct repro_journal *j, size_t i, unsigned *part, size_t *index)
{
    assert(i < j->n);
    *part = j->entries[i].part;
    *index = j->entries[i].index;
    return j->entries[i].result;
}

size_t repro_journal_count(const struct repro_journal *j)
{
    return j->n;
}

size_t repro_journal_dropped(const struct repro_journal *j)
{
    return j ? j->dropped : 0;
}

size_t repro_journal_damaged(const struct repro_journal *j)
{
    return j ? j->damaged : 0;
}

const char *repro_journal_path(const struct repro_journal *j)
{
    return j->path;
}

void repro_journal_close(struct repro_journal *j)
{
    if (!j)
        return;
    for (size_t i = 0; i < j->n; i++)
        free(j->entries[i].result);
    free(j->entries);
    close(j->fd);
    free(j->path);
    free(j);
}

/* Fold the bytes of the file at path into *h. 0, or -1 when it cannot be opened or read. */
static int hash_file(uint64_t *h, const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char buf[16384];
    ssize_t got;
    while ((got = read_full(fd, buf, sizeof buf)) > 0)
        util_hash_bytes(h, buf, (size_t)got);
    close(fd);
    return got < 0 ? -1 : 0;
}

void repro_build_id(char *out, size_t len)
{
    uint64_t h = UTIL_HASH_START;
    if (hash_file(&h, "/proc/self/exe") != 0)
        snprintf(out, len, "unknown-%s", PACKAGE_VERSION);
    else
        snprintf(out, len, "%016" PRIx64, h);
}

/* Fold every regular file under dir (recursively, in name order) into *h: names and bytes. */
static void hash_tree(uint64_t *h, const char *dir)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char *path = name[0] == '.' ? NULL : xasprintf("%s/%s", dir, name);
        struct stat st;
        if (path && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            hash_tree(h, path);
        } else if (path && S_ISREG(st.st_mode)) {
            util_hash_bytes(h, name, strlen(name) + 1);
            hash_file(h, path); /* an unreadable file adds its name only */
        }
        free(path);
        free(names[i]);
    }
    free(names);
}

void repro_data_id(const char *datadir, char *out, size_t len)
{
    uint64_t h = UTIL_HASH_START;
    char *data = xasprintf("%s/data", datadir), *suites = xasprintf("%s/scenarios/suites", datadir);
    hash_tree(&h, data);
    hash_tree(&h, suites);
    free(data);
    free(suites);
    snprintf(out, len, "%016" PRIx64, h);
}

/* repro_journal_open_run's, or only a look at the file (read_only). */
static struct repro_journal *open_run(const char *path, const char *datadir, const char *what,
                                      size_t result_size, bool read_only, char *err, size_t errlen)
{
    char build[REPRO_BUILD_ID_LEN], data[REPRO_BUILD_ID_LEN];
    repro_build_id(build, sizeof build);
    repro_data_id(datadir, data, sizeof data);
    char *identity = xasprintf("%s; corun build %s, data %s", what, build, data);
    struct repro_journal *j = journal_open(path, identity, result_size, read_only, err, errlen);
    free(identity);
    return j;
}

struct repro_journal *repro_journal_open_run(const char *path, const char *datadir,
                                             const char *what, size_t result_size, char *err,
                                             size_t errlen)
{
    return open_run(path, datadir, what, result_size, false, err, errlen);
}

int repro_journal_check_run(const char *path, const char *datadir, const char *what,
                            size_t result_size, char *err, size_t errlen)
{
    struct repro_journal *j = open_run(path, datadir, what, result_size, true, err, errlen);
    repro_journal_close(j);
    return j ? 0 : -1;
}
