/* testutil — shared helpers for the CMocka unit tests. */
#define _XOPEN_SOURCE 700 /* nftw */

#include "testutil.h"

#include <ftw.h>
#include <sys/stat.h>

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
#include "corun/preset.h"

void test_preset(const char *name, struct gpu_config *out)
{
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    int rc = preset_gpu_load(datadir, name, out, &d);
    if (rc != 0)
        diag_print(&d, stderr);
    diag_done(&d);
    free(datadir);
    assert_int_equal(rc, 0);
}

char *test_write_temp(const char *text)
{
    char *path = strdup("/tmp/corun-test-XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "w");
    fputs(text, fp);
    fclose(fp);
    return path;
}

int test_diag_has(const struct diag *d, ...)
{
    for (size_t i = 0; i < d->count; i++) {
        va_list ap;
        va_start(ap, d);
        int all = 1;
        for (const char *s = va_arg(ap, const char *); s; s = va_arg(ap, const char *))
            all &= strstr(d->msgs[i], s) != NULL;
        va_end(ap);
        if (all)
            return 1;
    }
    return 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

void test_remove_tree(const char *dir)
{
    nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

void test_accel_load(struct accel_scenario *sc, const char *text)
{
    char *datadir = datadir_locate();
    struct diag d;
    diag_init(&d);
    int rc = accel_scenario_load_text(sc, "test.cfg", text, datadir, &d);
    if (rc) {
        diag_print(&d, stderr);
        fail_msg("scenario did not load");
    }
    diag_done(&d);
    free(datadir);
}
