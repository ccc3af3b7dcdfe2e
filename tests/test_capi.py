"""The C ABI (issue 9): libmovecore.so answers exactly what the Python API answers, from
a plain C program, from two host threads at once, and every error is a status.

The library is built once per session into a temporary folder (never into the repo).
C programs run with an empty environment (``env -i``), as a host outside Python would,
but for where the run keeps its compiled kernels (:data:`CLEAN_ENV`).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

import movecore as mc
from movecore.bindings import capi
from movecore.kernels import _types as T

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "bindings" / "examples"
BUNDLED = sorted((ROOT / "core" / "examples").glob("*.json"))
SKIRMISH = ROOT / "core" / "examples" / "capi_hex_skirmish.json"

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")

#: the host's environment: nothing but PATH, and where the test run keeps movecore's
#: compiled kernels (so the embedded Python loads what the run compiled: without them it
#: compiled the C ABI's kernels again into ``~/.cache``, ~25-30 CPU s on a cold cache)
CLEAN_ENV = {"PATH": "/usr/bin:/bin",
             **{k: os.environ[k] for k in ("MOVECORE_CACHE", "NUMBA_CACHE_DIR",
                                           "XDG_CACHE_HOME", "HOME") if k in os.environ}}


# ------------------------------------------------------------------ fixtures
@pytest.fixture(scope="module")
def capi_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("capi")
    lib = capi.build(out)
    assert lib == out / "libmovecore.so"
    return out


#: The loaded library stays loaded for the life of the process: it embeds the Python
#: module ``_movecore_capi`` (put in ``sys.modules`` on its first call), whose objects live
#: in the library's memory; unloading it (cffi closes a library whose ``lib`` object is
#: collected) would leave dangling modules that crash whoever walks ``sys.modules``
#: later (``inspect.getmodule``, as pytest does to show a failure).
_LOADED: list = []


@pytest.fixture(scope="module")
def C(capi_dir):
    """The library loaded into this process through its own header (cffi ABI mode)."""
    import cffi
    ffi = cffi.FFI()
    ffi.cdef(capi.cdef_source())
    lib = ffi.dlopen(str(capi_dir / "libmovecore.so"))
    _LOADED.append((ffi, lib))

    class Api:
        pass
    api = Api()
    api.ffi, api.lib = ffi, lib
    api.err = lambda: ffi.string(lib.mc_last_error()).decode()
    return api


def gcc(capi_dir: Path, source: Path, exe: Path, *extra: str) -> Path:
    # The one-line command of docs/c_api.md.
    cmd = ["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-o", str(exe), str(source),
           "-I", str(capi_dir), "-L", str(capi_dir), "-lmovecore",
           f"-Wl,-rpath,{capi_dir}", *extra]
    subprocess.run(cmd, check=True, capture_output=True, text=True)
    return exe


def run(cmd, env=CLEAN_ENV, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120, **kw)


# ------------------------------------------------------------------ build
def test_build_writes_library_and_header_only(capi_dir):
    assert sorted(p.name for p in capi_dir.iterdir()) == ["libmovecore.so", "movecore.h"]
    assert (capi_dir / "movecore.h").read_text() == capi.HEADER.read_text()
    if shutil.which("nm"):
        syms = run(["nm", "-D", "--defined-only", str(capi_dir / "libmovecore.so")]).stdout
        exported = {line.split()[-1] for line in syms.splitlines() if " T " in line}
        declared = set(re.findall(r"\b(mc_\w+)\(", capi.cdef_source()))
        assert {s for s in exported if s.startswith("mc_")} == declared
        assert not any(s.startswith("_mc") for s in exported)


def test_main_builds_into_dir_and_reports_path(tmp_path, capsys, monkeypatch):
    # the CLI entry: `movecore capi build DIR` -> capi.main(["build", DIR])
    calls = []
    monkeypatch.setattr(capi, "build", lambda d, verbose=False: calls.append(d) or
                        Path(d) / "libmovecore.so")
    assert capi.main(["build", str(tmp_path)]) == 0
    assert calls == [str(tmp_path)]
    assert capsys.readouterr().out.strip() == str(tmp_path / "libmovecore.so")


def test_header_is_plain_c_and_cffi_parsable(tmp_path):
    # every declaration of the cffi section is also valid C (compiled alone, C and C++)
    src = tmp_path / "h.c"
    src.write_text('#include "movecore.h"\nint main(void) { return MC_OK; }\n')
    subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-pedantic", "-I",
                    str(capi.HERE), "-fsyntax-only", str(src)], check=True)
    if shutil.which("g++"):
        subprocess.run(["g++", "-x", "c++", "-Wall", "-Werror", "-I", str(capi.HERE),
                        "-fsyntax-only", str(src)], check=True)
    import cffi
    cffi.FFI().cdef(capi.cdef_source())


# ------------------------------------------------------------------ the C example
def _solve_rows(scenario):
    out = []
    for e in mc.solve(scenario)["ends"]:
        came = tuple(e["path"][-2]) if len(e["path"]) > 1 else None
        out.append((tuple(e["at"]), e["cost"], int(e["stopped"]), came))
    return sorted(out)


def _example_rows(stdout):
    rows = []
    for line in stdout.splitlines():
        m = re.match(r"end (-?\d+) (-?\d+) cost (\d+) stopped ([01])"
                     r"(?: from (-?\d+) (-?\d+)| start)$", line)
        if m:
            g = [int(x) if x is not None else None for x in m.groups()]
            rows.append(((g[0], g[1]), g[2], g[3], None if g[4] is None else (g[4], g[5])))
    return rows


def test_c_example_compiles_runs_and_matches_solve(capi_dir, tmp_path):
    exe = gcc(capi_dir, EXAMPLES / "reach_example.c", tmp_path / "reach_example")
    res = run([str(exe), str(SKIRMISH)], cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    scenario = json.loads(SKIRMISH.read_text())
    rows = _example_rows(res.stdout)
    # the board-handle API on the example's board == movecore.solve on the scenario
    assert len(rows) > 5 and sorted(rows) == _solve_rows(scenario)
    assert f"movecore {mc.__version__}: 19 cells" in res.stdout
    assert f": {len(rows)} ends" in res.stdout
    # ... and mc_solve_json on the same scenario prints movecore.solve's answer
    assert json.loads(res.stdout.strip().splitlines()[-1]) == mc.solve(scenario)


def test_c_example_builds_with_its_makefile(capi_dir, tmp_path):
    if shutil.which("make") is None:
        pytest.skip("needs make")
    subprocess.run(["make", "-C", str(EXAMPLES), f"MOVECORE_DIR={capi_dir}",
                    f"OUT={tmp_path}"], check=True, capture_output=True)
    res = run([str(tmp_path / "reach_example")])
    assert res.returncode == 0 and "end 0 0 cost 0 stopped 0 start" in res.stdout


def test_two_host_threads_query_one_board(capi_dir, tmp_path):
    exe = gcc(capi_dir, ROOT / "tests" / "c" / "capi_threads.c", tmp_path / "threads",
              "-pthread")
    res = run([str(exe)])
    assert res.returncode == 0, res.stderr
    m = re.search(r"queries (\d+) mismatches (\d+) errors (\d+)", res.stdout)
    assert m, res.stdout + res.stderr
    queries, mismatches, errors = map(int, m.groups())
    assert queries == 2 * 6 * 24 + 6 * 24 and mismatches == 0 and errors == 0


def test_missing_movecore_is_a_status_not_a_crash(capi_dir, tmp_path):
    # The embedded Python cannot import movecore: every call answers MC_E_INIT.
    fake = tmp_path / "fake" / "movecore"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('movecore is broken here')\n")
    exe = gcc(capi_dir, EXAMPLES / "reach_example.c", tmp_path / "reach_example")
    res = run([str(exe)], env={**CLEAN_ENV, "PYTHONPATH": str(fake.parent)})
    assert res.returncode == 1
    assert "mc_board_create failed (status -11)" in res.stderr
    assert "movecore is broken here" in res.stderr


# ------------------------------------------------------------------ solve_json
def _solve_c(C, text: bytes):
    ffi, lib = C.ffi, C.lib
    needed = ffi.new("size_t *")
    st = lib.mc_solve_json(text, ffi.NULL, 0, needed)
    assert st == lib.MC_OK, C.err()
    out = ffi.new("char[]", needed[0])
    assert lib.mc_solve_json(text, out, needed[0], needed) == lib.MC_OK, C.err()
    assert len(ffi.string(out)) + 1 == needed[0]
    return json.loads(ffi.string(out))


@pytest.mark.parametrize("path", BUNDLED, ids=[p.name for p in BUNDLED])
def test_solve_json_answers_every_bundled_example_like_solve(C, path):
    try:
        want = mc.solve(json.loads(path.read_text()))
    except mc.MovecoreError as exc:   # an example solve() refuses: the same refusal
        size = C.ffi.new("size_t *")
        assert C.lib.mc_solve_json(path.read_bytes(), C.ffi.NULL, 0, size) < 0
        assert str(exc) in C.err()
        return
    assert _solve_c(C, path.read_bytes()) == want


def test_solve_json_buffers(C):
    ffi, lib = C.ffi, C.lib
    text = SKIRMISH.read_bytes()
    want = json.dumps(mc.solve(text.decode()), separators=(",", ":")).encode()
    needed = ffi.new("size_t *")
    short = ffi.new("char[]", len(want))       # one byte short (no room for the NUL)
    short[0] = b"x"
    assert lib.mc_solve_json(text, short, len(want), needed) == lib.MC_E_BUFFER
    assert needed[0] == len(want) + 1 and short[0] == b"\0"
    assert f"needs {len(want) + 1} bytes" in C.err()
    exact = ffi.new("char[]", len(want) + 1)
    assert lib.mc_solve_json(text, exact, len(want) + 1, ffi.NULL) == lib.MC_OK
    assert ffi.string(exact) == want and C.err() == ""


@pytest.mark.parametrize("text, status, words", [
    (b"{not json", "MC_E_JSON", "not valid JSON"),
    (b'{"game": "grid", "x": "\xff"}', "MC_E_JSON", "UTF-8"),
    (b"[" * 100000 + b"]" * 100000, "MC_E_JSON", "not valid JSON"),
    (b"[1, 2]", "MC_E_SCENARIO", "JSON object"),
    (b'{"game": "chess"}', "MC_E_SCENARIO", "unknown game"),
    (b'{"game": "grid", "board": {"grid": "hex", "cells": [{"at": [0, 0]}]}, '
     b'"figures": [{"id": "a", "at": [5, 5]}], "query": {"figure": "a", "budget": 1}}',
     "MC_E_PLACEMENT", "not on the board"),
    (b'{"game": "grid", "board": {"grid": "hex", "cells": [{"at": [0, 0]}, {"at": [0, 0]}]}, '
     b'"figures": [], "query": {"figure": "a", "budget": 1}}', "MC_E_BOARD", "0"),
    (b'{"game": "grid", "board": {"grid": "hex", "cells": [{"at": [0, 0]}]}, '
     b'"figures": [{"id": "a", "at": [0, 0]}], "query": {"figure": "a", "budget": 1e12}}',
     "MC_E_LIMIT", "budget"),
])
def test_solve_json_errors(C, text, status, words):
    ffi, lib = C.ffi, C.lib
    # Python refuses it too (the deep nesting escapes solve() as a RecursionError:
    # see the report; the C ABI maps it to MC_E_JSON)
    with pytest.raises((mc.MovecoreError, RecursionError)):
        mc.solve(text)
    needed = ffi.new("size_t *", 77)
    assert lib.mc_solve_json(text, ffi.NULL, 0, needed) == getattr(lib, status)
    assert words in C.err() and needed[0] == 77


def test_solve_json_null_pointers(C):
    ffi, lib = C.ffi, C.lib
    assert lib.mc_solve_json(ffi.NULL, ffi.NULL, 0, ffi.new("size_t *")) == lib.MC_E_NULL
    assert "scenario is NULL" in C.err()
    assert lib.mc_solve_json(b"{}", ffi.NULL, 0, ffi.NULL) == lib.MC_E_NULL
    assert "needed" in C.err()


def test_version_and_error_is_cleared_by_a_good_call(C):
    ffi, lib = C.ffi, C.lib
    assert ffi.string(lib.mc_version()).decode() == mc.__version__
    assert lib.mc_board_free(987654) == lib.MC_E_HANDLE and "987654" in C.err()
    assert lib.mc_solve_json(SKIRMISH.read_bytes(), ffi.NULL, 0,
                             ffi.new("size_t *")) == lib.MC_OK
    assert C.err() == ""


# ------------------------------------------------------------------ board handles
GRIDS = {"hex": 0, "square4": 1, "square8": 2}


def _random_board(rng, kind):
    w, h = rng.integers(3, 9, size=2)
    xy = [(x, y) for y in range(h) for x in range(w) if rng.random() < 0.85]
    if not xy:
        xy = [(0, 0)]
    n = len(xy)
    rng.shuffle(xy)
    cost = rng.choice([-1, 1, 1, 1, 2, 3, 0], size=n).astype(np.int32)
    height = rng.integers(0, 4, size=n).astype(np.int32)
    flags = rng.choice([0, 0, 0, 0, 1, 2, 4, 6], size=n).astype(np.uint8)
    occ = rng.choice([-1, -1, -1, -1, -1, 0, 1, 2, -2], size=n).astype(np.int32)
    coords = np.array(xy, np.int32)
    table = sorted(set(cost.tolist()))
    terrain = [table.index(c) for c in cost]
    if kind == "hex":
        board = mc.Board.hex(coords, terrain=terrain, height=height, flags=flags)
    else:
        board = mc.Board.square_cells(coords, neighbours=int(kind[-1]), terrain=terrain,
                                      elevation=height, flags=flags)
    return coords, cost, height, flags, occ, board, table


def _c_mover(C, rng):
    m = C.ffi.new("mc_mover *")
    C.lib.mc_mover_init(m)
    m.team = int(rng.integers(0, 3))
    m.allies, m.enemies = (int(x) for x in rng.integers(0, 3, size=2))
    m.climb_per_level = int(rng.integers(0, 3))
    m.climb_flat = int(rng.integers(0, 2))
    m.max_climb = int(rng.choice([-1, 0, 1, 2]))
    m.descend_per_level = int(rng.integers(0, 2))
    m.corner_cutting = int(rng.integers(0, 2))
    modes = ["pass", "block", "pass_end"]
    py = dict(team=m.team, allies=modes[m.allies], enemies=modes[m.enemies],
              climb_per_level=m.climb_per_level, climb_flat=m.climb_flat,
              max_climb=None if m.max_climb == -1 else m.max_climb,
              descend_per_level=m.descend_per_level, corner_cutting=bool(m.corner_cutting))
    return m, py


def _create(C, coords, cost=None, height=None, flags=None, grid=0):
    ffi, lib = C.ffi, C.lib
    handle = ffi.new("mc_board *")
    n = len(coords)
    arr = lambda a, t: ffi.NULL if a is None else ffi.from_buffer(t, np.ascontiguousarray(a))
    st = lib.mc_board_create(grid, arr(np.asarray(coords, np.int32), "int32_t[]"),
                             arr(cost, "int32_t[]"), arr(height, "int32_t[]"),
                             arr(flags, "uint8_t[]"), n, handle)
    assert st == lib.MC_OK, C.err()
    assert handle[0] > 0
    return handle[0]


def _reach_c(C, h, mover, start, budget, n_cells):
    ffi, lib = C.ffi, C.lib
    cells, costs = np.empty(n_cells, np.int32), np.empty(n_cells, np.int32)
    stopped, parents = np.empty(n_cells, np.uint8), np.empty(n_cells, np.int32)
    n = ffi.new("size_t *")
    st = lib.mc_board_reach(h, mover, start, budget, ffi.from_buffer("int32_t[]", cells),
                            ffi.from_buffer("int32_t[]", costs),
                            ffi.from_buffer("uint8_t[]", stopped),
                            ffi.from_buffer("int32_t[]", parents), n_cells, n)
    return st, cells[:n[0]], costs[:n[0]], stopped[:n[0]], parents[:n[0]]


@pytest.mark.parametrize("kind", ["hex", "square4", "square8"])
def test_board_reach_path_batch_equal_python_on_random_boards(C, kind):
    ffi, lib = C.ffi, C.lib
    rng = np.random.default_rng(GRIDS[kind] + 90)
    for trial in range(12):
        coords, cost, height, flags, occ, board, table = _random_board(rng, kind)
        n = len(coords)
        h = _create(C, coords, cost, height, flags, GRIDS[kind])
        occ_buf = ffi.from_buffer("int32_t[]", occ)
        assert lib.mc_board_set_occupants(h, occ_buf, n) == lib.MC_OK, C.err()
        count, at = ffi.new("size_t *"), ffi.new("int32_t *")
        assert lib.mc_board_cell_count(h, count) == lib.MC_OK and count[0] == n
        assert lib.mc_board_find(h, *coords[n // 2].tolist(), at) == 0 and at[0] == n // 2
        assert lib.mc_board_find(h, 99, 99, at) == 0 and at[0] == -1
        mover, py = _c_mover(C, rng)
        m = mc.Mover(terrain_cost=table, **py)
        starts = rng.integers(0, n, size=4).astype(np.int32)
        budgets = rng.integers(0, 9, size=4).astype(np.int32)
        for s, b in zip(starts.tolist(), budgets.tolist()):
            r = mc.reach(board, m, s, b, occupant=occ)
            st, cells, costs, stopped, parents = _reach_c(C, h, mover, s, b, n)
            assert st == lib.MC_OK, C.err()
            assert cells.tolist() == r.cells.tolist()
            assert costs.tolist() == r.costs.tolist()
            assert stopped.astype(bool).tolist() == r.stopped.tolist()
            for c, p in zip(cells.tolist(), parents.tolist()):
                path = r.path(c)
                assert p == (int(path[-2]) if len(path) > 1 else -1)
                buf = np.empty(n, np.int32)
                length = ffi.new("size_t *")
                assert lib.mc_board_path(h, mover, s, b, c, ffi.from_buffer("int32_t[]", buf),
                                         n, length) == lib.MC_OK, C.err()
                assert buf[:length[0]].tolist() == path.tolist()
        # batch == reach_many, size query first then the same batch
        rb = mc.reach_many(board, m, starts.tolist(), budgets.tolist(), occupant=occ)
        total = ffi.new("size_t *")
        sb, bb = ffi.from_buffer("int32_t[]", starts), ffi.from_buffer("int32_t[]", budgets)
        assert lib.mc_board_reach_batch(h, mover, sb, bb, 4, ffi.NULL, ffi.NULL, ffi.NULL,
                                        ffi.NULL, 0, total) == lib.MC_OK, C.err()
        assert total[0] == len(rb.cells)
        off = np.empty(5, np.int64)
        cells, costs, stopped = (np.empty(max(total[0], 1), t)
                                 for t in (np.int32, np.int32, np.uint8))
        assert lib.mc_board_reach_batch(
            h, mover, sb, bb, 4, ffi.from_buffer("int64_t[]", off),
            ffi.from_buffer("int32_t[]", cells), ffi.from_buffer("int32_t[]", costs),
            ffi.from_buffer("uint8_t[]", stopped), total[0], total) == lib.MC_OK, C.err()
        assert off.tolist() == rb.offsets.tolist()
        assert cells[:total[0]].tolist() == rb.cells.tolist()
        assert costs[:total[0]].tolist() == rb.costs.tolist()
        assert stopped[:total[0]].astype(bool).tolist() == rb.stopped.tolist()
        assert lib.mc_board_free(h) == lib.MC_OK


def test_null_mover_means_defaults_and_occupants_can_be_cleared(C):
    ffi, lib = C.ffi, C.lib
    coords = [(x, 0) for x in range(6)]
    h = _create(C, coords, cost=np.array([1, 2, 1, 1, 1, 1], np.int32),
                height=np.array([0, 0, 3, 0, 0, 0], np.int32), grid=1)
    board = mc.Board.square_cells(coords, terrain=[0, 1, 0, 0, 0, 0],
                                  elevation=[0, 0, 3, 0, 0, 0])
    occ = np.array([-1, -1, -1, 1, -1, -1], np.int32)
    defaults = ffi.new("mc_mover *")
    lib.mc_mover_init(defaults)
    assert (defaults.team, defaults.allies, defaults.enemies, defaults.max_climb,
            defaults.corner_cutting) == (0, lib.MC_PASS, lib.MC_BLOCK, -1, 1)
    for occupant in (occ, None):
        if occupant is None:
            assert lib.mc_board_set_occupants(h, ffi.NULL, 0) == lib.MC_OK
        else:
            assert lib.mc_board_set_occupants(h, ffi.from_buffer("int32_t[]", occ), 6) == 0
        r = mc.reach(board, mc.Mover(terrain_cost=[1, 2]), 0, 9, occupant=occupant)
        for mover in (ffi.NULL, defaults):
            st, cells, costs, _, _ = _reach_c(C, h, mover, 0, 9, 6)
            assert st == 0 and cells.tolist() == r.cells.tolist()
            assert costs.tolist() == r.costs.tolist()
    assert lib.mc_board_free(h) == lib.MC_OK


# ------------------------------------------------------------------ error paths
def _status(C, name):
    return getattr(C.lib, name)


def test_board_create_errors(C):
    ffi, lib = C.ffi, C.lib
    h = ffi.new("mc_board *", 5)
    xy = ffi.new("int32_t[]", [0, 0, 1, 0])
    cases = [
        (lambda: lib.mc_board_create(0, xy, ffi.NULL, ffi.NULL, ffi.NULL, 2, ffi.NULL),
         "MC_E_NULL", "board"),
        (lambda: lib.mc_board_create(0, ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, 2, h),
         "MC_E_NULL", "coords is NULL"),
        (lambda: lib.mc_board_create(0, xy, ffi.NULL, ffi.NULL, ffi.NULL, 0, h),
         "MC_E_ARG", "n_cells is 0"),
        (lambda: lib.mc_board_create(0, xy, ffi.NULL, ffi.NULL, ffi.NULL, 2 ** 40, h),
         "MC_E_LIMIT", "n_cells"),
        (lambda: lib.mc_board_create(0, xy, ffi.NULL, ffi.NULL, ffi.NULL, 2 ** 64 - 1, h),
         "MC_E_LIMIT", "n_cells"),
        (lambda: lib.mc_board_create(7, xy, ffi.NULL, ffi.NULL, ffi.NULL, 2, h),
         "MC_E_ARG", "grid is 7"),
        (lambda: lib.mc_board_create(-1, xy, ffi.NULL, ffi.NULL, ffi.NULL, 2, h),
         "MC_E_ARG", "grid is -1"),
        (lambda: lib.mc_board_create(0, ffi.new("int32_t[]", [0, 0, 0, 0]), ffi.NULL,
                                     ffi.NULL, ffi.NULL, 2, h), "MC_E_BOARD", "0"),
        (lambda: lib.mc_board_create(0, xy, ffi.new("int32_t[]", [1, -5]), ffi.NULL,
                                     ffi.NULL, 2, h), "MC_E_ARG", "cost[1] is -5"),
        (lambda: lib.mc_board_create(0, xy, ffi.new("int32_t[]", [1, 2 ** 30]), ffi.NULL,
                                     ffi.NULL, 2, h), "MC_E_LIMIT", "cost[1]"),
        (lambda: lib.mc_board_create(0, xy, ffi.NULL, ffi.new("int32_t[]", [0, 2 ** 30]),
                                     ffi.NULL, 2, h), "MC_E_LIMIT", "height"),
        (lambda: lib.mc_board_create(1, xy, ffi.NULL, ffi.NULL, ffi.new("uint8_t[]", [0, 8]),
                                     2, h), "MC_E_ARG", "flags[1] is 8"),
    ]
    for call, status, words in cases:
        h[0] = 5
        assert call() == _status(C, status), (status, C.err())
        assert words in C.err(), (status, C.err())
        if status != "MC_E_NULL" or "board" not in words:
            assert h[0] == 0       # no handle on failure


def test_unknown_and_freed_handles(C):
    ffi, lib = C.ffi, C.lib
    h = _create(C, [(0, 0), (1, 0)])
    assert lib.mc_board_free(h) == lib.MC_OK
    size, cell, buf = ffi.new("size_t *"), ffi.new("int32_t *"), ffi.new("int32_t[4]")
    one = ffi.new("int32_t[]", [0])
    for handle in (h, 0, 2 ** 64 - 1):
        for call in (
            lambda: lib.mc_board_free(handle),
            lambda: lib.mc_board_cell_count(handle, size),
            lambda: lib.mc_board_find(handle, 0, 0, cell),
            lambda: lib.mc_board_set_occupants(handle, ffi.NULL, 0),
            lambda: lib.mc_board_reach(handle, ffi.NULL, 0, 1, buf, buf, ffi.NULL,
                                       ffi.NULL, 4, size),
            lambda: lib.mc_board_path(handle, ffi.NULL, 0, 1, 0, buf, 4, size),
            lambda: lib.mc_board_reach_batch(handle, ffi.NULL, one, one, 1, ffi.NULL,
                                             ffi.NULL, ffi.NULL, ffi.NULL, 0, size),
        ):
            assert call() == lib.MC_E_HANDLE
            assert f"board handle {handle}" in C.err()


def test_query_errors(C):
    ffi, lib = C.ffi, C.lib
    h = _create(C, [(x, 0) for x in range(4)], grid=1)
    buf, size = ffi.new("int32_t[4]"), ffi.new("size_t *")
    big = ffi.new("int32_t[16]")
    mover = ffi.new("mc_mover *")

    def reach(start=0, budget=3, cells=buf, costs=buf, cap=4, n=size, m=ffi.NULL):
        return lib.mc_board_reach(h, m, start, budget, cells, costs, ffi.NULL, ffi.NULL,
                                  cap, n)

    def bad_mover(**fields):
        lib.mc_mover_init(mover)
        for k, v in fields.items():
            setattr(mover, k, v)
        return reach(m=mover)

    cases = [
        (lambda: reach(n=ffi.NULL), "MC_E_NULL", "n_ends is NULL"),
        (lambda: reach(costs=ffi.NULL), "MC_E_NULL", "costs is NULL"),
        (lambda: reach(cells=ffi.NULL), "MC_E_NULL", "cells is NULL"),
        (lambda: reach(start=4), "MC_E_QUERY", "start index 4"),
        (lambda: reach(start=-1), "MC_E_QUERY", "start index -1"),
        (lambda: reach(budget=-2), "MC_E_QUERY", "budget"),
        (lambda: reach(budget=2 ** 31 - 1), "MC_E_LIMIT", "budget"),
        (lambda: reach(cap=3), "MC_E_BUFFER", "cap 3 is too small: this reach has 4 ends"),
        (lambda: bad_mover(allies=5), "MC_E_ARG", "mover.allies is 5"),
        (lambda: bad_mover(enemies=-1), "MC_E_ARG", "mover.enemies is -1"),
        (lambda: bad_mover(max_climb=-2), "MC_E_ARG", "mover.max_climb is -2"),
        (lambda: bad_mover(corner_cutting=2), "MC_E_ARG", "mover.corner_cutting is 2"),
        (lambda: bad_mover(team=-1), "MC_E_ARG", "mover.team is -1"),
        (lambda: bad_mover(climb_per_level=99999), "MC_E_ARG", "climb_per_level"),
        (lambda: bad_mover(climb_flat=-1), "MC_E_ARG", "climb_flat"),
        (lambda: bad_mover(descend_per_level=-1), "MC_E_ARG", "descend_per_level"),
        (lambda: bad_mover(max_climb=2 ** 31 - 1), "MC_E_ARG", "max_climb"),
        (lambda: lib.mc_board_cell_count(h, ffi.NULL), "MC_E_NULL", "n_cells is NULL"),
        (lambda: lib.mc_board_find(h, 0, 0, ffi.NULL), "MC_E_NULL", "cell is NULL"),
        (lambda: lib.mc_board_set_occupants(h, buf, 3), "MC_E_ARG", "n is 3"),
        (lambda: lib.mc_board_set_occupants(h, ffi.new("int32_t[]", [0, -3, 0, 0]), 4),
         "MC_E_ARG", "occupant[1] is -3"),
        (lambda: lib.mc_board_path(h, ffi.NULL, 0, 1, 3, buf, 4, size), "MC_E_QUERY",
         "not a legal end"),
        (lambda: lib.mc_board_path(h, ffi.NULL, 0, 3, 3, buf, 2, size), "MC_E_BUFFER",
         "the path has 4 cells"),
        (lambda: lib.mc_board_path(h, ffi.NULL, 0, 3, 3, buf, 4, ffi.NULL), "MC_E_NULL",
         "length is NULL"),
        (lambda: lib.mc_board_path(h, ffi.NULL, 0, 3, 9, buf, 4, size), "MC_E_QUERY",
         "index 9"),
        (lambda: lib.mc_board_reach_batch(h, ffi.NULL, ffi.NULL, buf, 2, ffi.NULL, ffi.NULL,
                                          ffi.NULL, ffi.NULL, 0, size),
         "MC_E_NULL", "starts is NULL"),
        (lambda: lib.mc_board_reach_batch(h, ffi.NULL, buf, ffi.NULL, 2, ffi.NULL, ffi.NULL,
                                          ffi.NULL, ffi.NULL, 0, size),
         "MC_E_NULL", "budgets is NULL"),
        (lambda: lib.mc_board_reach_batch(h, ffi.NULL, buf, buf, 2, ffi.NULL, ffi.NULL,
                                          ffi.NULL, ffi.NULL, 0, ffi.NULL),
         "MC_E_NULL", "total is NULL"),
        (lambda: lib.mc_board_reach_batch(h, ffi.NULL, buf, buf, 2, ffi.NULL, big, big,
                                          ffi.NULL, 16, size), "MC_E_NULL", "offsets"),
        (lambda: lib.mc_board_reach_batch(h, ffi.NULL, ffi.new("int32_t[]", [0, 7]), buf, 2,
                                          ffi.NULL, ffi.NULL, ffi.NULL, ffi.NULL, 0, size),
         "MC_E_QUERY", "start index 7"),
        (lambda: lib.mc_board_reach_batch(h, ffi.NULL, buf, buf, 2 ** 40, ffi.NULL,
                                          ffi.NULL, ffi.NULL, ffi.NULL, 0, size),
         "MC_E_LIMIT", "n_queries"),
    ]
    for call, status, words in cases:
        assert call() == _status(C, status), (status, words, C.err())
        assert words in C.err(), (status, words, C.err())
    # a short buffer still reports the size it needs, and writes nothing
    assert reach(cap=3) == lib.MC_E_BUFFER and size[0] == 4
    both = ffi.new("int32_t[]", [0, 3])
    off = ffi.new("int64_t[3]")
    assert lib.mc_board_reach_batch(h, ffi.NULL, both, both, 2, off, buf, buf, ffi.NULL, 4,
                                    size) == lib.MC_E_BUFFER
    assert size[0] == 1 + 4 and "5 ends" in C.err() and list(off) == [0, 0, 0]
    # an empty batch is fine
    assert lib.mc_board_reach_batch(h, ffi.NULL, ffi.NULL, ffi.NULL, 0, off, buf, buf,
                                    ffi.NULL, 0, size) == lib.MC_OK and size[0] == 0
    assert off[0] == 0
    # the board still works after all that
    assert reach() == lib.MC_OK and size[0] == 4 and list(buf) == [0, 1, 2, 3]
    assert lib.mc_board_free(h) == lib.MC_OK
    assert lib.mc_board_free(h) == lib.MC_E_HANDLE


def test_status_codes_are_distinct_and_negative(C):
    names = [n for n in dir(C.lib) if n.startswith("MC_E_")]
    values = [getattr(C.lib, n) for n in names]
    assert len(names) >= 12 and len(set(values)) == len(values) and max(values) < 0
    assert C.lib.MC_OK == 0
    assert (C.lib.MC_CELL_BLOCKED, C.lib.MC_CELL_STOP, C.lib.MC_CELL_NO_END) == \
        (T.CELL_BLOCKED, T.CELL_STOP, T.CELL_NO_END)
    assert (C.lib.MC_OCC_EMPTY, C.lib.MC_OCC_WALL) == (T.OCC_EMPTY, T.OCC_WALL)
