"""DDF files (``design_storms/*.toml``): read them into a :class:`DepthFrequencyTable`, write them.

Every file carries a mandatory ``source``; an ``illustrative = true`` file yields a warning
that every report prints (:func:`load_depth_file` also emits it as a ``UserWarning``).
"""

from __future__ import annotations

import math
import pathlib
import tomllib
import warnings
from collections.abc import Mapping
from typing import cast

import numpy as np
import pandas as pd

from hydrocalc._validate import suggest
from hydrocalc.design_storms.ddf import ILLUSTRATIVE_WARNING, DepthFrequencyTable, _duration_key
from hydrocalc.design_storms.reading import _check_nul, _excerpt, _read_limited
from hydrocalc.errors import InputError

# --------------------------------------------------------------------------------------
# DDF files (TOML)
# --------------------------------------------------------------------------------------

#: The format this loader reads (the ``format`` key of a DDF file).
DDF_FORMAT = "hydrocalc-ddf-1"

_TOP_KEYS = {
    "format", "site", "source", "series", "units", "latitude_deg", "longitude_deg",
    "illustrative", "warning", "suggested_distribution", "return_period_yr", "depth_in",
    "upper_in", "lower_in", "metadata", "note",
}


def _parse_ddf(doc: Mapping, where: str) -> DepthFrequencyTable:
    problems = []
    for key in doc:
        if key not in _TOP_KEYS:
            problems.append(f"{where}: unknown key {key!r}{suggest(key, _TOP_KEYS)}")
    fmt = doc.get("format", DDF_FORMAT)
    if fmt != DDF_FORMAT:
        problems.append(f"{where}: format must be {DDF_FORMAT!r} (the format this version of "
                        f"hydrocalc reads); got {_excerpt(repr(fmt))}")
    source = doc.get("source")
    if not isinstance(source, str) or not source.strip():
        problems.append(f"{where}: source must name where the depths come from; got {source!r}")
    units = doc.get("units", "in")
    if units != "in":
        problems.append(f"{where}: units must be \"in\"; got {units!r}. Convert to inches")
    rps = doc.get("return_period_yr")
    if not isinstance(rps, list) or not rps or not all(
            isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r)
            and r > 0 for r in rps):
        problems.append(
            f"{where}: return_period_yr must be a list of positive numbers; got "
            f"{_excerpt(repr(rps))}"
        )
        rps = None
    for key in ("latitude_deg", "longitude_deg"):
        value = doc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            problems.append(f"{where}: {key} must be a number; got {value!r}")
    illustrative = doc.get("illustrative", False)
    if not isinstance(illustrative, bool):
        problems.append(f"{where}: illustrative must be true or false; got {illustrative!r}")
    frames: dict[str, pd.DataFrame | None] = {}
    for key in ("depth_in", "upper_in", "lower_in"):
        table = doc.get(key)
        if table is None:
            if key == "depth_in":
                problems.append(f"{where}: [depth_in] table is required")
            frames[key] = None
            continue
        if not isinstance(table, Mapping) or not table:
            problems.append(f"{where}: [{key}] must map durations to lists of depths")
            frames[key] = None
            continue
        rows = {}
        for label, values in table.items():
            try:
                canon = _duration_key(label)
            except InputError as exc:
                problems.append(f"{where}: [{key}] {exc}")
                continue
            if rps is not None and (not isinstance(values, list) or len(values) != len(rps)):
                n = len(values) if isinstance(values, list) else "not a list"
                problems.append(
                    f"{where}: [{key}] {label!r} must have {len(rps)} values (one per "
                    f"return_period_yr); got {n}"
                )
                continue
            bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int | float)]
            if bad:
                problems.append(f"{where}: [{key}] {label!r} must be numbers (depths in "
                                f"inches); got {_excerpt(repr(bad[0]))}")
                continue
            if canon in rows:
                problems.append(f"{where}: [{key}] lists duration {canon} twice")
                continue
            rows[canon] = values
        if rows and "24-hr" not in rows:
            problems.append(f"{where}: [{key}] must have a 24-hr row (design storms are "
                            f"24-hour depths); got {', '.join(rows)}")
        frames[key] = pd.DataFrame.from_dict(rows, orient="index", columns=rps) if (
            rps is not None and rows) else None
    if problems:
        raise InputError("\n".join(problems))
    try:
        return DepthFrequencyTable(
            depth_in=frames["depth_in"], upper_in=frames["upper_in"],
            lower_in=frames["lower_in"], source=cast(str, source), site=str(doc.get("site", "")),
            series=str(doc.get("series", "")), latitude_deg=doc.get("latitude_deg"),
            longitude_deg=doc.get("longitude_deg"), illustrative=illustrative,
            warning_text=str(doc.get("warning", "")),
            suggested_distribution=str(doc.get("suggested_distribution", "")),
            metadata=dict(doc.get("metadata", {})),
        )
    except InputError as exc:
        raise InputError("\n".join(f"{where}: {line}" for line in str(exc).splitlines())) from None


def load_depth_file(path, *, warn: bool = True) -> DepthFrequencyTable:
    """Read a depth-duration-frequency file (``design_storms/*.toml``).

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML file (see ``design_storms/README.md`` for the format).
    warn : bool, default True
        Emit the file's warning (e.g. the illustrative flag) as a ``UserWarning``, so report
        sections that record warnings print it.

    Returns
    -------
    DepthFrequencyTable
        ``.warning`` holds the text to print (None when the file carries none).

    Raises
    ------
    InputError
        Listing every problem of the file, one per line, each prefixed with the file name.

    Warns
    -----
    UserWarning
        The file's warning text, when it has one.
    """
    p = pathlib.Path(path)
    if not p.exists():
        raise InputError(f"depth file {str(p)!r} does not exist")
    if p.is_dir():
        raise InputError(f"depth file must be a file; got the folder {str(p)!r}")
    raw = _read_limited(p)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p.name}: must be UTF-8 text; byte {exc.start} is not. Save the "
                         "file as UTF-8.") from None
    _check_nul(text, p.name)  # (TOML itself refuses other control characters)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p.name}: not valid TOML ({exc})") from None
    except RecursionError:
        raise InputError(f"{p.name}: not valid TOML (arrays or tables nested too deeply)") \
            from None
    table = _parse_ddf(doc, p.name)
    if warn and table.warning:
        warnings.warn(f"{p.name}: {table.warning}", UserWarning, stacklevel=2)
    return table


def read_depth_file(path) -> tuple[pd.DataFrame, str | None]:
    """``(frame, warning)`` of a DDF file: the tidy depth table and the text to print.

    The frame is :meth:`DepthFrequencyTable.to_frame`; the warning is ``None`` for files
    without one. No ``UserWarning`` is emitted (the caller prints the text).
    """
    table = load_depth_file(path, warn=False)
    return table.to_frame(), table.warning


def _toml_str(value: str) -> str:
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return _toml_str(value)


def write_depth_file(table: DepthFrequencyTable, path, *, overwrite: bool = False) -> pathlib.Path:
    """Write a :class:`DepthFrequencyTable` as a DDF TOML file (round-trips exactly).

    Raises
    ------
    InputError
        If the file exists and ``overwrite`` is False.
    """
    p = pathlib.Path(path)
    if p.exists() and not overwrite:
        raise InputError(f"{str(p)!r} exists; pass overwrite=True (CLI: --force) to replace it")
    lines = [
        "# Depth-duration-frequency table for hydrocalc (see design_storms/README.md).",
        "# Depths in inches; one array per duration, in return_period_yr order.",
        f'format = "{DDF_FORMAT}"',
    ]
    if table.site:
        lines.append(f"site = {_toml_str(table.site)}")
    lines.append(f"source = {_toml_str(table.source)}")
    if table.series:
        lines.append(f"series = {_toml_str(table.series)}")
    lines.append('units = "in"')
    for key in ("latitude_deg", "longitude_deg"):
        if getattr(table, key) is not None:
            lines.append(f"{key} = {_toml_value(getattr(table, key))}")
    lines.append(f"illustrative = {_toml_value(table.illustrative)}")
    if table.warning_text and table.warning_text != (ILLUSTRATIVE_WARNING if table.illustrative
                                                     else ""):
        lines.append(f"warning = {_toml_str(table.warning_text)}")
    if table.suggested_distribution:
        lines.append("# A suggestion only (1-h/24-h depth ratio); the project file chooses.")
        lines.append(f"suggested_distribution = {_toml_str(table.suggested_distribution)}")
    lines.append(
        "return_period_yr = [" + ", ".join(_toml_value(c) for c in table.return_periods_yr) + "]"
    )
    headers = {"depth_in": "mean estimates", "upper_in": "upper bound of the 90 % interval",
               "lower_in": "lower bound of the 90 % interval"}
    for key, title in headers.items():
        frame = getattr(table, key)
        if frame is None:
            continue
        lines += ["", f"[{key}]  # {title}"]
        for label, row in frame.iterrows():
            lines.append(f"{_toml_str(label)} = [" + ", ".join(
                repr(float(v)) for v in row.to_numpy()) + "]")
    if table.metadata:
        lines += ["", "[metadata]"]
        for key, value in table.metadata.items():
            lines.append(f"{_toml_str(key)} = {_toml_value(value)}")
    # written beside the target and moved into place: a failure never leaves half a file
    tmp = p.with_name(f".{p.name}.partial")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        tmp.replace(p)
    except OSError as exc:
        if tmp.is_file():
            tmp.unlink()
        raise InputError(f"depth file {str(p)!r} must be writable; got {exc.strerror or exc}. "
                         "Choose another path.") from None
    return p
