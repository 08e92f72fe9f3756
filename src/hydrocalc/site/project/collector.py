"""The problem collector of the ``[project]`` and ``[construction]`` parsers.

Every check appends one line ``site.toml: <key path> <text>`` and returns a usable value or
None; regulation-profile keys (exemptions, milestones) are looked up for "did you mean"
suggestions.
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Mapping

from hydrocalc._validate import number_problem, suggest, text_problem
from hydrocalc.criteria.profiles import load_profile
from hydrocalc.errors import InputError

# ----------------------------------------------------------------------------------------
# parsing helpers (every check appends to ``problems`` and returns a usable value or None)


class _Collector:
    """Collects one-line problems prefixed with the file name and the key path."""

    def __init__(self, where: str):
        self.where = where
        self.problems: list[str] = []

    def add(self, path: str, text: str) -> None:
        self.problems.append(f"{self.where}: {path} {text}")

    def unknown_keys(self, mapping: Mapping, allowed, prefix: str) -> None:
        for key in mapping:
            if key not in allowed:
                hint = suggest(str(key), allowed)
                self.problems.append(
                    f"{self.where}: unknown key {prefix}.{key}{hint}"
                    + ("" if hint else f". Valid keys: {', '.join(allowed)}")
                )

    def text(self, mapping, key, prefix, *, required) -> str | None:
        if key not in mapping:
            if required:
                self.add(f"{prefix}.{key}", "is required; got nothing. Add it to the file.")
            return None
        value = mapping[key]
        if isinstance(value, str) and not required and not value.strip():
            return value
        bad = text_problem(value, required=True)
        if bad:
            self.add(f"{prefix}.{key}", bad)
            return None
        return value

    def boolean(self, mapping, key, prefix, *, required, default=None) -> bool | None:
        if key not in mapping:
            if required:
                self.add(
                    f"{prefix}.{key}",
                    "is required; got nothing. Add it as true or false.",
                )
            return default
        value = mapping[key]
        if not isinstance(value, bool):
            self.add(f"{prefix}.{key}", f"must be true or false; got {value!r}")
            return None
        return value

    def number(
        self,
        mapping,
        key,
        prefix,
        *,
        required=False,
        lower=None,
        upper=None,
        lower_inclusive=True,
        upper_inclusive=True,
        hint="",
    ) -> float | None:
        if key not in mapping:
            if required:
                self.add(f"{prefix}.{key}", "is required; got nothing. Add it to the file.")
            return None
        value = mapping[key]
        bad = number_problem(value, lower=lower, upper=upper, lower_inclusive=lower_inclusive,
                             upper_inclusive=upper_inclusive)
        if bad:
            in_range = not bad.startswith(("must be a number", "must be a finite"))
            self.add(f"{prefix}.{key}", bad + (hint if in_range else ""))
            return None
        return float(value)

    def date(self, mapping, key, prefix, *, required, allow_time=False):
        if key not in mapping:
            if required:
                self.add(
                    f"{prefix}.{key}",
                    "is required; got nothing. Add it as a TOML date, e.g. 2027-04-01.",
                )
            return None
        value = mapping[key]
        if isinstance(value, _dt.datetime):
            if not allow_time:
                self.add(
                    f"{prefix}.{key}",
                    f"must be a date without a time, e.g. 2027-04-01; got {value.isoformat()}",
                )
                return None
            if value.tzinfo is not None:
                self.add(
                    f"{prefix}.{key}",
                    "must be a local date-time without a time zone offset, e.g. "
                    f"2027-04-01T07:00; got {value.isoformat()}",
                )
                return None
            return value
        if isinstance(value, _dt.date):
            return value
        if isinstance(value, str):
            try:
                if allow_time and "T" in value:
                    return _dt.datetime.fromisoformat(value)
                return _dt.date.fromisoformat(value)
            except ValueError:
                pass
        self.add(
            f"{prefix}.{key}",
            f"must be a date (YYYY-MM-DD, unquoted TOML date); got {value!r}",
        )
        return None


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
