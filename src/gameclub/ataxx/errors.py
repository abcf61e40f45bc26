"""Exceptions for bad input: every one is a ``ValueError`` whose message says what and where."""

from __future__ import annotations


class AtaxxError(ValueError):
    """Base class of every input error raised by ``gameclub.ataxx``."""


class InvalidFenError(AtaxxError):
    """A FEN string is malformed or describes an impossible position."""


class InvalidMoveError(AtaxxError):
    """Move text is malformed (not ``g2``, ``a1a3`` or ``0000``)."""


class IllegalMoveError(AtaxxError):
    """A well-formed move that is not legal in the current position."""


class InvalidRecordError(AtaxxError):
    """A game record (PGN) is malformed, or one of its moves is illegal."""


class InvalidBlocksError(AtaxxError):
    """A Blocs-Config code is malformed, or a block set has no code."""


class InvalidRulesError(AtaxxError):
    """A rule set option is out of range or contradicts another."""
