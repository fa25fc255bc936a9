/* util — allocation wrappers and small string helpers. */
#include "corun/util.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static void out_of_memory(size_t size)
{
    fprintf(stderr, "corun: out of memory (asked for %zu bytes)\n", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        out_of_memory(size);
    return p;
}

char *xstrdup(const char *s)
{
    size_t len = strlen(s) + 1;
    return memcpy(xmalloc(len), s, len);
}

char *xvasprintf(const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    int len = vsnprintf(NULL, 0, fmt, copy);
    va_end(copy);
    if (len < 0)
        out_of_memory(0);
    char *s = xmalloc((size_t)len + 1);
    vsnprintf(s, (size_t)len + 1, fmt, ap);
    return s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}

size_t util_edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    size_t *row = xmalloc((lb + 1) * sizeof(*row));
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            int same = tolower((unsigned char)a[i - 1]) == tolower((unsigned char)b[j - 1]);
            size_t best = diag + (same ? 0 : 1);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    size_t d = row[lb];
    free(row);
    return d;
}

/* The one name in names[0..count) that word begins, at least two letters of it
 * (case-insensitive), or NULL when none or several do. */
static const char *unique_completion(const char *word, const char *const *names, size_t count)
{
    size_t len = strlen(word);
    const char *found = NULL;
    if (len < 2)
        return NULL;
    for (size_t i = 0; i < count; i++) {
        if (strlen(names[i]) <= len || strncasecmp(word, names[i], len) != 0)
            continue;
        if (found)
            return NULL;
        found = names[i];
    }
    return found;
}

/* As util.h says, and failing a near miss, the one name word begins (unique_completion): "hsm"
 * suggested nothing though hsm-fair exists. (util.h is fixed with the simulator's version.) */
const char *util_suggest(const char *word, const char *const *names, size_t count)
{
    const char *best = NULL;
    size_t best_d = (size_t)-1, best_p = 0;
    for (size_t i = 0; i < count; i++) {
        size_t d = util_edit_distance(word, names[i]), p = 0;
        while (word[p] && tolower((unsigned char)word[p]) == tolower((unsigned char)names[i][p]))
            p++;
        /* At equal distance, the name that keeps more of the word's beginning: a typo is
         * likelier late in a word ("lbmm" is lbm, not lbbm). */
        if (d < best_d || (d == best_d && p > best_p)) {
            best_d = d;
            best_p = p;
            best = names[i];
        }
    }
    size_t len = strlen(word);
    if (!best || strcmp(word, best) == 0 || best_d > 2 || best_d * 2 > len)
        return unique_completion(word, names, count); /* "hsm" is hsm-fair's beginning */
    return best;
}

int util_ends_with(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

char *util_absolute_path(const char *path)
{
    char cwd[4096];
    if (path[0] == '/' || !getcwd(cwd, sizeof cwd))
        return xstrdup(path);
    while (path[0] == '.' && path[1] == '/')
        path += 2;
    return xasprintf("%s%s%s", cwd, strcmp(cwd, "/") == 0 ? "" : "/", path);
}

void util_hash_bytes(uint64_t *h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        *h ^= b[i];
        *h *= 0x100000001b3ull;
    }
}

void util_hash_u64(uint64_t *h, uint64_t v)
{
    util_hash_bytes(h, &v, sizeof(v));
}

void util_hash_double(uint64_t *h, double v)
{
    util_hash_bytes(h, &v, sizeof(v));
}
