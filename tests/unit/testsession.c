/* testsession — helpers shared by the session unit tests. */
#include "testsession.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "corun/datadir.h"
#include "corun/diag.h"

void test_scenario_text(struct scenario *sc, const char *name, const char *text)
{
    struct diag d;
    diag_init(&d);
    char *datadir = datadir_locate();
    int rc = scenario_load_text(sc, name, text, datadir, &d);
    free(datadir);
    if (rc != 0 && d.count)
        fprintf(stderr, "%s\n", d.msgs[0]);
    assert_int_equal(rc, 0);
    diag_done(&d);
}

struct session *test_session_open(struct scenario *sc, const char *name, const char *text)
{
    test_scenario_text(sc, name, text);
    char err[512];
    struct session *s = session_new(sc, err, sizeof err);
    if (!s)
        fail_msg("%s: %s", name, err);
    return s;
}

unsigned test_count_events(const struct session *s, const char *kind, const char *prefix)
{
    unsigned n = 0;
    for (unsigned i = 0; i < session_event_count(s); i++) {
        const struct session_event *ev = session_event_at(s, i);
        n += strcmp(ev->kind, kind) == 0 && strncmp(ev->text, prefix, strlen(prefix)) == 0;
    }
    return n;
}

unsigned test_sms_of(const struct session *s, int kernel)
{
    const struct scenario *sc = session_scenario(s);
    int owner[SESSION_MAX_SMS];
    session_partition(s, owner);
    unsigned n = 0;
    for (unsigned i = 0; i < sc->gpu.sms; i++)
        n += owner[i] == kernel;
    return n;
}

void test_tmp_path(char *tmpl)
{
    int fd = mkstemp(tmpl);
    assert_true(fd >= 0);
    close(fd);
    unlink(tmpl);
}

struct catalog *test_tmp_catalog(char *tmpl)
{
    char err[512] = "";
    test_tmp_path(tmpl);
    struct catalog *cat = catalog_open(tmpl, err, sizeof err);
    if (!cat)
        fail_msg("%s", err);
    return cat;
}

/* Two kernels on 16 SMs of hbm80, 20 K-cycle epochs: quick, and unbalanced enough that
 * HSM-Fair acts. */
const char test_unit_scenario[] = "name = \"unit\";\n"
                                  "gpu = \"hbm80\";\n"
                                  "gpu_overrides = { sms = 16; };\n"
                                  "seed = 7;\n"
                                  "epochs = 3;\n"
                                  "epoch_cycles = 20000;\n"
                                  "kernels = ( { name = \"stream\"; priority = \"high\"; },"
                                  " { name = \"compute\"; } );\n";

struct session *test_open_unit(struct scenario *sc)
{
    return test_session_open(sc, "unit.cfg", test_unit_scenario);
}

struct session *test_replay_of(const char *path)
{
    char err[512];
    char *datadir = datadir_locate();
    struct session *r = session_replay(path, datadir, err, sizeof err);
    free(datadir);
    if (!r)
        fail_msg("%s", err);
    return r;
}
