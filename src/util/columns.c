/* columns — the terminal columns of UTF-8 text, for tables that line up whatever names the
 * user gave (a kernel's file name may be 日本語: nine bytes, six columns). */
#define _XOPEN_SOURCE 700 /* wcwidth */
#include "corun/columns.h"

#include <stdlib.h>
#include <string.h>
#include <wchar.h>

size_t util_glyph(const char *s, int *cols)
{
    if ((unsigned char)*s < 0x80) {
        *cols = 1;
        return 1;
    }
    mbstate_t st;
    memset(&st, 0, sizeof st);
    wchar_t wc;
    size_t n = mbrtowc(&wc, s, MB_CUR_MAX, &st);
    if (n == 0 || n > (size_t)MB_CUR_MAX) { /* not a character in this locale */
        size_t len = 1;                     /* its UTF-8 continuation bytes go with it */
        while (((unsigned char)s[len] & 0xC0) == 0x80)
            len++;
        *cols = 1;
        return len;
    }
    int w = wcwidth(wc);
    *cols = w < 0 ? 1 : w;
    return n;
}

int util_columns(const char *s)
{
    int n = 0, c;
    while (*s) {
        s += util_glyph(s, &c);
        n += c;
    }
    return n;
}

int util_pad_width(const char *s, int cols)
{
    int used = util_columns(s);
    return used >= cols ? 0 : cols + (int)strlen(s) - used;
}

void util_utf8_whole(char *s)
{
    size_t n = strlen(s), cont = 0;
    while (n > 0 && cont < 3 && ((unsigned char)s[n - 1] & 0xC0) == 0x80) {
        n--;
        cont++;
    }
    if (n == 0)
        return;
    unsigned char lead = (unsigned char)s[n - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (need > 1 && cont + 1 < need)
        s[n - 1] = '\0';
}
