/* diag — collected diagnostics. */
#include "corun/diag.h"

#include <stdarg.h>
#include <stdlib.h>

#include "corun/util.h"

void diag_init(struct diag *d)
{
    d->msgs = NULL;
    d->count = d->cap = 0;
}

void diag_done(struct diag *d)
{
    for (size_t i = 0; i < d->count; i++)
        free(d->msgs[i]);
    free(d->msgs);
    diag_init(d);
}

void diag_add(struct diag *d, const char *fmt, ...)
{
    if (d->count == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 8;
        d->msgs = xrealloc(d->msgs, d->cap * sizeof(*d->msgs));
    }
    va_list ap;
    va_start(ap, fmt);
    d->msgs[d->count++] = xvasprintf(fmt, ap);
    va_end(ap);
}

void diag_print(const struct diag *d, FILE *out)
{
    for (size_t i = 0; i < d->count; i++)
        fprintf(out, "%s\n", d->msgs[i]);
}

const char *diag_join(const struct diag *d, char *buf, size_t n)
{
    size_t used = 0;
    if (n)
        buf[0] = '\0';
    for (size_t i = 0; i < d->count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? "\n" : "", d->msgs[i]);
    return buf;
}
