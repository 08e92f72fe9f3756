"""Output paths for the commands: checked before any computation, written atomically.

Every ``--csv``/``--json``/``--figure``/``--out`` path goes through :func:`check_file` or
:func:`check_dir` when the command starts (so a bad path fails in a second, not after the
computation), and files are written by :func:`write_atomic`: to a temporary file beside the
target, then moved into place with :func:`os.replace`, so a failure never leaves a partial
file. Problems become one-line :class:`~hydrocalc.errors.InputError` messages naming the
option and the path.
"""

from __future__ import annotations

import os
import pathlib
import tempfile
from collections.abc import Callable

from hydrocalc.errors import InputError


def _nearest_existing(p: pathlib.Path) -> pathlib.Path:
    for parent in (p, *p.parents):
        if parent.exists():
            return parent
    return pathlib.Path(".")  # pragma: no cover - "." always exists


def _check_parent(p: pathlib.Path, option: str, what: str) -> None:
    anchor = _nearest_existing(p.parent if p.parent != pathlib.Path("") else pathlib.Path("."))
    if not anchor.is_dir():
        raise InputError(f"{option} must be a {what} path inside a folder; got {str(p)!r}, but "
                         f"{str(anchor)!r} is a file, not a folder. Choose another path.")
    if not os.access(anchor, os.W_OK | os.X_OK):
        raise InputError(f"{option} must be a writable {what} path; got {str(p)!r}, and the "
                         f"folder {str(anchor)!r} is not writable. Choose another path.")


def check_file(path: str | os.PathLike | None, option: str, *,
               suffixes: tuple[str, ...] | None = None) -> None:
    """Raise InputError unless a file can be written at ``path`` (None: nothing to check)."""
    if path is None:
        return
    p = pathlib.Path(path)
    if p.is_dir():
        raise InputError(f"{option} must be a file path; got the folder {str(p)!r}. "
                         "Add a file name.")
    if suffixes is not None and p.suffix.lower().lstrip(".") not in suffixes:
        raise InputError(f"{option} must end in one of {', '.join('.' + s for s in suffixes)}; "
                         f"got {str(p)!r}")
    _check_parent(p, option, "file")


def check_dir(path: str | os.PathLike | None, option: str) -> None:
    """Raise InputError unless ``path`` is, or can be created as, a writable folder."""
    if path is None:
        return
    p = pathlib.Path(path)
    if p.exists() and not p.is_dir():
        raise InputError(f"{option} must be a folder; got the file {str(p)!r}. "
                         "Choose another path.")
    if p.is_dir():
        if not os.access(p, os.W_OK | os.X_OK):
            raise InputError(f"{option} must be a writable folder; got {str(p)!r}")
        return
    _check_parent(p, option, "folder")


def figure_suffixes() -> tuple[str, ...]:
    """File suffixes matplotlib can save a figure as (png, pdf, svg, ...)."""
    from matplotlib.figure import Figure

    return tuple(sorted(Figure().canvas.get_supported_filetypes()))


def write_atomic(path: str | os.PathLike, write: Callable[[str], object], option: str) -> None:
    """Call ``write(tmp_path)`` and move the finished file to ``path``.

    The temporary file sits beside ``path`` (same file system, so the move is atomic) and
    keeps its suffix (matplotlib picks the format from it). On any failure it is removed
    and ``path`` is left as it was.
    """
    p = pathlib.Path(path)
    check_file(p, option)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name}.", suffix=p.suffix, dir=p.parent)
        os.close(fd)
        try:
            write(tmp)
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it private; outputs are not
            os.replace(tmp, p)
        except BaseException:
            pathlib.Path(tmp).unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise InputError(f"{option} must be a writable file path; got {str(p)!r} "
                         f"({exc.strerror or exc}). Choose another path.") from None
