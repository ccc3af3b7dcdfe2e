"""Before/after speed of ``movecore.rl._vecnp.draw_obs``'s fresh draw alone, in one process:
a baseline tree's ``_vecnp`` (with the other modules ``dr_env_ab.load_base`` loads) beside
the installed one, each drawing every game's observation of the same env state from
scratch into one float32[B, C * H * W] array (reused: a new array per draw times the
allocator's page faults more than the draw), five draws a round, the two in a shuffled
order each round; asserts both draw the same floats. Prints the CPU per game of each and
the median over the rounds of old/new (> 1: faster).

    git -C /work/main archive BASE_COMMIT | tar -x -C /tmp/base
    python benches/draw_obs_ab.py SCENARIO /tmp/base [ROUNDS]
"""
import os
import sys
import time

import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from dr_env_ab import load_base  # noqa: E402


def main(argv=None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    import movecore.rl as rl
    from movecore.rl import _vecnp
    scen = argv[0]
    B = 1024
    e = rl.vector_env(scen, num_envs=B, threads=1, copy=True)
    e.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in range(7):
        e.step((rng.random(e._mask.shape, np.float32) * e._mask).argmax(1))
    base = load_base(argv[1])
    n = e._np
    for sig in _vecnp.draw_obs.signatures:
        base["_vecnp"].draw_obs.compile(sig)
    fn = {"old": base["_vecnp"].draw_obs, "new": _vecnp.draw_obs}
    G = n.G
    acting = n.learner_acting()
    # (Heroscape's engaged plane reads each figure's spaces; the others a placeholder)
    sp = G.spaces(np.arange(B)) if n.engage is not None else n._no_sp

    def args(o):
        return (o, True, False, *n._rec_scratch, n.static.reshape(-1), n.S, n.HW, n.d,
                n.d + 6, G.alive, G.cell, n.large, n._orient(), n.swap, n.hw, n.rel, acting, n.actor,
                n.moved, n.a_list, n.a_n, n.a_cost, n.a_stop, n.lead, n.double, n.turn,
                n.max_turns, n.valid, n._gmode, sp, *n._eng_tables, n.side_of, n.a_roll,
                n.over, n._doors_bits(), n._door_cells)
    shape = (B, n.C * n.HW)
    outs = {}
    for v in fn:
        o = np.empty(shape, np.float32); fn[v](*args(o)); outs[v] = o
    assert np.array_equal(outs["old"], outs["new"])
    keep = np.empty(shape, np.float32)
    res = {"old": [], "new": []}
    r = np.random.default_rng(0)
    for i in range(int(argv[2]) if len(argv) > 2 else 201):
        order = ["old", "new"]; r.shuffle(order)
        for v in order:
            c0 = time.process_time()
            for _ in range(5):
                fn[v](*args(keep))
            res[v].append((time.process_time() - c0) / (5 * B))
    o_, n_ = np.median(res["old"]), np.median(res["new"])
    ratio = np.median([a / b for a, b in zip(res["old"], res["new"])])
    print(f"{scen}: draw_obs fresh, B={B}, one array reused: old {o_*1e9:.1f} new {n_*1e9:.1f} ns/game, old/new {ratio:.3f} (medians of {len(res['old'])} rounds); load {open('/proc/loadavg').read().split()[:3]}")


if __name__ == "__main__":
    main()
