/* datadir — where corun finds scenarios/ and data/: $CORUN_DATADIR, else the installed
 * package data directory, else the source tree it was built from. */
#ifndef CORUN_DATADIR_H
#define CORUN_DATADIR_H

/* The data directory; the caller frees the string. */
char *datadir_locate(void);

/* DATADIR/scenarios/default.cfg; the caller frees the string. */
char *datadir_default_scenario(const char *datadir);

/* A scenario's path as run files and the catalog keep it: absolute when it names a file here
 * (util_absolute_path), anything else (a label such as "RUN.h5 (recorded scenario)") as it is;
 * NULL for NULL. The caller frees it. (Not in util.h: that header is part of the simulator's
 * identity, which a path helper must not change.) */
char *datadir_absolute_file(const char *path);

#endif
