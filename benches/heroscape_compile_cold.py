"""CPU of Heroscape's self-play step's (or vector env's) first call compiled on a cold
cache, each in a fresh process, with everything else loaded from a warm cache.

    python benches/heroscape_compile_cold.py WARM_CACHE [--what step|env] [--runs 4]
    PYTHONPATH=/tmp/base-pkg python benches/heroscape_compile_cold.py BASE_WARM_CACHE

``WARM_CACHE``: a Numba cache folder (``MOVECORE_CACHE``) that the tree on the path has
filled (one run of the step and the env). Each run copies it less the entries of
``_selfplay_heroscape``, ``_bits``, ``_vechs`` and ``_vechsenv`` (the step's, the bit
sets', the env's), then times in a fresh process (``resource.getrusage``, CPU of the
process) ``BatchedPlay.step`` on ``heroscape_engaged_knight`` (B = 64; ``step``) or a
vector env's reset and first step (``env``). Prints each run's CPU and wall seconds.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile

_DROP = ("_selfplay_heroscape.", "_bits.", "_vechs.", "_vechsenv.")

_CHILD = r"""
import resource, sys, time
def cpu():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime
import numpy as np
from movecore.tools.selfplay import example_scenarios
from movecore.tools.selfplay_batch import BatchedPlay
import movecore.rl as rl
name = "heroscape_engaged_knight"
if sys.argv[1] == "step":
    p = BatchedPlay("heroscape", dict(example_scenarios("heroscape"))[name + ".json"], 64,
                    seed=1, threads=1)
    t0, w0 = cpu(), time.time()
    p.step()
else:
    t0, w0 = cpu(), time.time()
    e = rl.vector_env(name, num_envs=64, threads=1)
    e.reset(seed=7)
    e.step((np.random.default_rng(0).random(e._mask.shape, np.float32) * e._mask).argmax(1))
print(f"{sys.argv[1]}: {cpu() - t0:.2f} s CPU, {time.time() - w0:.2f} s wall")
"""


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("warm", help="a warm MOVECORE_CACHE folder of the tree on the path")
    ap.add_argument("--what", choices=("step", "env"), default="step")
    ap.add_argument("--runs", type=int, default=4)
    a = ap.parse_args(argv)
    for _ in range(a.runs):
        with tempfile.TemporaryDirectory(prefix="hs-cold-") as d:
            shutil.copytree(a.warm, d, dirs_exist_ok=True)
            for root, _dirs, files in os.walk(d):
                for f in files:
                    if f.startswith(_DROP):
                        os.remove(os.path.join(root, f))
            out = subprocess.run([sys.executable, "-c", _CHILD, a.what],
                                 env=dict(os.environ, MOVECORE_CACHE=d),
                                 capture_output=True, text=True, check=True)
            print(out.stdout.strip().splitlines()[-1], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
