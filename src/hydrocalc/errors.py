"""Exceptions and warnings raised by hydrocalc.

Domain errors subclass the matching built-in (``InputError`` is a ``ValueError``) so
generic handlers still catch them. Every message follows one template::

    <argument> must be <requirement>; got <value>[ at index i (k of n values invalid)].
    <What to do.>
"""

from __future__ import annotations

__all__ = [
    "HydrocalcError",
    "InputError",
    "OutOfRangeError",
    "ReportError",
    "RangeWarning",
]


class HydrocalcError(Exception):
    """Base class of every error hydrocalc raises on purpose."""


class InputError(HydrocalcError, ValueError):
    """An argument or input-file value is outside its defined domain."""


class OutOfRangeError(InputError):
    """An input is outside a method's published validity range (no published fallback)."""


class ReportError(HydrocalcError):
    """A report section failed to execute (wraps papermill errors)."""


class RangeWarning(UserWarning):
    """A publication-prescribed fallback or limit was applied to some values."""
