"""movecore.kernels: Numba kernels over flat arrays. No validation, no Python objects.

See ``reach.py`` for the array contract and ``_types.py`` for dtypes and sentinels.
Importing this package loads neither numba nor a kernel (``_types`` is plain numpy): the
kernels of ``reach`` load (or compile) when that module is first imported, or when one of
its names is asked for here.
"""
from ._types import *  # noqa: F401,F403

_REACH_NAMES = ("field_query", "gather_batch", "reach_batch", "reach_query")


def __getattr__(name):
    if name in _REACH_NAMES:
        from . import reach
        return getattr(reach, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
