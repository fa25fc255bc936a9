/* report — epochs and events as text and JSON. */
#include "corun/report.h"

#include <math.h>
#include <string.h>

#include "corun/cli.h"
#include "corun/columns.h"

/* ", "name": v" with 5 decimals, or null when v is NaN (JSON has no NaN). */
static void json_number(FILE *out, const char *name, double v)
{
    fprintf(out, ", \"%s\": ", name);
    if (v != v)
        fputs("null", out);
    else
        fprintf(out, "%.5f", v);
}

/* The predicted class as a word ("-" when the predictor has no classifier). */
static const char *class_name(int cls)
{
    return cls == KERNEL_CLASS_MEMORY ? "memory" : cls == KERNEL_CLASS_COMPUTE ? "compute" : "-";
}

void report_epoch_text(FILE *out, const struct scenario *sc, const struct session_epoch *e,
                       const struct session_epoch *prev)
{
    /* Prediction columns only when a predictor made this epoch's, so plain runs read as
     * before. */
    int pred = e->predictor[0] != '\0';
    if (!prev || pred != (prev->predictor[0] != '\0')) {
        fprintf(out, "%5s  %-12s %6s %8s %7s %9s %6s", "epoch", "kernel", "SMs", "IPC", "NP",
                "BW GB/s", "RBH");
        if (pred)
            fprintf(out, " %7s %7s  %s", "NP^", "error", "class^");
        fputc('\n', out);
    }
    for (unsigned k = 0; k < e->nkernels; k++) {
        const struct session_kernel_epoch *ke = &e->k[k];
        if (!ke->in_mix) /* not added yet, or removed: its columns are no measurement */
            continue;
        const char *name = sc->kernels[k].name; /* padded by columns: 日本 is 6 bytes, 4 columns */
        fprintf(out, "%5u  %-*s %6.1f %8.1f %7.3f %9.1f %6.3f", e->index + 1,
                util_pad_width(name, 12), name, ke->c.sms, ke->c.ipc, ke->np_true,
                ke->c.bandwidth_gbs, ke->c.rbh);
        if (pred) { /* no prediction, or no error (a kernel without progress): "-" */
            if (isfinite(ke->np_pred))
                fprintf(out, " %7.3f", ke->np_pred);
            else
                fprintf(out, " %7s", "-");
            if (isfinite(ke->are))
                fprintf(out, " %6.1f%%", 100 * ke->are);
            else
                fprintf(out, " %7s", "-");
            fprintf(out, "  %s", class_name(ke->pred_class));
        }
        fputc('\n', out);
    }
    if (e->m.valid)
        fprintf(out, "%5s  system: STP %.3f  ANTT %.3f  fairness %.3f\n", "", e->m.stp, e->m.antt,
                e->m.fairness);
}

void report_epoch_json(FILE *out, const struct scenario *sc, const struct session_epoch *e,
                       int first)
{
    fprintf(out, "%s{\"epoch\": %u, \"start_cycle\": %llu, \"cycles\": %llu, \"kernels\": [",
            first ? "" : ", ", e->index + 1, (unsigned long long)e->start_cycle,
            (unsigned long long)e->cycles);
    for (unsigned k = 0, listed = 0; k < e->nkernels; k++) {
        const struct session_kernel_epoch *ke = &e->k[k];
        if (!ke->in_mix)
            continue;
        fprintf(out, "%s{\"index\": %u, \"name\": ", listed++ ? ", " : "", k);
        cli_json_string(out, sc->kernels[k].name);
        fprintf(out,
                ", \"sms\": %.3f, \"ipc\": %.4f, \"np\": %.5f, \"instructions\": %llu, "
                "\"bandwidth_gbs\": %.3f, \"rbh\": %.4f, \"l2_accesses\": %llu, "
                "\"l2_misses\": %llu, \"dram_interference_cycles\": %llu, \"energy_j\": %.6g, "
                "\"phase\": %u",
                ke->c.sms, ke->c.ipc, ke->np_true, (unsigned long long)ke->c.instructions,
                ke->c.bandwidth_gbs, ke->c.rbh, (unsigned long long)ke->c.l2_accesses,
                (unsigned long long)ke->c.l2_misses,
                (unsigned long long)ke->c.dram_interference_cycles, ke->c.energy_j,
                ke->c.phase + 1);
        json_number(out, "np_pred", ke->np_pred);
        json_number(out, "are", ke->are);
        fputs(", \"class_pred\": ", out);
        if (ke->pred_class == KERNEL_CLASS_NONE)
            fputs("null", out);
        else
            cli_json_string(out, class_name(ke->pred_class));
        fputs("}", out);
    }
    fputs("]", out);
    fputs(", \"predictor\": ", out);
    if (e->predictor[0])
        cli_json_string(out, e->predictor);
    else
        fputs("null", out);
    json_number(out, "stp", e->m.valid ? e->m.stp : NAN);
    json_number(out, "antt", e->m.valid ? e->m.antt : NAN);
    json_number(out, "fairness", e->m.valid ? e->m.fairness : NAN);
    fputs("}", out);
}

void report_json_begin(FILE *out, const struct scenario *sc)
{
    fprintf(out, "{\"scenario\": ");
    cli_json_string(out, sc->name);
    fprintf(out, ", \"gpu\": ");
    cli_json_string(out, sc->gpu_name);
    fprintf(out, ", \"seed\": %llu, \"epoch_cycles\": %u, \"epochs\": [",
            (unsigned long long)sc->seed, sc->epoch_cycles);
}

void report_events_since(FILE *out, const struct session *s, unsigned *seen, bool json)
{
    for (; *seen < session_event_count(s); (*seen)++) {
        const struct session_event *ev = session_event_at(s, *seen);
        if (strcmp(ev->kind, "warning") == 0)
            fprintf(stderr, "corun: warning: %s\n", ev->text);
        if (!json)
            fprintf(out, "  [%s] %s\n", ev->kind, ev->text);
    }
}

void report_events_text(FILE *out, const struct session *s)
{
    for (unsigned i = 0; i < session_event_count(s); i++) {
        const struct session_event *ev = session_event_at(s, i);
        fprintf(out, "event  epoch %u  %-11s %s\n", ev->epoch, ev->kind, ev->text);
    }
}

void report_json_end(FILE *out, const struct session *s)
{
    fputs("], \"events\": [", out);
    for (unsigned i = 0; i < session_event_count(s); i++) {
        const struct session_event *ev = session_event_at(s, i);
        fprintf(out, "%s{\"epoch\": %u, \"cycle\": %llu, \"kind\": ", i ? ", " : "", ev->epoch,
                (unsigned long long)ev->cycle);
        cli_json_string(out, ev->kind);
        fputs(", \"text\": ", out);
        cli_json_string(out, ev->text);
        fputs("}", out);
    }
    fputs("]}\n", out);
}
