"""Endgame tables by layered retrograde analysis, for any game with layers.

A game's positions fall into *layers*, numbered by what moves can only lower or
keep (Ataxx: empty squares, as clones fill one and jumps keep them; Awele: seeds
on the board, as captures remove some). Layers are built from the bottom up, each
from the finished ones below it; inside a layer the moves that stay in it form
cycles, which :mod:`~gameclub.tablebase.retro` resolves.

- :mod:`~gameclub.tablebase.values`: one signed byte per position (result, margin)
  and the 2-bit WIN/LOSS/DRAW code.
- :mod:`~gameclub.tablebase.retro`: the in-layer solvers (counters, fixed point).
- :mod:`~gameclub.tablebase.build`: the layer-by-layer driver, progress, resume.
- :mod:`~gameclub.tablebase.storage`: files, checksums, memory-mapped layers.
- :mod:`~gameclub.tablebase.rle`: run-length encoded WDL blocks with an index.
- :mod:`~gameclub.tablebase.ataxx`: the Ataxx layers, index and probing.
"""
