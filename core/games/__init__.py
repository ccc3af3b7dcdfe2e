"""movecore.games: one package per game (``movecore.games.<game>``: ``rules``, ``position``
and private helpers), each registering its scenario vocabulary.

Every public package here is imported by :func:`movecore.available_games` and registers
itself with :func:`movecore.register_game`; modules starting with ``_`` are helpers shared
by the games (:mod:`._common`). Game packages never import each other
(docs/architecture.md).
"""
