"""movecore.games: one module per game, each registering its scenario vocabulary.

Every public module here is imported by :func:`movecore.available_games` and registers
itself with :func:`movecore.register_game`; modules starting with ``_`` are helpers.
"""
