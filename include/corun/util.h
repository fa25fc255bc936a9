/* util — allocation wrappers and small string helpers shared by every layer.
 *
 * Allocation failure is not an error a caller can handle usefully in corun:
 * the x* wrappers print one line and abort, so no caller checks for NULL. */
#ifndef CORUN_UTIL_H
#define CORUN_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define CORUN_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Told how much of a long computation is done, in (0, 1] (a progress bar's callback). */
typedef void (*util_progress_fn)(void *ctx, double done);

/* malloc/calloc/realloc/strdup that abort on failure; free the result with free(). */
void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
char *xstrdup(const char *s);
/* printf into a fresh heap string; the caller frees it. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* path made absolute against the working directory (heap; the caller frees it); path itself
 * when it is absolute already or the working directory is unknown. */
char *util_absolute_path(const char *path);
/* The CPUs this process may run on (its affinity mask where the system has one, else the
 * CPUs online); at least 1. */
unsigned util_cpus_available(void);
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Edit distance (insert, delete, substitute; case-insensitive) between a and b. */
size_t util_edit_distance(const char *a, const char *b);

/* The name in names[0..count) closest to word, or NULL when none is close enough to be a
 * plausible typo (distance at most 2, and less than half the word). Returns a pointer into
 * names; nothing to free. */
const char *util_suggest(const char *word, const char *const *names, size_t count);

/* The first set bit of the bit set `bits` (64 to a word) at or after from and below limit;
 * limit when there is none. Reads the words as they are at the call. */
static inline unsigned util_next_bit(const uint64_t *bits, unsigned from, unsigned limit)
{
    while (from < limit) {
        uint64_t w = bits[from / 64] >> (from % 64);
        if (w) {
            from += (unsigned)__builtin_ctzll(w);
            return from < limit ? from : limit;
        }
        from = (from / 64 + 1) * 64;
    }
    return limit;
}

/* 1 when s ends with suffix, 0 otherwise. */
int util_ends_with(const char *s, const char *suffix);

/* FNV-1a hashing, a field at a time (never over a struct's padding): start from
 * UTIL_HASH_START and fold each field in. */
#define UTIL_HASH_START 0xcbf29ce484222325ull
void util_hash_bytes(uint64_t *h, const void *p, size_t n);
void util_hash_u64(uint64_t *h, uint64_t v);
void util_hash_double(uint64_t *h, double v);

#endif
