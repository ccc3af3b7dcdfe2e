"""movecore.kernels: Numba kernels over flat arrays. No validation, no Python objects.

See ``reach.py`` for the array contract and ``_types.py`` for dtypes and sentinels.
"""
from ._types import *  # noqa: F401,F403
from .reach import field_query, gather_batch, reach_batch, reach_query  # noqa: F401
