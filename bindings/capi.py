"""Build ``libmovecore.so``, the C ABI of movecore, with cffi's embedding support.

``movecore capi build [DIR]`` (or :func:`build`) writes ``DIR/libmovecore.so`` and
``DIR/movecore.h``. The interface is declared once, in ``bindings/movecore.h``; the C
half (last error, version, starting Python) is ``bindings/movecore_capi.c``; the
Python half (every query) is :mod:`movecore.bindings._embed`.

The library embeds the Python that built it: it links ``libpythonX.Y.so`` (with an
rpath to it) and, when a plain C program calls it first, starts Python with the
building interpreter as ``sys.executable`` so that the same prefix, virtualenv and
site-packages are found. The build needs a C compiler, the Python headers and a shared
``libpython`` (see ``python3-config --ldflags --embed``).

Example::

    >>> from movecore.bindings.capi import build
    >>> so = build("build/capi")          # doctest: +SKIP
    >>> so.name                           # doctest: +SKIP
    'libmovecore.so'
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import sysconfig
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
HEADER = HERE / "movecore.h"
C_SOURCE = HERE / "movecore_capi.c"
MODULE = "_movecore_capi"
LIBRARY = "libmovecore.so"
DEFAULT_DIR = "build/capi"

#: The Python implementations behind the exported functions (see movecore_capi.c).
PY_FUNCTIONS = """
extern "Python" int32_t _mcpy_solve_json(const char *, char *, size_t, size_t *);
extern "Python" int32_t _mcpy_board_create(int32_t, const int32_t *, const int32_t *,
    const int32_t *, const uint8_t *, size_t, mc_board *);
extern "Python" int32_t _mcpy_board_free(mc_board);
extern "Python" int32_t _mcpy_board_cell_count(mc_board, size_t *);
extern "Python" int32_t _mcpy_board_find(mc_board, int32_t, int32_t, int32_t *);
extern "Python" int32_t _mcpy_board_set_occupants(mc_board, const int32_t *, size_t);
extern "Python" int32_t _mcpy_board_reach(mc_board, const mc_mover *, int32_t, int32_t,
    int32_t *, int32_t *, uint8_t *, int32_t *, size_t, size_t *);
extern "Python" int32_t _mcpy_board_path(mc_board, const mc_mover *, int32_t, int32_t,
    int32_t, int32_t *, size_t, size_t *);
extern "Python" int32_t _mcpy_board_reach_batch(mc_board, const mc_mover *,
    const int32_t *, const int32_t *, size_t, int64_t *, int32_t *, int32_t *, uint8_t *,
    size_t, size_t *);
void _mc_set_error(const char *msg);
"""

#: Run by the embedded Python once, when the library is first called. It must never
#: raise: if movecore cannot be imported, every call answers MC_E_INIT with the reason.
INIT_CODE = """
import sys, os
from {module} import ffi, lib
_MC_BUILD_PATH = {path!r}
try:
    import site
    for _p in _MC_BUILD_PATH:
        if _p not in sys.path and os.path.isdir(_p):
            if os.path.basename(_p) in ("site-packages", "dist-packages"):
                site.addsitedir(_p)     # also runs its .pth files (editable installs)
            else:
                sys.path.append(_p)
    from movecore.bindings import _embed
    _embed.install(ffi, lib)
except BaseException as _exc:
    import traceback
    _msg = ("movecore could not be loaded in the embedded Python " + sys.version.split()[0]
            + " (" + sys.executable + "): "
            + "".join(traceback.format_exception_only(type(_exc), _exc)).strip())
    def _attach(name, msg=_msg.encode("utf-8", "replace")):
        @ffi.def_extern(name=name, error=lib.MC_E_INIT)
        def _failed(*args):
            lib._mc_set_error(msg)
            return lib.MC_E_INIT
    for _name in {names!r}:
        _attach(_name)
"""


class CapiBuildError(RuntimeError):
    """The C library cannot be built here (no compiler, no shared libpython...)."""


def cdef_source() -> str:
    """The declarations of ``movecore.h`` between MC_CDEF_BEGIN and MC_CDEF_END."""
    text = HEADER.read_text()
    m = re.search(r"^/\* MC_CDEF_BEGIN[^\n]*\n(.*?)^/\* MC_CDEF_END", text, re.S | re.M)
    if not m:
        raise CapiBuildError(f"{HEADER} has no MC_CDEF_BEGIN ... MC_CDEF_END section")
    return m.group(1)


def py_function_names() -> list[str]:
    return re.findall(r"\b(_mcpy_\w+)\(", PY_FUNCTIONS)


def _c_string(text: str) -> str:
    """A C string literal for any text (octal escapes for everything unusual)."""
    out = []
    for b in text.encode("utf-8"):
        ch = chr(b)
        if 32 <= b < 127 and ch not in '"\\?':
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    return '"' + "".join(out) + '"'


def _python_link_args() -> tuple[list[str], list[str], list[str]]:
    """(library_dirs, libraries, extra_link_args) to link libpython with an rpath."""
    if sys.platform == "win32":  # pragma: no cover - Linux/macOS only
        raise CapiBuildError("building the C ABI on Windows is not supported yet")
    libdir = sysconfig.get_config_var("LIBDIR") or ""
    ldlibrary = sysconfig.get_config_var("LDLIBRARY") or ""
    if not sysconfig.get_config_var("Py_ENABLE_SHARED"):
        raise CapiBuildError(
            f"this Python ({sys.executable}) was built without a shared libpython "
            f"(Py_ENABLE_SHARED=0, LDLIBRARY={ldlibrary!r}); libmovecore.so embeds Python "
            f"and needs libpython{sysconfig.get_python_version()}.so. Use a Python "
            f"built with --enable-shared (distribution packages are; pyenv: "
            f"PYTHON_CONFIGURE_OPTS=--enable-shared pyenv install ...)")
    m = re.match(r"lib(python[\w.]+?)\.(so|dylib)", ldlibrary)
    libs = [m.group(1)] if m else []
    return [libdir], libs, [f"-Wl,-rpath,{libdir}"] if libdir else []


def make_ffibuilder():
    """The cffi builder of libmovecore (not compiled)."""
    try:
        import cffi
    except ImportError as exc:  # pragma: no cover - cffi is a dependency
        raise CapiBuildError("building the C ABI needs cffi (pip install cffi)") from exc
    import movecore

    ffibuilder = cffi.FFI()
    ffibuilder.cdef(cdef_source() + PY_FUNCTIONS)
    path = [p for p in sys.path if p and os.path.isabs(p) and os.path.isdir(p)]
    ffibuilder.embedding_init_code(INIT_CODE.format(module=MODULE, path=path,
                                                    names=py_function_names()))
    prefix = (f"#define MC_BUILD_EXECUTABLE {_c_string(sys.executable)}\n"
              f"#define MC_VERSION_STRING {_c_string(movecore.__version__)}\n")
    library_dirs, libraries, link_args = _python_link_args()
    ffibuilder.set_source(MODULE, prefix + C_SOURCE.read_text(),
                          include_dirs=[str(HERE)], library_dirs=library_dirs,
                          libraries=libraries, extra_link_args=link_args,
                          extra_compile_args=["-fvisibility=hidden", "-pthread"])
    return ffibuilder


def build(out_dir: str | os.PathLike = DEFAULT_DIR, *, verbose: bool = False) -> Path:
    """Build ``libmovecore.so`` into ``out_dir`` (created), copy ``movecore.h`` next to
    it, and return the library's path. Intermediate files go to a temporary folder inside
    ``out_dir`` that is removed afterwards; the outputs replace older ones atomically (a
    running host keeps the library it loaded).

    Raises :class:`CapiBuildError` when this Python cannot embed (no shared libpython,
    no compiler)."""
    out = Path(out_dir).resolve()
    out.mkdir(parents=True, exist_ok=True)
    ffibuilder = make_ffibuilder()
    tmp = Path(tempfile.mkdtemp(prefix=".capi-build-", dir=out))
    try:
        try:
            built = Path(ffibuilder.compile(tmpdir=str(tmp), target=LIBRARY,
                                            verbose=verbose))
        except Exception as exc:  # distutils CompileError / LinkError
            raise CapiBuildError(
                f"compiling libmovecore failed: {exc}. It needs a C compiler and the "
                f"Python headers ({sysconfig.get_paths()['include']}); check "
                f"`python3-config --includes` and `python3-config --ldflags --embed`"
            ) from exc
        lib = out / LIBRARY
        for src, dst in ((built, lib), (HEADER, out / HEADER.name)):
            staged = tmp / (dst.name + ".staged")
            shutil.copy2(src, staged)
            os.replace(staged, dst)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return lib


def main(argv: list[str] | None = None) -> int:
    """``movecore capi build [DIR]``: ``argv`` is what follows ``capi`` (e.g.
    ``["build", "out/"]``). Prints the library path; returns the exit status."""
    parser = argparse.ArgumentParser(prog="movecore capi",
                                     description="the C ABI of movecore")
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="write libmovecore.so and movecore.h into DIR")
    b.add_argument("dir", nargs="?", default=DEFAULT_DIR,
                   help=f"output folder (default: {DEFAULT_DIR})")
    b.add_argument("-v", "--verbose", action="store_true", help="show compiler commands")
    args = parser.parse_args(argv)
    try:
        lib = build(args.dir, verbose=args.verbose)
    except CapiBuildError as exc:
        print(f"movecore capi build: {exc}", file=sys.stderr)
        return 1
    print(lib)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())


def register(sub) -> None:
    """Add ``movecore capi build [DIR]`` to the movecore command line."""
    p = sub.add_parser("capi", help="build the C ABI (libmovecore.so + movecore.h)")
    p.add_argument("action", choices=["build"], help="what to do")
    p.add_argument("dir", nargs="?", default="build/capi",
                   help="output folder (default build/capi)")
    p.set_defaults(fn=lambda args: main([args.action, args.dir]))
