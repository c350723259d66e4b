"""Builds gridemst._gridemst against the installed gridemst library.

pkg-config finds the library (`make install` puts gridemst.pc under
PREFIX/lib/pkgconfig; set PKG_CONFIG_PATH for a prefix pkg-config does not
search).  The extension records the library's directory as its run path,
so that it loads the copy it was built against.  The package's version is
the library's.
"""
import os
import shlex
import subprocess

import numpy
from setuptools import Extension, setup


def pkg_config(*options):
    command = [os.environ.get("PKG_CONFIG", "pkg-config"), *options, "gridemst"]
    try:
        done = subprocess.run(command, check=True, capture_output=True, text=True)
    except FileNotFoundError:
        raise SystemExit("gridemst: pkg-config not found (Debian: apt-get install pkg-config)")
    except subprocess.CalledProcessError as e:
        raise SystemExit(
            "gridemst: pkg-config does not find the gridemst library (%s). Build and install it first "
            "(./configure --prefix=PREFIX && make install) and, for a PREFIX other than /usr or /usr/local, "
            "set PKG_CONFIG_PATH=PREFIX/lib/pkgconfig" % e.stderr.strip())
    return shlex.split(done.stdout)


def without(prefix, flags):
    return [f[len(prefix):] for f in flags if f.startswith(prefix)]


library_dirs = without("-L", pkg_config("--libs-only-L"))
include_dirs = without("-I", pkg_config("--cflags-only-I"))
# a newer gridemst.h (another version of the library) rebuilds the extension
headers = [os.path.join(d, "gridemst.h") for d in include_dirs if os.path.exists(os.path.join(d, "gridemst.h"))]

extension = Extension(
    "gridemst._gridemst",
    sources=["ext/module.c", "ext/library.c", "ext/dlpack.c"],
    depends=["ext/library.h", "ext/dlpack.h"] + headers,
    include_dirs=include_dirs + [numpy.get_include()],
    library_dirs=library_dirs,
    runtime_library_dirs=library_dirs,
    libraries=without("-l", pkg_config("--libs-only-l")),
    extra_compile_args=pkg_config("--cflags-only-other") + ["-std=c11"],
    extra_link_args=pkg_config("--libs-only-other"),
)

setup(version=pkg_config("--modversion")[0], packages=["gridemst"], package_dir={"": "src"}, ext_modules=[extension])
