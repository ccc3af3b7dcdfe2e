"""Numba options shared by the compiled functions, and the first build of a compiled
function made once (:func:`once`), declared once.

:data:`NO_NRT`: the options (``njit(..., **NO_NRT)``) that compile a function without
Numba's reference counting, for the functions that allocate nothing and keep no array
(the arrays come from the caller, which keeps them alive for the call). Compiled with
reference counting, such a function pays an atomic increment and decrement for every
array it is handed or takes a view of, which Numba's pruning leaves inside the loops
(docs/performance_log.md, "The vector env's step ... reference counts"). Numba's option for
it, ``_nrt``, is private: a Numba that drops it would refuse the keyword at compile time
(at import, for a function compiled eagerly), so it is asked for only where this Numba
takes it (:func:`accepts_no_nrt`); elsewhere the functions compile with reference
counting and give the same answers, slower. Numba itself refuses to compile a function
that needs reference counts with the option off, so the option cannot make a wrong build.

Numba's cache key of a compiled function (``Cache._index_key``) is its signature, the
CPU and hashes of its bytecode and closure, not its options: a build without ``_nrt``
and one with it are the same cache entry. A cache written by one Numba version is
discarded by another (the index stores the version), so the fallback, which only
another Numba takes, never loads a build of the other kind; a process that changes
:data:`NO_NRT` under one Numba (a test) must use a cache folder of its own to compile
the other kind.
"""
from __future__ import annotations

import functools
import os
import threading


def accepts_no_nrt() -> bool:
    """True when this Numba's CPU target takes the ``_nrt`` option and ``_nrt=False``
    turns reference counting off: the options parsed as a dispatcher parses them at
    compile time (``TargetOptions.parse_as_flags``), compiling nothing (~40 us). Any
    failure of the probe (a renamed internal) answers False: the safe side."""
    try:
        from numba.core.compiler import Flags
        from numba.core.registry import CPUDispatcher
        options = CPUDispatcher.targetdescr.options
        on = options.parse_as_flags(Flags(), {})
        off = options.parse_as_flags(Flags(), {"_nrt": False})
        return on.nrt is True and off.nrt is False
    except Exception:   # pragma: no cover (a Numba without the option or its internals)
        return False


def __getattr__(name):
    # NO_NRT: ``njit`` keywords for a function compiled without reference counting,
    # ``{"_nrt": False}`` where this Numba takes the option, else ``{}`` (see the module
    # docstring). Probed at its first use (``from ._jit import NO_NRT`` in a module that
    # compiles), not at this module's import: :func:`once` alone imports no numba.
    if name == "NO_NRT":
        global NO_NRT
        NO_NRT = {"_nrt": False} if accepts_no_nrt() else {}
        return NO_NRT
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: [the lock] of every :func:`once` builder, so that a forked child gets fresh ones
_ONCE_LOCKS: list = []


def once(build):
    """``functools.cache`` for a builder of compiled functions (a function that makes
    Numba dispatchers, compiled or loaded from the cache on the spot), whose first call
    for some arguments is made by one thread: a thread asking while another builds waits
    for that build and gets what it made. ``functools.cache`` holds no lock while the
    function runs, so two threads' first calls at once (the pool threads of a batched
    call, two envs stepped on two threads) each made their own dispatchers and compiled
    or loaded them twice, and one was dropped. One reentrant lock per builder (a builder
    may call another, or itself for other arguments), taken on a first call only; later
    calls read a dict. ``built`` holds what was made, by arguments (tests)."""
    built: dict = {}
    lock = [threading.RLock()]

    @functools.wraps(build)
    def get(*args, **kw):
        key = args + ((_KW,) + tuple(sorted(kw.items())) if kw else ())
        try:
            return built[key]
        except KeyError:
            pass
        with lock[0]:
            if key not in built:
                built[key] = build(*args, **kw)
            return built[key]

    get.built = built
    _ONCE_LOCKS.append(lock)
    return get


_KW = object()      # (marks where a key's keyword arguments begin)


def _fresh_locks():
    # a thread of the parent may hold a lock at the fork, and no thread of the child
    # would ever release it
    for lock in _ONCE_LOCKS:
        lock[0] = threading.RLock()


os.register_at_fork(after_in_child=_fresh_locks)
