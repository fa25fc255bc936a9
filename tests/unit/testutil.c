/* testutil — shared helpers for the CMocka unit tests. */
#include "testutil.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

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
