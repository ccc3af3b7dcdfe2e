"""movecore.tools: what is built on the engine and the games, for people and programs at
a shell: the ``movecore`` command (:mod:`.cli`), the demo (pictures: :mod:`movecore.render`), the
benchmarks (:mod:`.bench`, :mod:`.bench_games`, :mod:`.workloads`), bulk self-play
(:mod:`.selfplay`) and the schema / convert commands (:mod:`.vocab_cli`).

The top layer (docs/architecture.md): tools import the games and the engine, never the
other way round.
"""
