/* accel_runfile internals shared by accel_runfile.c (tables, writing) and
 * accel_runfile_read.c. Layer: io. */
#ifndef CORUN_ACCEL_RUNFILE_INTERNAL_H
#define CORUN_ACCEL_RUNFILE_INTERNAL_H

#include "corun/accel_runfile.h"
#include "runfile_internal.h"

/* The root attribute that tells an accelerator run file from a spatial one. */
#define ACCEL_RF_VERSION       "accel_schema_version"
#define ACCEL_RF_DEFLATE_LEVEL 6
/* Rows a reader accepts in one group: far beyond any run, and a bound on what a forged
 * extent can make it allocate. */
#define ACCEL_RF_MAX_ROWS 50000000ull

#endif
