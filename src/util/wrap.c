/* wrap — fit help texts to a terminal's width.
 *
 * The texts are written by hand, some of them wider than 80 columns. A block (a paragraph, a
 * table row with its continuation lines, or a usage line; or, when not refilling, a line) that
 * fits is printed as written; one that does not is filled again, its first line's lead-in kept
 * and later lines hung at the column its text starts in. */
#include "corun/wrap.h"

#include <stdlib.h>
#include <string.h>

#include "corun/util.h"

struct line {
    const char *s;
    int len;
};

static int lead(struct line l)
{
    int i = 0;
    while (i < l.len && l.s[i] == ' ')
        i++;
    return i;
}

/* The column the block's text hangs at: after "usage: corun NAME " on a usage line; in an
 * indented table row ("  --epochs N    run N epochs"), where its description starts; else
 * the line's indentation. */
static int hang_of(struct line l)
{
    static const char usage[] = "usage: corun ";
    int in = lead(l);
    if (l.len > (int)sizeof usage && !strncmp(l.s, usage, sizeof usage - 1)) {
        const char *sp = memchr(l.s + sizeof usage - 1, ' ', (size_t)l.len - (sizeof usage - 1));
        return sp ? (int)(sp - l.s) + 1 : in;
    }
    if (in < 2 || in >= l.len || l.s[in] == ' ')
        return in;
    for (int i = in; i + 2 < l.len; i++)
        if (l.s[i] == ' ' && l.s[i + 1] == ' ') {
            while (i < l.len && l.s[i] == ' ')
                i++;
            return i < l.len ? i : in;
        }
    return in;
}

/* Prints words (blank-separated, a bracketed group one word) starting at column col, wrapping at
 * width and indenting continuation lines to hang; no newline after the last. */
static void fill(FILE *out, const char *s, int len, int col, int hang, int width)
{
    int at = col;
    bool first = true;
    for (int i = 0; i < len;) {
        while (i < len && (s[i] == ' ' || s[i] == '\n'))
            i++;
        int j = i, depth = 0; /* an option in brackets, "[--out RUN.h5]", is one word */
        while (j < len && s[j] != '\n' && (s[j] != ' ' || depth > 0)) {
            depth += (s[j] == '[') - (s[j] == ']');
            j++;
        }
        if (j - i > width - hang) /* a group wider than a line: split at its blanks */
            for (j = i; j < len && s[j] != ' ' && s[j] != '\n';)
                j++;
        if (j == i)
            break;
        if (!first && at + 1 + (j - i) > width) {
            fprintf(out, "\n%*s", hang, "");
            at = hang;
        } else if (!first) {
            fputc(' ', out);
            at++;
        }
        fprintf(out, "%.*s", j - i, s + i);
        at += j - i;
        first = false;
        i = j;
    }
}

void util_fputs_wrapped(const char *text, int width, bool refill, FILE *out)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        struct line first = {p, nl ? (int)(nl - p) : (int)strlen(p)};
        if (first.len == 0) {
            fputc('\n', out);
            p += 1;
            continue;
        }
        /* The block: this line, and the lines after it indented to its hang (a table row's
         * continuation, a paragraph's next line), up to a blank line. */
        int hang = hang_of(first), widest = first.len;
        const char *end = first.s + first.len;
        /* The first line's lead-in (indentation and a table row's term), kept as written. */
        int keep = hang > lead(first) ? hang : lead(first);
        /* A row whose term is wider than the table's term column ("  --set gpu.SETTING=VALUE
         * change...") continues at the column the other rows' descriptions start in. */
        if (refill && *end == '\n' && end[1] && lead(first) >= 2) {
            const char *q = end + 1, *qn = strchr(q, '\n');
            struct line l = {q, qn ? (int)(qn - q) : (int)strlen(q)};
            if (lead(l) > lead(first) && lead(l) < hang && hang_of(l) == lead(l))
                hang = lead(l);
        }
        while (refill && *end == '\n' && end[1]) {
            const char *q = end + 1, *qn = strchr(q, '\n');
            struct line l = {q, qn ? (int)(qn - q) : (int)strlen(q)};
            if (l.len == 0 || lead(l) != hang || hang_of(l) != hang ||
                (hang == 0 && !strncmp(l.s, "usage: ", 7)))
                break;
            if (l.len > widest)
                widest = l.len;
            end = l.s + l.len;
        }
        if (widest <= width || hang >= width / 2) {
            fprintf(out, "%.*s", (int)(end - p), p);
        } else {
            fprintf(out, "%.*s", keep, p);
            fill(out, p + keep, (int)(end - p) - keep, keep, hang, width);
        }
        if (!*end)
            break;
        fputc('\n', out);
        p = end + 1;
    }
}

char *util_wrapped(const char *text, int width, bool refill)
{
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    if (!f)
        return xstrdup(text);
    util_fputs_wrapped(text, width, refill, f);
    fclose(f);
    return out;
}

void util_fputs_filled(const char *text, int col, int width, FILE *out)
{
    fill(out, text, (int)strlen(text), col, col, width);
    fputc('\n', out);
}
