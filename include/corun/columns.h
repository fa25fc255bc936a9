/* columns — the terminal columns a text takes (src/util/columns.c): a wide glyph (日: two)
 * takes two, a combining mark none, as wcwidth says in the current locale. For the command
 * line's tables and the workbench alike. Kept apart from util.h, which the simulator includes:
 * its declarations are part of the simulator's id. */
#ifndef CORUN_COLUMNS_H
#define CORUN_COLUMNS_H

#include <stddef.h>

/* The glyph at s (s not at its terminating NUL): returns its bytes, and its columns in *cols.
 * A byte that starts no character in the locale is one column, with the UTF-8 continuation
 * bytes after it. */
size_t util_glyph(const char *s, int *cols);
/* The columns s takes. */
int util_columns(const char *s);
/* The field width that "%-*s" needs for s to take cols columns (padding by display columns,
 * not bytes); s taking cols or more gets no padding (it is not cut). */
int util_pad_width(const char *s, int cols);

/* Cuts a character that a cut at a byte count (snprintf into a buffer too small) left
 * incomplete at the end of s, so that s is whole UTF-8 again (a "→" cut after its first byte
 * made the output, the run file and --json invalid UTF-8). */
void util_utf8_whole(char *s);

#endif
