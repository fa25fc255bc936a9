/* suggest — "did you mean" with every name a word begins. */
#include "corun/suggest.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "corun/util.h"

/* 1 when word (two letters at least) is the beginning of the longer name, case aside. */
static bool begins(const char *word, size_t len, const char *name)
{
    return len >= 2 && strlen(name) > len && strncasecmp(word, name, len) == 0;
}

/* 1 when names[0..i) holds names[i] already (a name found in two directories). */
static bool seen_before(const char *const *names, size_t i)
{
    for (size_t j = 0; j < i; j++)
        if (strcmp(names[j], names[i]) == 0)
            return true;
    return false;
}

/* The names word begins, joined; NULL unless there are several. */
static char *several_beginnings(const char *word, const char *const *names, size_t count,
                                const char *before, const char *after)
{
    size_t len = strlen(word), found = 0;
    for (size_t i = 0; i < count; i++) {
        if (strcasecmp(word, names[i]) == 0)
            return NULL; /* "HBM80" is hbm80 miscased, not the beginning of hbm800 */
        if (begins(word, len, names[i]) && !seen_before(names, i))
            found++;
    }
    if (found < 2)
        return NULL;
    size_t shown = found > SUGGEST_MAX_NAMES ? SUGGEST_MAX_NAMES - 1 : found, k = 0;
    char *out = xstrdup("");
    for (size_t i = 0; i < count && k < shown; i++) {
        if (!begins(word, len, names[i]) || seen_before(names, i))
            continue;
        const char *sep = k == 0 ? "" : (k + 1 == found ? " or " : ", ");
        char *next = xasprintf("%s%s%s%s%s", out, sep, before, names[i], after);
        free(out);
        out = next;
        k++;
    }
    if (shown < found) {
        char *next = xasprintf("%s or %zu more", out, found - shown);
        free(out);
        out = next;
    }
    return out;
}

char *suggest_names(const char *word, const char *const *names, size_t count, const char *before,
                    const char *after)
{
    char *several = several_beginnings(word, names, count, before, after);
    if (several)
        return several;
    const char *near = util_suggest(word, names, count);
    return near ? xasprintf("%s%s%s", before, near, after) : NULL;
}
