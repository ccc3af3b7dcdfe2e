"""Session-wide checks."""
from __future__ import annotations

import pytest

import jit_audit


@pytest.fixture(scope="session", autouse=True)
def _one_numba_cache_entry_per_index():
    """After the session: no cached Numba function of movecore was compiled in this process
    for two signatures (or as two variants under one qualname), which races on a cold cache
    when processes compile them at once (see jit_audit)."""
    yield
    shared = jit_audit.shared_entries()
    assert not shared, (
        "cached Numba functions compiled for more than one signature (call them with the "
        "dtypes of kernels/_types.py, contiguous, as the package does):\n" +
        "\n".join(f"{path}: {sigs}" for path, sigs in shared.items()))
