"""Dtypes, sentinels and bit flags shared by every kernel and the Python layer.

Declared once here (scipy.sparse.csgraph style) so that kernels, the public API and the
C ABI agree on what each array holds.
"""
from __future__ import annotations

import os

import numpy as np

#: Index, cost and id type of every kernel array.
INDEX = np.int32
COST = np.int32
#: Bit masks (provoke tokens, leaving-engagement sources): one bit per token.
MASK = np.uint64
#: Packed scalar parameters of a query.
PARAM = np.int64

#: "No cell", "no parent", "unreached".
NONE = -1
#: Terrain cost meaning "cannot be entered".
IMPASSABLE = -1

# Occupant codes (``occupant[N]``): a team id >= 0, or one of these.
OCC_EMPTY = -1
#: Neutral blocker (an engaged friend in Heroscape, a closed-off cell): nobody passes or ends.
OCC_WALL = -2

# Cell flag bits (board ``flags`` and per-query ``cell_flags``, uint8).
CELL_BLOCKED = np.uint8(1)   # cannot be entered
CELL_STOP = np.uint8(2)      # entering ends the move
CELL_NO_END = np.uint8(4)    # may be passed, never ended on

# Terrain rule flag bits (``terrain_rule[T, 1]``).
TERRAIN_STOP = 1             # entering this terrain ends the move

# Edge flag bits (``edges[N, K, 1]``).
EDGE_BLOCKED = 1             # the step u -> v through this side is not allowed
EDGE_STOP = 2                # crossing this side ends the move

# Occupancy semantics (params[P_ALLY] / params[P_ENEMY]).
PASS_NO_END = 0              # may pass through, may not end there
BLOCK = 1                    # may neither pass nor end
PASS_END = 2                 # may pass and end (e.g. an attack on entry)

# Layout of the packed ``params`` int64 vector of a query.
P_BUDGET = 0
P_TEAM = 1
P_ALLY = 2
P_ENEMY = 3
P_CLIMB_PER_LEVEL = 4
P_CLIMB_FLAT = 5
P_MAX_CLIMB = 6        # -1 = unlimited
P_LINK_MASK = 7        # bit k set: links of kind k may be used
P_N_PEN = 8            # penalty levels tracked (1 = penalties off)
P_LEAVE_WEIGHT = 9     # penalty per token left (popcount of leave[u] & ~leave[v])
P_CORNER_CUT = 10      # square8 only: 1 = diagonal past a blocked corner allowed
P_N_BUCKETS = 11       # ring size of the bucket queue (max step cost + 1, capped)
P_DESCEND_PER_LEVEL = 12  # extra cost per level dropped (0 in every game so far)
P_UNIT = 13            # 1 = every step costs exactly 1: the BFS kernel applies
P_HAS_OCC = 14         # 0 = no cell is occupied: the fast kernel skips occupancy tests
N_PARAMS = 16

# Kernel status codes (>= 0 is a count); the wrapper turns negatives into exceptions.
STATUS_OK = 0
STATUS_QUEUE_FULL = -1     # workspace heap too small: grow and retry
STATUS_ARENA_FULL = -2     # batch output arena too small: grow and retry

# Limits validated at the boundary so int32/int64 arithmetic in kernels cannot overflow.
MAX_CELLS = 1 << 24
MAX_COST = 1 << 20         # one terrain / link / edge cost
MAX_BUDGET = 1 << 28
MAX_HEIGHT = 1 << 14       # |height|
MAX_CLIMB_COST = 1 << 10   # climb_per_level, climb_flat
MAX_PENALTY_LEVELS = 64

#: numba on-disk cache; ``MOVECORE_NO_CACHE=1`` turns it off.
CACHE = os.environ.get("MOVECORE_NO_CACHE", "") in ("", "0")
