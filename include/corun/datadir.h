/* datadir — where corun finds scenarios/ and data/: $CORUN_DATADIR, else the installed
 * package data directory, else the source tree it was built from. */
#ifndef CORUN_DATADIR_H
#define CORUN_DATADIR_H

/* The data directory; the caller frees the string. */
char *datadir_locate(void);

/* DATADIR/scenarios/default.cfg; the caller frees the string. */
char *datadir_default_scenario(const char *datadir);

#endif
