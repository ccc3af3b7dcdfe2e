"""The vector env's move with the two-space kept ends read from their packed row (as the
env's call does: ``_batch_doubles.static_ends``' row 4) against the same env reading the
four rows (its call's tables cut to four rows: the path before the packed row), in one
process:

    python benches/heroscape_packed_env_ab.py [--scenarios a.json,b.json] [--rounds 15]
                                              [--B 1024]

Per bundled scenario: two envs of the same seed (``copy=True``, one thread), rounds of 8
steps of the same actions in a shuffled order, the observations, rewards and masks
checked equal after every round (``heroscape_one_bits_ab._envs``); CPU time of this
thread per figure move, the medians and the median of the rounds' ratios.
"""
from __future__ import annotations

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heroscape_doubles_ab import _load_avg, _parser  # noqa: E402
from heroscape_one_bits_ab import _envs  # noqa: E402


def main(argv=None) -> int:
    a = _parser(__doc__, 15).parse_args(argv)
    import movecore.rl as rl
    print(_load_avg(), flush=True)
    for name in a.scenarios.split(","):
        envs = [rl.vector_env(name[:-5], num_envs=a.B, threads=1, copy=True)
                for _ in range(2)]
        hs = envs[0]._np._hs
        for c in range(len(hs.D)):      # (the kept ends' table: the one int32[5, M])
            D = list(hs.D[c])
            at = [i for i, x in enumerate(D) if isinstance(x, np.ndarray) and x.ndim == 2
                  and x.shape[0] == 5 and x.dtype == np.int32]
            assert len(at) == 1, at
            D[at[0]] = np.ascontiguousarray(D[at[0]][:4])
            hs.D[c] = tuple(D)
        per = _envs(name[:-5], a.B, a.rounds, envs=envs)
        four, packed = (np.median(x) * 1e6 for x in per)
        r = np.array(per[0]) / np.array(per[1])
        line = (f"{name}: env move, copy=True, B={a.B}, 1 thread, CPU: four rows "
                f"{four:.3f} us, packed row {packed:.3f} us: {np.median(r):.3f}x "
                f"({r.min():.3f}-{r.max():.3f})")
        print(line, flush=True)
    print(_load_avg())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
