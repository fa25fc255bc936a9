/* view_accel — the accelerator view's timeline: a lane per process (each LS application, each
 * batch instance), time running left to right over the window the user pans and zooms; a
 * kernel is a run of blocks, a host-to-device copy of '>', a device-to-host copy of '<', a
 * kernel waiting for SMs after its launch of '.', all in its application's colour. With room,
 * each process has two lanes, kernels above and copies below. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "tui_accel.h"

#define LABEL_COLS 9 /* "gmm      ", "md#12    " */

/* The glyph of a task kind in a cell (kernels solid, copies arrows, waiting dots). */
static const char *glyph(const struct tui_style *st, int kind, bool waiting)
{
    if (waiting)
        return ".";
    if (kind == ACCEL_H2D)
        return ">";
    if (kind == ACCEL_D2H)
        return "<";
    return st->utf8 ? "\u2588" : "#";
}

static void fill(const struct tui_style *st, WINDOW *w, int y, int x0, int cols, double t0,
                 double dt, double from, double to, unsigned app, int kind, bool waiting)
{
    /* Before the window, or after it; a task of no length at the window's start is in it (a
     * kernel the core ends at its launch, the first at time 0, was never drawn). */
    if (to < t0 || (to == t0 && from < to) || from >= t0 + dt * cols)
        return;
    int c0 = (int)floor((from - t0) / dt), c1 = (int)ceil((to - t0) / dt);
    if (c0 < 0)
        c0 = 0;
    if (c1 > cols)
        c1 = cols;
    if (c1 <= c0)
        c1 = c0 + 1; /* shorter than a cell: one cell, so that it shows */
    attr_t a = st->kernel[app % GPU_MAX_KERNELS];
    if (waiting)
        a = st->dim;
    wattron(w, a);
    for (int c = c0; c < c1 && c < cols; c++)
        mvwaddstr(w, y, x0 + c, glyph(st, kind, waiting));
    wattroff(w, a);
}

void view_accel_timeline(const struct tui_accel *t, WINDOW *w)
{
    const struct tui_style *st = &t->style;
    const struct accel_record *r = &t->rec;
    int rows = getmaxy(w), cols = getmaxx(w) - LABEL_COLS;
    if (cols < 10 || rows < 2)
        return;
    unsigned nprocs = tui_accel_nprocs(t);
    int lanes = rows - 1;                            /* the last row is the time axis */
    unsigned per = lanes >= 2 * (int)nprocs ? 2 : 1; /* lanes per process */
    lanes /= (int)per;
    double t1 = t->follow ? tui_accel_now_ns(t) : t->end_ns;
    if (t1 < t->span_ns)
        t1 = t->span_ns;
    double t0 = t1 - t->span_ns, dt = t->span_ns / cols;
    for (unsigned p = 0; p < nprocs && (int)p < lanes; p++) {
        char label[32];
        int app = tui_accel_proc(t, p, label, sizeof label);
        wattron(w, st->kernel[(unsigned)app % GPU_MAX_KERNELS]);
        tui_print_cols(w, (int)(p * per), 0, LABEL_COLS - 1, label);
        wattroff(w, st->kernel[(unsigned)app % GPU_MAX_KERNELS]);
        if (per == 2) {
            wattron(w, st->dim);
            tui_print(w, (int)p * 2 + 1, 0, " copies");
            wattroff(w, st->dim);
        }
    }
    if ((int)nprocs > lanes) {
        wattron(w, st->dim);
        tui_print(w, (lanes - 1) * (int)per, 0, "+%u more", nprocs - (unsigned)lanes + 1);
        wattroff(w, st->dim);
    }
    for (size_t i = 0; i < r->ntasks; i++) {
        const struct accel_task_rec *k = &r->tasks[i];
        if (k->proc >= nprocs || (int)k->proc >= lanes || k->end_ns < t0 || k->issued_ns >= t1)
            continue;
        int y = (int)(k->proc * per + (per == 2 && k->kind != ACCEL_KERNEL));
        if (k->kind == ACCEL_KERNEL && k->start_ns > k->issued_ns)
            fill(st, w, y, LABEL_COLS, cols, t0, dt, k->issued_ns, k->start_ns, k->app, k->kind,
                 true);
        fill(st, w, y, LABEL_COLS, cols, t0, dt, k->start_ns, k->end_ns, k->app, k->kind, false);
    }
    /* The axis: the window's ends in ms, and a legend between when it fits. */
    wattron(w, st->dim);
    /* Under 0.01 ms to three significant digits: a run of a few ns read 0.000 at both ends. */
    char from[32], to[32];
    tui_print(w, rows - 1, 0, "%s ms", accel_ms_text(from, sizeof from, t0 / 1e6));
    tui_print_right(w, rows - 1, LABEL_COLS + cols, "%s ms",
                    accel_ms_text(to, sizeof to, t1 / 1e6));
    char legend[96];
    snprintf(legend, sizeof legend, "%s kernel  . waits for SMs  > to GPU  < to host",
             glyph(st, ACCEL_KERNEL, false));
    int lw = tui_columns(legend);
    if (lw + 24 < LABEL_COLS + cols)
        tui_print(w, rows - 1, (LABEL_COLS + cols - lw) / 2, "%s", legend);
    wattroff(w, st->dim);
}
