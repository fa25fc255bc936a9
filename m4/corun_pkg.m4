# CORUN_REQUIRE_PKG(VARIABLE-PREFIX, PKG-CONFIG-MODULES, DEBIAN-PACKAGE)
# -----------------------------------------------------------------------
# Like PKG_CHECK_MODULES, but a missing module stops configure with a message that names the
# Debian package to install, so a user never has to guess.
AC_DEFUN([CORUN_REQUIRE_PKG], [
  PKG_CHECK_MODULES([$1], [$2], [],
    [AC_MSG_ERROR([$2 was not found by pkg-config.
  On Debian or Ubuntu install it with:  apt-get install $3
  (or run ./setup.sh, which installs everything corun needs)])])
])

# CORUN_CHECK_CFLAG(FLAG)
# -----------------------
# Append FLAG to WARN_CFLAGS when the compiler accepts it.
AC_DEFUN([CORUN_CHECK_CFLAG], [
  AC_MSG_CHECKING([whether $CC accepts $1])
  corun_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS $1 -Werror"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [AC_MSG_RESULT([yes]); WARN_CFLAGS="$WARN_CFLAGS $1"],
    [AC_MSG_RESULT([no])])
  CFLAGS=$corun_save_CFLAGS
])

# CORUN_PTHREAD
# -----------------
# POSIX threads on glibc: -pthread for compiling and linking (the TUI simulates off its input
# thread). Fails configure when the compiler does not take it.
AC_DEFUN([CORUN_PTHREAD], [
  AC_MSG_CHECKING([whether $CC accepts -pthread])
  corun_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -pthread"
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <pthread.h>]], [[pthread_self();]])],
    [AC_MSG_RESULT([yes]); PTHREAD_CFLAGS=-pthread],
    [AC_MSG_RESULT([no]); AC_MSG_ERROR([corun needs POSIX threads (-pthread)])])
  CFLAGS=$corun_save_CFLAGS
  AC_SUBST([PTHREAD_CFLAGS])
])
