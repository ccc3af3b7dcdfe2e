"""Session-wide checks, the soak tier (``slow``), and the worker processes of a whole run.

``pytest`` (and CI, ``.ci/run``) runs every test: each long random run on its first
seed or example, the runs the standards size by count in full (the kernels against the
oracle on thousands of random boards, ``test_differential.py`` and ``test_reach_pen.py``;
10,000 batched moves per game against single positions, ``test_batch.py``).
``pytest --soak`` (or ``MOVECORE_SOAK=1``) adds the soak tier: every seed and example
after the first of each long run, and the long variants, listed in :data:`SLOW` (and
marked ``@pytest.mark.slow`` in place). A ``-m`` expression picks for itself (``-m slow``: the
soak tier alone), and a test named by its id (``file::test``) runs whatever its tier.

A run of the whole suite (``pytest`` with no file or folder named)
spreads the tests over one pytest-xdist worker process per CPU (at most
:data:`MAX_WORKERS`); naming files or folders (``pytest tests/test_x.py``) runs them in
this process, as does ``-n 0``; ``-n N`` picks the count. On a cold Numba cache the
workers compile each cached function of movecore once: a worker that needs a function
another is compiling waits for it and loads it from the cache (:func:`_lock_compiles`),
and they share out the compiles of the collection (:func:`_warm_up`). Processes without
the lock (a test's subprocesses) are safe too: every cached function of movecore has one
cache entry, which racing processes write identically (Numba writes each file to a
temporary name and renames it into place; ``test_numba_cache.py``, and
:func:`_one_numba_cache_entry_per_index` below in every worker).
"""
from __future__ import annotations

import os

import pytest

import jit_audit

#: The soak tier (``pytest --soak``; measured with ``pytest FILE --durations=50``, one
#: file at a time): ``"all"`` marks every case of the test slow; ``"rest"`` all but its
#: first case (one seed / example of each long run stays in what ``pytest`` and CI run);
#: a number ``n``, all but its first ``n`` cases (a grid of options parametrized as one
#: list, the pairs that cover each option first).
#: Kept here, not as decorators, so that the list is one place to read and to keep up
#: to date. A test whose only work is its one check (a fresh process, a thread race)
#: is not here: it is no longer by being run more.
SLOW = {
    # kernels against the oracle: more seeds (test_differential.py and test_reach_pen.py
    # run their thousands of random boards in full, outside this list)
    "test_reach_tree_api.py::test_tree_accessors_match_path": "rest",
    # live positions: random move sequences checked against solve() / a rebuilt position
    "test_position_heroscape.py::test_random_move_sequences_from_every_example": "rest",
    "test_position_heroscape.py::test_random_move_sequences_on_random_battlefields": "rest",
    "test_heroscape_threads.py::test_four_threads_on_copies_answer_as_one": "rest",
    "test_position_descent.py::test_random_sequences_match_a_rebuilt_position": "rest",
    "test_position_dark_realms.py::test_random_play_matches_solve": "rest",
    "test_position_dark_realms.py::test_random_play_with_a_trap_detour_limit": "rest",
    "test_position_tiny_epic_tactics.py::test_random_play_matches_solve": "rest",
    "test_position_mage_knight.py::test_random_games_from_bundled_examples": "rest",
    "test_position_mage_knight.py::test_random_games_on_shaped_maps": "rest",
    "test_position_mage_knight.py::test_random_games_revealing_lost_legion_tiles": "rest",
    "test_position_mage_knight.py::test_random_games_on_random_maps": "rest",
    "test_position_mage_knight.py::test_random_games_on_walled_maps": "rest",
    "test_position_grid.py::test_random_move_sequences_from_every_example": "rest",
    "test_position_grid.py::test_random_move_sequences_on_random_boards": "rest",
    # rules against brute force on many random rooms
    "test_descent.py::test_rooms_with_a_door_line_match_brute_force": "rest",
    "test_descent.py::test_rooms_with_doors_match_brute_force": "rest",
    "test_descent.py::test_large_monsters_match_brute_force": "rest",
    "test_descent.py::test_pit_rooms_match_brute_force": "rest",
    "test_undo_key.py::test_undo_takes_back_every_change_exactly": "rest",
    "test_dark_realms.py::test_trap_detour_limit_matches_brute_force": "rest",
    # JSON Schema against the readers on random nested mutations of every example
    "test_schema_values.py::test_schema_and_reader_agree_on_random_nested_mutations": "rest",
    "test_schemas.py::test_schema_and_reader_agree_on_structural_mutations": "rest",
    # a broken layer contract caught by lint-imports: one case runs, each a fresh process
    "test_architecture.py::test_a_broken_contract_fails": "rest",
    # the first case of each runs in every run, the rest in the soak
    "test_descent.py::test_door_pit_rooms_match_brute_force": "rest",
    "test_descent_reach_cost.py::test_scoped_rooms_with_doors_match_brute_force": "rest",
    "test_descent_reach_cost.py::test_scoped_door_line_rooms_match_brute_force": "rest",
    "test_descent_reach_cost.py::test_scoped_door_pit_rooms_match_brute_force": "rest",
    "test_descent_reach_cost.py::test_scoped_answers_equal_every_door_answers": "rest",
    "test_batch.py::test_fused_step_equals_array_path": "rest",
    # a crowd of enemies against the oracles: one seed of each kind of mover in every run
    "test_heroscape.py::test_a_crowd_of_more_than_64_enemies_matches_the_oracles": "rest",
    # Heroscape's step with one fast path off (the step before it, kept for A/B runs;
    # not a path the package takes): the first in every run
    "test_batch_heroscape.py::test_the_step_without_a_fast_path_equals_the_array_path":
        "rest",
    # the compiled steps against the array path: 1 and 2 threads, random and greedy
    "test_batch_dark_realms.py::test_compiled_step_equals_array_path": 1,
    "test_batch_heroscape.py::test_compiled_step_equals_array_path": 2,
    "test_batch.py::test_batched_games_equal_single_positions": "rest",
    "test_rl_vector.py::test_arrays_backend_equals_single_envs": "rest",
    "test_batch_mage_knight.py::test_random_maps_equal_single_positions": "rest",
    "test_batch_mage_knight.py::test_fused_step_equals_array_path": "rest",
    "test_batch_descent.py::test_random_dungeons_equal_single_positions": "rest",
    "test_batch_descent.py::test_compiled_step_equals_array_path": "rest",
    "test_branching.py::test_one_position_read_from_four_threads": "rest",
    "test_branching.py::test_copies_in_four_threads": "rest",
    "test_branching.py::test_a_copy_never_changes_its_parent": "rest",
    "test_branching.py::test_a_position_pickles": "rest",
    "test_hostile.py::test_every_value_as_an_unhashable_or_odd_value_is_a_typed_error": "rest",
    "test_cli.py::test_help_and_argument_errors_load_no_kernels": "rest",
    "test_cli.py::test_a_broken_file_is_one_line_and_a_nonzero_exit": "rest",
    "test_schema_values.py::test_schema_and_reader_agree_on_the_fuzzers_mutations": "rest",
    "test_rl.py::test_mask_and_planes_match_the_position": "rest",
    "test_position_fast_paths.py::test_apply_row_moves_as_apply_move": "rest",
    "test_docs.py::test_readme_solve_examples_are_real": "rest",
    "test_cli.py::test_solve_loads_only_the_scenarios_game": "rest",
    "test_heroscape_threads.py::test_first_queries_of_fresh_copies_from_four_threads": "rest",
    "test_position_mage_knight.py::test_random_games_under_movement_rule_effects": "rest",
    "test_capi.py::test_build_writes_library_and_header_only": "rest",
    # the C ABI: every bundled example through mc_solve_json
    "test_capi.py::test_solve_json_answers_every_bundled_example_like_solve": "rest",
    # a Numba without the private _nrt option: a fresh process compiles every kernel again
    # on a cold cache (~40 CPU s; a guard against a future Numba, not a rule)
    "test_jit_options.py::test_without_the_option_the_kernels_compile_and_answer_alike":
        "all",
    # two threads' first batched Descent steps in a fresh process
    "test_first_build.py::test_two_threads_first_call_builds_once": "rest",
    # the compile lock's control case (no lock: both processes compile)
    "test_docs.py::test_the_workers_compile_each_function_once": "rest",
}


#: Worker processes of a whole-suite run: one per usable CPU, at most this many (each
#: loads, or on a cold cache compiles, the kernels its tests use).
MAX_WORKERS = 4


def _usable_cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover (not Linux)
        return os.cpu_count() or 1


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """``pytest`` alone (the suite's ``testpaths``) runs on pytest-xdist workers; a run of
    named files or folders, ``-n`` given, ``--pdb``, ``--collect-only`` or no xdist runs
    as it is asked. (A worker calls this hook too, with ``-n`` cleared: it runs its tests.)"""
    opt = config.option
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist") or \
            getattr(opt, "numprocesses", None) is not None or \
            config.args_source != pytest.Config.ArgsSource.TESTPATHS or \
            opt.usepdb or opt.collectonly:
        return None
    workers = min(_usable_cpus(), MAX_WORKERS)
    if workers > 1:
        opt.numprocesses = workers
        if opt.dist == "no":
            opt.dist = "worksteal"   # the long tests end where they end: idle workers steal
    return None


def _shared_lock_dir(config):
    """The folder of a pytest-xdist worker's cross-worker file locks (the controller's
    base temp folder, shared by the run's workers), or None where there are none: not a
    worker, one worker, the cache off (nothing to share) or no POSIX file locks."""
    if os.name != "posix":      # pragma: no cover (no fcntl file locks)
        return None
    winput = getattr(config, "workerinput", None)
    if winput is None or int(winput.get("workercount", 1)) < 2 or \
            os.environ.get("MOVECORE_NO_CACHE", "") not in ("", "0") or \
            not getattr(config.option, "basetemp", None):
        return None
    from pathlib import Path
    return Path(config.option.basetemp).parent


def _lock_compiles(config) -> None:
    """In a pytest-xdist worker of a run with 2+ workers: every compile of a cached Numba
    function of movecore (a lazy first use, an eager signature at import, a callee
    compiled while its caller is) runs under a file lock per cache index, shared by the
    run's workers. A worker that needs a function another is compiling waits and then
    loads it from the cache (numba's ``Dispatcher.compile`` looks in the cache first),
    instead of compiling it a second time at once: on a cold cache the cache does not
    help processes that compile the same function at the same moment. (One index per
    function: ``_one_numba_cache_entry_per_index``.) Locks nest as calls do (a caller's
    compile holds its lock while its callees compile), which cannot deadlock since no
    kernel calls its callers; a compile already under its own lock in this process (a
    recursive signature) does not lock again; the locks are taken inside numba's
    process-wide compiler lock, so threads compile one at a time as they always do.
    Every worker installs it in :func:`pytest_configure`, before :func:`_warm_up`."""
    locks = _shared_lock_dir(config)
    if locks is None:
        return
    import fcntl
    import hashlib
    import movecore
    movecore._import_numba()
    from numba.core import sigutils
    from numba.core.caching import NullCache
    from numba.core.compiler_lock import global_compiler_lock
    from numba.core.dispatcher import Dispatcher

    plain = Dispatcher.compile
    if getattr(plain, "movecore_locked", False):
        return
    held: dict = {}         # cache index path -> its lock file (open) in this process

    def compile(self, sig):
        cache = self._cache
        if isinstance(cache, NullCache) or not movecore._is_movecore_function(self.py_func):
            return plain(self, sig)
        with global_compiler_lock:
            index = cache._cache_file._index_path
            if index in held or \
                    tuple(sigutils.normalize_signature(sig)[0]) in self.overloads:
                return plain(self, sig)
            name = hashlib.sha1(index.encode()).hexdigest()[:20]
            f = open(locks / f"movecore-compile-{name}.lock", "a")
            try:
                fcntl.flock(f, fcntl.LOCK_EX)
                held[index] = f
                return plain(self, sig)
            finally:
                held.pop(index, None)
                f.close()       # (closing the file releases the lock)

    def forget():
        # a forked child shares the lock files open in the parent at the fork (a thread's
        # compile): keeping them would hold the parent's locks while the child lives
        for f in held.values():
            f.close()
        held.clear()

    compile.movecore_locked = True
    compile.__wrapped__ = plain
    os.register_at_fork(after_in_child=forget)
    Dispatcher.compile = compile


#: The compiles of a test run's collection (every test module imported), which the workers
#: of a run on a cold Numba cache share out before they collect: :func:`_warm_up`. Each
#: step is a module to import or a ``module:function`` to call. The first group is every
#: other's base (each imports the kernels of ``reach``; Dark Realms' enemy AI and the
#: penalty kernels use ``reach_pen``): one worker compiles it while the others wait, then
#: load it. The rest are independent of each other, sized to ~8-15 CPU s each (measured
#: on a cold cache: ``numba:compile`` events per import).
WARM_UP = (
    ("movecore.kernels.reach", "movecore.kernels.reach_pen"),       # ~24 s
    ("movecore.games.heroscape._jit", "movecore.games.heroscape._batch"),   # ~14 s
    ("movecore.games.dark_realms._batch_enemy",),                   # ~7 s
    ("movecore.reach.compiled:penalty_kernel",                      # ~8 s
     "movecore.reach.compiled:penalty_steps_kernel"),
    ("movecore.kernels.batch", "movecore.rl._encode", "movecore.rl._vecnp"),  # ~5 s
)


def _warm_up(config) -> None:
    """In a pytest-xdist worker of a whole-suite run with 2+ workers: compile (or load)
    the groups of :data:`WARM_UP` before collecting, each group under a file lock shared
    by the run's workers (in the run's base temp folder), so that each group is compiled
    by one worker and loaded from the cache by the others. Without it every worker
    compiles all of them at once during its collection (~65 CPU s each on a cold cache:
    the cache does not help processes that compile the same function at the same
    moment). A worker takes the first group it can lock without waiting (the first
    group: waits), and waits for a locked one only when none is free; on a warm cache
    every step is a load."""
    import contextlib
    import importlib
    import io

    locks = _shared_lock_dir(config)
    if locks is None or not config.workerinput.get("movecore_warm_up"):
        return
    import fcntl

    def run(group):
        # (movecore announces each compile on stderr: the collection's output is captured,
        # this is not)
        with contextlib.redirect_stderr(io.StringIO()):
            for step in group:
                mod, _, fn = step.partition(":")
                m = importlib.import_module(mod)
                if fn:
                    getattr(m, fn)()

    def locked(i, wait):
        f = open(locks / f"movecore-warm-up-{i}.lock", "a")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            f.close()
            return None
        return f

    todo = list(range(len(WARM_UP)))
    while todo:
        for i in todo if todo[0] != 0 else [0]:
            f = locked(i, wait=(i == 0))
            if f is not None:
                break
        else:
            i = todo[0]
            f = locked(i, wait=True)
        try:
            run(WARM_UP[i])
        finally:
            f.close()       # (closing the file releases the lock)
        todo.remove(i)


def pytest_configure(config):
    _lock_compiles(config)
    _warm_up(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node):
    """(pytest-xdist, in the controller) A run of the whole suite (``pytest`` alone, whose
    collection imports every test module) warms up; a run of named files does not compile
    what it may not need."""
    if node.config.args_source == pytest.Config.ArgsSource.TESTPATHS:
        node.workerinput["movecore_warm_up"] = True


def _first_case(item, n: int = 1) -> bool:
    """Whether ``item`` is among its test's first ``n`` cases: each of its parameters at
    one of the first ``n`` places of its list (so whatever else a run selects)."""
    spec = getattr(item, "callspec", None)
    return spec is None or all(i < n for i in getattr(spec, "indices", {}).values())


#: How many soak-tier cases this process's collection left out.
_SOAK_LEFT = pytest.StashKey[int]()


def pytest_addoption(parser):
    parser.addoption(
        "--soak", action="store_true", default=False,
        help="also run the soak tier (tests/conftest.py, SLOW): every seed and example "
             "of the long random runs after the first, and their long variants "
             "(MOVECORE_SOAK=1 does the same)")


def _soak(config) -> bool:
    """Whether this run includes the soak tier: ``--soak``, ``MOVECORE_SOAK`` set to
    anything but ``""`` or ``"0"``, or a ``-m`` expression (which picks for itself)."""
    return bool(config.getoption("soak") or os.environ.get("MOVECORE_SOAK", "0") not in
                ("", "0") or config.option.markexpr)


def _named(config, item) -> bool:
    """Whether ``item`` was asked for by its id (``tests/test_x.py::test_y[case]``, from
    any folder)."""
    for arg in config.args:
        path, sep, rest = arg.partition("::")
        if not sep:
            continue
        where = (config.invocation_params.dir / path).resolve()
        try:
            asked = f"{where.relative_to(config.rootpath).as_posix()}::{rest}"
        except ValueError:          # (outside the rootdir: not one of ours)
            continue
        if item.nodeid == asked or item.nodeid.startswith((asked + "[", asked + "::")):
            return True
    return False


def pytest_collection_modifyitems(config, items):
    for item in items:
        rule = SLOW.get(f"{item.path.name}::{getattr(item, 'originalname', item.name)}")
        if rule == "all" or (rule == "rest" and not _first_case(item)) or \
                (isinstance(rule, int) and not _first_case(item, rule)):
            item.add_marker(pytest.mark.slow)
    if _soak(config):
        return
    left = [i for i in items if i.get_closest_marker("slow") and not _named(config, i)]
    if left:
        config.hook.pytest_deselected(items=left)
        gone = set(map(id, left))
        items[:] = [i for i in items if id(i) not in gone]
        config.stash[_SOAK_LEFT] = len(left)


def pytest_terminal_summary(terminalreporter, config):
    """Say that a run without the soak tier left it out (with the count where this process
    collected: a whole-suite run's controller leaves collecting to its workers)."""
    if _soak(config) or hasattr(config, "workerinput"):
        return
    left = config.stash.get(_SOAK_LEFT, 0)
    if left:
        terminalreporter.write_line(f"movecore: {left} soak-tier case{'s' * (left != 1)} "
                                    f"left out (pytest --soak runs them too)")
    elif getattr(config.option, "numprocesses", None):
        terminalreporter.write_line("movecore: the soak tier left out (pytest --soak runs "
                                    "it too)")


@pytest.fixture(autouse=True)
def _threads_always_split(monkeypatch):
    """Every 2-thread batched call split over the threads, as asked
    (``movecore.batch.CHOOSE_THREADS`` False): the tests' small batches would otherwise
    run whole on the calling thread after a few steps (``batch.ThreadChoice``: faster
    there), and their 2-thread runs would no longer check the split path. The choice's
    own tests turn it back on."""
    import movecore.batch
    monkeypatch.setattr(movecore.batch, "CHOOSE_THREADS", False)


@pytest.fixture(scope="session", autouse=True)
def _one_numba_cache_entry_per_index():
    """After the session: no cached Numba function of movecore was compiled in this process
    for two signatures (or as two variants under one qualname), which races on a cold cache
    when processes compile them at once (see jit_audit); and no compiled function of
    movecore, cached or not, was compiled again for a literal argument
    (:func:`jit_audit.literal_twins`: a compiled caller passing a constant, or a variable
    that starts as one, compiles the callee twice; only compiles in this worker are
    seen, so CI's cold cache checks them all)."""
    yield
    dispatchers = jit_audit.movecore_dispatchers()     # (the heap walked once for both)
    shared = jit_audit.shared_entries(dispatchers)
    assert not shared, (
        "cached Numba functions compiled for more than one signature (call them with the "
        "dtypes of kernels/_types.py, contiguous, as the package does):\n" +
        "\n".join(f"{path}: {sigs}" for path, sigs in shared.items()))
    twins = jit_audit.literal_twins(dispatchers)
    assert not twins, (
        "compiled again for a literal argument (pass an int64, np.int64(0), not 0):\n" +
        "\n".join(f"{name}: {sigs}" for name, sigs in twins.items()))
