"""The benchmark workloads live in the package (``movecore.tools.workloads``) so that
``movecore bench`` works from an installed package; this module re-exports them for the
pytest-benchmark files in ``benches/``."""
from movecore.tools.workloads import NAMES, Workload, make  # noqa: F401
