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

/* The names word begins, closest (shortest) first, joined; NULL unless there are several, or
 * when one alone is the word and one letter more and the others several letters more
 * ("epoch": epochs, not epoch_cycles too; but "se": set or seed). */
static char *several_beginnings(const char *word, const char *const *names, size_t count,
                                const char *before, const char *after)
{
    size_t len = strlen(word), found = 0;
    const char **hits = xcalloc(count ? count : 1, sizeof(*hits));
    for (size_t i = 0; i < count; i++) {
        if (strcasecmp(word, names[i]) == 0) {
            found = 0; /* "HBM80" is hbm80 miscased, not the beginning of hbm800 */
            break;
        }
        if (!begins(word, len, names[i]) || seen_before(names, i))
            continue;
        size_t at = found++; /* insertion sort by length, keeping the given order of ties */
        while (at > 0 && strlen(hits[at - 1]) > strlen(names[i])) {
            hits[at] = hits[at - 1];
            at--;
        }
        hits[at] = names[i];
    }
    if (found < 2 || (strlen(hits[0]) == len + 1 && strlen(hits[1]) > len + 2)) {
        free(hits);
        return NULL;
    }
    size_t shown = found > SUGGEST_MAX_NAMES ? SUGGEST_MAX_NAMES - 1 : found;
    char *out = xstrdup("");
    for (size_t k = 0; k < shown; k++) {
        const char *sep = k == 0 ? "" : (k + 1 == found ? " or " : ", ");
        char *next = xasprintf("%s%s%s%s%s", out, sep, before, hits[k], after);
        free(out);
        out = next;
    }
    if (shown < found) {
        char *next = xasprintf("%s or %zu more", out, found - shown);
        free(out);
        out = next;
    }
    free(hits);
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
