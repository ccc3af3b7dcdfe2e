"""The command line a newcomer meets first: help without compiling, a cold compile that
says so, negative coordinates, bundled examples by name, readable output."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from movecore import scenario as mc_scenario
from movecore.tools import cli

ROOT = Path(__file__).resolve().parent.parent

#: runs ``python -m movecore ARGS`` in this fresh process, then prints the loaded kernel
#: modules (and numba: importing it is most of the cost of loading them)
PROBE = """
import json, runpy, sys
sys.argv = ["movecore", *json.loads(sys.argv[1])]
try:
    runpy.run_module("movecore", run_name="__main__", alter_sys=True)
    rc = 0
except SystemExit as exc:
    rc = exc.code
print(json.dumps({"rc": rc, "kernels": sorted(m for m in sys.modules
                  if m.startswith("movecore.kernels") or m.startswith("movecore.games")
                  or m == "movecore.reach" or m.split(".")[0] in ("numba", "llvmlite"))}))
"""

#: every subcommand movecore lists (a new one must be added here)
SUBCOMMANDS = ("solve", "games", "examples", "demo", "render", "bench", "selfplay", "capi",
               "schema", "convert")


def _probe(args, **env):
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(args)], capture_output=True,
                         text=True, env=dict(os.environ, **env), timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1]), out


def test_the_probe_lists_every_subcommand():
    assert set(SUBCOMMANDS) == {"solve", "games", "examples", *cli._COMMAND_MODULES}


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["nosuch"], [],
                                  *([cmd, "--help"] for cmd in SUBCOMMANDS),
                                  *([cmd, "--no-such-flag"] for cmd in SUBCOMMANDS),
                                  ["solve"], ["render"], ["capi"], ["schema"], ["convert"],
                                  ["bench", "--queries", "many"],
                                  ["selfplay", "--games", "many"],
                                  ["solve", "no_such_file.json"], ["solve", "BAD_FILE"],
                                  ["solve", "NOT_A_SCENARIO"]])
def test_help_and_argument_errors_load_no_kernels(args, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('[{"game": "grid"}]')
    args = [{"BAD_FILE": str(bad), "NOT_A_SCENARIO": str(wrong)}.get(a, a) for a in args]
    # an empty numba cache: any kernel import would compile (and be listed)
    res, out = _probe(args, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    assert res["kernels"] == [], (args, res)
    assert "compiling" not in out.stderr
    assert res["rc"] in (0, 2), out.stderr


def test_public_names_still_resolve_lazily():
    code = ("import movecore as mc, movecore.reach, movecore.position, sys\n"
            "assert callable(mc.reach) and callable(mc.position), (mc.reach, mc.position)\n"
            "from movecore import Board, Mover, solve, CELL_STOP, Moves\n"
            "assert set(mc.__all__) <= set(dir(mc))\n"
            "b = mc.Board.hex([(0, 0), (1, 0)])\n"
            "print(mc.reach(b, mc.Mover(), (0, 0), 1).costs.tolist())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[0, 1]"


def test_cold_cache_is_detected_without_compiling(tmp_path):
    """An empty cache directory reads as cold; the worktree's warm cache as warm."""
    code = ("import movecore, os, sys\n"
            "import importlib.util\n"
            "src = importlib.util.find_spec('movecore.kernels').submodule_search_locations[0]"
            " + '/reach.py'\n"
            "print(movecore._cache_dir_has_index(src))\n"
            "print('movecore.kernels.reach' in sys.modules)")
    cold = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)))
    assert cold.stdout.split() == ["False", "False"], cold.stderr
    import movecore.kernels.reach  # noqa: F401  (the test process has loaded them: warm now)
    warm = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert warm.stdout.split() == ["True", "False"], warm.stderr


@pytest.mark.slow
def test_cold_compile_says_so_before_and_the_true_time_after(tmp_path):
    """A cold MOVECORE_CACHE: the compile is announced, its true time reported, the kernels
    land in that folder (outside the install tree, which `pip install -e .` rebuilds) and
    the next process loads them from there without a word."""
    code = "import movecore as mc; mc.reach(mc.Board.hex([(0, 0)]), mc.Mover(), 0, 1)"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["MOVECORE_CACHE"] = str(tmp_path)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert lines[0].startswith("movecore: compiling the kernels (once;"), lines
    assert str(tmp_path) in lines[0], lines
    assert any(ln.startswith("movecore: kernels compiled in ") for ln in lines[1:]), lines
    assert any(p.name.startswith("reach.") for p in tmp_path.rglob("*.nbi"))
    again = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           env=env)
    assert "compil" not in again.stderr, again.stderr


def test_negative_coordinates_after_to():
    assert cli._join_negative_coords(["solve", "f.json", "--to", "-4,8", "--text"]) == \
        ["solve", "f.json", "--to=-4,8", "--text"]
    assert cli._join_negative_coords(["--to", "3,-1"]) == ["--to=3,-1"]
    assert cli._join_negative_coords(["--to", "--text"]) == ["--to", "--text"]


def test_to_a_negative_end_end_to_end(tmp_path, capsys):
    scenario = {"game": "grid",
                "board": {"grid": "square4", "cells": [{"at": [x, 0]} for x in (-2, -1, 0)]},
                "figures": [{"id": "a", "team": "red", "at": [0, 0]}],
                "query": {"figure": "a", "budget": 2}}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(scenario))
    assert cli.main(["solve", str(f), "--to", "-2,0", "--text"]) == 0
    text = capsys.readouterr().out
    assert "path to [-2, 0]" in text


@pytest.mark.parametrize("cmd", [[], ["solve"], ["demo"], ["render"], ["bench"],
                                 ["selfplay"], ["capi"], ["examples"]])
def test_help_has_no_restructuredtext_markup(cmd, capsys):
    with pytest.raises(SystemExit):
        cli.main([*cmd, "--help"])
    out = capsys.readouterr().out
    assert "usage: movecore" in out
    assert "``" not in out and ":func:" not in out


def test_every_bench_option_has_help():
    import argparse

    from movecore.tools import bench
    root = argparse.ArgumentParser()
    bench.register(root.add_subparsers())
    sub = next(a for a in root._actions if isinstance(a, argparse._SubParsersAction))
    parser = sub.choices["bench"]
    missing = [a.option_strings for a in parser._actions
               if a.help in (None, "") and not isinstance(a, argparse._HelpAction)]
    assert missing == []


def test_examples_lists_the_bundled_scenarios(capsys):
    """One line per example: its name, its game and its one-line description."""
    from movecore import examples
    assert cli.main(["examples"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines] == [p.stem for p in cli.example_paths()]
    assert "grid_issue_example" in [ln.split()[0] for ln in lines] and len(lines) >= 10
    for ln in lines:
        name, game, *words = ln.split()
        assert game == examples.game(name) and " ".join(words) == examples.describe(name)


def test_the_examples_module():
    """movecore.examples: names, a description for every one, load() gives a fresh
    scenario of the named game, unknown names are a typed error naming the known."""
    import movecore as mc
    from movecore import examples
    names = examples.names()
    assert names == sorted(names) and names == [p.stem for p in cli.example_paths()]
    assert set(examples.DESCRIPTIONS) == set(names)      # every example described
    for e in examples.catalogue():
        assert e.description and "\n" not in e.description and len(e.description) < 110
        assert e.game == examples.load(e.name)["game"] == examples.game(e.name)
        assert e.game in e.description.lower().replace(" ", "_") or \
            e.game == "grid" and ("grid" in e.description.lower() or "README" in
                                  e.description or "C API" in e.description)
    a = examples.load("grid_issue_example")
    a["game"] = "changed"
    assert examples.load("grid_issue_example.json")["game"] == "grid"
    assert mc.solve(examples.load("grid_issue_example"))["figure"] == "a"
    with pytest.raises(mc.ScenarioError, match="no bundled example 'nope'.*grid_issue"):
        examples.load("nope")


def test_solve_finds_a_bundled_example_by_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)   # not beside the file: found by name only
    assert cli.main(["solve", "grid_issue_example", "--compact"]) == 0
    by_name = capsys.readouterr().out
    path = ROOT / "core" / "examples" / "grid_issue_example.json"
    assert cli.main(["solve", str(path), "--compact"]) == 0
    assert capsys.readouterr().out == by_name
    assert cli.main(["solve", "grid_issue_example.json", "--compact"]) == 0
    assert capsys.readouterr().out == by_name
    assert cli.main(["solve", "no_such_example"]) == 2
    assert "movecore examples" in capsys.readouterr().err


def test_pretty_printer_keeps_a_coordinate_on_one_line():
    text = cli.format_result({"enemy": "orc", "at": [-4, 8], "path": [[0, 0], [-4, 8]],
                              "ends": [{"at": [1, 2], "cost": 1}], "none": []})
    assert '"at": [-4, 8]' in text
    assert "\n  [0, 0],\n  [-4, 8]\n" in text
    assert json.loads(text) == {"enemy": "orc", "at": [-4, 8], "path": [[0, 0], [-4, 8]],
                                "ends": [{"at": [1, 2], "cost": 1}], "none": []}


@pytest.mark.parametrize("args", [["schema", "grid"], ["schema", "heroscape"], ["examples"]])
def test_schema_and_examples_load_no_kernels(args):
    """`movecore schema GAME` prints a file that ships with the package and `examples`
    lists them: neither imports numba, a kernel module or a game."""
    res, out = _probe(args)
    assert res["rc"] == 0, out.stderr
    assert res["kernels"] == [], res
    assert "movecore.kernels" not in out.stdout.splitlines()[-1]


def test_an_unknown_game_has_no_schema():
    res, out = _probe(["schema", "chess"])
    assert res["rc"] == 2 and "unknown game 'chess'" in out.stderr
    assert "'grid'" in out.stderr


@pytest.mark.parametrize("example,game", [("grid_issue_example", "grid"),
                                          ("heroscape_engaged_knight", "heroscape"),
                                          ("descent_hero_run", "descent")])
def test_solve_loads_only_the_scenarios_game(example, game):
    """`movecore solve` imports the game the scenario names and no other; a query with no
    penalty loads no penalty kernels."""
    res, out = _probe(["solve", example])
    assert res["rc"] == 0, out.stderr
    others = [m for m in res["kernels"] if m.startswith("movecore.games.")
              and game not in m.split(".")[2] and m.split(".")[2] != "_common"]
    assert others == [], res["kernels"]
    if game == "grid":
        assert "movecore.kernels.reach_pen" not in res["kernels"]


# ------------------------------------------------- hostile input (issue 33.5): one line
def _cli(args, *, stdin=subprocess.DEVNULL, shell_redirect: str = ""):
    """``python -m movecore ARGS`` in a fresh process (through sh when a redirection such
    as ``<&-`` or ``>&-`` closes a descriptor); (exit status, stdout, stderr)."""
    if shell_redirect:
        cmd = " ".join([f"'{sys.executable}'", "-m", "movecore", *map(str, args)])
        out = subprocess.run(["sh", "-c", f"{cmd} {shell_redirect}"], capture_output=True,
                             text=True, timeout=120, stdin=stdin)
    else:
        out = subprocess.run([sys.executable, "-m", "movecore", *map(str, args)],
                             capture_output=True, text=True, timeout=120, stdin=stdin)
    return out.returncode, out.stdout, out.stderr


def _one_line(rc, err, *words):
    assert rc == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("movecore: error:"), err
    assert "Traceback" not in err
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("content,words", [
    (bytes(range(256)) * 4, ["not UTF-8", "offset"]),                      # binary
    ('{"game": "grid", "name": "caf\u00e9"}'.encode("latin-1"), ["not UTF-8"]),
    (b'{"game": "grid", "board": ' + b"9" * 5000 + b"}", ["JSON", "4300"]),
    (b"[1, 2]", ["JSON object"]),
    (b"[" * 100_000 + b"]" * 100_000, ["nested"]),
    (b"", ["JSON"]),
])
@pytest.mark.parametrize("cmd", ["solve", "convert"])
def test_a_broken_file_is_one_line_and_a_nonzero_exit(tmp_path, content, words, cmd):
    f = tmp_path / "bad.json"
    f.write_bytes(content)
    rc, out, err = _cli([cmd, f])
    _one_line(rc, err, *words)


def test_dev_zero_is_refused_at_the_size_limit():
    rc, out, err = _cli(["solve", "/dev/zero"])
    _one_line(rc, err, "MiB")
    assert mc_scenario.MAX_SCENARIO_BYTES == 64 << 20


def test_a_file_over_the_limit_is_refused(tmp_path):
    f = tmp_path / "big.json"
    f.write_bytes(b" " * (mc_scenario.MAX_SCENARIO_BYTES + 1))
    _one_line(*_cli(["solve", f])[::2], "over 64 MiB")


def test_closed_stdin_and_stdout_are_one_line():
    rc, out, err = _cli(["solve", "-"], shell_redirect="<&-")
    _one_line(rc, err, "stdin")
    rc, out, err = _cli(["solve", "grid_issue_example"], shell_redirect=">&-")
    _one_line(rc, err, "stdout")


def test_stdin_still_reads_a_scenario(tmp_path):
    f = tmp_path / "s.json"
    f.write_text(json.dumps({"game": "grid", "board": {"grid": "square4", "cells": [
        {"at": [0, 0]}, {"at": [1, 0]}]}, "figures": [{"id": "a", "team": "r", "at": [0, 0]}],
        "query": {"figure": "a", "budget": 1}}))
    with open(f) as fh:
        rc, out, err = _cli(["solve", "-", "--compact"], stdin=fh)
    assert rc == 0, err
    assert json.loads(out)["ends"][1] == {"at": [1, 0], "cost": 1, "stopped": False}
