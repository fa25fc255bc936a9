/* diag — a list of diagnostics ("FILE:LINE: SETTING: what was expected") collected while
 * validating user input, so every mistake is reported at once rather than the first only. */
#ifndef CORUN_DIAG_H
#define CORUN_DIAG_H

#include <stddef.h>
#include <stdio.h>

struct diag {
    char **msgs;
    size_t count, cap;
};

void diag_init(struct diag *d);
void diag_done(struct diag *d);
/* Append one message (printf-style, no trailing newline). */
void diag_add(struct diag *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print every message, one per line, to out. */
void diag_print(const struct diag *d, FILE *out);
/* Every message into buf (n bytes), a line each (cut at n); "" when there is none. Returns buf. */
const char *diag_join(const struct diag *d, char *buf, size_t n);

#endif
