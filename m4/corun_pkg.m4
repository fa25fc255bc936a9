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

# CORUN_STATIC_HDF5
# -----------------
# Link HDF5 from its static archive when it has one (Debian's libhdf5-dev does) and the
# archive links with its own compressors alone: the shared library needs libcurl, for a
# remote-file driver corun never uses, and with it some 30 libraries of TLS, Kerberos and
# LDAP that every corun command then loaded at start (16 ms of 40). Linked from the archive,
# only the objects corun calls come in, and none of them calls curl. --disable-static-hdf5
# links the shared library; so does configure when the archive does not link.
AC_DEFUN([CORUN_STATIC_HDF5], [
  AC_ARG_ENABLE([static-hdf5],
    [AS_HELP_STRING([--disable-static-hdf5],
      [link HDF5's shared library even where its static archive links (the archive is the default: corun starts faster)])],
    [], [enable_static_hdf5=auto])
  corun_hdf5_linked=shared
  AS_IF([test "x$enable_static_hdf5" != xno], [
    corun_static_LIBS=`echo " $HDF5_LIBS " | sed 's/ -lhdf5 / -Wl,-Bstatic -lhdf5 -Wl,-Bdynamic -lsz -lz -ldl -lm /'`
    AC_MSG_CHECKING([whether HDF5 links from its static archive])
    corun_save_CFLAGS=$CFLAGS
    corun_save_LIBS=$LIBS
    CFLAGS="$CFLAGS $HDF5_CFLAGS"
    LIBS="$corun_static_LIBS $LIBS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <hdf5.h>]], [[
      hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dcpl = H5Pcreate(H5P_DATASET_CREATE);
      H5Pset_fapl_core(fapl, 1 << 20, 0);
      H5Pset_deflate(dcpl, 1);
      hid_t f = H5Fopen("x.h5", H5F_ACC_RDONLY, fapl);
      hid_t d = H5Dopen2(f, "x", H5P_DEFAULT);
      H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, 0);
      return H5Fclose(f) < 0 || H5Pclose(dcpl) < 0;]])],
      [AS_IF([test "x$corun_static_LIBS" != "x $HDF5_LIBS "],
        [corun_hdf5_linked=static; HDF5_LIBS=$corun_static_LIBS])])
    CFLAGS=$corun_save_CFLAGS
    LIBS=$corun_save_LIBS
    AC_MSG_RESULT([$corun_hdf5_linked])
    AS_IF([test "x$enable_static_hdf5" = xyes && test $corun_hdf5_linked = shared],
      [AC_MSG_ERROR([--enable-static-hdf5: HDF5's static archive does not link here (see config.log)])])
  ])
])
