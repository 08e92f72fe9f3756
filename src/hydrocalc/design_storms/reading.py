"""Reading downloaded text files: size limit, encodings, NUL and control characters, CSV rows.

Shared by the precipitation-frequency importers, the DDF file reader and the CSV pattern
loaders, so that every downloaded file is refused with the same one-line messages.
"""

from __future__ import annotations

import csv
import io
import os
import pathlib
import re
import stat
from collections.abc import Mapping

from hydrocalc._validate import excerpt
from hydrocalc.errors import InputError

# --------------------------------------------------------------------------------------
# reading downloaded files: common helpers
# --------------------------------------------------------------------------------------


def _decode(raw: bytes) -> str:
    """UTF-8 (with or without BOM), else cp1252, else Latin-1; newlines normalized."""
    for encoding in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    return text.replace("\r\n", "\n").replace("\r", "\n")


#: Largest depth-frequency or distribution file read (a PFDS CSV is about 4 kB).
MAX_DDF_FILE_BYTES = 1024 * 1024


def _read_limited(p: pathlib.Path) -> bytes:
    """Bytes of a regular file of at most :data:`MAX_DDF_FILE_BYTES` (fails fast)."""
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputError(f"file {str(p)!r} does not exist") from None
    except OSError as exc:
        raise InputError(f"file {str(p)!r} must be readable; got {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"file must be a file; got the folder {str(p)!r}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"file {str(p)!r} must be a regular file; got a device, pipe or socket")
    if st.st_size > MAX_DDF_FILE_BYTES:
        raise InputError(f"{p.name}: must be at most {MAX_DDF_FILE_BYTES // 1024} KiB; got "
                         f"{st.st_size / 1024:.0f} KiB. Is this a precipitation-frequency file?")
    try:
        with open(p, "rb") as fh:
            raw = fh.read(MAX_DDF_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"file {str(p)!r} must be readable; got {exc.strerror or exc}") from None
    if len(raw) > MAX_DDF_FILE_BYTES:
        raise InputError(f"{p.name}: must be at most {MAX_DDF_FILE_BYTES // 1024} KiB")
    return raw


_CONTROL_RE = re.compile(r"[\x01-\x08\x0b-\x1f\x7f-\x9f]")


def _check_nul(text: str, name: str) -> str:
    """Refuse NUL bytes; other control characters become U+FFFD (never reach a report)."""
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(f"{name} line {line}: must be text; got a NUL byte (a binary or "
                         "damaged file)")
    return _CONTROL_RE.sub("\ufffd", text)


def _read_text(source) -> tuple[str, str]:
    """(text, display name) of a path, bytes or already-decoded text."""
    if isinstance(source, bytes):
        text, name = _decode(source), "<bytes>"
    elif isinstance(source, str) and "\n" in source:
        text, name = source.replace("\r\n", "\n").replace("\r", "\n"), "<text>"
    else:
        p = pathlib.Path(source)
        text, name = _decode(_read_limited(p)), p.name
    return _check_nul(text, name), name


_CELL_NUMBER_RE = re.compile(r"^[+-]?(?:\d+\.\d+|\d+|\.\d+)$")


def _excerpt(text) -> str:
    return excerpt(text, 40)


def _require_24hr(tables: Mapping, name: str) -> None:
    """Refuse a table without the 24-hour row (a file truncated before it)."""
    for key, rows in tables.items():
        if rows and "24-hr" not in rows:
            raise InputError(
                f"{name}: the {key} table must have a 24-hr row (design storms are 24-hour "
                f"depths); got rows {', '.join(map(str, list(rows)[:12]))}. Was the file "
                "truncated?"
            )


def _cells_problem(values: list[str]) -> str | None:
    """None when every cell is a complete decimal number, else the first bad cell."""
    for v in values:
        if not _CELL_NUMBER_RE.match(v):
            return v
    return None


def _rows(text: str) -> list[list[str]]:
    """CSV rows with surrounding blanks and trailing empty cells removed."""
    out = []
    for row in csv.reader(io.StringIO(text)):
        cells = [c.strip() for c in row]
        while cells and cells[-1] == "":
            cells.pop()
        out.append(cells)
    return out


def _number(text: str) -> float | None:
    m = re.search(r"[-+]?\d+(?:\.\d+)?", text)
    return float(m.group(0)) if m else None


def _is_float(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False
