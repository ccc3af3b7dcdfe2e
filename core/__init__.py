"""movecore: exact, fast movement generation for tabletop board games.

Layers (imports point down only, docs/architecture.md): ``movecore.tools`` (CLI, pictures,
bench, self-play) -> ``movecore.rl`` -> ``movecore.games.<game>`` (one package per game) ->
``movecore`` (Board, Mover, reach, solve, position) -> ``movecore.kernels`` (Numba kernels).

>>> import movecore as mc
>>> board = mc.Board.hex([(0, 0), (1, 0), (2, 0)])
>>> mc.reach(board, mc.Mover(), (0, 0), 1).costs.tolist()
[0, 1]

The public names load on first use (``import movecore`` alone compiles nothing, so
``movecore --help`` is instant). The first import of ``movecore.kernels`` compiles the
Numba kernels when the cache is cold, and says so on stderr before and after.
"""
import importlib as _importlib
import os as _os
import sys as _sys
import time as _time
import types as _types


def _import_numba():
    """``import numba``, without the ~0.3 s of ``scipy.linalg`` it imports only to learn
    whether BLAS is there (``numba.np.arraymath``, at the first compile or cache load),
    when SciPy is installed and neither is
    imported yet: placeholders answer that probe and are dropped at once, so numba imports
    the real module the first time it compiles linear algebra (``ensure_blas``).
    ``MOVECORE_NUMBA_SCIPY=1`` imports numba as is."""
    if "numba" in _sys.modules or "scipy.linalg" in _sys.modules or \
            _os.environ.get("MOVECORE_NUMBA_SCIPY", "") not in ("", "0"):
        import numba
        return numba
    import types
    names = ("scipy.linalg", "scipy.linalg.cython_blas")
    stubs = {name: types.ModuleType(name) for name in names}
    _sys.modules.update(stubs)
    try:
        import numba
        import numba.np.arraymath  # noqa: F401 (the probe, at its import)
    finally:
        for name, stub in stubs.items():
            if _sys.modules.get(name) is stub:
                del _sys.modules[name]
        scipy = _sys.modules.get("scipy")
        if scipy is not None and scipy.__dict__.get("linalg") is stubs["scipy.linalg"]:
            del scipy.linalg
    return numba


from .errors import (BoardError, IllegalMoveError, LimitError, MovecoreError,
                     PlacementError, QueryError, ScenarioError, UnknownGameError)

#: public name -> the submodule that defines it (imported on first use)
_LAZY = {
    **dict.fromkeys(("DIRECTIONS", "GRID_KINDS", "Board", "Link"), "board"),
    **dict.fromkeys(("CELL_BLOCKED", "CELL_NO_END", "CELL_STOP", "EDGE_BLOCKED",
                     "EDGE_STOP", "OCC_EMPTY", "OCC_WALL"), "kernels._types"),
    "Mover": "mover",
    **dict.fromkeys(("Prepared", "Reach", "ReachBatch", "distance_field", "prepare",
                     "reach", "reach_many", "warmup"), "reach"),
    **dict.fromkeys(("available_games", "register_game", "solve"), "scenario"),
    **dict.fromkeys(("Moves", "Position", "position", "position_games"), "position"),
    "to_common": "tools.convert",
}
#: How the kernels were loaded in this process: None before, else {"seconds", "cold"}.
KERNELS_LOADED: "dict | None" = None
_KERNELS = __name__ + ".kernels"


def _cache_dir_has_index(source: str) -> "bool | None":
    """Whether numba's cache for ``source`` (a kernel file) holds index files: False = a
    cold cache (the import compiles), None = cannot tell."""
    try:
        from numba.core import caching
        impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
        stem = _os.path.splitext(_os.path.basename(source))[0]
        for cls in impl._locator_classes:
            loc = cls.from_function(_cache_dir_has_index, source)  # any function
            if loc is not None:
                path = loc.get_cache_path()
                return any(n.startswith(stem + ".") and n.endswith(".nbi")
                           for n in _os.listdir(path))
    except Exception:  # numba internals moved: say nothing before, the time after
        return None
    return None


class _KernelLoader:
    """Wraps the ``movecore.kernels`` loader: sets the threading layer, announces a cold
    compile on stderr before it starts and reports the true time after."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        global KERNELS_LOADED
        numba = _import_numba()
        # Fork-safe parallel kernels by default: under GNU OpenMP a process forked after
        # a parallel region aborts (multiprocessing's default start on Linux). Parallel
        # regions are entered one at a time (see reach.reach_many), so workqueue's lack
        # of thread safety does not matter. An explicit NUMBA_THREADING_LAYER wins.
        if "NUMBA_THREADING_LAYER" not in _os.environ:
            numba.config.THREADING_LAYER = "forksafe"
        no_cache = _os.environ.get("MOVECORE_NO_CACHE", "") not in ("", "0")
        source = _os.path.join(_os.path.dirname(module.__file__), "reach.py")
        if no_cache:
            cold = True
        else:
            has = _cache_dir_has_index(source) if _os.path.exists(source) else None
            cold = None if has is None else not has
        if cold:
            why = ("MOVECORE_NO_CACHE is set: every run compiles" if no_cache else
                   "once; later runs load them from the numba cache")
            print(f"movecore: compiling the kernels ({why}), about 20 s to 1 min ...",
                  file=_sys.stderr, flush=True)
        t0 = _time.perf_counter()
        self.loader.exec_module(module)
        dt = _time.perf_counter() - t0
        KERNELS_LOADED = {"seconds": dt, "cold": bool(cold) or dt > 5.0}
        if cold or dt > 5.0:
            what = "compiled" if cold else "loaded (partly recompiled: a stale cache)"
            print(f"movecore: kernels {what} in {dt:.1f} s", file=_sys.stderr, flush=True)


class _KernelFinder:
    """Meta path finder for ``movecore.kernels`` only (removed once it has fired)."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname != _KERNELS:
            return None
        if cls in _sys.meta_path:
            _sys.meta_path.remove(cls)
        from importlib.util import find_spec
        spec = find_spec(fullname)
        if spec is not None and spec.loader is not None:
            spec.loader = _KernelLoader(spec.loader)
        return spec


if _KERNELS not in _sys.modules:
    _sys.meta_path.insert(0, _KernelFinder)


class _Package(_types.ModuleType):
    """``movecore.reach`` and ``movecore.position`` are the functions, as they always were,
    even after their submodules load (the import system binds a submodule on its parent)."""

    def __setattr__(self, name, value):
        if isinstance(value, _types.ModuleType) and _LAZY.get(name) == name:
            return
        super().__setattr__(name, value)


def __getattr__(name):
    sub = _LAZY.get(name)
    if sub is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{sub}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


_sys.modules[__name__].__class__ = _Package


def _version() -> str:
    """The installed distribution's version (pyproject.toml is the one place it is set)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("movecore")
    except PackageNotFoundError:  # pragma: no cover (a source tree not installed)
        return "0+unknown"


__version__ = _version()
__all__ = [
    "Board", "Link", "Mover", "Prepared", "Reach", "ReachBatch", "prepare", "reach",
    "reach_many",
    "distance_field", "solve", "position", "position_games", "Position", "Moves",
    "IllegalMoveError", "register_game", "available_games", "warmup",
    "MovecoreError", "ScenarioError", "UnknownGameError", "BoardError", "PlacementError",
    "QueryError", "LimitError", "CELL_BLOCKED", "CELL_STOP", "CELL_NO_END", "EDGE_BLOCKED",
    "EDGE_STOP", "OCC_EMPTY", "OCC_WALL", "DIRECTIONS", "GRID_KINDS", "to_common",
]
