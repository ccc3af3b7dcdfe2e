"""Bulk self-play (movecore selfplay): determinism, legality of every move, scale-out."""
from __future__ import annotations

import json

import numpy as np
import pytest

import movecore as mc
from movecore.tools import selfplay as sp
from movecore.tools.cli import main



def _available(game):
    try:
        return sp.example_scenarios(game)
    except mc.ScenarioError:
        return []


GAMES = [g for g in sp.GAMES if _available(g)]


def _legal_ats(scenario, query):
    """Legal ends reported by solve() for a scenario rebuilt from scratch."""
    res = mc.solve(dict(scenario, query=query))
    if "moves" in res and "ends" not in res:    # an enemy AI's choices (Dark Realms)
        return [m["at"] for m in res["moves"] if m.get("at")]
    return [e.get("cells", e["at"]) for e in res["ends"]]   # a large base: every square


@pytest.mark.parametrize("game", GAMES)
def test_same_seed_same_final_positions(game):
    """A fixed seed gives the same game: same positions, counters, every run."""
    for name, scen in _available(game):
        runs = [sp.play(game, scen, sp.game_seed(7, 0), policy=p, max_turns=6)
                for p in ("random", "random", "greedy", "greedy")]
        assert runs[0] == runs[1], name
        assert runs[2] == runs[3], name
        assert runs[0]["moves"] > 0 or runs[0]["turns"] <= 1, name


@pytest.mark.parametrize("game", GAMES)
def test_every_move_is_legal_in_the_engine(game):
    """Every move taken is among the legal ends solve() reports for the state it was
    taken in (the scenario rebuilt from scratch from the positions before the move)."""
    checked = 0
    for name, scen in _available(game):
        trace = []
        sp.play(game, scen, sp.game_seed(11, 3), policy="random", max_turns=8,
                trace=trace)
        for mv in trace[:4] + trace[4::5]:
            # the position before the move, rebuilt from scratch (doors, turns included)
            assert mv.at in _legal_ats(mv.scenario, mv.query), (name, mv.figure, mv.at)
            others = {tuple(c) for fid, at in mv.before if fid != mv.figure and
                      not isinstance(at, str) for c in sp._cells(at).tolist()}
            assert not {tuple(c) for c in sp._cells(mv.at).tolist()} & others
            checked += 1
    assert checked >= 3


def test_greedy_moves_toward_the_enemy():
    """Greedy picks an end at the least distance to an enemy among the legal ends."""
    name, scen = _available("grid")[0]
    trace = []
    sp.play("grid", scen, 5, policy="greedy", max_turns=2, trace=trace)
    mv = trace[0]
    sides = {f["id"]: f["team"] for f in scen["figures"]}
    enemies = [at for fid, at in mv.before if sides[fid] != sides[mv.figure]]
    legal = _legal_ats(sp.scenario_at(scen, mv.before, mv.query), mv.query)
    kind = scen["board"]["grid"]
    d = lambda a: min(int(sp._distance(kind, np.array(a), np.array(e)))  # noqa: E731
                      for e in enemies)
    assert d(mv.at) == min(d(a) for a in legal)


def test_touching_is_the_geometric_neighbourhood():
    """A position's fast ``touching`` equals the protocol's coordinate-based one."""
    from movecore.position import Position as Base
    for name, scen in _available("grid"):
        pos = mc.position(scen)
        for f in pos.figures:
            assert pos.touching(f) == Base.touching(pos, f), (name, f)


def test_seeded_per_game_so_worker_count_does_not_matter():
    one = sp.run_selfplay("grid", 5, 3, workers=1)
    two = sp.run_selfplay("grid", 5, 3, workers=2)
    assert one["results"] == two["results"]
    assert one["engine"] == "inline" and two["engine"] == "processes"
    assert one["moves"] == sum(r["moves"] for r in one["results"])
    other = sp.run_selfplay("grid", 5, 4, workers=1)
    assert other["results"] != one["results"]


def test_removal_ends_games():
    rep = sp.run_selfplay("tiny_epic_tactics", 6, 1, policy="greedy", max_turns=200)
    assert any(len(r["sides_left"]) == 1 for r in rep["results"])


def test_cli_reports_rates(capsys):
    assert main(["selfplay", "--game", "grid", "--games", "3", "--seed", "2",
                 "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    for key in ("games_per_s", "turns_per_s", "moves_per_s", "generations_per_s"):
        assert rep[key] >= 0
    assert rep["games"] == 3 and rep["path"] == "position"


def test_bad_input_is_a_typed_error(capsys):
    with pytest.raises(mc.MovecoreError):
        sp.run_selfplay("grid", 2, policy="smart")
    with pytest.raises(mc.MovecoreError):
        sp.run_selfplay("grid", -1)
    with pytest.raises(mc.MovecoreError):
        sp.example_scenarios("chess")
    assert main(["selfplay", "--game", "grid", "--games", "2", "--workers", "0"]) == 2


def test_ray_spreads_the_same_games():
    ray = pytest.importorskip("ray", reason="Ray is not installed (pip install ray, or "
                                            "the movecore[scale] extra)")
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        rep = sp.run_selfplay("grid", 4, 9, workers=2, use_ray=True)
    finally:
        ray.shutdown()
    assert rep["engine"] == "ray"
    assert rep["results"] == sp.run_selfplay("grid", 4, 9, workers=1)["results"]


def test_ctrl_c_keeps_the_games_played_and_progress_counts_them():
    seen = []

    def progress(done):
        seen.append(done)
        if done == 3:
            raise KeyboardInterrupt

    rep = sp.run_selfplay("grid", 10, 2, progress=progress)
    assert rep["interrupted"] and rep["games"] == 3 and seen == [1, 2, 3]
    assert [r["index"] for r in rep["results"]] == [0, 1, 2]
    full = sp.run_selfplay("grid", 10, 2)
    assert not full["interrupted"] and full["results"][:3] == rep["results"]


def test_trace_true_returns_the_moves():
    name, scen = _available("grid")[0]
    listed = []
    plain = sp.play("grid", scen, 5, max_turns=3, trace=listed)
    traced = sp.play("grid", scen, 5, max_turns=3, trace=True)
    assert traced.pop("trace") == listed and listed and traced == plain
    assert "trace" not in sp.play("grid", scen, 5, max_turns=3, trace=False)
    with pytest.raises(mc.QueryError, match="trace must be"):
        sp.play("grid", scen, 5, max_turns=3, trace="yes")


def test_workers_show_progress_and_ctrl_c_keeps_the_finished_games():
    """Local processes: progress moves as batches finish; Ctrl-C (here raised by the
    progress callback in the parent) stops handing out games and reports the finished
    ones, each exactly as an inline run plays it."""
    seen = []
    rep = sp.run_selfplay("grid", 40, 2, workers=2, progress=seen.append)
    assert not rep["interrupted"] and rep["games"] == 40
    assert seen == sorted(seen) and seen[-1] == 40 and len(seen) > 2
    inline = sp.run_selfplay("grid", 40, 2)["results"]
    assert rep["results"] == inline

    def stop(done):
        if done >= 4:
            raise KeyboardInterrupt

    cut = sp.run_selfplay("grid", 400, 2, workers=2, progress=stop)
    assert cut["interrupted"] and 4 <= cut["games"] < 400
    last = max(r["index"] for r in cut["results"])
    by_index = {r["index"]: r for r in sp.run_selfplay("grid", last + 1, 2)["results"]}
    assert all(r == by_index[r["index"]] for r in cut["results"])
    assert "interrupted after" in sp.format_report(cut)


def test_a_users_scenario_file(tmp_path, capsys):
    name, scen = _available("grid")[0]
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(scen))
    assert main(["selfplay", "--scenario", str(path), "--games", "4", "--json"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["game"] == "grid" and rep["games"] == 4
    one_side = dict(scen, figures=scen["figures"][:1])
    path.write_text(json.dumps(one_side))
    assert main(["selfplay", "--scenario", str(path), "--games", "1"]) == 2
    assert "two sides" in capsys.readouterr().err
    assert main(["selfplay", "--games", "1"]) == 2
