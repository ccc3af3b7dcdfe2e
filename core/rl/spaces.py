"""Fixed action spaces and observation tensors of the movement-only game (pure numpy).

Action space of a side (:class:`ActionLayout`): ``Discrete(F * P + 1 + F * S)``

* ``F`` figure slots: the side's figures at the start of the episode, in play order;
* ``P`` places per figure: the most actions any of the side's figures has (its board
  cells, or a multi-cell figure's placements: ``position.n_actions``); action
  ``slot * P + place`` moves the figure of ``slot`` to ``place`` (``place`` is the
  position's action id: ``position.action_coords(figure, [place])`` is where it ends);
* ``F * P``: **end turn** (the side's figures that have not moved this turn stay put);
* ``F * P + 1 + k * F + slot``: the figure's ``k``-th special action, one that is no
  move to a place (Descent: ``k`` = 0 is the glyph to town, allowed with ``town=True``).

A position's own action ids that are no place on the board (Descent's town id ``NS``)
are never legal as a place: their id inside a figure's block stays False in the mask.

Observation (:class:`BoardLayout`, :func:`encode`): ``float32[C, H, W]`` over the board's
bounding rectangle (for hex boards, the axial ``(q, r)`` rectangle: ``x`` = q, ``y`` = r;
cells outside the board are 0 in the validity plane), ``H`` rows of ``y``, ``W`` columns
of ``x``. Planes, in order:

====================  =========================================================
``valid``              1 on the board's cells
``terrain=<name>``     one plane per terrain present on the board (the game's word)
``level``              elevation / level, divided by the highest (0 on flat boards)
(game's static)        e.g. ``village`` (Tiny Epic Tactics), ``obstacle``/``trap``/
                       ``rift`` (Dark Realms), ``glyph`` (Descent)
``side:0..n-1``        the cells of each side's figures: side 0 is the observing
                       agent, then the other sides in turn order
``acting``             the cells of the figure that moves now (0 when the observer
                       is not the acting side)
``moved``              cells of the observing side's figures that moved this turn
``end``                1 on each legal end of the acting figure (the lead cell of a
                       placement); with ``end_cost`` (the end's cost / the most
                       cost among them, or 1) and ``end_stop`` (1 where the move
                       must stop there)
``turn``               turns played / the turn limit (on valid cells)
(game's dynamic)       e.g. ``provoke`` (grid tokens), ``engaged`` (Heroscape),
                       ``door_closed``/``door_open``
                       (Descent), ``night`` (Mage Knight), ``allowance`` (Dark
                       Realms: the rolled Move / 12)
====================  =========================================================

``encode`` is a function of arrays (figures' cells, sides, the acting figure's ends)
writing into a caller-supplied ``out``, so that it can be batched.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import LimitError, describe


# --------------------------------------------------------------------------- boards
def board_cells(game: str, pos) -> np.ndarray:
    """int64[N, 2]: the coordinates of the position's board cells (cell index order)."""
    if game == "descent":
        return np.asarray(pos.st.coords[:pos.st.ns], np.int64)
    return np.asarray(pos.board.coords, np.int64)


def _terrain_planes(game: str, pos) -> list:
    """[(name, float32[N])]: one plane per terrain present, named in the game's words
    (none in Dark Realms: its cells are marks, see :func:`_static_planes`)."""
    if game == "dark_realms":
        return []
    if game == "descent":
        t = pos.st.dungeon.terrain
        names = [t.get(tuple(c), "floor") for c in pos.st.coords[:pos.st.ns].tolist()]
    else:
        ids = np.asarray(pos.board.terrain)
        words = _terrain_words(game, pos)
        names = [words.get(int(i), str(int(i))) for i in ids.tolist()]
    out = []
    arr = np.array(names, dtype=object)
    for name in sorted(set(names), key=str):
        out.append((f"terrain={name}", (arr == name).astype(np.float32)))
    return out


def _terrain_words(game: str, pos) -> dict:
    """Terrain id -> word, where the game has words for its ids."""
    if game == "grid":   # the generic game: a terrain is its entry cost
        return {i: ("impassable" if c < 0 else f"cost{c}") for i, c in enumerate(pos.table)}
    if game in ("heroscape", "mage_knight", "tiny_epic_tactics"):
        import importlib
        for name in (f"movecore.games.{game}.rules", f"movecore.games.{game}"):
            try:
                words = importlib.import_module(name).TERRAINS
            except (ImportError, AttributeError):
                continue
            out = dict(enumerate(words))
            if game == "mage_knight":
                out[len(words)] = "city"
            return out
    return {}


def _static_planes(game: str, pos) -> list:
    """[(name, float32[N])]: terrain one-hot, level, the game's static marks."""
    planes = _terrain_planes(game, pos)
    if game == "descent":
        h = np.zeros(pos.st.ns, np.float32)
    else:
        h = np.asarray(pos.board.height, np.float32)
    top = float(np.abs(h).max()) if h.size else 0.0
    planes.append(("level", h / top if top > 0 else h * 0))
    if game == "tiny_epic_tactics":
        planes.append(("village", np.asarray(pos._village, np.float32)))
    elif game == "dark_realms":
        sc = pos.scene
        for name in ("obstacle", "trap", "rift"):
            planes.append((name, np.asarray(getattr(sc, name), np.float32)))
    elif game == "descent":
        g = np.zeros(pos.st.ns, np.float32)
        index = pos.st.index
        for at in getattr(pos.st.dungeon, "glyphs", {}) or {}:
            c = index.get(tuple(at), -1) if isinstance(index, dict) else -1
            if c is not None and 0 <= c < len(g):
                g[c] = 1
        planes.append(("glyph", g))
    return planes


#: the game's dynamic planes after the common ones, by name
GAME_PLANES = {"grid": ("provoke",), "tiny_epic_tactics": (), "heroscape": ("engaged",),
               "descent": ("door_closed", "door_open"), "mage_knight": ("night",),
               "dark_realms": ("allowance",)}
COMMON_DYNAMIC = ("acting", "moved", "end", "end_cost", "end_stop", "turn")


@dataclass
class BoardLayout:
    """Where each board cell lies in the observation, and the static planes of a
    scenario. ``hw[c]`` is cell ``c``'s flat index into ``H * W``."""

    game: str
    H: int
    W: int
    x0: int
    y0: int
    hw: np.ndarray                    # int64[N]
    static: np.ndarray                # float32[S, H * W]
    names: list                       # every plane's name, static first
    n_sides: int
    extra: dict = field(default_factory=dict)   # game's data for its dynamic planes

    @classmethod
    def of(cls, game: str, pos, n_sides: int) -> "BoardLayout":
        xy = board_cells(game, pos)
        x0, y0 = (int(v) for v in xy.min(axis=0))
        W, H = (int(v) + 1 for v in xy.max(axis=0) - (x0, y0))
        hw = (xy[:, 1] - y0) * W + (xy[:, 0] - x0)
        planes = [("valid", np.ones(len(xy), np.float32))] + _static_planes(game, pos)
        names = [n for n, _ in planes] + [f"side:{k}" for k in range(n_sides)] + \
            list(COMMON_DYNAMIC) + list(GAME_PLANES[game])
        check_observations((len(names), H, W))
        static = np.zeros((len(planes), H * W), np.float32)
        for k, (_, v) in enumerate(planes):
            static[k, hw] = v
        lay = cls(game, H, W, x0, y0, hw.astype(np.int64), static, names, n_sides)
        if game == "descent":
            # the squares on either side of each door
            idx = pos.st.index
            doors = []
            for d in pos.st.dungeon.doors:
                cells = sorted({idx[tuple(c)] for side in d.sides for c in side
                                if tuple(c) in idx})
                doors.append(hw[np.array(cells, np.int64)] if cells else
                             np.zeros(0, np.int64))
            lay.extra["doors"] = doors
        return lay

    @property
    def shape(self) -> tuple:
        return (len(self.names), self.H, self.W)

    def plane(self, name: str) -> int:
        return self.names.index(name)

    def coords_hw(self, xy: np.ndarray) -> np.ndarray:
        """Flat ``H * W`` index of board coordinates ``xy[..., 2]`` (-1 for (-1, -1)
        rows: no place)."""
        xy = np.asarray(xy, np.int64)
        out = (xy[..., 1] - self.y0) * self.W + (xy[..., 0] - self.x0)
        bad = (xy[..., 0] < self.x0) | (xy[..., 0] >= self.x0 + self.W) | \
            (xy[..., 1] < self.y0) | (xy[..., 1] >= self.y0 + self.H)
        return np.where(bad, -1, out)


#: the largest observation of one environment, in bytes (float32[C, H, W]: the board's
#: bounding rectangle, so a few cells far apart make a large one)
MAX_OBSERVATION_BYTES = 64 << 20
#: the largest observations of a whole batch of environments together, in bytes
MAX_BATCH_OBSERVATION_BYTES = 16 << 30


def check_observations(shape: tuple, num_envs: int = 1) -> None:
    """:class:`movecore.LimitError` when one observation of ``shape`` (C, H, W) is
    larger than :data:`MAX_OBSERVATION_BYTES`, or ``num_envs`` of them together larger
    than :data:`MAX_BATCH_OBSERVATION_BYTES` (checked before anything is allocated)."""
    one = 4 * int(np.prod(shape, dtype=object))
    if one > MAX_OBSERVATION_BYTES:
        raise LimitError(f"an observation float32{list(shape)} would take {one / 2**20:.0f} "
                         f"MiB, more than {MAX_OBSERVATION_BYTES >> 20} MiB (the board's "
                         f"bounding rectangle is too large)")
    if one * num_envs > MAX_BATCH_OBSERVATION_BYTES:
        raise LimitError(f"num_envs={describe(num_envs)} observations float32"
                         f"{list(shape)} would take more than "
                         f"{MAX_BATCH_OBSERVATION_BYTES >> 30} GiB together")


def encode(out: np.ndarray, static: np.ndarray, fig_hw: np.ndarray, fig_side: np.ndarray,
           n_sides: int, observer: int, acting: int, moved: np.ndarray, lead: np.ndarray,
           actions: np.ndarray, rows: np.ndarray, costs: np.ndarray, stop: np.ndarray,
           turn_frac: float, valid: np.ndarray) -> np.ndarray:
    """Write one observation's common planes into ``out`` (float32[C, H, W] or
    [C, H * W], C-contiguous); the game's own planes after them are zeroed. Arrays only
    (one compiled call), so that a batched caller runs it per game of a batch:

    * ``static``: float32[S, H*W], the scenario's planes (``BoardLayout.static``);
    * ``fig_hw``: int64[F, K], each figure's cells as flat ``H * W`` indices (-1 pads; a
      figure out of play: all -1); ``fig_side``: int64[F], its side (an index into the
      ``n_sides`` sides at the start); ``observer``: the observing side's index (its
      figures go to plane ``side:0``, side ``observer + k`` to ``side:k``, wrapping);
    * ``acting``: the acting figure's row in ``fig_hw`` (-1: the observer does not act;
      then ``moved`` and the ends are not drawn); ``moved``: int64[M] rows of the
      observer's figures that moved this turn;
    * the acting figure's legal ends: ``lead`` int64[A_f] (the lead cell of each of its
      action ids, -1 for no place), ``actions``, ``costs``, ``stop`` (its ``Moves``
      columns) and ``rows`` int64[R] (the rows that are moves of the game);
    * ``turn_frac``: turns played / the limit; ``valid``: float32[H*W].

    Returns ``out``.

    >>> import numpy as np
    >>> o = np.zeros((9, 1, 3), np.float32)
    >>> static = np.array([[1, 1, 1]], np.float32)          # valid only
    >>> fig_hw = np.array([[0], [2]]); fig_side = np.array([0, 1])
    >>> encode(o, static, fig_hw, fig_side, 2, 1, 1, np.zeros(0, np.int64),
    ...        np.array([-1, 1, 2]), np.array([2, 1], np.int32), np.array([0, 1]),
    ...        np.array([0, 1], np.int32), np.array([0, 0], np.int8), 0.5, static[0])[:, 0]
    array([[1. , 1. , 1. ],
           [0. , 0. , 1. ],
           [1. , 0. , 0. ],
           [0. , 0. , 1. ],
           [0. , 0. , 0. ],
           [0. , 1. , 1. ],
           [0. , 1. , 0. ],
           [0. , 0. , 0. ],
           [0.5, 0.5, 0.5]], dtype=float32)
    """
    from ._encode import encode_common
    o = out.reshape(out.shape[0], -1)
    c = np.ascontiguousarray
    encode_common(o, c(static, np.float32), c(fig_hw, np.int64), c(fig_side, np.int64),
                  n_sides, observer, acting, c(moved, np.int64), c(lead, np.int64),
                  c(actions, np.int32), c(rows, np.int64), c(costs, np.int32),
                  c(stop, np.int32), np.float32(turn_frac), c(valid, np.float32))
    return out


# --------------------------------------------------------------------------- actions
@dataclass
class ActionLayout:
    """The fixed action space of one side: figure ``slots``, ``P`` places each, end turn
    and the special actions (``specials``: their names, one id per slot each)."""

    side: object
    slots: list
    P: int
    specials: tuple = ()

    @property
    def end_turn(self) -> int:
        return len(self.slots) * self.P

    @property
    def n(self) -> int:
        return len(self.slots) * self.P + 1 + len(self.specials) * len(self.slots)

    def special(self, k: int, slot: int) -> int:
        return len(self.slots) * self.P + 1 + k * len(self.slots) + slot

    def decode(self, action: int) -> tuple:
        """``("move", slot, place)``, ``("end_turn",)`` or ``("special", name, slot)``."""
        n_move = len(self.slots) * self.P
        if action < n_move:
            return ("move", action // self.P, action % self.P)
        if action == n_move:
            return ("end_turn",)
        k, slot = divmod(action - n_move - 1, len(self.slots))
        return ("special", self.specials[k], slot)

    def names(self) -> list:
        """A word for every action id (for people: ``"knight@17"``, ``"end_turn"``)."""
        out = [f"{f}@{p}" for f in self.slots for p in range(self.P)]
        out.append("end_turn")
        out += [f"{f}:{s}" for s in self.specials for f in self.slots]
        return out
