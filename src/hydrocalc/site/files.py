"""Files of a site: the site file itself and every CSV or depth file it names.

Names are resolved against the site file's folder and confined to it (see
``_validate.confined_path``) unless the load allows outside paths; CSV tables are read with
size, line and encoding limits (:data:`MAX_CSV_BYTES`, :data:`MAX_CSV_LINE_CHARS`,
:data:`MAX_CSV_ROWS`), the site file with :data:`MAX_SITE_FILE_BYTES`. Every file read is
recorded with its SHA-256 for the report's input list.
"""

from __future__ import annotations

import contextvars
import csv
import hashlib
import os
import pathlib
import re

from hydrocalc._validate import confined_path, excerpt
from hydrocalc.errors import InputError
from hydrocalc.input_file import (  # noqa: F401 (nesting_depth re-exported)
    MAX_INPUT_DEPTH,
    MAX_INPUT_FILE_BYTES,
    nesting_depth,
    read_input_bytes,
    read_toml_file,
)
from hydrocalc.site.problems import _Problems

# ----------------------------------------------------------------------------------------
# CSV helpers


#: Limits of a CSV table named in a site file (subcatchments, stage-storage).
MAX_CSV_BYTES = 8 * 1024 * 1024
MAX_CSV_LINE_CHARS = 10_000
MAX_CSV_ROWS = 100_000


_CSV_LINE_END = re.compile(r"\r\n|\r|\n")


def _read_csv_rows(path: pathlib.Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and ``(line number, row)`` pairs of a CSV; ``#`` lines are comments.

    Refused with one line naming the file and line: not a regular file, larger than
    :data:`MAX_CSV_BYTES`, a line longer than :data:`MAX_CSV_LINE_CHARS`, more than
    :data:`MAX_CSV_ROWS` rows, not UTF-8, a NUL or other control character, an unbalanced
    quote (a cell may not span lines), a row with more cells than the header.
    """
    data = read_input_bytes(path, what="CSV file", max_bytes=MAX_CSV_BYTES)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path.name}: must be UTF-8 text; byte {exc.start} is not. Save the "
                         "CSV as UTF-8.") from None
    # CSV records end at \n, \r\n or \r only: str.splitlines() would also split at
    # characters that are valid inside a cell (U+2028, U+0085, form feed ...)
    lines = _CSV_LINE_END.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > MAX_CSV_ROWS + 1:
        raise InputError(f"{path.name}: must have at most {MAX_CSV_ROWS:,} rows; got "
                         f"{len(lines):,}")
    numbered = []
    for i, ln in enumerate(lines):
        if len(ln) > MAX_CSV_LINE_CHARS:
            raise InputError(f"{path.name} line {i + 1}: lines must be at most "
                             f"{MAX_CSV_LINE_CHARS:,} characters; got {len(ln):,}")
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        bad = next((repr(ch)[1:-1] for ch in ln if (ord(ch) < 32 and ch != "\t")
                    or 127 <= ord(ch) < 160), None)
        if bad is not None:
            raise InputError(f"{path.name} line {i + 1}: must not contain control characters; "
                             f"got {bad}")
        numbered.append((i + 1, ln))
    if not numbered:
        return [], []
    rows = []
    for lineno, ln in numbered:
        if ln.count('"') % 2:
            raise InputError(f"{path.name} line {lineno}: a quote is not closed (an odd number "
                             "of '\"'); a cell may not span lines. Close or remove the quote")
        try:
            parsed = list(csv.reader([ln], strict=True))
        except csv.Error as exc:
            raise InputError(f"{path.name} line {lineno}: must be valid CSV; got {exc}") from None
        rows.append(parsed[0] if parsed else [])
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header):
        twice = next(h for h in header if header.count(h) > 1)
        raise InputError(f"{path.name} line {numbered[0][0]}: column {excerpt(twice)!r} appears "
                         "twice in the header")
    out = []
    for (lineno, _), row in zip(numbered[1:], rows[1:], strict=True):
        if len(row) > len(header):
            raise InputError(
                f"{path.name} line {lineno}: row must have at most {len(header)} cells like the "
                f"header; got {len(row)}. Check for a stray comma or a missing column name")
        out.append((lineno, {h: (row[i].strip() if i < len(row) else "")
                             for i, h in enumerate(header)}))
    return header, out


def _csv_value(text: str):
    """Type a CSV cell: '' -> missing, number if it parses, else the string."""
    if text == "":
        return None
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        return float(text)
    except ValueError:
        return text


def _resolve(base_dir: pathlib.Path, raw: str, *, field: str = "path",
             design_storms: bool = False) -> pathlib.Path:
    """A file named in the site file, confined to the site's folder (see ``confined_path``).

    Raises InputError for a path outside the folder unless the load was called with
    ``allow_outside_paths=True``.
    """
    return confined_path(raw, base_dir, field=field, allow_outside=_ALLOW_OUTSIDE.get(),
                         design_storms=design_storms)


def outside_paths_default() -> bool:
    """True when ``HYDROCALC_ALLOW_OUTSIDE_PATHS=1`` (set by ``--allow-outside-paths``)."""
    return os.environ.get("HYDROCALC_ALLOW_OUTSIDE_PATHS", "") == "1"


#: Set by :func:`site_problems` for the duration of one load (thread- and task-safe).
_ALLOW_OUTSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "hydrocalc_allow_outside_paths", default=False)


def _site_path(P: _Problems, field: str, base_dir: pathlib.Path, raw: str, *,
               what: str = "file", design_storms: bool = False) -> pathlib.Path | None:
    """Confined, existing path of a file named at ``field``; None (problem recorded) else."""
    try:
        path = _resolve(base_dir, raw, field=field, design_storms=design_storms)
    except InputError as exc:
        P.raw(f"{P.where}: {exc}{P.line_of(field)}")
        return None
    if not path.is_file():
        P.add(field, f"must be an existing {what} (relative to the site file); got "
                     f"{excerpt(raw, 80)!r}")
        return None
    return path


class _Ctx:
    """What the scenario parser needs from the rest of the file."""

    def __init__(self, base_dir, input_files, p2_in, errors=None, doc=None):
        self.base_dir = base_dir
        self.input_files = input_files
        self.p2_in = p2_in
        self.errors = errors or {}  # the declared model's records, by scenario
        self.doc = doc or {}


def _register_input(input_files: dict, base_dir: pathlib.Path, path: pathlib.Path) -> None:
    data = path.read_bytes()
    try:
        key = path.resolve().relative_to(base_dir.resolve()).as_posix()
    except ValueError:
        key = _relpath(path, base_dir)
    input_files[key] = hashlib.sha256(data).hexdigest()


def _relpath(path: pathlib.Path, base: pathlib.Path) -> str:
    return pathlib.Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()


def _two_column_csv(P, ctx, path: str, raw: str, col1: str, col2: str):
    """Read the two-column numeric CSV ``raw`` named at ``path.csv`` (inside the site's folder).

    Return (first column, second column, [(file name, line)]) or None after
    recording the problem.
    """
    fpath = _site_path(P, f"{path}.csv", ctx.base_dir, raw, what="CSV file")
    if fpath is None:
        return None
    try:
        header, rows = _read_csv_rows(fpath)
    except InputError as exc:  # names the CSV file and line
        P.raw(f"{exc}")
        return None
    _register_input(ctx.input_files, ctx.base_dir, fpath)
    if header != [col1, col2]:
        P.add(f"{path}.csv", f"must have exactly the columns {col1},{col2}; got "
                             f"{','.join(header)} in {fpath.name}")
        return None
    first, second, where = [], [], []
    for lineno, row in rows:
        try:
            a, b = float(row[col1]), float(row[col2])
        except ValueError:
            P.add(f"{path}.csv", f"must hold numbers; got {row[col1]!r}, {row[col2]!r} at "
                                 f"{fpath.name} line {lineno}")
            return None
        first.append(a)
        second.append(b)
        where.append((fpath.name, lineno))
    return first, second, where


def _where(path) -> str:
    return pathlib.Path(path).name if path is not None else "site.toml"


#: Largest site file read (a large site is about 50 kB).
MAX_SITE_FILE_BYTES = MAX_INPUT_FILE_BYTES
#: Deepest nesting of tables and arrays in a site file (see hydrocalc.input_file).
MAX_SITE_DEPTH = MAX_INPUT_DEPTH


def read_site_file(path) -> tuple[pathlib.Path, str, dict, dict[str, str]]:
    """Read and parse site file ``path``; return ``(path, text, doc, {name: sha256})``.

    Raises InputError (one line naming the file) for a missing, non-regular, too large
    (over :data:`MAX_SITE_FILE_BYTES`), non-UTF-8, non-TOML or too deeply nested (over
    :data:`MAX_SITE_DEPTH`) file, before any section is validated
    (:func:`hydrocalc.input_file.read_toml_file`).
    """
    got = read_toml_file(path, what="site file", deepest=5)
    return got.path, got.text, got.doc, {got.path.name: got.sha256}
