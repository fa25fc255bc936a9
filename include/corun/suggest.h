/* suggest — the "did you mean" of every refusal of an unknown name (src/util/suggest.c): the one
 * near name util_suggest finds, or every name the word begins when it begins several ("hsm" for
 * hsm-fair and hsm-qos). Kept apart from util.h, whose declarations are part of the simulator's
 * id. */
#ifndef CORUN_SUGGEST_H
#define CORUN_SUGGEST_H

#include <stddef.h>

/* At most this many names are spelled out; the rest are counted ("or 3 more"). */
#define SUGGEST_MAX_NAMES 4

/* What a "did you mean" for word offers among names[0..count), each name written as
 * before NAME after and the names joined "a, b or c": every name word is the beginning of
 * (case-insensitive, two letters at least; duplicates once), shortest first, when it begins
 * several, unless one alone is the word and a letter more and the others several more
 * ("epoch": epochs, not epoch_cycles too; "se": set or seed); else util_suggest's one name. NULL
 * when nothing is near; the caller frees the result. */
char *suggest_names(const char *word, const char *const *names, size_t count, const char *before,
                    const char *after);

#endif
