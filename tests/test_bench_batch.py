"""``movecore bench --batch``'s measuring loop (not a timing: what it measures, in what
order)."""
from pytest import approx

from movecore.tools.bench_batch import _interleaved


def test_interleaved_takes_rounds_in_turn_until_every_contestant_has_a_figure():
    calls = []

    def one_round(i):
        calls.append(i)
        # contestant 1 does nothing in its first round (no figure yet): another pass
        units = 0 if (i == 1 and calls.count(1) == 1) else 10 * (i + 1)
        return units, 0.5, 0.25 * (i + 1), 0.2
    got = _interleaved(2, one_round, 0.0)
    assert calls == [0, 1, 0, 1]
    # per contestant: best units/s, process CPU per unit, busiest thread's CPU per unit
    # (this thread's 0.4 s, or the others' together: process CPU less this thread's)
    assert got[0] == approx((20.0, 0.5 / 20, 0.4 / 20))
    assert got[1] == approx((40.0, 1.0 / 20, 0.6 / 20))
