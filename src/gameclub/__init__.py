"""gameclub: play, study and solve Ataxx.

The package is layered; each layer imports only the ones below it:

- ``gameclub.ataxx``: the rules of Ataxx (no I/O), notation, Blocs-Config, numba kernels;
- ``gameclub.ataxx.engine``: search, evaluation, levels, the exact endgame solver;
- ``gameclub.uai`` and ``gameclub.match``: the engine protocol and the match runner;
- ``gameclub.server``: the club (HTTP + WebSockets), with its static front end in ``web``;
- ``gameclub.cli``: the ``gameclub`` command.
"""

__version__ = "0.1.0"
