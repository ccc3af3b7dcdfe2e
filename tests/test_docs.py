"""The documentation stays true: docstring examples run, and the README's `movecore solve`
examples print exactly what the README shows."""
from __future__ import annotations

import doctest
import importlib
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = ["movecore", "movecore.board", "movecore.mover", "movecore.reach",
           "movecore.scenario", "movecore.position", "movecore.games.grid.rules",
           "movecore.games.tiny_epic_tactics.position", "movecore.games.descent.position",
           "movecore.games.heroscape.position", "movecore.games.mage_knight.position",
           "movecore.games.dark_realms.rules", "movecore.examples",
           "movecore.games.mage_knight._map_changes", "movecore.games.dark_realms.position",
           "movecore.reach._result", "movecore.reach._prepared",
           "movecore.games.heroscape.rules", "movecore.batch",
           "movecore.tools.selfplay_batch"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    failed, tried = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
    assert failed == 0 and tried > 0


@pytest.mark.parametrize("page,least", [("README.md", 2), ("docs/grid.md", 2)])
def test_readme_solve_examples_are_real(page, least):
    text = (ROOT / page).read_text()
    blocks = re.findall(r"```console\n\$ (movecore solve [^\n]+)\n(.*?)```", text, re.S)
    assert len(blocks) >= least
    for command, shown in blocks:
        args = command.split()[1:]
        out = subprocess.run([sys.executable, "-m", "movecore", *args], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout
        assert out == shown, command


def _run_python_blocks(page: str, least: int = 1) -> list:
    """Each ```python block of ``page`` (a path under the repository) run as printed in
    a fresh interpreter; each must exit 0. Returns their outputs (stdout)."""
    text = (ROOT / page).read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= least, page
    outs = []
    for code in blocks:
        out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                             text=True)
        assert out.returncode == 0, (page, out.stderr[-3000:])
        outs.append((code, out.stdout))
    return outs


def test_ai_guide_example_runs():
    """docs/ai.md's example is a complete program: it runs as printed."""
    for code, out in _run_python_blocks("docs/ai.md"):
        if "refused:" in code:
            assert "refused:" in out


def test_selfplay_page_python_runs():
    """docs/selfplay.md's batched example runs as printed and prints its counters."""
    for _, out in _run_python_blocks("docs/selfplay.md"):
        assert "moves_per_s" in out


def test_readme_python_examples_run():
    _run_python_blocks("README.md", least=2)


#: Runs a page's ```python blocks (``argv[3]``: their indices, or ``all``) in order in
#: one namespace (the API reference's blocks build on its first), then checks each line
#: ``expression  # literal`` whose comment is a Python literal (a list, a number, a
#: string...) by evaluating the expression again.
_CHAINED = r"""
import ast, re, sys
text = open(sys.argv[1]).read().replace('"reach.svg"', repr(sys.argv[2]))
ns = {"__name__": "__main__"}
checked = 0
for i, code in enumerate(re.findall(r"```python\n(.*?)```", text, re.S)):
    if sys.argv[3] != "all" and str(i) not in sys.argv[3].split(","):
        continue
    exec(compile(code, f"block {i}", "exec"), ns)
    for line in code.splitlines():
        expr, sep, said = line.partition("  #")
        if not sep or not expr.strip() or expr.startswith((" ", "\t")):
            continue
        try:
            ast.parse(expr.strip(), mode="eval")
            want = ast.literal_eval(said.strip())
        except (SyntaxError, ValueError):
            continue
        got = eval(expr.strip(), ns)
        got = got.tolist() if hasattr(got, "tolist") else got
        assert got == want, (i, expr.strip(), got, want)
        checked += 1
print(checked)
"""


@pytest.mark.parametrize("page,blocks,least", [
    ("api.md", "all", 6), ("descent.md", "1", 3), ("mage_knight.md", "1", 1),
    ("heroscape.md", "0,2,3", 0)])
def test_page_python_runs_in_order(tmp_path, page, blocks, least):
    """docs/api.md's blocks run in order as one program (from a clone's root, as its
    first block reads an example file), and so do the game pages' blocks that are
    programs (the others sketch a call with placeholders: ``scenario``, ``[...]``); the
    values their comments give are what the expressions return (``least`` of them)."""
    out = subprocess.run([sys.executable, "-c", _CHAINED, str(ROOT / "docs" / page),
                          str(tmp_path / "reach.svg"), blocks], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stderr[-3000:]
    assert int(out.stdout.split()[-1]) >= least, out.stdout
    if page == "api.md":
        assert (tmp_path / "reach.svg").read_text().startswith("<svg")


USER_DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md")])


@pytest.mark.parametrize("page", USER_DOCS, ids=lambda p: p.name)
def test_docs_cite_only_public_sources(page):
    """A user has no RULES.md, no rule seeds and no issue tracker numbers: the docs cite
    rulebook pages, FAQs and rules sites, and state movecore's decisions themselves."""
    text = page.read_text()
    bad = re.findall(r"RULES\.md|\bseeds?\s+0\d\d|\bissue\s+#?\d+", text, re.I)
    assert bad == [], f"{page.name} cites {sorted(set(bad))}"


def _heading_anchors(text: str) -> set:
    """The anchors a renderer gives ``text``'s headings, as GitHub makes them: the
    heading's words lower-cased, punctuation but ``-`` and ``_`` dropped, spaces made
    ``-``, a repeated one suffixed ``-1``, ``-2``, ...; headings in code blocks are not."""
    seen: dict = {}
    out = set()
    in_code = False
    for line in text.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        m = None if in_code else re.match(r"#{1,6}\s+(.*)", line)
        if m:
            words = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1).strip())
            slug = re.sub(r"[^\w\- ]", "", words.lower()).replace(" ", "-")
            out.add(slug + (f"-{seen[slug]}" if slug in seen else ""))
            seen[slug] = seen.get(slug, 0) + 1
    return out


def test_docs_links_resolve():
    """Every relative link in the README and docs names a file that exists, and every
    ``#anchor`` a heading of the page it points into (a section renamed or moved must
    take its links along)."""
    anchors = {p.resolve(): _heading_anchors(p.read_text()) for p in USER_DOCS}
    bad, checked = [], 0
    for page in USER_DOCS:
        text = re.sub(r"```.*?```|`[^`\n]*`", "", page.read_text(), flags=re.S)
        for href in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", href):
                continue
            path, _, frag = href.partition("#")
            target = (page.parent / path).resolve() if path else page.resolve()
            if not target.exists():
                bad.append(f"{page.name}: {href} (no such file)")
            elif frag and target in anchors:
                checked += 1
                if frag not in anchors[target]:
                    bad.append(f"{page.name}: {href} (no such heading)")
    assert checked >= 50 and bad == [], bad


def test_grid_page_lists_every_key_the_game_reads():
    src = (ROOT / "core" / "games" / "grid" / "rules.py").read_text()
    keys = set()
    for group in re.findall(r"expect_keys\([^)]*?\((\"[^)]*)\)", src):
        keys |= set(re.findall(r'"(\w+)"', group))
    keys |= set(re.findall(r'_QUERY_KEYS = \(([^)]*)\)', src)[0].replace('"', "").replace(
        " ", "").split(",")) - {""}
    page = (ROOT / "docs" / "grid.md").read_text()
    missing = sorted(k for k in keys - {"game", "board", "options", "figures", "query"}
                     if f"{k}`" not in page and f".{k}" not in page)
    assert len(keys) >= 12 and missing == []


def test_games_table_links_every_game_page():
    readme = (ROOT / "README.md").read_text()
    for page in ("grid", "heroscape", "mage_knight", "descent", "tiny_epic_tactics",
                 "dark_realms"):
        assert f"(docs/{page}.md)" in readme, page


def test_readme_lists_every_command():
    """The README's command table names every subcommand `movecore --help` lists."""
    from movecore.tools import cli
    text = (ROOT / "README.md").read_text()
    table = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    listed = set(re.findall(r"^\| `movecore (\w+)", table, re.M))
    assert listed == {"solve", "games", "examples", *cli._COMMAND_MODULES}


def test_the_slow_list_names_real_tests_and_the_readme_gives_the_soak_tier():
    """conftest.SLOW (the soak tier, which `pytest` leaves out and `pytest --soak` runs)
    names test functions that exist, none of the runs the standards size by count; the
    README documents the soak tier."""
    import conftest
    for key in conftest.SLOW:
        name, func = key.split("::")
        path = ROOT / "tests" / name
        assert path.exists(), key
        assert re.search(rf"^def {func}\(", path.read_text(), re.M), key
        # thousands of random boards per kernel, in every run
        assert name not in ("test_differential.py", "test_reach_pen.py"), key
    assert all(v in ("all", "rest") or type(v) is int and v > 0
               for v in conftest.SLOW.values())
    for name in ("test_differential.py", "test_reach_pen.py"):
        assert "mark.slow" not in (ROOT / "tests" / name).read_text(), name
    batch = (ROOT / "tests" / "test_batch.py").read_text()
    ten_thousand = batch.split("def test_batched_ten_thousand_moves")[0].rsplit("\n\n", 1)[1]
    assert "mark.slow" not in ten_thousand              # issue 29's 10,000 moves per game
    assert "pytest --soak" in (ROOT / "README.md").read_text()


def test_ci_runs_the_readmes_test_command():
    """.ci/run runs the README's second set-up command as written (its arguments passed
    on to pytest: `.ci/run --soak`)."""
    readme = (ROOT / "README.md").read_text()
    command = re.search(r"^(pip install -e '\.\[test\]' && pytest) +#", readme, re.M)
    assert command, "the README's set-up block lost its test command"
    assert f'{command.group(1)} "$@"\n' in (ROOT / ".ci" / "run").read_text()


def test_pytest_leaves_the_soak_tier_out_unless_asked():
    """`pytest` deselects the soak tier's cases (SLOW's, and those marked slow in place);
    --soak, MOVECORE_SOAK=1 or a -m expression keep them (-m picks for itself); a case
    named by its id runs whatever its tier. The real hooks on stand-in items."""
    from types import SimpleNamespace
    import conftest

    class Item:
        def __init__(self, func, index=None, slow=False):
            self.path = Path("tests/test_x.py")
            self.originalname = func
            self.name = func if index is None else f"{func}[{index}]"
            self.nodeid = f"tests/test_x.py::{self.name}"
            if index is not None:
                self.callspec = SimpleNamespace(indices={"seed": index})
            self.marks = ["slow"] if slow else []

        def add_marker(self, mark):
            self.marks.append(mark.name)

        def get_closest_marker(self, name):
            return name if name in self.marks else None

    def run(monkeypatch, soak=False, markexpr="", args=(), env=None):
        monkeypatch.setattr(conftest, "SLOW", {"test_x.py::test_seeds": "rest",
                                               "test_x.py::test_long": "all",
                                               "test_x.py::test_grid": 2})
        if env is None:
            monkeypatch.delenv("MOVECORE_SOAK", raising=False)
        else:
            monkeypatch.setenv("MOVECORE_SOAK", env)
        items = [Item("test_seeds", 0), Item("test_seeds", 1), Item("test_long"),
                 Item("test_marked", slow=True), Item("test_quick")] + \
            [Item("test_grid", i) for i in range(4)]      # (a number: its first cases)
        gone = []
        cfg = SimpleNamespace(
            getoption=lambda name: soak, option=SimpleNamespace(markexpr=markexpr),
            args=list(args), stash={}, rootpath=ROOT,
            invocation_params=SimpleNamespace(dir=ROOT / "tests"),
            hook=SimpleNamespace(pytest_deselected=lambda items: gone.extend(items)))
        conftest.pytest_collection_modifyitems(cfg, items)
        assert {i.name for i in gone}.isdisjoint(i.name for i in items)
        return [i.name for i in items], [i.name for i in gone]

    with pytest.MonkeyPatch.context() as mp:
        grid = [f"test_grid[{i}]" for i in range(4)]
        every = ["test_seeds[0]", "test_seeds[1]", "test_long", "test_marked",
                 "test_quick"] + grid
        left = ["test_seeds[1]", "test_long", "test_marked"] + grid[2:]
        assert run(mp) == (["test_seeds[0]", "test_quick"] + grid[:2], left)
        assert run(mp, soak=True) == (every, [])
        assert run(mp, env="1") == (every, [])
        assert run(mp, env="0")[1] == left
        assert run(mp, markexpr="slow") == (every, [])      # -m filters after this hook
        # (ids from the invocation folder, tests/ here, or absolute)
        kept, _ = run(mp, args=["test_x.py::test_seeds", str(ROOT / "tests/test_x.py::test_long")])
        assert kept == ["test_seeds[0]", "test_seeds[1]", "test_long", "test_quick"] + grid[:2]
        kept, _ = run(mp, args=["test_x.py::test_seeds[1]", "tests/test_x.py::test_marked"])
        assert kept == ["test_seeds[0]", "test_seeds[1]", "test_quick"] + grid[:2]


def test_the_whole_suite_runs_on_workers_and_named_files_in_process():
    """`pytest` alone (testpaths) takes one xdist worker per CPU, at most MAX_WORKERS;
    named files, `-n` given, --pdb, --collect-only, an xdist worker itself, or no xdist
    plugin leave the run as asked."""
    from types import SimpleNamespace
    import conftest

    def run(source="TESTPATHS", n=None, pdb=False, co=False, worker=False, xdist=True,
            cpus=2):
        opt = SimpleNamespace(numprocesses=n, dist="no", usepdb=pdb, collectonly=co)
        cfg = SimpleNamespace(option=opt, args_source=getattr(pytest.Config.ArgsSource,
                                                               source),
                              pluginmanager=SimpleNamespace(hasplugin=lambda n: xdist))
        if worker:
            cfg.workerinput = {}
        real = conftest._usable_cpus
        conftest._usable_cpus = lambda: cpus
        try:
            conftest.pytest_cmdline_main(cfg)
        finally:
            conftest._usable_cpus = real
        return opt.numprocesses, opt.dist

    assert run() == (2, "worksteal")
    assert run(cpus=64) == (conftest.MAX_WORKERS, "worksteal")
    assert run(cpus=1) == (None, "no")
    for kw in (dict(source="ARGS"), dict(pdb=True), dict(co=True), dict(worker=True),
               dict(xdist=False)):
        assert run(**kw) == (None, "no"), kw
    assert run(n=0) == (0, "no")


def test_the_workers_share_out_the_collections_compiles(tmp_path, monkeypatch):
    """conftest's warm-up (a whole-suite run's workers, before they collect): each worker
    runs every group of WARM_UP (a compile, or a load from the cache), the first group
    before the others; two workers never run one group at once (a file lock per group),
    and a worker takes a free group rather than wait for a locked one. Two threads play
    the workers: a group's first run sleeps (the compile), a later one does not (the
    load). Off without the controller's flag, with one worker or MOVECORE_NO_CACHE."""
    import threading
    import time
    import types
    from types import SimpleNamespace
    import importlib.util
    import conftest

    for group in conftest.WARM_UP:        # the real steps name real modules and functions
        for step in group:
            mod, _, fn = step.partition(":")
            spec = importlib.util.find_spec(mod)
            assert spec is not None, step
            assert not fn or re.search(rf"^def {fn}\(", Path(spec.origin).read_text(),
                                       re.M), step
    runs = []           # (group, worker, start, end)
    done = set()
    lock = threading.Lock()

    def step(group):
        def f():
            t0 = time.perf_counter()
            with lock:
                first = group not in done
                done.add(group)
            if first:
                time.sleep(0.6)
            runs.append((group, threading.current_thread().name, t0, time.perf_counter()))
        return f

    fake = types.ModuleType("_warm_up_fake")
    for g in range(3):
        setattr(fake, f"g{g}", step(g))
    monkeypatch.setitem(sys.modules, "_warm_up_fake", fake)
    monkeypatch.setattr(conftest, "WARM_UP", tuple((f"_warm_up_fake:g{g}",) for g in range(3)))
    monkeypatch.delenv("MOVECORE_NO_CACHE", raising=False)

    def config(flag=True, workers=2):
        return SimpleNamespace(workerinput={"movecore_warm_up": flag, "workercount": workers},
                               option=SimpleNamespace(basetemp=str(tmp_path / "gw")))

    for cfg in (config(flag=False), config(workers=1)):
        conftest._warm_up(cfg)
    monkeypatch.setenv("MOVECORE_NO_CACHE", "1")
    conftest._warm_up(config())
    monkeypatch.delenv("MOVECORE_NO_CACHE")
    assert runs == []

    workers = [threading.Thread(target=conftest._warm_up, args=(config(),), name=f"gw{i}")
               for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert sorted((g, w) for g, w, _, _ in runs) == [(g, f"gw{i}") for g in range(3)
                                                     for i in range(2)]
    for name in ("gw0", "gw1"):
        mine = [g for g, w, _, _ in sorted(runs, key=lambda r: r[2]) if w == name]
        assert mine[0] == 0, runs
    for g in range(3):
        (_, _, s0, e0), (_, _, s1, e1) = sorted(r for r in runs if r[0] == g)[:2]
        assert e0 <= s1 or e1 <= s0, runs          # one at a time
    # after group 0, each worker compiled one of the two others (none waited for a lock
    # while a group was free): the two compiles overlap
    firsts = [min((r for r in runs if r[0] == g), key=lambda r: r[2]) for g in (1, 2)]
    assert firsts[0][1] != firsts[1][1], runs
    assert firsts[0][2] < firsts[1][3] and firsts[1][2] < firsts[0][3], runs


_LOCKED_COMPILE = r"""
import importlib.util, json, sys, time
from pathlib import Path
from types import SimpleNamespace
import conftest
tmp, me, lock = Path(sys.argv[1]), sys.argv[2], sys.argv[3] == "1"
if lock:
    conftest._lock_compiles(SimpleNamespace(
        workerinput={"workercount": 2}, option=SimpleNamespace(basetemp=str(tmp / me))))
import movecore
numba = movecore._import_numba()
from numba.core import event
compiled = []

class Slow(event.Listener):     # a compile takes a second: the two would overlap
    def on_start(self, ev):
        compiled.append(ev.data["dispatcher"].py_func.__name__)
        time.sleep(1.0)
    def on_end(self, ev):
        pass

event.register("numba:compile", Slow())
spec = importlib.util.spec_from_file_location("movecore._lock_probe", tmp / "probe.py")
mod = sys.modules[spec.name] = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
(tmp / f"ready-{me}").touch()
while not all((tmp / f"ready-{w}").exists() for w in ("gw0", "gw1")):
    time.sleep(0.01)
t0 = time.perf_counter()
assert mod.outer(20) == 20 * 21
print(json.dumps({"compiled": compiled, "s": time.perf_counter() - t0}))
"""


@pytest.mark.parametrize("lock", [True, False])
def test_the_workers_compile_each_function_once(tmp_path, lock):
    """conftest's compile lock (every worker of a run with 2+ workers): two processes that
    need the same cached movecore function at once on a cold cache compile it once, in
    one of them; the other waits for it and loads it from the cache (its callee too).
    Without the lock (the control case) both compile it. A compile here takes a
    second (a numba:compile listener sleeps), so the two overlap."""
    import json
    import os
    (tmp_path / "probe.py").write_text(
        "import numba\n\n\n@numba.njit(cache=True)\ndef inner(n):\n    return n + 1\n\n\n"
        "@numba.njit(cache=True)\ndef outer(n):\n    s = 0\n    for i in range(n):\n"
        "        s += inner(i)\n    return 2 * s\n")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR",
                                                            "MOVECORE_NO_CACHE")}
    env.update(MOVECORE_CACHE=str(tmp_path / "cache"),
               PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), env.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-c", _LOCKED_COMPILE, str(tmp_path), w,
                               "1" if lock else "0"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for w in ("gw0", "gw1")]
    outs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err[-1500:] for _, err in outs]
    got = sorted(sorted(json.loads(out)["compiled"]) for out, _ in outs)
    if lock:
        assert got == [[], ["inner", "outer"]], got
        assert list(tmp_path.glob("movecore-compile-*.lock")), "the locks are shared"
    else:   # (``inner`` too, unless one process started a second late)
        assert all("outer" in g for g in got), got


def test_the_compile_lock_is_off_outside_a_run_of_workers(tmp_path, monkeypatch):
    """Not a worker, one worker, or MOVECORE_NO_CACHE: numba's compile stays as it is;
    two workers with the cache on: locked (the control case). Each case is checked on
    its own, and numba's compile is put back after the test whatever happens: a lock
    installed here by mistake fails this test alone, not the session's later compiles."""
    from types import SimpleNamespace
    import conftest
    from numba.core.dispatcher import Dispatcher
    # numba's own compile (a whole-suite worker runs with the lock installed), put back
    # as it was at teardown
    plain = getattr(Dispatcher.compile, "__wrapped__", Dispatcher.compile)
    monkeypatch.setattr(Dispatcher, "compile", plain)
    monkeypatch.delenv("MOVECORE_NO_CACHE", raising=False)
    opt = SimpleNamespace(basetemp=str(tmp_path / "gw0"))
    cases = [("not a worker", SimpleNamespace(option=opt), None),
             ("one worker", SimpleNamespace(workerinput={"workercount": 1}, option=opt),
              None),
             ("MOVECORE_NO_CACHE", SimpleNamespace(workerinput={"workercount": 2},
                                                   option=opt), "1")]
    for what, config, no_cache in cases:
        if no_cache is None:
            monkeypatch.delenv("MOVECORE_NO_CACHE", raising=False)
        else:
            monkeypatch.setenv("MOVECORE_NO_CACHE", no_cache)
        conftest._lock_compiles(config)
        assert Dispatcher.compile is plain, what
    # the control case: two workers with the cache on do lock (undone at teardown)
    monkeypatch.delenv("MOVECORE_NO_CACHE")
    conftest._lock_compiles(SimpleNamespace(workerinput={"workercount": 2}, option=opt))
    assert getattr(Dispatcher.compile, "movecore_locked", False)
    assert Dispatcher.compile.__wrapped__ is plain
