"""Exports of an analysis: JSON-ready numbers and atomic file writes.

Floats are rounded to fixed significant digits so the same input gives byte-identical JSON;
files and folders are written beside their target and moved into place only when complete.
"""

from __future__ import annotations

import json
import math
import os
import pathlib
import shutil
import tempfile

import numpy as np

from hydrocalc.errors import InputError

_SIG = 10  # significant digits of numbers in JSON
_SIG_HYDRO = 6  # significant digits of hydrograph ordinates in JSON

#: Most hydrograph ordinates :meth:`hydrocalc.analysis.SiteResults.to_json` writes inside the
#: JSON file; larger results put them in a columnar file beside it (:func:`write_series`).
INLINE_MAX_ORDINATES = 2_000_000
#: The largest power of ten that is an exact double (10**22 = 2**22 * 5**22, 5**22 < 2**53).
_EXACT_POW10 = 22


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


def round_significant(values, sig: int = _SIG_HYDRO) -> np.ndarray:
    r"""Values rounded to ``sig`` significant digits, in bulk: ``float(f"{v:.{sig}g}")`` each.

    The decimal rounding of Python's ``format`` (round half to even on the exact binary
    value) and its parsing (the nearest double) done with array operations: with
    :math:`k = sig - 1 - \lfloor \log_{10} |v| \rfloor`, the integer :math:`M =
    \mathrm{rint}(v \cdot 10^k)` and the result :math:`M / 10^k` (or :math:`M \cdot
    10^{-k}`), a division or product of two exact doubles and so correctly rounded (IEEE 754,
    Sec. 4.3) to the nearest double of the decimal :math:`M \cdot 10^{-k}`. Values whose
    scaled fraction lies within 1e-6 of one half (where the product's rounding could pick
    the other neighbour), whose :math:`|k| > 22` (a power of ten that is not an exact double)
    or whose :math:`M` is not a ``sig``-digit integer are formatted one by one, so every
    result equals the string round trip (``tests/analysis/test_export.py`` checks this on
    millions of values).

    Parameters
    ----------
    values : array_like
        Numbers to round. [any unit]
    sig : int, default 6
        Significant digits, 1 to 15. [-]

    Returns
    -------
    ndarray of float64
        Same shape; 0.0 where ``values`` is zero (including -0.0), NaN where it is not finite.
    """
    if not 1 <= int(sig) <= 15:
        raise ValueError(f"sig must be an integer in [1, 15]; got {sig!r}")
    a = np.asarray(values, dtype=float)
    out = np.zeros(a.shape)
    finite = np.isfinite(a)
    out[~finite] = np.nan
    nz = finite & (a != 0.0)
    v = a[nz]
    if not v.size:
        return out
    with np.errstate(all="ignore"):
        k = (sig - 1) - np.floor(np.log10(np.abs(v))).astype(np.int64)
        exact = np.abs(k) <= _EXACT_POW10
        scale = 10.0 ** np.where(exact, np.abs(k), 0)  # exact powers of ten
        up = k >= 0
        y = np.where(up, v * scale, v / scale)
        m = np.rint(y)
        r = np.where(up, m / scale, m * scale)
        am = np.abs(m)
        ok = (exact & (np.abs(np.abs(y - np.trunc(y)) - 0.5) > 1e-6)
              & (am >= 10.0 ** (sig - 1)) & (am <= 10.0 ** sig))
    if not ok.all():
        bad = np.flatnonzero(~ok)
        r[bad] = [float(f"{x:.{sig}g}") for x in v[bad].tolist()]
    out[nz] = r
    return out


def _clean(obj):
    """Make ``obj`` JSON-ready: floats rounded, numpy types converted, NaN -> null."""
    if type(obj) is float:  # the most common leaf first (result rows hold mostly floats)
        if not math.isfinite(obj):
            return None
        return 0.0 if obj == 0 else float(f"{obj:.{_SIG}g}")
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
    """Remove the file ``path`` if it exists (a temporary left by a failed write)."""
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


def _json_floats(rounded: np.ndarray) -> list:
    """Python floats of ``rounded`` for JSON, NaN (a value that was not finite) as None."""
    values = rounded.tolist()
    if np.isnan(rounded).any():
        return [None if math.isnan(v) else v for v in values]
    return values


def write_series(stem: pathlib.Path, columns: dict[str, np.ndarray]) -> tuple[pathlib.Path, str]:
    """Write equal-length series as the columns of one file, atomically; (path, format).

    Parquet (``<stem>.parquet``, float64 at full precision, written by pyarrow without
    copying the arrays) when pyarrow is installed, else CSV (``<stem>.csv``, 17 significant
    digits: the doubles themselves). The file is filled beside its target and moved into
    place when complete.

    Parameters
    ----------
    stem : pathlib.Path
        Target path without its suffix.
    columns : dict of str to ndarray (n,)
        Column name to values, in column order. [any unit; the caller names it]

    Returns
    -------
    (pathlib.Path, str)
        The file written and its format, ``"parquet"`` or ``"csv"``.
    """
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        pa = pq = None
    fmt = "csv" if pa is None else "parquet"
    path = stem.with_name(f"{stem.name}.{fmt}")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    os.close(fd)
    try:
        if pq is not None:
            table = pa.table({k: pa.array(np.ascontiguousarray(v, dtype=float))
                              for k, v in columns.items()})
            # snappy without dictionaries: about twice zstd's speed for 15 % more bytes
            pq.write_table(table, tmp, compression="snappy", use_dictionary=False,
                           write_statistics=False)
        else:
            import pandas as pd

            pd.DataFrame(columns).to_csv(tmp, index=False, float_format="%.17g",
                                         lineterminator="\n")
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with_suppress_unlink(tmp)
        raise
    return path, fmt


def read_hydrographs(path) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """The hydrographs of a results JSON written by ``hydrocalc run --json``.

    Reads either form :meth:`hydrocalc.analysis.SiteResults.to_json` writes: ordinates in
    the JSON (``flow_cfs``, 6 significant digits) or in the columnar file beside it
    (``flow_cfs_file``, full precision).

    Parameters
    ----------
    path : str or pathlib.Path
        The results JSON.

    Returns
    -------
    dict
        ``{scenario: {storm: {node: outflow ndarray}}}``. [ft3/s]

    Raises
    ------
    InputError
        If the JSON holds no hydrographs (written with ``--no-hydrographs``) or names a
        columnar file that is missing or not beside it.
    """
    path = pathlib.Path(path)
    doc = json.loads(path.read_text(encoding="utf-8"))
    h = doc.get("hydrographs")
    if not isinstance(h, dict):
        raise InputError(f"{path}: holds no hydrographs (written with --no-hydrographs?); "
                         "run `hydrocalc run SITE --json PATH` without it")
    if "flow_cfs" in h:
        return {name: {storm: {nid: np.array([np.nan if v is None else v for v in values],
                                             dtype=float)
                               for nid, values in per.items()}
                       for storm, per in storms.items()}
                for name, storms in h["flow_cfs"].items()}
    name = str(h.get("flow_cfs_file", ""))
    if not name or name in (".", "..") or pathlib.PurePath(name).name != name \
            or not path.with_name(name).is_file():
        raise InputError(f"{path}: hydrographs.flow_cfs_file must name a file beside it; "
                         f"got {name!r}")
    side = path.with_name(name)
    if h.get("flow_cfs_format") == "parquet":
        import pyarrow.parquet as pq

        table = pq.read_table(side)
        data = {c: table.column(c).to_numpy() for c in table.column_names}
    else:
        import pandas as pd

        frame = pd.read_csv(side, float_precision="round_trip")
        data = {c: frame[c].to_numpy(dtype=float) for c in frame.columns}
    return {name: {storm: {nid: data[col] for nid, col in per.items()}
                   for storm, per in storms.items()}
            for name, storms in h["flow_cfs_columns"].items()}
