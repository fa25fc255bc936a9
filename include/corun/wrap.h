/* wrap — help texts filled to a terminal's width (src/util/wrap.c). Kept apart from util.h,
 * which the simulator includes: its declarations are part of the simulator's id, and the
 * front end's text layout is not part of the simulator. */
#ifndef CORUN_WRAP_H
#define CORUN_WRAP_H

#include <stdbool.h>
#include <stdio.h>

/* Writes a help text to out with every line at most width columns. Each block that fits is
 * written as it is; one that does not is filled again, hanging at the column its text starts
 * in (a word longer than a line stays whole; so does a bracketed option group that fits on
 * one). With refill, a block is a paragraph, a table row "  TERM  DESCRIPTION" with its
 * continuation lines, or a "usage: corun NAME ..." line; without, each line is its own (a
 * table whose rows have separate lines of their own). */
void util_fputs_wrapped(const char *text, int width, bool refill, FILE *out);
/* The same, into a new heap string (the caller frees it). */
char *util_wrapped(const char *text, int width, bool refill);
/* Writes text's words from column col on (the cursor is there), filled to lines of at most
 * width columns, later lines indented to col, and a newline. */
void util_fputs_filled(const char *text, int col, int width, FILE *out);

#endif
