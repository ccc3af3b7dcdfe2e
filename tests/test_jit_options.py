"""The Numba options declared once in ``kernels/_jit.py``: :data:`NO_NRT` asks for Numba's
private ``_nrt=False`` only where this Numba takes it, and a Numba without the option
still imports movecore and gives the same answers."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent


def _allocates(n):
    return np.zeros(n).sum()


def _adds(a):
    s = 0.0
    for x in a:
        s += x
    return s


def test_the_no_nrt_probe_says_what_numba_does():
    """The probe (compiling nothing) against what this Numba does when compiling: where
    it says the option is taken, ``_nrt=False`` is a known option that turns reference
    counting off (a function that allocates is refused); where it says not, Numba
    refuses the keyword. A function that allocates nothing compiles under NO_NRT and
    answers as without it."""
    import movecore
    numba = movecore._import_numba()
    from movecore.kernels import _jit
    taken = _jit.accepts_no_nrt()
    assert _jit.NO_NRT == ({"_nrt": False} if taken else {})
    try:
        numba.njit(_nrt=False)(_allocates)(3)
        outcome = "compiled"
    except KeyError:            # "Unrecognized options" (parse_as_flags, at compile)
        outcome = "unknown option"
    except numba.core.errors.TypingError:   # np.zeros needs reference counts
        outcome = "no reference counts"
    assert outcome == ("no reference counts" if taken else "unknown option")
    if taken:
        with pytest.raises(numba.core.errors.TypingError):
            numba.njit(**_jit.NO_NRT)(_allocates)(3)
    a = np.arange(7.0)
    assert numba.njit(**_jit.NO_NRT)(_adds)(a) == numba.njit(_adds)(a) == 21.0


# A Numba without the option: it is taken out of the CPU target's options before
# movecore imports numba's kernels, so that ``_nrt=False`` anywhere in movecore is refused
# at compile (KeyError), as a Numba that dropped it would. Numba's own helpers that ask
# for it (``register_jitable(_nrt=False)`` in ``numba.cpython.unicode``, reached by the
# message of an array assignment's shape check, e.g. in ``reach_pen.steps_kernel``) have
# it dropped instead: such a Numba would not ask for it there. A cache folder of its own:
# Numba's cache key does not hold the options, so a cache of builds with the option
# would be loaded instead of compiling without it.
_WITHOUT = r"""
import json, sys
import movecore
numba = movecore._import_numba()
from numba.core import dispatcher
from numba.core.compiler import Flags
from numba.core.registry import CPUDispatcher
for cls in CPUDispatcher.targetdescr.options.__mro__:
    if "_nrt" in vars(cls):
        delattr(cls, "_nrt")
plain = dispatcher._FunctionCompiler._compile_core


def compile_core(self, args, return_type):
    if "_nrt" in self.targetoptions and not movecore._is_movecore_function(self.py_func):
        self.targetoptions = {k: v for k, v in self.targetoptions.items() if k != "_nrt"}
    return plain(self, args, return_type)


dispatcher._FunctionCompiler._compile_core = compile_core
try:       # (what compiling a function of movecore's with the option does)
    CPUDispatcher.targetdescr.options.parse_as_flags(Flags(), {"_nrt": False})
    sys.exit("the option is still taken")
except KeyError:
    pass
from movecore.kernels import _jit
assert _jit.NO_NRT == {}, _jit.NO_NRT
sys.path.insert(0, sys.argv[2])
import test_jit_options as t
out = {what: t._answers()[what]() for what in sys.argv[1].split(",")}
print(json.dumps(out, default=str))
"""


def _reach_answers():
    """``reach`` and ``reach_many`` (1 and 2 threads) on seeded random square and hex
    boards with friends and foes on them (the plain and the general ``reach1``, and
    ``is_plain``: the kernels compiled without reference counts), and every grid and
    Tiny Epic Tactics example solved."""
    import movecore as mc
    from movecore.kernels import reach as K
    from movecore.tools.cli import example_paths
    for f in (K.is_plain, K.reach1_plain, K.reach1_general):
        assert f.targetoptions.get("_nrt", True) is (not _jit_taken()), f.targetoptions
    out = []
    rng = np.random.default_rng(29)
    for kind in ("square", "hex"):
        for _ in range(3):
            w, h = (int(x) for x in rng.integers(4, 9, 2))
            board = mc.Board.square(w, h) if kind == "square" else mc.Board.hex(
                [(q, r) for q in range(w) for r in range(h)])
            n = board.n_cells
            occ = np.full(n, mc.OCC_EMPTY, np.int32)
            occ[rng.choice(n, 3, replace=False)] = [0, 1, mc.OCC_WALL]
            starts = [int(c) for c in rng.choice(n, 5, replace=False)]
            budget = int(rng.integers(1, 6))
            for layer in (None, occ):
                one = [mc.reach(board, mc.Mover(), board.coords[c], budget,
                                occupant=layer) for c in starts]
                out.append([[r.cells.tolist(), r.costs.tolist()] for r in one])
                for threads in (1, 2):
                    b = mc.reach_many(board, mc.Mover(), [board.coords[c] for c in starts],
                                      budget, occupant=layer, threads=threads)
                    out.append([b.offsets.tolist(), b.cells.tolist(), b.costs.tolist(),
                                b.stopped.tolist()])
    for path in example_paths():
        if path.name.startswith(("grid_", "tiny_epic_tactics_")):
            out.append(json.loads(json.dumps(mc.solve(json.loads(path.read_text())),
                                             default=str)))
    return out


def _selfplay(game, example, B, steps):
    """Batched self-play of ``game`` on its compiled step from the bundled ``example``,
    both policies, 2 threads: the games' totals and final figure places."""
    from movecore.tools.selfplay_batch import BatchedPlay
    from movecore.tools.cli import example_paths
    path = next(p for p in example_paths() if p.name == example)
    out = []
    for policy in ("random", "greedy"):
        play = BatchedPlay(game, json.loads(path.read_text()), B, seed=[7, 1],
                           policy=policy, max_turns=12, threads=2)
        assert play.fused
        res = play.run(steps)
        out.append([policy, {k: v for k, v in sorted(res.items())
                             if isinstance(v, (int, str, bool))},
                    play.games.cell.tolist()])
    return out


def _dark_realms_selfplay():
    """Dark Realms' (``tools._selfplay_dark_realms``' chunked step, compiled without
    reference counts)."""
    from movecore.tools import _selfplay_dark_realms as S
    assert S.dark_realms_chunk.targetoptions.get("_nrt", True) is (not _jit_taken())
    return _selfplay("dark_realms", "dark_realms_doc_example.json", 16, 40)


def _heroscape_selfplay():
    """Heroscape's (``tools._selfplay_heroscape``' step, compiled without reference
    counts, with the two-space figures' call, which counts its own), on an example
    with two-space figures."""
    from movecore.tools import _selfplay_heroscape as S
    out = _selfplay("heroscape", "heroscape_river_crossing.json", 8, 30)
    assert S.step_kernel().targetoptions.get("_nrt", True) is (not _jit_taken())
    return out


def _jit_taken() -> bool:
    from movecore.kernels import _jit
    return bool(_jit.NO_NRT)


ANSWERS = {"reach": _reach_answers}
#: the cases left out of the suite for their compile time in the subprocess's cold cache,
#: which CI pays in full: Dark Realms' self-play (its enemy AI and chunked step, ~28 CPU
#: s on top of the kernels' ~16 on a quick host, 2026-11-25; about twice that on a slow
#: one) and Heroscape's (its step, its layout's calls and the two-space call: ~28 CPU s,
#: 2026-11-27). ``MOVECORE_NO_NRT_ALL=1`` runs them too (all three cases answered alike
#: on 2026-11-29: 280 s for the file on the slower host, against ~35 s without). The
#: kernels' case stays: it compiles every function of the kernels that asks for NO_NRT
#: (``is_plain``, the ``reach1`` builds, the batch kernels), and what compiles without
#: reference counts compiles with them (the option only refuses code).
MORE_ANSWERS = {"dark_realms_selfplay": _dark_realms_selfplay,
                "heroscape_selfplay": _heroscape_selfplay}


def _answers() -> dict:
    more = os.environ.get("MOVECORE_NO_NRT_ALL", "") not in ("", "0")
    return {**ANSWERS, **(MORE_ANSWERS if more else {})}

def test_only_kernels_jit_asks_for_the_option():
    """No module passes ``_nrt`` to Numba but through NO_NRT (a Numba without the
    option would refuse it at compile)."""
    asks = re.compile(r"[(,]\s*_nrt\s*=")
    found = {str(p.relative_to(ROOT)) for top in ("core", "kernels")
             for p in (ROOT / top).rglob("*.py") if asks.search(p.read_text())}
    assert found == set()


def test_without_the_option_the_kernels_compile_and_answer_alike(tmp_path):
    """A fresh process whose Numba has no ``_nrt`` option (taken out, see ``_WITHOUT``)
    imports the modules that ask for NO_NRT, compiles their functions with reference
    counting on a cold cache of its own, and answers as this process does with them:
    every case of :data:`ANSWERS` (the kernels; with ``MOVECORE_NO_NRT_ALL=1``
    :data:`MORE_ANSWERS` too: Dark Realms' and Heroscape's self-play, which compile their
    steps on top of the kernels) in one process, so that the kernels compile once."""
    cases = _answers()
    here = {what: answers() for what, answers in cases.items()}
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",
                                                            "MOVECORE_NO_CACHE")}
    env["MOVECORE_CACHE"] = str(tmp_path / "cache")
    out = subprocess.run([sys.executable, "-c", _WITHOUT, ",".join(cases),
                          str(ROOT / "tests")],
                         env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout)
    assert list(got) == list(cases)
    for what in cases:
        assert here[what], what                     # (not empty)
        assert got[what] == json.loads(json.dumps(here[what], default=str)), what
