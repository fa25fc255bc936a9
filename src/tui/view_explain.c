/* view_explain — where the selected kernel's NP comes from in the epoch shown: the counters
 * and the private-mode reference behind it, then the active predictor's inputs and
 * arithmetic, line by line as the session explains them. */
#include <stdio.h>

#include "tui_internal.h"

static void draw(const struct tui *t, WINDOW *w)
{
    const struct tui_epoch *te = tui_shown(t);
    unsigned k = t->selected;
    if (!te) {
        wattron(w, t->style.dim);
        tui_print(w, 0, 0, "no epochs yet");
        wattroff(w, t->style.dim);
        return;
    }
    if (k >= te->e.nkernels || !te->e.k[k].in_mix) {
        /* The selection follows the mix; this shows only between a change and that. */
        wattron(w, t->style.dim);
        tui_print(w, 0, 0, "not in the mix in this epoch");
        wattroff(w, t->style.dim);
        return;
    }
    const struct session_kernel_epoch *ke = &te->e.k[k];
    char insts[32], shared[32], priv[32];
    /* np_true = private-mode cycles for the epoch's instructions / epoch cycles, so the
     * private cycles follow from it exactly. */
    double private_cycles = ke->np_true * (double)te->e.cycles;
    tui_thousands(insts, sizeof insts, (unsigned long long)ke->c.instructions);
    tui_thousands(shared, sizeof shared, (unsigned long long)te->e.cycles);
    tui_thousands(priv, sizeof priv, (unsigned long long)(private_cycles + 0.5));
    int y = 0;
    if (te->e.predictor[0] && te->explain) {
        /* The panel is small: the truth in one line, then the predictor's own lines. */
        wattron(w, t->style.kernel[k]);
        if (ke->np_true >= 0)
            tui_print(w, y++, 0, "NP true = %s / %s = %.3f", priv, shared, ke->np_true);
        else
            tui_print(w, y++, 0, "NP true = %s (no progress)", t->style.dash);
        wattroff(w, t->style.kernel[k]);
        const struct predict_text *x = &te->explain[k];
        for (unsigned i = 0; i < x->n; i++)
            tui_print(w, y++, 0, "%s", x->line[i]);
        return;
    }
    wattron(w, A_BOLD);
    tui_print(w, y++, 0, "NP = private / shared");
    wattroff(w, A_BOLD);
    if (ke->np_true >= 0) {
        tui_print(w, y++, 0, "   = %s / %s", priv, shared);
        wattron(w, t->style.kernel[k]);
        tui_print(w, y++, 0, "   = %.3f", ke->np_true);
        wattroff(w, t->style.kernel[k]);
    } else {
        tui_print(w, y++, 0, "   = %s (no progress)", t->style.dash);
    }
    tui_print(w, y++, 0, "Instructions %s", insts);
    tui_print(w, y++, 0, "Shared: %.1f SMs, IPC %.1f", ke->c.sms, ke->c.ipc);
    /* The reference runs the same instructions alone on the whole GPU. */
    if (private_cycles > 0)
        tui_print(w, y++, 0, "Alone: %u SMs, IPC %.1f", t->sms,
                  (double)ke->c.instructions / private_cycles);
    if (!te->e.predictor[0]) {
        tui_print(w, y++, 0, "Predictor: none");
        return;
    }
    wattron(w, A_BOLD);
    tui_print(w, y++, 0, "Predictor: %s", tui_predictor_at(t, te->e.index));
    wattroff(w, A_BOLD);
    /* A replay keeps the predictions, not the predictor's state. */
    wattron(w, t->style.dim);
    tui_print(w, y++, 0, "  (no explanation kept for this epoch)");
    wattroff(w, t->style.dim);
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
};
