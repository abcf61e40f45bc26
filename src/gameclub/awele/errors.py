"""Exceptions for bad Awele input: each a ``ValueError`` whose message says what and where."""

from __future__ import annotations


class AweleError(ValueError):
    """Base class of every input error raised by ``gameclub.awele``."""


class InvalidPositionError(AweleError):
    """Position text is malformed or describes an impossible position."""


class InvalidMoveError(AweleError):
    """Move text is malformed (not one pit letter, ``A``-``F`` or ``a``-``f``)."""


class IllegalMoveError(AweleError):
    """A well-formed move that is not legal in the current position."""


class InvalidRecordError(AweleError):
    """A game record is malformed, or one of its moves is illegal."""


class InvalidRulesError(AweleError):
    """A rule set option is out of range, or the rule set's name is unknown."""
