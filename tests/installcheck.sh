#!/bin/sh
# make installcheck: builds tests/installed_user.c against the installed
# library as its users do, with pkg-config, and runs it, linked to the shared
# library and to the static one (each when installed).
#
# Run by Makefile.am's installcheck-local with top_builddir, top_srcdir, CC,
# CFLAGS, PKG_CONFIG, libdir and DESTDIR set (tests/testlib.sh says the rest).

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

src=$top_srcdir/tests/installed_user.c
lib=$DESTDIR${libdir:?libdir is set by make installcheck}
PKG_CONFIG_PATH=$lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
if [ -n "$DESTDIR" ]; then
    # pkg-config puts it before the -I and -L paths of gridemst.pc
    PKG_CONFIG_SYSROOT_DIR=$DESTDIR
    export PKG_CONFIG_SYSROOT_DIR
fi

if ! pc_cflags=$($PKG_CONFIG --cflags gridemst); then
    echo "FAIL: $PKG_CONFIG finds no gridemst.pc in $lib/pkgconfig"
    exit 1
fi

# libtool's record of the installed library: dlname names the shared
# library, old_library the static one (empty when not built).
la_field() {
    sed -n "s/^$1='\(.*\)'\$/\1/p" "$lib/libgridemst.la"
}

# build_and_run NAME LDFLAGS...: builds the program as $tmp/NAME with the
# installed header and LDFLAGS (then -lm for the program's own sqrt), and
# runs it.  The program must build without warnings: the installed header is
# clean C11.
build_and_run() {
    name=$1
    shift
    # CFLAGS and pc_cflags hold several flags each.
    # shellcheck disable=SC2086
    if ! $CC $CFLAGS -std=c11 -pedantic -Wall -Wextra -Werror $pc_cflags -o "$tmp/$name" "$src" "$@" -lm \
        >"$tmp/cc.log" 2>&1; then
        fail "$name: cannot build $src against the installed library:"
        cat "$tmp/cc.log"
    elif ! LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$tmp/$name"; then
        fail "$name: the program built against the installed library fails"
    else
        echo "ok: $name"
    fi
}

if [ -n "$(la_field dlname)" ]; then
    # shellcheck disable=SC2046
    build_and_run shared $($PKG_CONFIG --libs gridemst)
else
    echo "note: no shared library installed"
fi

static=$(la_field old_library)
if [ -n "$static" ]; then
    # -l:FILE (GNU ld) takes the archive even where the shared library lies
    # beside it; Libs.private must bring everything the archive needs.
    libs=$($PKG_CONFIG --static --libs gridemst | sed "s/\(^\| \)-lgridemst\( \|\$\)/\1-l:$static\2/")
    case " $libs " in
    *" -l:$static "*)
        # shellcheck disable=SC2086
        build_and_run static $libs
        ;;
    *) fail "static: no -lgridemst in $PKG_CONFIG --static --libs gridemst: $libs" ;;
    esac
else
    echo "note: no static library installed"
fi

finish
