"""CPU time of movecore's cache stamps (numba's digest of the function's own file plus
the dependency files' digest) against numba's own stamp alone, for every cached function
decorated at a warm import of the batch and RL modules: the stamp is computed once per
function, at its decoration; both are timed on each function, in alternating order."""
import importlib, time
import movecore
movecore._import_numba()
add = movecore._add_dependencies
acc = {"numba": 0.0, "movecore": 0.0, "n": 0}

def timed_add(locator, py_func, py_file):
    own = locator.get_source_stamp
    add(locator, py_func, py_file)
    ours = locator.get_source_stamp

    def stamp():
        order = [("numba", own), ("movecore", ours)]
        if acc["n"] % 2:
            order.reverse()
        for name, f in order:
            t = time.process_time(); out = f(); acc[name] += time.process_time() - t
        acc["n"] += 1
        return out if name == "movecore" else ours()
    locator.get_source_stamp = stamp

movecore._add_dependencies = timed_add
t0 = time.perf_counter()
for m in ["movecore.games.heroscape._bits", "movecore.games.dark_realms._batch_enemy",
          "movecore.rl._vechs", "movecore.rl._vecnp", "movecore.rl._vecdescent",
          "movecore.tools._selfplay_dark_realms", "movecore.tools.selfplay_batch",
          "movecore.rl._vechsenv", "movecore.kernels.batch"]:
    importlib.import_module(m)
print(f"warm import {time.perf_counter() - t0:.3f} s wall; {acc['n']} stamps, CPU: numba's "
      f"own {acc['numba'] * 1e3:.1f} ms, movecore's {acc['movecore'] * 1e3:.1f} ms")
