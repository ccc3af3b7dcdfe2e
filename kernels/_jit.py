"""Numba options shared by the compiled functions, declared once.

:data:`NO_NRT`: the options (``njit(..., **NO_NRT)``) that compile a function without
Numba's reference counting, for the functions that allocate nothing and keep no array
(the arrays come from the caller, which keeps them alive for the call). Compiled with
reference counting, such a function pays an atomic increment and decrement for every
array it is handed or takes a view of, which Numba's pruning leaves inside the loops
(docs/performance.md, "The vector env's step ... reference counts"). Numba's option for
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


#: ``njit`` keywords for a function compiled without reference counting: ``{"_nrt":
#: False}`` where this Numba takes the option, else ``{}`` (see the module docstring).
NO_NRT: dict = {"_nrt": False} if accepts_no_nrt() else {}
