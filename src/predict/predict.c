/* predict — helpers every predictor shares. */
#include "corun/predict.h"

#include <stdarg.h>
#include <stdio.h>

#include "corun/columns.h"

void predict_text_add(struct predict_text *t, const char *fmt, ...)
{
    if (t->n >= PREDICT_EXPLAIN_LINES)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(t->line[t->n], PREDICT_EXPLAIN_WIDTH, fmt, ap);
    va_end(ap);
    util_utf8_whole(t->line[t->n++]); /* a long line (a kernel's name): cut between characters */
}
