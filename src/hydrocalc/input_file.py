"""Reading an input TOML file: one reader for the site, sweep and pond files.

:func:`key_lines` maps each key path of a TOML text to its line (:mod:`tomllib` reports line
numbers only for syntax errors), so that every problem of an input file names its line.

:func:`read_toml_file` refuses, with one line naming the file, what no input file can be
before any of its tables is validated: a missing or unreadable file, a folder, device or pipe
(never opened, so a pipe cannot hang the reader), a file over :data:`MAX_INPUT_FILE_BYTES`
(read no further than the limit), text that is not UTF-8, TOML syntax errors, and tables and
arrays nested deeper than :data:`MAX_INPUT_DEPTH`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pathlib
import re
import stat
import tomllib
from collections.abc import Iterator

from hydrocalc._validate import excerpt
from hydrocalc.errors import InputError

__all__ = ["MAX_INPUT_FILE_BYTES", "MAX_INPUT_DEPTH", "TomlFile", "nesting_depth",
           "read_input_bytes", "parse_toml", "read_toml_file", "key_lines", "enclosing",
           "line_suffix"]

#: Largest input file read (a large site file is about 50 kB).
MAX_INPUT_FILE_BYTES = 4 * 1024 * 1024
#: Deepest nesting of tables and arrays in an input file. The deepest of a real site file is
#: 5 (``post.pond[i].tailwater_ft.time_hr``, ``post.subcatchment[i].cover[j]``), of a sweep
#: or pond file 3; 12 leaves room and refuses a file built to exhaust the reader.
MAX_INPUT_DEPTH = 12


@dataclasses.dataclass(frozen=True)
class TomlFile:
    """An input file as read: its path, text, parsed document and SHA-256 of its bytes."""

    path: pathlib.Path
    text: str
    doc: dict
    sha256: str


def nesting_depth(doc) -> int:
    """The deepest nesting of tables and arrays in a parsed TOML document (iterative).

    Examples
    --------
    >>> nesting_depth({"a": 1}), nesting_depth({"post": {"pond": [{"id": "P"}]}})
    (0, 3)
    """
    deepest, stack = 0, [(doc, 0)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        children = node.values() if isinstance(node, dict) else node
        stack.extend((c, depth + 1) for c in children if isinstance(c, dict | list))
    return deepest


def read_input_bytes(path, *, what: str, max_bytes: int = MAX_INPUT_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``.

    Raises InputError (one line naming the file, ``what`` it is) for a missing or unreadable
    file, a folder, device or pipe (not opened) and a file over ``max_bytes``.
    """
    p = pathlib.Path(path)
    where = p.name
    try:
        st = os.stat(p)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{what} must be a regular file; got {excerpt(str(p), 80)!r}"
                             " (a folder, device or pipe)")
        if st.st_size > max_bytes:
            raise InputError(f"{where}: must be at most {max_bytes // 2**20} MiB; got "
                             f"{st.st_size / 2**20:.1f} MiB")
        with open(p, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"{what} must be a readable file; got {excerpt(str(p), 80)!r} "
                         f"({exc.strerror or exc})") from None
    if len(raw) > max_bytes:  # grew while read
        raise InputError(f"{where}: must be at most {max_bytes // 2**20} MiB")
    return raw


def read_toml_file(path, *, what: str, deepest: int, max_bytes: int = MAX_INPUT_FILE_BYTES,
                   max_depth: int = MAX_INPUT_DEPTH) -> TomlFile:
    """Read and parse the input TOML file ``path``.

    Parameters
    ----------
    path : path-like
        The file.
    what : str
        What the file is, for the messages (``"site file"``, ``"sweep file"``...).
    deepest : int
        The deepest nesting a real file of this kind has, for the message of a deeper one.
    max_bytes : int, default :data:`MAX_INPUT_FILE_BYTES`
        The largest file read.
    max_depth : int, default :data:`MAX_INPUT_DEPTH`
        The deepest nesting of tables and arrays accepted.

    Returns
    -------
    TomlFile

    Raises
    ------
    InputError
        One line naming the file: missing, unreadable, not a regular file, too large, not
        UTF-8 (a byte-order mark is allowed), not TOML, or nested too deeply.
    """
    p = pathlib.Path(path)
    raw = read_input_bytes(p, what=what, max_bytes=max_bytes)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p.name}: must be UTF-8 text; byte {exc.start} is not") from None
    doc = parse_toml(text, where=p.name, what=what, deepest=deepest, max_depth=max_depth)
    return TomlFile(p, text, doc, hashlib.sha256(raw).hexdigest())


def parse_toml(text: str, *, where: str, what: str, deepest: int,
               max_depth: int = MAX_INPUT_DEPTH) -> dict:
    """Parse the TOML ``text`` of input file ``where``, no deeper than ``max_depth``.

    Raises InputError (one line starting with ``where``) for a syntax error or tables and
    arrays nested deeper than ``max_depth`` (a real file of this kind: ``deepest``).
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: TOML syntax error: {exc}") from None
    except RecursionError:
        raise InputError(f"{where}: TOML syntax error: arrays or tables nested too deeply "
                         f"(a {what} needs at most a few levels)") from None
    depth = nesting_depth(doc)
    if depth > max_depth:
        raise InputError(f"{where}: tables and arrays must be nested at most {max_depth} "
                         f"levels deep; got {depth} (a {what} needs at most {deepest})")
    return doc


# ----------------------------------------------------------------------------------------
# key -> line scanner (tomllib reports line numbers only for syntax errors)


class _Block:
    __slots__ = ("parent", "name", "index", "id", "is_array", "keys", "line")

    def __init__(self, parent, name, index, is_array, line) -> None:
        self.parent, self.name, self.index = parent, name, index
        self.is_array, self.line = is_array, line
        self.id: str | None = None
        self.keys: dict[str, int] = {}

    def label(self) -> str:
        """The block's key path as the messages write it (array entries by id or index)."""
        if self.parent is None:
            return ""
        base = self.parent.label()
        own = self.name
        if self.is_array:
            own += f"[{self.id if self.id is not None else self.index}]"
        return f"{base}.{own}" if base else own


_HEADER_RE = re.compile(r"^\[(\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY_RE = re.compile(
    r"""^("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+(?:\s*\.\s*[A-Za-z0-9_\-]+)*)\s*=\s*(.*)$"""
)
_ID_VALUE_RE = re.compile(r"""^("([^"]*)"|'([^']*)')""")


def _split_key(raw: str) -> list[str]:
    """The parts of a dotted TOML key, quotes removed (``a."b.c"`` -> ``["a", "b.c"]``)."""
    parts = re.findall(r""""[^"]*"|'[^']*'|[^.\s]+""", raw)
    return [p.strip("\"'") for p in parts]


def key_lines(text: str) -> dict[str, int]:
    r"""Map each key path of a TOML text to its line number (1-based).

    Paths use the loader's labels: array-of-tables entries are labelled by their ``id``
    value when they have one (``post.subcatchment[S-2].area_ac``), otherwise by index.
    Table headers map to their own line (``post.pond[P-1]``). Best effort: only simple
    ``key = value`` lines are recognised.

    Examples
    --------
    >>> text = '[[post.subcatchment]]\nid = "S-2"\narea_ac = -3\n'
    >>> key_lines(text)["post.subcatchment[S-2].area_ac"]
    3
    """
    root = _Block(None, "", 0, False, 0)
    latest: dict[tuple[str, ...], _Block] = {}
    counts: dict[tuple[int, str], int] = {}
    blocks = [root]
    cur = root
    in_multiline = None
    # TOML lines end at \n or \r\n only (str.splitlines() also splits at U+2028 ...)
    for lineno, raw in enumerate(text.split("\n"), 1):
        s = raw.strip()
        if in_multiline:
            if in_multiline in s:
                in_multiline = None
            continue
        if not s or s.startswith("#"):
            continue
        m = _HEADER_RE.match(s)
        if m and not _KEY_RE.match(s):
            is_array = bool(m.group(1))
            parts = _split_key(m.group(2))
            parent = root
            for i in range(len(parts) - 1):
                prefix = tuple(parts[: i + 1])
                blk = latest.get(prefix)
                if blk is None:
                    blk = _Block(parent, parts[i], 0, False, lineno)
                    latest[prefix] = blk
                    blocks.append(blk)
                parent = blk
            full = tuple(parts)
            if is_array:
                key = (id(parent), parts[-1])
                idx = counts.get(key, 0)
                counts[key] = idx + 1
                blk = _Block(parent, parts[-1], idx, True, lineno)
            else:
                blk = latest.get(full) or _Block(parent, parts[-1], 0, False, lineno)
                blk.line = lineno
            for k in [k for k in latest if len(k) > len(full) and k[: len(full)] == full]:
                del latest[k]
            latest[full] = blk
            blocks.append(blk)
            cur = blk
            continue
        m = _KEY_RE.match(s)
        if m:
            keyparts = _split_key(m.group(1))
            value = m.group(2)
            if value.startswith(('"""', "'''")) and value.count(value[:3]) == 1:
                in_multiline = value[:3]
            cur.keys[".".join(keyparts)] = lineno
            if keyparts == ["id"] and cur.is_array:
                mv = _ID_VALUE_RE.match(value)
                if mv:
                    cur.id = mv.group(2) if mv.group(2) is not None else mv.group(3)
    out: dict[str, int] = {}
    for blk in blocks:
        label = blk.label()
        if label:
            out.setdefault(label, blk.line)
        for keypath, ln in blk.keys.items():
            out[f"{label}.{keypath}" if label else keypath] = ln
    return out


def enclosing(path: str) -> Iterator[str]:
    """``path`` and each table that holds it, innermost first.

    Examples
    --------
    >>> list(enclosing("post.pond[P-1].cd"))
    ['post.pond[P-1].cd', 'post.pond[P-1]', 'post.pond', 'post']
    """
    p = path
    while p:
        yield p
        m = re.match(r"^(.*?)(\.[^.\[\]]+|\[[^\[\]]*\])$", p)
        if not m:
            break
        p = m.group(1)


def line_suffix(lines: dict[str, int] | None, path: str) -> str:
    """`` (line n)`` of key ``path`` or of its closest enclosing table; '' if unknown.

    ``lines`` is :func:`key_lines` of the file's text (None: the text is not known).
    """
    for p in enclosing(path) if lines else ():
        if p in lines:  # type: ignore[operator]
            return f" (line {lines[p]})"  # type: ignore[index]
    return ""
