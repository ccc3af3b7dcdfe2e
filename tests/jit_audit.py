"""Numba's on-disk cache is safe for processes that compile at once on a cold cache only
when each cache index file (one per function qualname) gets a single entry. Numba's
``IndexDataCacheFile.save`` reads the index, names the data file after the entries it
found there (``<qualname>.1.nbc``, ``.2.nbc``...) and writes index and data without a
lock: two processes adding two entries to one index at once both take ``.1.nbc``, and
the index can then point one signature at the other's code (a wrong answer or a crash
at the next load). Processes writing the same entry write the same files.

:func:`shared_entries` lists the index files this process gave more than one entry:
a function compiled for two signatures (dtypes, int vs int64 scalars, C vs A layout,
readonly arrays...), or factory variants sharing a qualname (see
``kernels.reach._variant_jit``). ``tests/conftest.py`` checks it after every test
session; ``python tests/jit_audit.py`` runs the public API on the bundled examples and
lists every cached function's signatures (a dev tool)."""
from __future__ import annotations

import gc
import json
import sys


def cached_dispatchers(dispatchers=None) -> list:
    """Every live Numba dispatcher of movecore in this process that uses the on-disk
    cache (of ``dispatchers``, :func:`movecore_dispatchers`' list, where given). Garbage
    is collected first (a dropped dispatcher is not counted), and the heap's objects are
    told apart by their type alone: ``isinstance`` asks a weak proxy for its referent's
    class, and a dead one raises ReferenceError (numba's finalized LLVM modules stay in
    the JIT engine with a weak proxy of their code library, which dies with a dropped
    dispatcher's code)."""
    from numba.core.caching import NullCache
    return [d for d in (movecore_dispatchers() if dispatchers is None else dispatchers)
            if not isinstance(d._cache, NullCache)]


def movecore_dispatchers() -> list:
    """Every live Numba dispatcher of movecore in this process, cached or not (garbage
    collected first, told apart by type as :func:`cached_dispatchers` says)."""
    from numba.core.dispatcher import Dispatcher
    gc.collect()
    return [d for d in gc.get_objects() if issubclass(type(d), Dispatcher)
            and (getattr(d.py_func, "__module__", None) or "").startswith("movecore.")]


#: the turn helpers the compiled self-play steps share (``n_all_sides`` passed to each)
TURN_HELPERS = frozenset(f"movecore.rl._vecgame.{n}" for n in (
    "_n_sides", "_selfplay_next_actor", "_selfplay_restart"))


def name_of(d) -> str:
    """A dispatcher's function, by module and qualified name."""
    return f"{d.py_func.__module__}.{d.py_func.__qualname__}"


def literal_twins(dispatchers=None) -> dict:
    """{qualified name: [signatures]} of the movecore functions this process compiled
    for a signature and again for the same one but with a literal argument
    (``Literal[int](0)``, ``Literal[bool](True)``): a caller that passes a constant, or
    a variable that starts as one (``n = 0`` then ``n = max(n, ...)`` in a loop: Numba
    types the call with the literal before the loop's type settles), compiles the
    callee, and whatever it inlines, twice (the self-play steps' ``n_all_sides`` did).
    Only compiles are seen: a caller loaded from the cache compiles no callee."""
    from numba.core import types
    out: dict = {}
    for d in movecore_dispatchers() if dispatchers is None else dispatchers:
        sigs = list(d.signatures)
        plain = {tuple(types.unliteral(a) for a in sig) for sig in sigs}
        if len(plain) < len(sigs):
            out[name_of(d)] = [str(s) for s in sigs]
    return out


def index_entries(dispatchers=None) -> dict:
    """{cache index file: {entry key: signature}} over this process's compiled (or
    loaded) overloads of movecore's cached functions (of ``dispatchers`` where given)."""
    out: dict = {}
    for d in cached_dispatchers(dispatchers):
        cache = d._cache
        entries = out.setdefault(cache._cache_file._index_path, {})
        for sig in d.signatures:
            # numba's own key: the signature, the CPU, the bytecode and closure hashes
            entries[repr(cache._index_key(sig, d.targetctx.codegen()))] = str(sig)
    return out


def shared_entries(dispatchers=None) -> dict:
    """{index file: [signatures]} of the index files with more than one entry (over
    ``dispatchers``, :func:`movecore_dispatchers`' list, where given: a long session's
    heap takes seconds to walk)."""
    return {path: sorted(e.values()) for path, e in index_entries(dispatchers).items()
            if len(e) > 1}


def exercise(games: int = 3) -> None:
    """Solve every bundled example (live position too, where the game has one) and
    self-play each game a few turns with either policy."""
    import movecore as mc
    from movecore.tools.cli import example_paths
    from movecore.position import position_games
    from movecore.tools.selfplay import run_selfplay
    live = set(position_games())
    for path in example_paths():
        scenario = json.loads(path.read_text())
        mc.solve(scenario)
        if scenario["game"] in live and "query" in scenario:
            mc.position(scenario).solve(scenario["query"])
    for game in sorted(live):
        for policy in ("random", "greedy"):
            run_selfplay(game, games, policy=policy, max_turns=15)


if __name__ == "__main__":
    exercise()
    entries = index_entries()
    for path in sorted(entries):
        sigs = sorted(set(entries[path].values()))
        print(f"{len(entries[path])}  {path.rsplit('/', 1)[-1]}")
        for s in sigs:
            print(f"     {s}")
    bad = shared_entries()
    print(f"{len(entries)} cache index files, {len(bad)} with more than one entry")
    sys.exit(1 if bad else 0)
