/* fuzz_scenario — libFuzzer harness for the scenario loader: the input is a scenario file's
 * text, loaded as `corun check` loads one (GPU preset, kernels, overrides, the core's limits);
 * when its first line is KEY=VALUE it is also applied as `--set` would apply it. Whatever the
 * input, the loader must return an answer (ok, or messages) without a crash, a leak or
 * undefined behaviour. The accelerator-scenario loader gets every input too (`check` picks one
 * by the file's mode, and each must refuse the other's files cleanly). Seeds:
 * tests/fuzz/corpus/scenario; run by tests/fuzz.sh. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "corun/accel_scenario.h"
#include "corun/datadir.h"
#include "corun/diag.h"
#include "corun/scenario.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char *datadir;
    if (!datadir)
        datadir = datadir_locate(); /* kept for the whole run */
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    struct scenario sc;
    struct diag d;
    diag_init(&d);
    if (scenario_load_text(&sc, "fuzz.cfg", text, datadir, &d) == 0) {
        size_t line = strcspn(text, "\n");
        if (memchr(text, '=', line)) {
            text[line] = '\0';
            scenario_set(&sc, text, &d);
        }
    }
    scenario_done(&sc);
    struct accel_scenario ac;
    accel_scenario_load_text(&ac, "fuzz.cfg", text, datadir, &d);
    accel_scenario_done(&ac);
    diag_done(&d);
    free(text);
    return 0;
}
