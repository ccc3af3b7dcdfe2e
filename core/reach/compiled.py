"""The kernel entry points a game's own compiled code may call.

A game adapter runs the kernels through :mod:`movecore.reach` (``prepare``, ``reach``,
``reach_many``, :class:`movecore.Prepared`). A game whose batched step is itself a
Numba function (Dark Realms' enemy AI over a batch, Heroscape's two-space figures,
Descent's doors) cannot call Python from inside it: it calls these jitted functions
directly, on the packed blobs a :class:`movecore.Prepared` holds. This module is the
list of what such code may use; everything else under :mod:`movecore.kernels` stays the
engine's own (``tests/test_reach_tree_api.py`` checks that games import nothing else).

* ``reach1_plain`` / ``reach1_general``: one packed query (plain: every step's price is
  one, breadth-first; general: any price), ``(blob, occupant, qflags, zoc, params, buf,
  ends, query) -> n_ends or STATUS_* < 0``; ``is_plain(blob, qflags, zoc, params)`` says
  which one a query takes, ``fast_layout_size(n, nb)`` the workspace it needs and
  ``CTRL`` the control words at the workspace's start.
* ``reach1_ordered``: the same with the ends listed in a given order.
* ``H_HILLY``: the slot of a packed blob's header that says whether its board has more
  than one height (a game's own tables built from the blob, e.g. Heroscape's bit sets,
  skip the climb's price where it does not).
* ``penalty_kernel()``: the packed penalty (lexicographic) kernel, compiled on first use;
  ``pen_layout_size(n, n_pen, nb)`` and ``pen_out_offset(n, n_pen, nb)`` its workspace;
  ``pen_row_of(buf, n, v)`` the row of cell ``v`` among the last rows-mode query's ends
  (-1: not an end), read from the search's own stamps.
* ``penalty_steps_kernel()``: ``(pen_steps, reach_pen_steps)``, its rows mode over a
  table of the mover's steps made once per board and mover (the same rows, in the same
  order; for many queries on one board with per-query occupants, stops and leave masks).
* ``thread_pool(workers)``: the engine's shared pool of worker threads (``threads=``),
  a ``ThreadPoolExecutor``; ``hand_pool(workers)``: what a batched step hands its
  chunks to (``submit(fn, *args)``, then ``result()``): workers that spin for the next
  chunk before they sleep (``movecore.reach.HAND_OFF``).
"""
from __future__ import annotations

from ..kernels import reach_pen as _reach_pen
from ..kernels.reach import (CTRL, H_HILLY, fast_layout_size, is_plain,  # noqa: F401
                               reach1_general, reach1_ordered, reach1_plain)
from ..kernels.reach_pen import pen_layout_size, pen_out_offset, pen_row_of  # noqa: F401
from ._handoff import _thread_pool as thread_pool  # noqa: F401
from ._handoff import _hand_pool as hand_pool  # noqa: F401

__all__ = ["CTRL", "H_HILLY", "fast_layout_size", "is_plain", "reach1_general",
           "reach1_ordered",
           "reach1_plain", "pen_layout_size", "pen_out_offset", "pen_row_of",
           "penalty_kernel",
           "penalty_steps_kernel",
           "thread_pool", "hand_pool"]


def penalty_kernel():
    """The packed penalty kernel (a Numba dispatcher), compiled on its first use."""
    return _reach_pen.kernel()


def penalty_steps_kernel():
    """``(pen_steps, reach_pen_steps)`` (Numba dispatchers), compiled on their first use:
    see :func:`movecore.kernels.reach_pen.steps_kernel`."""
    return _reach_pen.steps_kernel()

