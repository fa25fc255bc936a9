/* view_explain — where the selected kernel's NP comes from in the epoch shown: the counters
 * and the private-mode reference behind it, then the active predictor's inputs and
 * arithmetic, line by line as the session explains them (a replay reads them from the run
 * file). Lines wrap; what does not fit opens whole with Enter. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tui_internal.h"

struct text {
    char *buf;
    size_t len, cap;
};

static void add(struct text *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add(struct text *x, const char *fmt, ...)
{
    if (x->len + 1 >= x->cap)
        return;
    if (x->len)
        x->buf[x->len++] = '\n';
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(x->buf + x->len, x->cap - x->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        x->len += (size_t)n < x->cap - x->len ? (size_t)n : x->cap - x->len - 1;
}

/* Where the kernel's loads were served in the epoch (what a cache-sensitive kernel loses
 * beside a polluting one shows here first), and how many of its TBs an SM holds. */
static void memory_lines(struct text *x, const struct gpu_kernel_counters *c)
{
    char acc[32];
    tui_thousands(acc, sizeof acc, (unsigned long long)c->l2_accesses);
    if (c->l2_accesses)
        add(x, "LLC: %s accesses, %.1f %% missed; DRAM %.1f GB/s", acc,
            100.0 * (double)c->l2_misses / (double)c->l2_accesses, c->bandwidth_gbs);
    else
        add(x, "LLC: no accesses");
    if (c->occupancy_tbs) /* not kept in run files: live runs only */
        add(x, "Resident: %u TBs per SM (what its registers, shared memory and warps allow)",
            c->occupancy_tbs);
}

/* The panel's text, one line per '\n'; the first line is the kernel's true NP. Returns false
 * (with the reason in buf) when there is nothing to explain. */
static bool explain_text(const struct tui *t, char *buf, size_t cap)
{
    struct text x = {buf, 0, cap};
    buf[0] = '\0';
    const struct tui_epoch *te = tui_shown(t);
    unsigned k = t->selected;
    if (!te) {
        add(&x, "no epochs yet");
        return false;
    }
    if (k >= te->e.nkernels || !te->e.k[k].in_mix) {
        /* The selection follows the mix; this shows only between a change and that. */
        add(&x, "not in the mix in this epoch");
        return false;
    }
    if (tui_hidden(t, te->e.index)) {
        add(&x, "hidden until the class has guessed (predict, then reveal)");
        return false;
    }
    const struct session_kernel_epoch *ke = &te->e.k[k];
    char insts[32], shared[32], priv[32];
    /* np_true = private-mode cycles for the epoch's instructions / epoch cycles, so the
     * private cycles follow from it exactly. */
    double private_cycles = ke->np_true * (double)te->e.cycles;
    tui_thousands(insts, sizeof insts, (unsigned long long)ke->c.instructions);
    tui_thousands(shared, sizeof shared, (unsigned long long)te->e.cycles);
    tui_thousands(priv, sizeof priv, (unsigned long long)(private_cycles + 0.5));
    if (ke->np_true >= 0)
        add(&x, "NP true = private / shared = %s / %s = %.3f", priv, shared, ke->np_true);
    else
        add(&x, "NP true = %s (no progress)", t->style.dash);
    const struct predict_text *pt = te->explain ? &te->explain[k] : NULL;
    if (te->e.predictor[0] && pt && pt->n) {
        for (unsigned i = 0; i < pt->n; i++)
            add(&x, "%s", pt->line[i]);
        memory_lines(&x, &ke->c);
        return true;
    }
    add(&x, "Instructions %s", insts);
    add(&x, "Shared: %.1f SMs, IPC %.1f", ke->c.sms, ke->c.ipc);
    /* The reference runs the same instructions alone on the whole GPU. */
    if (private_cycles > 0)
        add(&x, "Alone: %u SMs, IPC %.1f", t->sms, (double)ke->c.instructions / private_cycles);
    memory_lines(&x, &ke->c);
    if (!te->e.predictor[0])
        add(&x, "Predictor: none");
    else
        add(&x, "Predictor: %s (its explanation was not recorded: an older run file)",
            tui_predictor_at(t, te->e.index));
    return true;
}

#define TEXT_MAX (PREDICT_EXPLAIN_LINES * PREDICT_EXPLAIN_WIDTH + 256)

static void draw(const struct tui *t, WINDOW *w)
{
    char text[TEXT_MAX];
    if (!explain_text(t, text, sizeof text)) {
        wattron(w, t->style.dim);
        tui_wrap(w, 0, 0, text, getmaxx(w)); /* "hidden until ..." was cut mid-word */
        wattroff(w, t->style.dim);
        return;
    }
    tui_text_panel(&t->style, w, text, t->style.kernel[t->selected % GPU_MAX_KERNELS],
                   "... Enter shows all");
}

static int key(struct tui *t, int ch)
{
    if (ch != '\r' && ch != '\n' && ch != KEY_ENTER)
        return 0;
    char text[TEXT_MAX];
    explain_text(t, text, sizeof text);
    char title[48];
    snprintf(title, sizeof title, "Explain: %c %s", tui_kernel_letter(t->selected),
             tui_kernel_name(t, t->selected));
    tui_message(t, title, "%s", text);
    return TUI_R_HANDLED;
}

static void title(const struct tui *t, int cols, char *buf, size_t n)
{
    (void)cols;
    snprintf(buf, n, "Explain: %c %s", tui_kernel_letter(t->selected),
             tui_kernel_name(t, t->selected));
}

const struct tui_view tui_view_explain = {
    .title = "Explain",
    .deps = TUI_CH_EPOCH | TUI_CH_SELECT | TUI_CH_FOCUS,
    .focusable = true,
    .draw = draw,
    .title_fn = title,
    .key = key,
};
