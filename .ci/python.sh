#!/usr/bin/env bash
# The Python package as the README's Python section installs it: the library
# built and installed into a prefix, the package installed from python/ into
# a virtual environment against it (found through pkg-config), and its tests.
#
#   bash .ci/python.sh [configure options]      (default: --without-cuda)
#
# It configures in build/python, so the source tree must be unconfigured
# (make distclean).  PYTHON names the interpreter.  Where a GPU is present,
# a CUDA build (configure options other than --without-cuda) runs the GPU
# tests too.
set -euo pipefail
cd "$(dirname "$0")/.."
top=$PWD
build=$top/build/python
prefix=$build/prefix
[ $# -gt 0 ] || set -- --without-cuda
# Debian's interpreter, the one its python3-numpy and the like serve (a
# python3 found first in PATH may be another)
python=${PYTHON:-/usr/bin/python3}

mkdir -p "$build"
(cd "$build" && ../../configure --prefix="$prefix" "$@" >/dev/null && make -j"$(nproc)" install >/dev/null)

rm -rf "$build/venv"
"$python" -m venv --system-site-packages "$build/venv"
PKG_CONFIG_PATH=$prefix/lib/pkgconfig "$build/venv/bin/pip" install --no-build-isolation "$top/python"

# from the build directory, so that nothing but the installed package imports
cd "$build" && "$build/venv/bin/python" -m pytest -q "$top/python/tests"
