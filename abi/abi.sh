#!/bin/sh
# The shared library's ABI against the dump kept in abi/libgridemst.abi,
# with libabigail's tools (Debian: abigail-tools).  Run by make:
#
#   make abi-check   fails when the library's ABI differs from the dump
#                    but for added functions: a removed or changed function,
#                    a changed type (also a struct grown by the rules of
#                    gridemst.h: record that on purpose with abi-dump)
#   make abi-dump    writes the library's ABI into abi/libgridemst.abi
#
# The dump is made from the shared library of a CPU-only build
# (./configure --without-cuda) with debug information (configure's default
# -g), its public types only: those of the headers in src/.  Needs
# top_builddir and top_srcdir in the environment.
set -u
mode=$1
dump=$top_srcdir/abi/libgridemst.abi

for tool in abidw abidiff; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "abi.sh: $tool not found (Debian: apt-get install abigail-tools)" >&2
        exit 2
    fi
done
# libtool names the shared library in dlname (empty when none was built)
dlname=$(sed -n "s/^dlname='\(.*\)'\$/\1/p" "$top_builddir/libgridemst.la")
if [ -z "$dlname" ]; then
    echo "abi.sh: no shared library was built (configure --enable-shared)" >&2
    exit 2
fi
objdir=$("$top_builddir/libtool" --config | sed -n 's/^objdir=//p')
lib=$top_builddir/$objdir/$dlname

case $mode in
dump)
    exec abidw --headers-dir "$top_srcdir/src" --headers-dir "$top_builddir/src" --drop-private-types \
        --no-corpus-path --no-comp-dir-path --short-locs --out-file "$dump" "$lib"
    ;;
check)
    # abidiff's status is a bit field: 1 error, 2 usage error, 4 an ABI
    # change, 8 an incompatible one; added functions are left out
    abidiff --no-added-syms --headers-dir2 "$top_srcdir/src" --headers-dir2 "$top_builddir/src" \
        --drop-private-types "$dump" "$lib"
    status=$?
    if [ "$status" -ne 0 ]; then
        echo "abi.sh: the ABI of $dlname differs from $dump (abidiff status $status)." >&2
        echo "abi.sh: if the change is meant, see the README (Developers) and run make abi-dump." >&2
        exit 1
    fi
    echo "abi.sh: the ABI of $dlname is that of $dump"
    exit 0
    ;;
*)
    echo "usage: abi.sh dump|check" >&2
    exit 2
    ;;
esac
