"""Shipped, published tables and their provenance manifest.

Every CSV in this folder is a transcription of a published table (TR-55, NEH Part 630,
WinTR-20 rainfall distributions, state manuals) with an entry in ``manifest.toml`` (or a
``manifest_<topic>.toml`` beside it) giving the source publication, table number, units of
each column and the file's sha256. ``tests/foundation/test_data_manifest.py`` checks that the three
agree, so any edit to a transcribed number is deliberate.

Tables load through :mod:`importlib.resources` (works from any install), are parsed once and
cached, and every call returns a fresh copy.
"""

from __future__ import annotations

import functools
import hashlib
import io
import tomllib
from importlib.resources import files

import pandas as pd

from hydrocalc._validate import suggest
from hydrocalc.errors import InputError

__all__ = ["manifest", "list_tables", "table_info", "load_table", "table_sha256", "table_hashes"]

_DATA = files(__name__)


@functools.cache
def manifest() -> dict:
    """Return the merged manifest ``{name: entry}`` of every shipped table."""
    tables: dict = {}
    names = sorted(
        p.name
        for p in _DATA.iterdir()
        if p.name.startswith("manifest") and p.name.endswith(".toml")
    )
    for fname in names:
        doc = tomllib.loads(_DATA.joinpath(fname).read_text(encoding="utf-8"))
        for key, entry in doc.get("tables", {}).items():
            if key in tables:
                raise InputError(f"table {key!r} is defined twice in the data manifests")
            entry = dict(entry)
            entry["manifest"] = fname
            tables[key] = entry
    return tables


def list_tables(*, kind: str | None = "table") -> list[str]:
    """Names of the shipped tables, sorted.

    Parameters
    ----------
    kind : {"table", "profile", None}, default "table"
        ``"table"`` lists the CSV tables :func:`load_table` reads; ``"profile"`` the
        local-law profiles (TOML, read by :func:`hydrocalc.criteria.regulations.load_profile`);
        ``None`` lists every manifest entry.
    """
    return sorted(
        name
        for name, entry in manifest().items()
        if kind is None or entry.get("kind", "table") == kind
    )


def _entry(name: str) -> dict:
    tables = manifest()
    if name not in tables:
        raise InputError(
            f"unknown table {name!r}{suggest(name, tables)} "
            "List all with: hydrocalc tables list"
        )
    return tables[name]


def table_info(name: str) -> dict:
    """Provenance of table ``name`` (file, title, source, location, units, sha256, ...)."""
    return dict(_entry(name))


def _bytes(name: str) -> bytes:
    return _DATA.joinpath(_entry(name)["file"]).read_bytes()


def table_sha256(name: str) -> str:
    """sha256 of the shipped file of table ``name`` as it is on disk now."""
    return hashlib.sha256(_bytes(name)).hexdigest()


@functools.cache
def table_hashes() -> dict[str, str]:
    """``{name: sha256}`` of every shipped table and profile as recorded in the manifest."""
    return {name: entry["sha256"] for name, entry in sorted(manifest().items())}


@functools.cache
def _read(name: str) -> pd.DataFrame:
    entry = _entry(name)
    if entry.get("kind", "table") != "table":
        raise InputError(
            f"{name!r} is a {entry['kind']} ({entry['file']}), not a table; read it with "
            "hydrocalc.criteria.regulations.load_profile()"
        )
    return pd.read_csv(io.BytesIO(_bytes(name)), keep_default_na=True)


_READS: set[str] = set()


def tables_read() -> set[str]:
    """Names of the shipped tables :func:`load_table` has read in this process.

    Callers cache their tables, so a table is recorded on its first read.
    """
    return set(_READS)


def load_table(name: str) -> pd.DataFrame:
    """Return a fresh copy of shipped table ``name``; see :func:`list_tables`.

    Raises
    ------
    InputError
        If ``name`` is not a shipped table (the message lists close matches).
    """
    frame = _read(name).copy()
    _READS.add(name)
    return frame
