/* fuzz_runfile — libFuzzer harness for the run-file reader: the input is written to a file and
 * opened as `corun show` opens one, then every epoch and event is read. A damaged file must be
 * refused with a message (or read, when what is left is valid) without a crash, a leak or
 * undefined behaviour. The accelerator run file reader reads every input too. Seeds:
 * tests/fuzz/corpus/runfile; run by tests/fuzz.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "corun/accel_runfile.h"
#include "corun/runfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Epochs and events read per input: enough for every seed, few enough to stay fast. */
#define MAX_ROWS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0]) {
        snprintf(path, sizeof path, "%s/corun-fuzz-%ld.h5",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", (long)getpid());
        /* An input on which HDF5 loops for ever costs each reader's child its CPU limit (10 s
         * by default, and two readers read every input): niced beside the rest of the suite
         * on 2 busy cores, 20 s of CPU took over libFuzzer's 60 s of wall time and failed CI.
         * 1 s still ends such a child, which is what the harness checks. */
        runfile_set_read_cpu_limit(1);
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        abort(); /* the harness itself cannot work: say so loudly */
    if (size && fwrite(data, 1, size, f) != size)
        abort();
    fclose(f);
    char err[512];
    struct runfile *rf = runfile_open(path, err, sizeof err);
    if (rf) {
        struct runfile_epoch *e = malloc(sizeof(*e));
        struct runfile_event ev;
        for (uint64_t i = 0; e && i < runfile_epoch_count(rf) && i < MAX_ROWS; i++)
            if (runfile_read_epoch(rf, i, e, err, sizeof err) != 0)
                break;
        for (uint64_t i = 0; i < runfile_event_count(rf) && i < MAX_ROWS; i++)
            if (runfile_read_event(rf, i, &ev, err, sizeof err) != 0)
                break;
        free(e);
        runfile_close(rf, err, sizeof err);
    }
    struct accel_record r;
    accel_runfile_probe(path);
    if (accel_runfile_read(path, &r, err, sizeof err) == 0)
        accel_record_done(&r);
    unlink(path);
    return 0;
}
