/* cli_output — what the commands print alike: rows wrapped to the terminal, occupancy lines,
 * JSON strings and numbers, progress bars and the mixes' ETA. */
#include "corun/cli.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "corun/columns.h"
#include "corun/diag.h"
#include "corun/gpu.h"
#include "corun/gpu_sets.h"
#include "corun/kernel.h"
#include "corun/util.h"
#include "corun/wrap.h"

int cli_terminal_columns(void)
{
    struct winsize ws;
    if (!isatty(STDOUT_FILENO) || ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) != 0 || ws.ws_col == 0)
        return 0;
    return ws.ws_col;
}

void cli_print_row(const char *lead, const char *text)
{
    int cols = cli_terminal_columns(), col = util_columns(lead);
    if (cols - col < 20 || col + util_columns(text) <= cols) {
        printf("%s%s\n", lead, text);
        return;
    }
    char *wrapped = util_wrapped(text, cols - col, true);
    const char *line = wrapped;
    for (bool first = true; *line; first = false) {
        size_t len = strcspn(line, "\n");
        printf("%*s%.*s\n", first ? 0 : col, first ? lead : "", (int)len, line);
        line += len + (line[len] == '\n');
    }
    free(wrapped);
}

void cli_print_occupancy(const char *lead, const struct gpu_config *g,
                         const struct kernel_profile *p)
{
    unsigned n = p->nphases > 1 ? p->nphases : 1;
    for (unsigned i = 0; i < n; i++) {
        struct kernel_profile q = *p;
        if (p->nphases > 1)
            kernel_phase_profile(p, i, &q);
        const char *limit;
        unsigned occ = gpu_occupancy(g, &q, &limit), warps = occ * q.warps_per_tb;
        printf("%*s%u TBs of %u warps per SM: %u of %u warps (%.0f %%), bound by %s",
               (int)strlen(lead), i ? "" : lead, occ, q.warps_per_tb, warps, g->warps_per_sm,
               100.0 * warps / g->warps_per_sm, limit);
        if (n > 1)
            printf(" (kernel %u of %u)", i + 1, n);
        printf("\n");
    }
}

char *cli_sql_quoted(const char *text)
{
    char *q = xmalloc(2 * strlen(text) + 1), *w = q;
    for (; *text; text++) {
        if (*text == '\'')
            *w++ = '\'';
        *w++ = *text;
    }
    *w = '\0';
    return q;
}

void cli_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

void cli_json_number(FILE *out, double v)
{
    if (isnan(v) || isinf(v))
        fputs("null", out);
    else
        fprintf(out, "%.6g", v);
}

double cli_wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A duration as "12m03s", or "1h52m" from an hour on. */
static void format_duration(char *buf, size_t len, double seconds)
{
    if (seconds >= 3600)
        snprintf(buf, len, "%.0fh%02.0fm", floor(seconds / 3600), floor(fmod(seconds, 3600) / 60));
    else
        snprintf(buf, len, "%.0fm%02.0fs", floor(seconds / 60), floor(fmod(seconds, 60)));
}

void cli_mixes_progress(void *ctx, double done, unsigned total)
{
    struct cli_mixes_bar *b = ctx;
    if (!b->started) {
        b->started = true;
        b->base = done;
        b->logged = (unsigned)done;
    }
    double elapsed = cli_wall_seconds() - b->start, ran = done - b->base;
    char eta[32] = "", took[16];
    if (ran > 0.05 && done < total) {
        char left[16];
        format_duration(left, sizeof left, elapsed / ran * (total - done));
        snprintf(eta, sizeof eta, ", ETA %s", left);
    }
    if (isatty(STDERR_FILENO)) {
        char label[96];
        snprintf(label, sizeof label, "%s: %.1f of %u mixes%s", b->label, done, total, eta);
        cli_progress(label, total ? done / total : 1);
    } else if ((unsigned)done > b->logged) {
        b->logged = (unsigned)done;
        format_duration(took, sizeof took, elapsed);
        fprintf(stderr, "%s: %u of %u mixes done, %s%s\n", b->label, b->logged, total, took, eta);
        fflush(stderr);
    }
}

void cli_progress(const char *label, double done)
{
    if (!isatty(STDERR_FILENO))
        return;
    enum { WIDTH = 30 };
    int filled = (int)(done * WIDTH + 0.5);
    if (filled > WIDTH)
        filled = WIDTH;
    fprintf(stderr, "\r[%.*s%*s] %3.0f%% %s", filled, "##############################",
            WIDTH - filled, "", done * 100, label);
    if (done >= 1)
        fputs("\n", stderr);
    fflush(stderr);
}

void cli_progress_fn(void *label, double done)
{
    cli_progress(label, done);
}

void cli_print_diags(const char *cmd, const struct diag *d)
{
    for (size_t i = 0; i < d->count; i++) {
        bool set = strncmp(d->msgs[i], "--set:", 6) == 0;
        fprintf(stderr, "%s%s%s%s\n", set ? "corun: " : "", set ? cmd : "", set ? ": " : "",
                d->msgs[i]);
    }
}

void cli_json_gpu_sets(FILE *out, const struct gpu_sets *sets)
{
    fputc('[', out);
    for (unsigned i = 0; i < sets->n; i++) {
        fputs(i ? ", " : "", out);
        cli_json_string(out, sets->v[i]);
    }
    fputc(']', out);
}
