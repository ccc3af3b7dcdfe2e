/*
 * The C half of libmovecore.so (compiled by movecore.bindings.capi.build, after cffi's
 * own prologue, which includes Python.h). It owns what must work even when Python does
 * not: the per-thread last-error string, the version, the mover defaults, and starting
 * the embedded Python with the interpreter that built the library (so that its
 * site-packages, virtualenv included, are found from a plain C program). Everything
 * else is forwarded to the Python side, movecore/bindings/_embed.py.
 *
 * The builder defines before this file:
 *   MC_BUILD_EXECUTABLE  the building interpreter (sys.executable), a C string
 *   MC_VERSION_STRING    movecore.__version__, a C string
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include "movecore.h"

#define MC_EXPORT __attribute__((visibility("default")))
#define MC_HIDDEN __attribute__((visibility("hidden")))

/* Implemented in Python (extern "Python" in the cdef; bodies attached by _embed.py). */
static int32_t _mcpy_solve_json(const char *, char *, size_t, size_t *);
static int32_t _mcpy_board_create(int32_t, const int32_t *, const int32_t *,
                                  const int32_t *, const uint8_t *, size_t, mc_board *);
static int32_t _mcpy_board_free(mc_board);
static int32_t _mcpy_board_cell_count(mc_board, size_t *);
static int32_t _mcpy_board_find(mc_board, int32_t, int32_t, int32_t *);
static int32_t _mcpy_board_set_occupants(mc_board, const int32_t *, size_t);
static int32_t _mcpy_board_reach(mc_board, const mc_mover *, int32_t, int32_t, int32_t *,
                                 int32_t *, uint8_t *, int32_t *, size_t, size_t *);
static int32_t _mcpy_board_path(mc_board, const mc_mover *, int32_t, int32_t, int32_t,
                                int32_t *, size_t, size_t *);
static int32_t _mcpy_board_reach_batch(mc_board, const mc_mover *, const int32_t *,
                                       const int32_t *, size_t, int64_t *, int32_t *,
                                       int32_t *, uint8_t *, size_t, size_t *);

/* ------------------------------------------------------------------ last error */
static __thread char mc_error[4096];

MC_HIDDEN void _mc_set_error(const char *msg)
{
    snprintf(mc_error, sizeof mc_error, "%s", msg ? msg : "");
}

MC_EXPORT const char *mc_last_error(void) { return mc_error; }

MC_EXPORT const char *mc_version(void) { return MC_VERSION_STRING; }

MC_EXPORT void mc_mover_init(mc_mover *mover)
{
    if (mover == NULL)
        return;
    mover->team = 0;
    mover->allies = MC_PASS;
    mover->enemies = MC_BLOCK;
    mover->climb_per_level = 0;
    mover->climb_flat = 0;
    mover->max_climb = -1;
    mover->descend_per_level = 0;
    mover->corner_cutting = 1;
}

/* ------------------------------------------------------------------ embedded Python */
static pthread_once_t mc_once = PTHREAD_ONCE_INIT;
static int mc_init_failed = 0;
static char mc_init_error[1024];

/* Start Python as the interpreter that built the library would start: same executable,
 * hence same prefix, virtualenv and site-packages. Does nothing when the host already
 * runs Python (the library was loaded from Python). */
static void mc_start_python(void)
{
    PyStatus status;
    PyConfig config;

    if (Py_IsInitialized())
        return;
    PyConfig_InitPythonConfig(&config);
    config.install_signal_handlers = 0;  /* the host owns its signals */
    config.parse_argv = 0;
    status = PyConfig_SetBytesString(&config, &config.program_name, MC_BUILD_EXECUTABLE);
    if (!PyStatus_Exception(status))
        status = PyConfig_SetBytesString(&config, &config.executable, MC_BUILD_EXECUTABLE);
    if (!PyStatus_Exception(status))
        status = Py_InitializeFromConfig(&config);
    PyConfig_Clear(&config);
    if (PyStatus_Exception(status)) {
        snprintf(mc_init_error, sizeof mc_init_error,
                 "the embedded Python (%s) could not start: %s", MC_BUILD_EXECUTABLE,
                 status.err_msg ? status.err_msg : "unknown error");
        mc_init_failed = 1;
        return;
    }
    PyEval_SaveThread();  /* release the GIL: every call takes it back (cffi) */
}

static int mc_enter(void)
{
    mc_error[0] = '\0';
    pthread_once(&mc_once, mc_start_python);
    if (mc_init_failed) {
        _mc_set_error(mc_init_error);
        return 0;
    }
    if (cffi_start_python() != 0) {
        _mc_set_error("the embedded Python started but cffi could not set up "
                      "libmovecore (is cffi installed for " MC_BUILD_EXECUTABLE "?); "
                      "details were printed on stderr");
        return 0;
    }
    return 1;
}

#define MC_CALL(expr) do { if (!mc_enter()) return MC_E_INIT; \
                           return (mc_status)(expr); } while (0)

/* ------------------------------------------------------------------ the API */
MC_EXPORT mc_status mc_solve_json(const char *scenario, char *out, size_t out_len,
                                  size_t *needed)
{
    MC_CALL(_mcpy_solve_json(scenario, out, out_len, needed));
}

MC_EXPORT mc_status mc_board_create(int32_t grid, const int32_t *coords,
                                    const int32_t *cost, const int32_t *height,
                                    const uint8_t *flags, size_t n_cells, mc_board *board)
{
    MC_CALL(_mcpy_board_create(grid, coords, cost, height, flags, n_cells, board));
}

MC_EXPORT mc_status mc_board_free(mc_board board)
{
    MC_CALL(_mcpy_board_free(board));
}

MC_EXPORT mc_status mc_board_cell_count(mc_board board, size_t *n_cells)
{
    MC_CALL(_mcpy_board_cell_count(board, n_cells));
}

MC_EXPORT mc_status mc_board_find(mc_board board, int32_t q, int32_t r, int32_t *cell)
{
    MC_CALL(_mcpy_board_find(board, q, r, cell));
}

MC_EXPORT mc_status mc_board_set_occupants(mc_board board, const int32_t *occupant,
                                           size_t n)
{
    MC_CALL(_mcpy_board_set_occupants(board, occupant, n));
}

MC_EXPORT mc_status mc_board_reach(mc_board board, const mc_mover *mover, int32_t start,
                                   int32_t budget, int32_t *cells, int32_t *costs,
                                   uint8_t *stopped, int32_t *parents, size_t cap,
                                   size_t *n_ends)
{
    MC_CALL(_mcpy_board_reach(board, mover, start, budget, cells, costs, stopped, parents,
                              cap, n_ends));
}

MC_EXPORT mc_status mc_board_path(mc_board board, const mc_mover *mover, int32_t start,
                                  int32_t budget, int32_t end, int32_t *path, size_t cap,
                                  size_t *length)
{
    MC_CALL(_mcpy_board_path(board, mover, start, budget, end, path, cap, length));
}

MC_EXPORT mc_status mc_board_reach_batch(mc_board board, const mc_mover *mover,
                                         const int32_t *starts, const int32_t *budgets,
                                         size_t n_queries, int64_t *offsets,
                                         int32_t *cells, int32_t *costs, uint8_t *stopped,
                                         size_t cap, size_t *total)
{
    MC_CALL(_mcpy_board_reach_batch(board, mover, starts, budgets, n_queries, offsets,
                                    cells, costs, stopped, cap, total));
}
