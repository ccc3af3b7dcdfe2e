"""`movecore convert`, `schema` and `examples` load neither numba nor a kernel: the game
packages import only their rules (positions load on first use), and each game's
rules-level ``read_scenario`` validates a scenario as ``solve()`` reads it, with the same
typed errors, without solving it."""
from __future__ import annotations

import copy
import json
import os
import subprocess
import sys

import pytest

import movecore as mc
from movecore import examples
from movecore.errors import MovecoreError

#: In a fresh interpreter: ``movecore ARGS`` (the CLI's main, in-process) for each list
#: of arguments given, its exit status, stdout and stderr; then the modules it loaded
#: that a convert must not load.
PROBE = """
import contextlib, io, json, sys
from movecore.tools.cli import main
runs = []
for args in json.loads(sys.argv[1]):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(args)
        except SystemExit as exc:
            rc = exc.code
    runs.append({"rc": rc, "out": out.getvalue(), "err": err.getvalue()})
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("numba", "llvmlite")
                or (m.startswith("movecore.kernels.")
                    and m not in ("movecore.kernels._types", "movecore.kernels._jit"))
                or m == "movecore.reach" or m.startswith("movecore.reach.")
                or m.startswith("movecore.games")
                and m.endswith((".position", ".reference")))
print(json.dumps({"runs": runs, "loaded": loaded}))
"""


def _probe(arg_lists, tmp_path):
    # an empty numba cache: a kernel import would compile (slow, and said on stderr)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(arg_lists)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def _bad_scenarios() -> list:
    """Scenarios each game's readers refuse, one mistake each: the board, options,
    figures, the query's keys, values and figure, the game."""
    ex = {n: examples.load(n) for n in examples.names()}
    cases = []

    def bad(name, change):
        s = copy.deepcopy(ex[name])
        change(s)
        cases.append((name, s))

    for name in ("grid_issue_example", "heroscape_engaged_knight", "mage_knight_walls",
                 "descent_hero_run", "dark_realms_hero_move", "tiny_epic_tactics_skirmish",
                 "dark_realms_enemy_turn", "tiny_epic_tactics_knock_back"):
        key = "target" if "knock_back" in name else "enemy" if "enemy" in name else "figure"
        bad(name, lambda s: s["query"].update({key: "nobody"}))       # unknown figure
        bad(name, lambda s: s["query"].update({"bogus": 1}))          # unknown query key
        bad(name, lambda s: s["options"].update({"bogus": 1}))        # unknown option
        bad(name, lambda s: s["figures"][0].update({"at": [999, 999]}))   # off the board
        bad(name, lambda s: s["figures"][0].pop("id"))                # figure without id
        bad(name, lambda s: s.update(board=[]))                       # board not an object
        bad(name, lambda s: s.update(query=[1]))                      # query not an object
    bad("grid_issue_example", lambda s: s["query"].update(budget=-1))
    bad("grid_issue_example", lambda s: s["query"].update(paths="yes"))
    bad("grid_issue_example", lambda s: s["query"].pop("budget"))
    bad("grid_issue_example", lambda s: s["query"].update(provoke=[[0, 0, 0]]))
    bad("heroscape_engaged_knight", lambda s: s["query"].update(move=1 << 40))
    bad("heroscape_engaged_knight", lambda s: s["options"].update(mode="epic"))
    bad("mage_knight_walls", lambda s: s["query"].update(mode="fly"))
    bad("mage_knight_walls", lambda s: s["query"].update(end_safe=False))
    bad("mage_knight_walls", lambda s: s["query"].update(reveal=[{"tile": 3}]))
    bad("descent_hero_run", lambda s: s["query"].update(action="dance"))
    bad("descent_hero_run", lambda s: s["query"].update(mp=-2))
    bad("descent_hero_run", lambda s: s["party"].update(rune_keys=[7]))
    bad("dark_realms_hero_move", lambda s: s["query"].update(roll=9))
    bad("dark_realms_hero_move", lambda s: s["query"].update(move=3))
    bad("dark_realms_enemy_turn", lambda s: s["query"].update(enemy="ayla"))
    bad("dark_realms_enemy_turn", lambda s: s["query"].update(teleport=2))
    bad("tiny_epic_tactics_skirmish", lambda s: s["query"].update(type="fly"))
    bad("tiny_epic_tactics_skirmish", lambda s: s["query"].pop("budget"))
    bad("tiny_epic_tactics_knock_back", lambda s: s["query"].pop("distance"))
    bad("grid_issue_example", lambda s: s.update(game="chess"))
    bad("grid_issue_example", lambda s: s.pop("game"))
    return cases


def _solve_error(scenario) -> str:
    try:
        mc.solve(scenario)
    except MovecoreError as exc:
        return f"movecore: error: {type(exc).__name__}: {exc}\n"
    raise AssertionError(f"solve() accepted {scenario}")


def test_convert_loads_no_kernels_and_refuses_as_solve_does(tmp_path):
    """One fresh interpreter converts every bundled example and every bad scenario:
    numba, the kernels and the positions are never imported; each bad scenario's
    message is exactly the typed error solve() raises on it."""
    names = examples.names()
    bad = _bad_scenarios()
    files = []
    for k, (_, s) in enumerate(bad):
        f = tmp_path / f"bad{k}.json"
        f.write_text(json.dumps(s))
        files.append(str(f))
    res = _probe([["convert", n, "--compact"] for n in names]
                 + [["convert", f] for f in files], tmp_path)
    assert res["loaded"] == [], res["loaded"]
    runs = res["runs"]
    for name, run in zip(names, runs):
        assert run["rc"] == 0 and run["err"] == "", (name, run["err"])
        assert json.loads(run["out"]) == mc.to_common(examples.load(name)), name
    for (name, s), run in zip(bad, runs[len(names):]):
        assert run["rc"] == 2 and run["out"] == "", (name, s, run)
        assert run["err"] == _solve_error(s), (name, s)


@pytest.mark.parametrize("args", [["schema", "grid"], ["schema", "descent"],
                                  ["schema", "chess"], ["examples"], ["games"]])
def test_schema_examples_and_games_load_no_kernels(args, tmp_path):
    res = _probe([args], tmp_path)
    assert res["loaded"] == [], res["loaded"]
    assert res["runs"][0]["rc"] == (2 if "chess" in args else 0), res["runs"][0]["err"]


def test_a_game_package_loads_its_position_on_first_use(tmp_path):
    """``from movecore.games.heroscape import Position`` (and every public name of a
    position or reference module) still works; the package alone loads no kernel, and
    ``position()`` finds the position of a game whose package has not loaded it."""
    code = ("import sys, movecore as mc, movecore.examples\n"
            "import movecore.games.heroscape as hs\n"
            "import movecore.games.mage_knight as mk, movecore.games.descent as ds\n"
            "assert 'numba' not in sys.modules\n"
            "assert 'Position' in dir(hs) and 'moves' in dir(hs)\n"
            "from movecore.games.heroscape import Position\n"
            "from movecore.games.dark_realms import ENEMY_REASONS\n"
            "assert Position is sys.modules['movecore.games.heroscape.position'].Position\n"
            "assert callable(mk.solve_reference) and callable(ds.move)\n"
            "pos = mc.position(mc.examples.load('descent_ogre'))\n"
            "print(type(pos).__module__, sorted(mc.position_games()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr
    mod, games = out.stdout.split(" ", 1)
    assert mod == "movecore.games.descent.position"
    assert eval(games) == sorted(mc.available_games())


def test_public_submodules_are_attributes_of_a_plain_import():
    """``import movecore as mc; mc.examples.load(name)`` works without importing
    ``movecore.examples`` first, and loads no kernel."""
    code = ("import sys, movecore as mc\n"
            "s = mc.examples.load('grid_issue_example')\n"
            "assert s['game'] == 'grid' and 'numba' not in sys.modules\n"
            "assert mc.batch.__name__ == 'movecore.batch' and 'examples' in dir(mc)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600)
    assert out.returncode == 0, out.stderr


def test_an_unknown_public_name_is_an_attribute_error():
    import movecore.games.heroscape as hs
    with pytest.raises(AttributeError, match="no attribute 'Positon'"):
        hs.Positon  # noqa: B018


def _outcome(fn, s):
    try:
        fn(s)
    except MovecoreError as exc:
        return type(exc).__name__, str(exc)
    return None


def test_check_scenario_refuses_exactly_what_solve_refuses():
    """Seeded mutations of every game's examples (tests/fuzz.py): the rules-level reader
    (``check_scenario``, what convert runs) and ``solve()`` give the same typed error,
    or both accept. A scenario without a query is left out: convert takes one (as
    ``position()`` does) and solve() does not."""
    import random

    import fuzz
    from movecore.scenario import check_scenario
    seen = 0
    for game in fuzz.GAMES:
        for name, seed in fuzz.cases(game, 20, seed=7):
            s, muts = fuzz.mutate(fuzz.EXAMPLES[name], random.Random(seed))
            if isinstance(s, dict) and "query" not in s:
                continue
            seen += 1
            assert _outcome(check_scenario, s) == _outcome(mc.solve, s), (name, muts)
    assert seen >= 100
