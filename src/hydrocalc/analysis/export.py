"""Exports of an analysis: JSON-ready numbers and atomic file writes.

Floats are rounded to fixed significant digits so the same input gives byte-identical JSON;
files and folders are written beside their target and moved into place only when complete.
"""

from __future__ import annotations

import math
import os
import pathlib
import shutil
import tempfile

import numpy as np

_SIG = 10  # significant digits of numbers in JSON
_SIG_HYDRO = 6  # significant digits of hydrograph ordinates in JSON


def _num(x, sig=_SIG):
    if x is None:
        return None
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    v = float(x)
    if not math.isfinite(v):
        return None
    if v == 0:
        return 0.0
    return float(f"{v:.{sig}g}")


def _clean(obj):
    """Make ``obj`` JSON-ready: floats rounded, numpy types converted, NaN -> null."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_clean(v) for v in obj.tolist()]
    if isinstance(obj, str) or obj is None:
        return obj
    if isinstance(obj, pathlib.Path):
        return obj.as_posix()
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    if isinstance(obj, bool | np.bool_ | int | float | np.integer | np.floating):
        return _num(obj)
    return str(obj)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write_text(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with_suppress_unlink(tmp)
        raise


def with_suppress_unlink(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _replace_dir(tmp: pathlib.Path, target: pathlib.Path) -> None:
    if target.exists():
        old = target.with_name(f".{target.name}.old.{os.getpid()}")
        os.replace(target, old)
        try:
            os.replace(tmp, target)
        except BaseException:
            os.replace(old, target)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, target)
