"""What the ``[project]`` and ``[construction]`` parsers share besides the problem collector.

The collector itself is the site file's (:mod:`hydrocalc.site.problems`); here are the
regulation-profile keys (exemptions, milestones) and the "did you mean" fragment of a
choice.
"""

from __future__ import annotations

from hydrocalc._validate import suggest
from hydrocalc.criteria.profiles import load_profile
from hydrocalc.errors import InputError


def _choices(value: str, valid) -> str:
    """``"'x'; did you mean 'y'? Valid: a, b"`` fragment for an invalid choice."""
    hint = suggest(str(value), valid)
    return f"{value!r}{hint}{'' if hint else '.'} Valid: {', '.join(valid) or '(none)'}"


def _profile_keys(municipality: str, kind: str) -> tuple[str, ...] | None:
    """Exemption or milestone keys of a regulation profile; None for an unknown municipality."""
    try:
        profile = load_profile(municipality)
    except InputError:  # unknown municipality: reported by the municipality check itself
        return None
    if kind == "exemption":
        return tuple(profile.exemption_keys)
    return tuple(profile.milestone_keys)
