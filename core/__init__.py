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


def kernel_cache_dir() -> str:
    """The folder movecore's compiled Numba kernels are cached in (created on first use).

    ``$MOVECORE_CACHE`` if set (used as given), else
    ``${XDG_CACHE_HOME:-~/.cache}/movecore/<version>/numba``: a per-user folder outside the
    install tree, so ``pip install -e .`` (which rebuilds ``build/__editable__*``) and
    reinstalls of the same version keep the compiled kernels. ``NUMBA_CACHE_DIR``, when
    set, wins over both (numba's own setting, for every cached function of the process);
    ``MOVECORE_NO_CACHE=1`` turns the cache off. Each entry is checked against a digest of its
    source file, the kernels' and those of the movecore modules its module imports
    (:func:`_dependency_files`), so an edit recompiles what may hold the edited code. When the folder cannot
    be written, numba falls back to ``__pycache__`` beside the sources.

    >>> import movecore
    >>> movecore.kernel_cache_dir()                      # doctest: +SKIP
    '/home/me/.cache/movecore/0.1.0/numba'
    """
    numba_dir = _os.environ.get("NUMBA_CACHE_DIR", "")
    if numba_dir:
        return _os.path.abspath(numba_dir)
    own = _os.environ.get("MOVECORE_CACHE", "")
    if own:
        return _os.path.abspath(_os.path.expanduser(own))
    base = _os.environ.get("XDG_CACHE_HOME", "") or _os.path.join(
        _os.path.expanduser("~"), ".cache")
    return _os.path.join(_os.path.abspath(base), "movecore", __version__, "numba")


def _is_movecore_function(py_func) -> bool:
    mod = getattr(py_func, "__module__", None) or ""
    return mod == __name__ or mod.startswith(__name__ + ".")


#: module name -> (its global names scanned, the movecore modules they hold by name)
_DIRECT_DEPS: "dict[str, tuple[set, dict]]" = {}
_ALL: set = set()     # (as the names scanned: the module is imported, its list final)
#: (source file, the movecore modules its module depends on) -> the files of its stamp
_FILES: "dict[tuple, list]" = {}
#: the source files of movecore.kernels (listed once per process)
_KERNEL_FILES: "list[str] | None" = None


_PLAIN = frozenset((int, float, bool, str, bytes, tuple, list, dict, set, type(None)))


def _movecore_module_of(value):
    """The movecore module ``value`` is (a module) or was defined in (a function, a numba
    dispatcher, a class), or None."""
    if type(value) in _PLAIN:
        return None
    if isinstance(value, _types.ModuleType):
        name = value.__name__
    else:
        try:
            name = getattr(getattr(value, "py_func", value), "__module__", None)
        except Exception:       # an object whose attributes raise
            return None
    if not isinstance(name, str) or not name.startswith(__name__ + "."):
        return None     # (the package itself is the lazy loader: no compiled code)
    return _sys.modules.get(name)


def _direct_deps(glb: dict) -> dict:
    """The movecore modules (name -> module) a module's globals ``glb`` hold: imported
    modules, and the modules of the functions, dispatchers and classes it imported. A
    package's own submodules (attributes the import system sets on it) are left out: they
    are not what the package's code calls. Memoized by module; a module still executing
    (the one whose functions are being decorated) has only its new names scanned."""
    own = glb.get("__name__", "")
    seen, out = _DIRECT_DEPS.setdefault(own, (set(), {}))
    if seen is _ALL:
        return out
    new = glb.keys() - seen
    if new:
        sub = own + "." if glb.get("__path__") is not None else None
        for key in new:
            value = glb.get(key)
            mod = _movecore_module_of(value)
            if mod is not None and mod.__name__ != own and not (
                    sub and isinstance(value, _types.ModuleType) and
                    mod.__name__.startswith(sub)):
                out[mod.__name__] = mod
        seen.update(new)
    spec = glb.get("__spec__")
    if spec is not None and not getattr(spec, "_initializing", True):
        _DIRECT_DEPS[own] = (_ALL, out)           # imported: its globals are all there
    return out


def _dependency_files(glb: dict, own_file: str) -> "list[str]":
    """The source files a cached movecore function's compiled code may hold code of: every
    file of ``movecore/kernels`` (their constants and functions are baked into the code
    of most callers) and the files of the movecore modules its module's globals ``glb``
    hold at its decoration (:func:`_direct_deps`), closed over those modules' globals in
    turn, e.g. ``rl._vechs`` -> ``games.heroscape._bits`` -> ``kernels.reach``. Numba's
    stamp (a digest of the function's own file) misses them: a caller would load its old
    code after a callee's file changed. Over-approximates (a module imported for one
    Python helper counts whole); a constant imported by name from a module outside
    ``kernels`` that gives the importer nothing else is not seen, nor a module imported
    inside a function (the builders of compiled functions import at their module's level
    what those link: ``test_numba_cache.py::test_builders_links_are_in_their_stamps``)."""
    global _KERNEL_FILES
    if _KERNEL_FILES is None:
        kernels = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), "kernels")
        try:
            _KERNEL_FILES = [_os.path.join(kernels, n) for n in sorted(_os.listdir(kernels))
                             if n.endswith(".py")]
        except OSError:
            _KERNEL_FILES = []
    seen: set = set()
    todo = list(_direct_deps(glb).values())
    while todo:
        mod = todo.pop()
        if mod.__name__ not in seen:
            seen.add(mod.__name__)
            todo.extend(_direct_deps(vars(mod)).values())
    key = (own_file, frozenset(seen))
    out = _FILES.get(key)
    if out is None:
        files = {own_file, *_KERNEL_FILES}
        files.update(f for f in (getattr(_sys.modules.get(m), "__file__", None)
                                 for m in seen) if f)
        out = _FILES[key] = sorted(files)
    return out


#: source file -> the digest of its contents, read once per process
_DIGESTS: "dict[str, bytes]" = {}


def _files_digest(files) -> str:
    """A digest of the contents of ``files``: a reinstall that rewrites the
    same sources (new mtimes) keeps it. Each file is read once per process, as the code
    the process imported was (a missing file counts as empty)."""
    import hashlib
    h = hashlib.sha256()
    for path in files:
        digest = _DIGESTS.get(path)
        if digest is None:
            try:
                with open(path, "rb") as f:
                    digest = hashlib.sha256(f.read()).digest()
            except OSError:
                digest = b"-"
            _DIGESTS[path] = digest
        h.update(digest)
    return h.hexdigest()


def _install_cache_locator(numba) -> None:
    """Put movecore's cached functions (and only them) in :func:`kernel_cache_dir`: a numba
    cache locator, first after numba's ``NUMBA_CACHE_DIR`` one, that answers for functions
    whose module is ``movecore`` or below. And, first of all, one that stamps the entries
    of movecore's functions, wherever they go (that folder, ``NUMBA_CACHE_DIR``, numba's
    ``__pycache__`` fallback), with their dependency files too (:func:`_add_dependencies`).
    Works whether or not numba was imported first."""
    from numba.core import caching
    impl = getattr(caching, "CacheImpl", None) or getattr(caching, "_CacheImpl")
    classes = impl._locator_classes
    if any(getattr(c, "_movecore", False) for c in classes):
        return
    user = getattr(caching, "UserProvidedCacheLocator", None) or \
        getattr(caching, "_UserProvidedCacheLocator")

    class MovecoreCacheLocator(user):
        """Numba's user-provided-directory locator, with :func:`kernel_cache_dir` as the
        directory, for movecore's functions."""
        _movecore = True

        def __init__(self, py_func, py_file):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = _os.path.join(kernel_cache_dir(),
                                             self.get_suitable_cache_subpath(py_file))

        @classmethod
        def from_function(cls, py_func, py_file):
            if numba.config.CACHE_DIR or not _is_movecore_function(py_func):
                return None
            return super(user, cls).from_function(py_func, py_file)

    class MovecoreStamps:
        """For movecore's functions: the locator the next classes pick, its stamp with
        the dependency files added."""
        _movecore = True

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _is_movecore_function(py_func):
                return None
            for other in classes[classes.index(cls) + 1:]:
                locator = other.from_function(py_func, py_file)
                if locator is not None:
                    _add_dependencies(locator, py_func, py_file)
                    return locator
            return None

    at = classes.index(user) + 1 if user in classes else 0
    classes.insert(at, MovecoreCacheLocator)
    classes.insert(0, MovecoreStamps)


def _add_dependencies(locator, py_func, py_file) -> None:
    """Adds to ``locator``'s stamp (numba's: a digest of the function's own file) a digest
    of the files :func:`_dependency_files` lists: the entry also holds the code of the
    compiled functions it calls from other files (numba links them in), and a caller
    would load its old code after a callee's file changed."""
    own = locator.get_source_stamp

    def get_source_stamp():
        stamp = own()
        if getattr(_sys, "frozen", False):
            return stamp
        return stamp, _files_digest(_dependency_files(py_func.__globals__, py_file))

    locator.get_source_stamp = get_source_stamp


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
        _set_up_numba(numba)
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
    _set_up_numba(numba)
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
    **dict.fromkeys(("available_games", "register_game", "solve", "SolveResult", "End"),
                    "scenario"),
    **dict.fromkeys(("Moves", "Position", "position", "position_games"), "position"),
    "to_common": "tools.convert",
}
#: How the kernels were loaded in this process: None before, else {"seconds", "cold"}.
KERNELS_LOADED: "dict | None" = None
_KERNELS = __name__ + ".kernels.reach"


def _cache_dir_has_index(source: str) -> "bool | None":
    """Whether numba's cache for ``source`` (a kernel file) holds index files: False = a
    cold cache (the import compiles), None = cannot tell."""
    try:
        _import_numba()     # movecore's cache locator in place
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


#: Compiles a user waits for, measured on a quiet 2-core machine (cold cache, seconds;
#: the one-call steps' upper bounds on a host ~3x slower at compiling, 2026-11-29,
#: docs/performance_log.md "The soak tier"): the announcement's estimate. Keys: a module
#: (its import compiles eagerly: one line for the module) or a function's qualname
#: (compiled lazily, at its first use); matched by suffix of the dotted name.
_KERNELS_ESTIMATE = (20, 60)        # the import of movecore.kernels (module reach)
_COMPILE_ESTIMATES = {
    "kernels.reach_pen": (3, 8),                    # its import: sorted_pen_ends
    "kernels.reach.reach_batch": (2, 8),            # reach_many's batch, first use
    "kernels.reach.field_query": (1, 3),            # distance_field, first use
    "kernels.reach.gather_batch": (1, 3),           # reach_many's results, first use
    "reach_pen.kernel.reach_pen": (4, 13),          # the penalty kernel, first use
    "reach_plain_k": (2, 10),                       # a board kind's plain kernels
    "heroscape._jit": (6, 22),
    "heroscape._falls": (2, 6),
    "mage_knight": (1, 4),
    "descent": (1, 6),
    "dark_realms": (1, 4),
    "dark_realms._batch_enemy": (10, 45),           # the batched enemy AI, first use
    # the batched games' and vector envs' one-call steps (a game's whole move, inlined)
    "rl._vecgame.env_chunk": (15, 60),              # grid, Tiny Epic Tactics, Mage Knight
    "rl._vecgame.selfplay_step": (3, 15),
    "rl._vecdr_env": (10, 45),
    "rl._vechsenv": (10, 40),
    "rl._vecdescent_env": (8, 35),
    "rl._vecdr": (3, 12),
    "tools._selfplay_heroscape": (8, 35),
    "tools._selfplay_descent": (5, 25),
    "heroscape._batch_doubles": (8, 35),
    "descent._batch": (3, 15),
    "kernels.reach.prange_batch": (3, 15),          # reach_many's threaded batch
    "kernels._spin": (0, 1),                        # the pool's hand-off flags
}
_COMPILE_ESTIMATES_DEFAULT = (1, 10)
_GAMES = ("heroscape", "mage_knight", "descent", "dark_realms", "tiny_epic_tactics", "grid")


def _describe(name: str) -> "tuple[str, str]":
    """(what is compiled, about how long) for a dotted module or function name: the
    estimate of the longest key that is a run of its dotted parts (game modules match
    on a part that starts with the game's name)."""
    what = name.replace(".<locals>", "")
    parts = what.split(".")
    game = next((g for g in _GAMES if any(p.strip("_").startswith(g) for p in parts)), None)
    if game is not None:
        what = f"{what} ({game.replace('_', ' ').title()})"
    best = None
    for key, est in _COMPILE_ESTIMATES.items():
        ks = key.split(".")
        for i in range(1, len(parts)):
            if parts[i:i + len(ks)] == ks or (len(ks) == 1 and
                                             parts[i].strip("_").startswith(key)):
                if best is None or (len(ks), i) > best[0]:
                    best = ((len(ks), i), est)
    lo, hi = _COMPILE_ESTIMATES_DEFAULT if best is None else best[1]
    return what, f", about {lo}-{hi} s"


class _Compiles:
    """Says on stderr what numba compiles for movecore, before and after (the true time).

    A module of movecore whose import compiles (its kernels have explicit signatures) is
    one announcement; a function compiled lazily, on its first call, is its own. Loads
    from the cache say nothing. Installed as a numba ``numba:compile`` event listener
    and around the import of every movecore module (:class:`_ModuleLoader`)."""

    def __init__(self):
        self.groups: list = []      # [module name, announced at (perf_counter) or None]
        self.depth = 0
        self.lazy_t0 = 0.0

    def _why(self) -> str:
        if _os.environ.get("MOVECORE_NO_CACHE", "") not in ("", "0"):
            return "MOVECORE_NO_CACHE is set: every run compiles"
        return f"once; cached in {kernel_cache_dir()}"

    # module imports
    def enter(self, name: str, announced: bool = False) -> None:
        self.groups.append([name, _time.perf_counter() if announced else None])

    def leave(self) -> "float | None":
        name, t0 = self.groups.pop()
        if t0 is None:
            return None
        dt = _time.perf_counter() - t0
        if name != _KERNELS:        # (the kernels' loader reports its own)
            print(f"movecore: {_describe(name)[0]} compiled in {dt:.1f} s",
                  file=_sys.stderr, flush=True)
        return dt

    # numba events
    def on_start(self, event) -> None:
        self.depth += 1
        if self.depth != 1:
            return
        func = getattr(event.data.get("dispatcher"), "py_func", None)
        if func is None or not _is_movecore_function(func):
            return
        if self.groups:
            if all(t0 is None for _, t0 in self.groups):
                group = self.groups[-1]
                group[1] = _time.perf_counter()
                what, about = _describe(group[0])
                print(f"movecore: compiling {what} ({self._why()}){about} ...",
                      file=_sys.stderr, flush=True)
            return
        self.lazy_t0 = _time.perf_counter()
        what, about = _describe(f"{func.__module__}.{func.__qualname__}")
        print(f"movecore: compiling {what} at its first use ({self._why()}){about} ...",
              file=_sys.stderr, flush=True)

    def on_end(self, event) -> None:
        self.depth -= 1
        if self.depth != 0 or self.groups:
            return
        func = getattr(event.data.get("dispatcher"), "py_func", None)
        if func is None or not _is_movecore_function(func):
            return
        what = _describe(f"{func.__module__}.{func.__qualname__}")[0]
        print(f"movecore: {what} compiled in {_time.perf_counter() - self.lazy_t0:.1f} s",
              file=_sys.stderr, flush=True)


_COMPILES = _Compiles()


def _listen_to_compiles(numba) -> None:
    from numba.core import event
    if getattr(_listen_to_compiles, "done", False):
        return
    listener = type("MovecoreCompileListener", (event.Listener,), {
        "on_start": lambda self, ev: _COMPILES.on_start(ev),
        "on_end": lambda self, ev: _COMPILES.on_end(ev)})()
    event.register("numba:compile", listener)
    _listen_to_compiles.done = True


class _ModuleLoader:
    """Wraps the loader of a movecore module: the compiles its import does are announced
    as one (see :class:`_Compiles`). Everything else is the wrapped loader's."""

    def __init__(self, loader):
        self.loader = loader

    def __getattr__(self, name):
        return getattr(self.loader, name)

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        _COMPILES.enter(module.__name__)
        try:
            self.loader.exec_module(module)
        finally:
            _COMPILES.leave()


def _set_up_numba(numba) -> None:
    """What movecore needs of numba, whoever imports it first: fork-safe parallel kernels
    by default (under GNU OpenMP a process forked after a parallel region aborts, and
    fork is multiprocessing's default start on Linux; parallel regions are entered one at
    a time, see reach.reach_many, so workqueue's lack of thread safety does not matter;
    an explicit NUMBA_THREADING_LAYER wins), movecore's cache folder and the compile
    announcements."""
    if "NUMBA_THREADING_LAYER" not in _os.environ:
        numba.config.THREADING_LAYER = "forksafe"
    _install_cache_locator(numba)
    _listen_to_compiles(numba)


class _NumbaLoader(_ModuleLoader):
    """Wraps numba's loader: :func:`_set_up_numba` once it is imported."""

    def exec_module(self, module):
        self.loader.exec_module(module)
        _set_up_numba(module)


class _KernelLoader(_ModuleLoader):
    """Wraps the loader of ``movecore.kernels.reach`` (the shared kernels, compiled at
    its import): announces a cold compile on stderr before it starts and reports the
    true time after."""

    def exec_module(self, module):
        global KERNELS_LOADED
        _import_numba()
        no_cache = _os.environ.get("MOVECORE_NO_CACHE", "") not in ("", "0")
        source = module.__file__
        if no_cache:
            cold = True
        else:
            has = _cache_dir_has_index(source) if _os.path.exists(source) else None
            cold = None if has is None else not has
        if cold:
            lo, hi = _KERNELS_ESTIMATE
            print(f"movecore: compiling the kernels ({_COMPILES._why()}), about {lo} s to "
                  f"{hi // 60} min on 2 cores ...", file=_sys.stderr, flush=True)
        t0 = _time.perf_counter()
        _COMPILES.enter(module.__name__, announced=bool(cold))
        try:
            self.loader.exec_module(module)
        finally:
            compiled = _COMPILES.leave()
        dt = _time.perf_counter() - t0
        cold = bool(cold) or compiled is not None
        KERNELS_LOADED = {"seconds": dt, "cold": cold or dt > 5.0}
        if cold or dt > 5.0:
            print(f"movecore: kernels compiled in {dt:.1f} s", file=_sys.stderr, flush=True)


class _ModuleFinder:
    """Meta path finder for movecore's submodules and numba: wraps their loaders (the
    shared kernels' in :class:`_KernelLoader`, numba's in :class:`_NumbaLoader`, the
    others in :class:`_ModuleLoader`)."""

    @classmethod
    def find_spec(cls, fullname, path=None, target=None):
        if fullname == "numba":
            wrap = _NumbaLoader
        elif fullname == _KERNELS:
            wrap = _KernelLoader
        elif fullname.startswith(__name__ + "."):
            wrap = _ModuleLoader
        else:
            return None
        for finder in _sys.meta_path:
            if finder is cls or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = wrap(spec.loader)
        return spec


if _ModuleFinder not in _sys.meta_path:
    _sys.meta_path.insert(0, _ModuleFinder)
if "numba" in _sys.modules:     # imported before movecore
    _set_up_numba(_sys.modules["numba"])


class _Package(_types.ModuleType):
    """``movecore.reach`` and ``movecore.position`` are the functions, as they always were,
    even after their submodules load (the import system binds a submodule on its parent)."""

    def __setattr__(self, name, value):
        if isinstance(value, _types.ModuleType) and _LAZY.get(name) == name:
            return
        super().__setattr__(name, value)


#: submodules a user reaches as attributes after a plain ``import movecore``
#: (``mc.examples.load(name)``, ``mc.rl.env(...)``, ``mc.batch.BatchedGames``)
_SUBMODULES = ("examples", "batch", "rl", "errors", "vocabulary")


def __getattr__(name):
    if name in _SUBMODULES:
        return _importlib.import_module(f"{__name__}.{name}")
    sub = _LAZY.get(name)
    if sub is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_importlib.import_module(f"{__name__}.{sub}"), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY) | set(_SUBMODULES))


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
    "distance_field", "solve", "SolveResult", "End", "position", "position_games",
    "Position", "Moves",
    "IllegalMoveError", "register_game", "available_games", "warmup", "kernel_cache_dir",
    "MovecoreError", "ScenarioError", "UnknownGameError", "BoardError", "PlacementError",
    "QueryError", "LimitError", "CELL_BLOCKED", "CELL_STOP", "CELL_NO_END", "EDGE_BLOCKED",
    "EDGE_STOP", "OCC_EMPTY", "OCC_WALL", "DIRECTIONS", "GRID_KINDS", "to_common",
]
