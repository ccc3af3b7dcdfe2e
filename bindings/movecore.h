/*
 * movecore.h -- the C interface of movecore (libmovecore.so).
 *
 * This header is the one source of truth of the C ABI: `movecore capi build DIR`
 * compiles libmovecore.so against it (a mismatch is a compile error) and feeds the
 * part between MC_CDEF_BEGIN and MC_CDEF_END to cffi, so Python and C agree.
 *
 * Conventions
 *   - Every function that can fail returns an mc_status: MC_OK (0) or a negative code.
 *     It never aborts the host: NULL pointers, short buffers, unknown handles, bad JSON
 *     and bad sizes all return a negative status.
 *   - mc_last_error() then gives a message naming the bad value. The message is per
 *     host thread; every call clears it, a failing call sets it.
 *   - Buffers are owned by the caller and come with explicit lengths (in elements for
 *     arrays, in bytes for strings). A buffer that is too small gives MC_E_BUFFER and
 *     the size it needs; nothing else is written then.
 *   - Cells are numbered 0..n_cells-1 in the order the coordinates were given to
 *     mc_board_create; every cell argument and result is such an index.
 *   - Answers are exactly those of the Python API (movecore.solve, movecore.reach,
 *     movecore.reach_many, Reach.path): libmovecore runs movecore in an embedded Python.
 *   - Thread safety: every function may be called from any host thread; several threads
 *     may query the same board at once (the search itself runs without the Python GIL).
 *     Freeing a board while another thread queries it gives that query MC_E_HANDLE or
 *     its full answer, never a crash.
 */
#ifndef MOVECORE_H
#define MOVECORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* MC_CDEF_BEGIN (cffi reads from here to MC_CDEF_END: plain declarations only) */

#define MC_ABI_VERSION 1

/* Status of every call: 0 = ok, negative = error (see mc_last_error()). */
typedef enum mc_status {
    MC_OK = 0,
    MC_E_NULL = -1,        /* a required pointer is NULL */
    MC_E_BUFFER = -2,      /* an output buffer is too small; the needed size was reported */
    MC_E_HANDLE = -3,      /* unknown or already freed board handle */
    MC_E_JSON = -4,        /* the scenario text is not UTF-8 JSON */
    MC_E_SCENARIO = -5,    /* the scenario is malformed (movecore.ScenarioError) */
    MC_E_BOARD = -6,       /* inconsistent board (movecore.BoardError: duplicate cells...) */
    MC_E_PLACEMENT = -7,   /* a figure stands where it cannot (movecore.PlacementError) */
    MC_E_QUERY = -8,       /* impossible query: bad start, budget, end (QueryError) */
    MC_E_LIMIT = -9,       /* a number does not fit the kernels (movecore.LimitError) */
    MC_E_ARG = -10,        /* a bad argument or size: unknown grid kind, n_cells == 0... */
    MC_E_INIT = -11,       /* the embedded Python or movecore could not be started */
    MC_E_INTERNAL = -12    /* a bug in movecore: please report the message */
} mc_status;

/* Grid kinds of mc_board_create. Coordinates are axial (q, r) for hex, (x, y) else. */
typedef enum mc_grid {
    MC_GRID_HEX = 0,       /* 6 neighbours: E(1,0) NE(1,-1) NW(0,-1) W(-1,0) SW(-1,1) SE(0,1) */
    MC_GRID_SQUARE4 = 1,   /* 4 neighbours */
    MC_GRID_SQUARE8 = 2    /* 8 neighbours (diagonals cost like any step) */
} mc_grid;

/* Cell flag bits (mc_board_create `flags`). */
#define MC_CELL_BLOCKED 1  /* cannot be entered */
#define MC_CELL_STOP 2     /* entering ends the move */
#define MC_CELL_NO_END 4   /* may be passed, never ended on */

/* Occupant codes (mc_board_set_occupants): a team id >= 0, or one of these. */
#define MC_OCC_EMPTY -1
#define MC_OCC_WALL -2     /* neutral blocker: nobody passes or ends there */

/* How a mover treats cells occupied by its own team (allies) or other teams (enemies). */
typedef enum mc_occupancy {
    MC_PASS = 0,           /* may pass through, may not end there */
    MC_BLOCK = 1,          /* may neither pass nor end there */
    MC_PASS_END = 2        /* may pass and end there */
} mc_occupancy;

/* A board handle; 0 is never a valid handle, and handles are never reused. */
typedef uint64_t mc_board;

/* The moving figure. Fill it with mc_mover_init(), then change what differs.
 * Entering a cell costs its terrain cost (mc_board_create `cost`)
 *   + climb_per_level * levels climbed + climb_flat (if it climbs at all)
 *   + descend_per_level * levels dropped. */
typedef struct mc_mover {
    int32_t team;              /* >= 0; occupants of this team are allies (default 0) */
    int32_t allies;            /* mc_occupancy (default MC_PASS) */
    int32_t enemies;           /* mc_occupancy (default MC_BLOCK) */
    int32_t climb_per_level;   /* default 0 */
    int32_t climb_flat;        /* default 0 */
    int32_t max_climb;         /* most levels one step may climb; -1 = unlimited (default) */
    int32_t descend_per_level; /* default 0 */
    int32_t corner_cutting;    /* square8 only: 0 forbids a diagonal past a cell that cannot
                                  be entered or is off the board; default 1 */
} mc_mover;

/* movecore's version ("0.1.0"); a static string, never NULL. Does not start Python. */
const char *mc_version(void);

/* The message of the last failed call on this thread ("" if the last call succeeded).
 * Valid until this thread's next movecore call. Never NULL. */
const char *mc_last_error(void);

/* Fill *mover with the defaults listed in mc_mover (does nothing if mover is NULL). */
void mc_mover_init(mc_mover *mover);

/* Solve a scenario (the JSON scenario format, every game: it calls movecore.solve).
 * scenario: NUL-terminated UTF-8 JSON text.
 * out, out_len: buffer for the NUL-terminated JSON result, out_len in bytes.
 *   out == NULL: only report the size (then `needed` is required).
 * needed: if not NULL, receives the result size in bytes, terminating NUL included,
 *   also when the buffer is too small (MC_E_BUFFER; out then holds "" if out_len > 0).
 * Asking the size first and then solving the same text again solves it once. */
mc_status mc_solve_json(const char *scenario, char *out, size_t out_len, size_t *needed);

/* Create a board from flat arrays of n_cells entries (n_cells >= 1).
 * grid:   an mc_grid.
 * coords: 2 * n_cells values q0, r0, q1, r1, ... (unique cells).
 * cost:   entry cost of each cell, -1 = cannot be entered; NULL = every cell costs 1.
 * height: level of each cell; NULL = all 0.
 * flags:  MC_CELL_* bits of each cell; NULL = none.
 * *board receives the new handle (0 on failure). Free it with mc_board_free. */
mc_status mc_board_create(int32_t grid, const int32_t *coords, const int32_t *cost,
                          const int32_t *height, const uint8_t *flags, size_t n_cells,
                          mc_board *board);

/* Free a board. Freeing an unknown or already freed handle gives MC_E_HANDLE. */
mc_status mc_board_free(mc_board board);

/* Number of cells of a board. */
mc_status mc_board_cell_count(mc_board board, size_t *n_cells);

/* Index of the cell at (q, r), or -1 in *cell if there is no such cell (MC_OK). */
mc_status mc_board_find(mc_board board, int32_t q, int32_t r, int32_t *cell);

/* Set who stands where: n == n_cells values, each a team id >= 0, MC_OCC_EMPTY or
 * MC_OCC_WALL. occupant == NULL (with any n) empties the board. Later queries use it;
 * queries already running keep the occupants they started with. The start cell of a
 * query is always the mover itself, whatever stands there. */
mc_status mc_board_set_occupants(mc_board board, const int32_t *occupant, size_t n);

/* Every cell where a figure at `start` may end a move of at most `budget` (>= 0).
 * mover: NULL = the defaults of mc_mover_init.
 * Output, one entry per legal end (the start included at cost 0), cheapest first in
 * the order of movecore.reach:
 *   cells[i]   the end cell;
 *   costs[i]   the least cost to end there;
 *   stopped[i] 1 if that least-cost arrival had to stop there (stop cell), else 0;
 *              optional (NULL);
 *   parents[i] the previous cell on the path mc_board_path returns for cells[i], i.e. on
 *              one least-cost path; -1 for the start. Optional (NULL). A parent need not
 *              be an end itself (a cell of an ally may be passed, not ended on), so
 *              chaining parents is not a path: use mc_board_path for whole paths.
 * cap: the length of every given output array (n_cells always suffices).
 * n_ends: required; receives the number of ends (also on MC_E_BUFFER).
 * cells == NULL and costs == NULL: only report *n_ends. */
mc_status mc_board_reach(mc_board board, const mc_mover *mover, int32_t start,
                         int32_t budget, int32_t *cells, int32_t *costs, uint8_t *stopped,
                         int32_t *parents, size_t cap, size_t *n_ends);

/* The path of a least-cost move from `start` to the legal end `end` (as movecore's
 * Reach.path): path[0] == start, path[*length - 1] == end. MC_E_QUERY if `end` is not
 * a legal end of that move. path == NULL: only report *length (required). */
mc_status mc_board_path(mc_board board, const mc_mover *mover, int32_t start,
                        int32_t budget, int32_t end, int32_t *path, size_t cap,
                        size_t *length);

/* Many reach queries at once (run in parallel, as movecore.reach_many), one per
 * starts[i] with budgets[i], i < n_queries. CSR output: query i owns entries
 * offsets[i] .. offsets[i+1]-1 of cells / costs / stopped, in the order mc_board_reach
 * gives them. offsets has n_queries + 1 entries; cells, costs and stopped (optional)
 * have cap entries; *total (required) receives offsets[n_queries], also on MC_E_BUFFER.
 * offsets == NULL, cells == NULL and costs == NULL: only report *total (asking the size
 * first and then running the same batch computes it once). */
mc_status mc_board_reach_batch(mc_board board, const mc_mover *mover,
                               const int32_t *starts, const int32_t *budgets,
                               size_t n_queries, int64_t *offsets, int32_t *cells,
                               int32_t *costs, uint8_t *stopped, size_t cap,
                               size_t *total);

/* MC_CDEF_END */

#ifdef __cplusplus
}
#endif

#endif /* MOVECORE_H */
