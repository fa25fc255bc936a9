/* datadir — locating corun's data files. */
#include "corun/datadir.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "corun/util.h"

#ifndef CORUN_PKGDATADIR
#define CORUN_PKGDATADIR "/usr/local/share/corun"
#endif
#ifndef CORUN_SRCDIR
#define CORUN_SRCDIR "."
#endif

static int has_default_scenario(const char *dir)
{
    char *path = datadir_default_scenario(dir);
    int ok = access(path, R_OK) == 0;
    free(path);
    return ok;
}

char *datadir_locate(void)
{
    const char *env = getenv("CORUN_DATADIR");
    if (env && *env)
        return xstrdup(env);
    if (has_default_scenario(CORUN_PKGDATADIR))
        return xstrdup(CORUN_PKGDATADIR);
    return xstrdup(CORUN_SRCDIR);
}

char *datadir_default_scenario(const char *datadir)
{
    return xasprintf("%s/scenarios/default.cfg", datadir);
}

char *datadir_absolute_file(const char *path)
{
    struct stat st;
    if (!path)
        return NULL;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) ? util_absolute_path(path) : xstrdup(path);
}
