/* session_param — parameters a run may change as it goes (the workbench's `e` editor, and
 * recorded "set KEY=VALUE" events): validated by the scenario's own tables, applied at the
 * next epoch boundary, re-applied when a run is branched. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corun/conftable.h"
#include "corun/diag.h"
#include "corun/util.h"
#include "session_internal.h"

/* The top-level scenario settings a run may change. */
static const char *const editable[] = {
    "epoch_cycles",    "fairness_threshold", "qos_upper",
    "hp_share",        "smqos_policy",       "smqos_interval",
    "smqos_threshold", "smqos_batch_min",    "static_smqos_rounding",
};

static const struct conf_setting *find_setting(const struct conf_table *t, const char *name)
{
    for (size_t i = 0; i < t->count; i++)
        if (strcmp(t->settings[i].name, name) == 0)
            return &t->settings[i];
    return NULL;
}

/* The value of setting st in target, as a scenario file writes it. */
static void format_value(const struct conf_setting *st, const void *target, char *out, size_t len)
{
    const char *p = (const char *)target + st->offset;
    switch (st->type) {
    case CONF_UINT: snprintf(out, len, "%u", *(const unsigned *)p); break;
    case CONF_FLOAT: snprintf(out, len, "%g", *(const double *)p); break;
    case CONF_CHOICE: snprintf(out, len, "%s", st->choices[*(const int *)p]); break;
    default: snprintf(out, len, "?");
    }
}

static void describe(struct session_param *out, const char *key, const struct conf_setting *st,
                     const void *target)
{
    snprintf(out->key, sizeof out->key, "%s", key);
    out->help = st->help;
    format_value(st, target, out->value, sizeof out->value);
    char *range = conf_expected(st);
    snprintf(out->range, sizeof out->range, "%s%s%s", range, st->unit ? " " : "",
             st->unit ? st->unit : "");
    free(range);
}

size_t session_params(const struct session *s, struct session_param *out, size_t n)
{
    const struct scenario *sc = s->sc;
    size_t count = 0;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(editable); i++, count++)
        if (count < n)
            describe(&out[count], editable[i], find_setting(&scenario_table, editable[i]), sc);
    if (count < n) {
        struct session_param *p = &out[count];
        snprintf(p->key, sizeof p->key, "weights");
        p->help = "weighted-fairness shares (themis-engine), one per kernel";
        p->value[0] = '\0';
        unsigned slot[GPU_MAX_KERNELS], live = session_live(s, slot);
        for (unsigned i = 0; i < live; i++) {
            size_t used = strlen(p->value);
            snprintf(p->value + used, sizeof p->value - used, "%s%g", i ? "," : "",
                     sc->kernels[slot[i]].weight);
        }
        /* Short enough for the editor's prompt, whose label shows at most 50 characters of
         * it (the help says a weight is a kernel's). */
        snprintf(p->range, sizeof p->range, "%u positive number%s summing to 1, or all 0 (equal)",
                 live, live == 1 ? "" : "s");
    }
    count++;
    static const char *const kernel_settings[] = {"priority", "qos_target"};
    for (unsigned k = 0; k < sc->nkernels; k++)
        for (unsigned j = 0; j < 2 && !s->gone[k]; j++, count++) {
            if (count >= n)
                continue;
            char key[40];
            snprintf(key, sizeof key, "kernels[%u].%s", k, kernel_settings[j]);
            describe(&out[count], key, find_setting(&scenario_kernel_table, kernel_settings[j]),
                     &sc->kernels[k]);
        }
    return count;
}

/* "weights=W1,...": one weight per kernel in the mix (removed kernels keep their index and get
 * 0); consumes d. */
static int set_live_weights(struct session *s, const char *value, struct diag *d, char *err,
                            size_t errlen)
{
    unsigned slot[GPU_MAX_KERNELS], live = session_live(s, slot);
    double w[GPU_MAX_KERNELS];
    int rc = scenario_parse_weights(value, live, w, d);
    if (rc != 0) {
        snprintf(err, errlen, "%s", d->count ? d->msgs[0] + strlen("--set: ") : "refused");
    } else {
        for (unsigned k = 0; k < s->owned_sc.nkernels; k++)
            s->owned_sc.kernels[k].weight = 0;
        for (unsigned i = 0; i < live; i++)
            s->owned_sc.kernels[slot[i]].weight = w[i];
        session_alloc_params(s);
    }
    diag_done(d);
    return rc;
}

int session_apply_set(struct session *s, const char *assignment, char *err, size_t errlen)
{
    const char *eq = strchr(assignment, '=');
    size_t keylen = eq ? (size_t)(eq - assignment) : strlen(assignment);
    bool known =
        strncmp(assignment, "kernels[", 8) == 0 || strncmp(assignment, "weights", keylen) == 0;
    for (size_t i = 0; i < CORUN_ARRAY_LEN(editable) && !known; i++)
        known = strlen(editable[i]) == keylen && strncmp(assignment, editable[i], keylen) == 0;
    if (!known) {
        char keys[256] = "";
        for (size_t i = 0, at = 0; i < CORUN_ARRAY_LEN(editable) && at < sizeof keys; i++)
            at += (size_t)snprintf(keys + at, sizeof keys - at, "%s, ", editable[i]);
        snprintf(err, errlen,
                 "%.*s: not a parameter a run can change (expected one of %sweights, "
                 "kernels[K].priority, kernels[K].qos_target)",
                 (int)keylen, assignment, keys);
        return -1;
    }
    struct diag d;
    diag_init(&d);
    if (keylen == 7 && strncmp(assignment, "weights", 7) == 0 && eq)
        return set_live_weights(s, eq + 1, &d, err, errlen);
    /* Validate on a copy, so a refused value changes nothing. */
    struct scenario trial;
    scenario_copy(&trial, s->sc);
    int rc = scenario_set(&trial, assignment, &d);
    if (rc != 0) {
        /* "--set[:LINE]: KEY: expected ..." reads as the command line's; drop the prefix. */
        const char *msg = d.count ? d.msgs[0] : "refused";
        if (strncmp(msg, "--set", 5) == 0 && (msg[5] == ':')) {
            msg += 6;
            while (*msg >= '0' && *msg <= '9')
                msg++;
            msg += strspn(msg, ": ");
        }
        snprintf(err, errlen, "%s", msg);
        scenario_done(&trial);
    } else {
        /* Again on the session's own, which keeps its strings (front ends may hold them). */
        scenario_done(&trial);
        diag_done(&d);
        diag_init(&d);
        scenario_set(&s->owned_sc, assignment, &d);
        session_alloc_params(s);
    }
    diag_done(&d);
    return rc;
}

int session_set_param(struct session *s, const char *key, const char *value, char *err,
                      size_t errlen)
{
    if (!s->gpu) {
        snprintf(err, errlen, "a replay does not change: branch it first");
        return -1;
    }
    char *assignment = xasprintf("%s=%s", key, value);
    int rc = session_apply_set(s, assignment, err, errlen);
    if (rc == 0) {
        char text[256];
        snprintf(text, sizeof text, "set %s", assignment);
        if (session_note(s, "parameter", text) != 0) {
            snprintf(err, errlen, "%s", s->error);
            rc = -1;
        }
    }
    free(assignment);
    return rc;
}
