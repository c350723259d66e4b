#!/bin/sh
# The shared library exports exactly the functions gridemst.h declares
# (GRIDEMST_API): no internal function and no OpenMP lock (tests/testlib.sh
# says how it is run; NM is configure's nm).  Skipped in a build without a
# shared library (--disable-shared).

# shellcheck source=tests/testlib.sh
. "$(dirname "$0")/testlib.sh"

# libtool names the shared library in dlname (empty when none was built) and
# keeps it in its objdir.
dlname=$(sed -n "s/^dlname='\(.*\)'\$/\1/p" "$top_builddir/libgridemst.la")
if [ -z "$dlname" ]; then
    echo "SKIP: no shared library was built"
    exit 77
fi
objdir=$("$top_builddir/libtool" --config | sed -n 's/^objdir=//p')
lib=$top_builddir/$objdir/$dlname

# NM may carry options ("nm -B"): it is split on purpose.
# shellcheck disable=SC2086
if ! ${NM:-nm} -D --defined-only "$lib" >"$tmp/nm"; then
    echo "ERROR: ${NM:-nm} cannot read $lib"
    exit 99
fi
# "address type name", where a versioned name ends in @VERSION or @@VERSION.
awk 'NF >= 3 { sub(/@.*/, "", $3); print $3 }' "$tmp/nm" | sort -u >"$tmp/exported"

# Each declaration starts with GRIDEMST_API and names its function before
# the first parenthesis.
grep '^GRIDEMST_API' "$top_srcdir/src/gridemst.h" | sed 's/(.*//; s/.*[ *]//' | sort -u >"$tmp/api"
if [ ! -s "$tmp/api" ]; then
    echo "ERROR: no GRIDEMST_API declaration found in $top_srcdir/src/gridemst.h"
    exit 99
fi

for name in $(comm -23 "$tmp/exported" "$tmp/api"); do
    fail "$dlname exports $name, which gridemst.h does not declare"
done
for name in $(comm -13 "$tmp/exported" "$tmp/api"); do
    fail "$dlname does not export $name, declared in gridemst.h"
done

finish
