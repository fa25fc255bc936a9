/* view_system — the multi-program metrics of the epoch shown (STP, ANTT, fairness, how many
 * high-priority kernels kept their QoS target) and its energy and power from the GPU's
 * counters. */
#include <stdio.h>

#include "tui_internal.h"

/* Energy in the unit that keeps three significant digits readable. */
static void energy(const struct tui_style *st, char *buf, size_t n, double joules)
{
    if (joules >= 1)
        snprintf(buf, n, "%.2f J", joules);
    else if (joules >= 1e-3)
        snprintf(buf, n, "%.2f mJ", joules * 1e3);
    else
        snprintf(buf, n, "%.2f %sJ", joules * 1e6, st->utf8 ? "µ" : "u");
}

/* A metric's name on the left, its value on the right; where the two would meet, the name's
 * short form (a narrow terminal). */
static void line(WINDOW *w, int y, int cols, const char *name, const char *brief, const char *value)
{
    if (tui_columns(name) + 1 + tui_columns(value) > cols)
        name = brief;
    tui_print(w, y, 0, "%s", name);
    tui_print_right(w, y, cols, "%s", value);
}

/* "N/M met": of the M high-priority kernels in the mix of epoch e, those whose true NP kept
 * the target they had in that epoch (one that made no progress did not); false, out
 * untouched, when none has one. */
static bool qos(const struct tui *t, const struct tui_epoch *e, char *out, size_t len)
{
    bool in[GPU_MAX_KERNELS];
    tui_mix_shown(t, in);
    unsigned met = 0, n = 0;
    for (unsigned k = 0; k < GPU_MAX_KERNELS && k < e->e.nkernels; k++) {
        double target = e->e.k[k].qos_target;
        if (!in[k] || !(target > 0))
            continue;
        n++;
        met += e->e.k[k].np_true >= target;
    }
    if (n)
        snprintf(out, len, "%u/%u met", met, n);
    return n > 0;
}

static void draw(const struct tui *t, WINDOW *w)
{
    const struct tui_style *st = &t->style;
    int cols = getmaxx(w);
    const struct tui_epoch *e = tui_shown(t);
    char v[7][32];
    for (unsigned i = 0; i < 7; i++)
        snprintf(v[i], sizeof v[i], "%s", st->dash);
    if (e && tui_hidden(t, e->e.index)) {
        for (unsigned i = 0; i < 3; i++)
            snprintf(v[i], sizeof v[i], "?");
    } else if (e && e->e.m.valid) {
        snprintf(v[0], sizeof v[0], "%.3f", e->e.m.stp);
        snprintf(v[1], sizeof v[1], "%.3f", e->e.m.antt);
        snprintf(v[2], sizeof v[2], "%.3f", e->e.m.fairness);
    }
    if (e) {
        /* Hidden with the truth: it would tell the class how the NPs came out. */
        if (qos(t, e, v[3], sizeof v[3]) && tui_hidden(t, e->e.index))
            snprintf(v[3], sizeof v[3], "?");
        double seconds = (double)e->e.cycles / (t->sc->gpu.core_clock_mhz * 1e6);
        energy(st, v[4], sizeof v[4], e->e.sys.energy_j);
        if (seconds > 0)
            snprintf(v[5], sizeof v[5], "%.1f W", e->e.sys.energy_j / seconds);
        double total = 0;
        for (unsigned i = 0; i <= e->e.index && i < t->nepochs; i++)
            total += t->epochs[i].e.sys.energy_j;
        energy(st, v[6], sizeof v[6], total);
    }
    static const char *const names[7] = {"STP",    "ANTT",  "Fairness",   "QoS",
                                         "Energy", "Power", "Energy, run"};
    static const char *const briefs[7] = {"STP", "ANTT", "Fair", "QoS", "E", "P", "E run"};
    for (unsigned i = 0; i < 7; i++)
        line(w, (int)i, cols, names[i], briefs[i], v[i]);
}

const struct tui_view tui_view_system = {
    .title = "System",
    .deps = TUI_CH_EPOCH,
    .focusable = true,
    .draw = draw,
};
