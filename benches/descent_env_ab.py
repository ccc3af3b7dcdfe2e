"""Descent's vector env at B = 1,024, one thread: the compiled move and removal
(``movecore.rl._vecdescent``) and the counting pick (``_vecnp.pick_rows``) against the
path before them (``_dp = None``, and the quickselect ``pick_rows`` of a copy of the
old ``_vecnp.py``), in one process, rounds of 30 env steps of the same seeded games in
turn (alternating order); CPU time per figure move, the median of the rounds' ratios
(docs/performance_log.md).

    git show main:core/rl/_vecnp.py > /tmp/old_vecnp.py    # (a commit before the change)
    python benches/descent_env_ab.py /tmp/old_vecnp.py [scenario] [rounds]
"""
import importlib.util
import re
import sys
import tempfile
import time

import numpy as np

import movecore.rl as rl
import movecore.rl._vecnp as vn

# the old module, compiled here (not from Numba's cache: it has no importable name)
src = re.sub(r"cache=True", "cache=False", open(sys.argv[1]).read())
tmp = tempfile.NamedTemporaryFile("w", suffix=".py", delete=False)
tmp.write(src)
tmp.close()
spec = importlib.util.spec_from_file_location("movecore.rl._old_vecnp", tmp.name)
old = importlib.util.module_from_spec(spec)
spec.loader.exec_module(old)

name = sys.argv[2] if len(sys.argv) > 2 else "descent_door_round"
R = int(sys.argv[3]) if len(sys.argv) > 3 else 25
B = 1024
envs = {lab: rl.vector_env(name, num_envs=B, threads=1) for lab in ("old", "new")}
new_pick, dp = vn.pick_rows, envs["new"]._np._dp
res = {"old": [], "new": []}
for rnd in range(R):
    for lab in (("old", "new") if rnd % 2 == 0 else ("new", "old")):
        e = envs[lab]
        vn.pick_rows = old.pick_rows if lab == "old" else new_pick
        e._np._dp = None if lab == "old" else dp
        e.reset(seed=rnd)
        rng = np.random.default_rng(rnd)
        m0, cpu = e.counts["moves"], 0.0
        for _ in range(30):
            m = e._mask
            a = (rng.random(m.shape, np.float32) * m).argmax(1)
            c0 = time.process_time()
            e.step(a)
            cpu += time.process_time() - c0
        res[lab].append(cpu / (e.counts["moves"] - m0))
o, n = np.array(res["old"]), np.array(res["new"])
q = n / o
print(f"{name} B={B} 1 thread, CPU µs per move: old {np.median(o) * 1e6:.3f}, new "
      f"{np.median(n) * 1e6:.3f}; new/old {np.median(q):.3f} (quartiles "
      f"{np.percentile(q, 25):.3f}-{np.percentile(q, 75):.3f}), {R} rounds")
