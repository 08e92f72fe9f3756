"""Byte-reproducible deliverables: one document date, fixed archive metadata.

The same site files and the same hydrocalc version give byte-identical ``report.html``,
``report.pdf`` and ``tables.xlsx`` whatever the folder, time zone, hash seed or number of
kernels. What would otherwise vary from run to run is fixed here:

- the **document date** (:func:`document_datetime`): ``SOURCE_DATE_EPOCH`` when it is set
  (the reproducible-builds convention, https://reproducible-builds.org/specs/source-date-epoch/),
  else the current UTC date at midnight. It is the date on the cover, the PDF's creation
  date (typst ``timestamp``) and the workbook's created/modified dates;
- the **workbook's zip metadata** (:func:`normalized_ooxml`): every entry's timestamp is the
  document date and its permissions are fixed, so the archive does not record when it was
  written.

The run's own start and end times stay in ``results.json`` under ``timestamps`` (not a
deliverable; ``hydrocalc verify`` ignores that key).
"""

from __future__ import annotations

import datetime as _dt
import io
import os
import re
import zipfile

from hydrocalc.errors import InputError

__all__ = ["SOURCE_DATE_EPOCH_ENV", "document_datetime", "normalized_ooxml"]

#: Environment variable that fixes the document date (seconds since 1970-01-01 UTC).
SOURCE_DATE_EPOCH_ENV = "SOURCE_DATE_EPOCH"
_ZIP_EPOCH = _dt.datetime(1980, 1, 1, tzinfo=_dt.UTC)  # earliest zip date
_CORE_DATE = re.compile(rb"(<dcterms:(created|modified)\b[^>]*>)[^<]*(</dcterms:\2>)")


def document_datetime(now: _dt.datetime | None = None) -> _dt.datetime:
    """The date deliverables carry: ``SOURCE_DATE_EPOCH``, else today (UTC) at 00:00.

    Parameters
    ----------
    now : datetime, optional
        The current time (default: the clock), used without ``SOURCE_DATE_EPOCH``.

    Returns
    -------
    datetime
        Timezone-aware (UTC), whole seconds.

    Raises
    ------
    InputError
        If ``SOURCE_DATE_EPOCH`` is set but is not a whole number of seconds >= 0.

    Examples
    --------
    >>> import os
    >>> os.environ["SOURCE_DATE_EPOCH"] = "1767225600"
    >>> document_datetime().isoformat()
    '2026-01-01T00:00:00+00:00'
    >>> del os.environ["SOURCE_DATE_EPOCH"]
    """
    raw = os.environ.get(SOURCE_DATE_EPOCH_ENV, "").strip()
    if raw:
        if not raw.isdigit() or int(raw) > 253402300799:  # 9999-12-31T23:59:59Z
            raise InputError(f"environment variable {SOURCE_DATE_EPOCH_ENV} must be a whole "
                             f"number of seconds since 1970-01-01 UTC (0 to 253402300799); "
                             f"got {raw[:40]!r}")
        return _dt.datetime.fromtimestamp(int(raw), tz=_dt.UTC)
    now = now or _dt.datetime.now(_dt.UTC)
    day = now.astimezone(_dt.UTC).date()
    return _dt.datetime(day.year, day.month, day.day, tzinfo=_dt.UTC)


def normalized_ooxml(data: bytes, when: _dt.datetime) -> bytes:
    """An Office Open XML archive (``.xlsx``) rewritten with fixed metadata.

    The entries keep their order and contents, except ``docProps/core.xml`` whose
    ``dcterms:created`` and ``dcterms:modified`` become ``when``; every entry is stored
    with the timestamp ``when`` (1980-01-01 at the earliest, the first date a zip can
    hold), permissions 0644 and the same deflate level.

    Parameters
    ----------
    data : bytes
        The archive as written (e.g. by openpyxl).
    when : datetime
        The document date (:func:`document_datetime`).

    Returns
    -------
    bytes
    """
    when = when.astimezone(_dt.UTC)
    stamp = max(when, _ZIP_EPOCH)
    date_time = (stamp.year, stamp.month, stamp.day, stamp.hour, stamp.minute,
                 stamp.second - stamp.second % 2)  # zip times have a 2-second resolution
    iso = when.strftime("%Y-%m-%dT%H:%M:%SZ").encode("ascii")
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, \
            zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            body = src.read(info)
            if info.filename == "docProps/core.xml":
                body = _CORE_DATE.sub(lambda m: m.group(1) + iso + m.group(3), body)
            fixed = zipfile.ZipInfo(info.filename, date_time=date_time)
            fixed.compress_type = zipfile.ZIP_DEFLATED
            fixed.external_attr = 0o100644 << 16
            fixed.create_system = 3  # Unix, whatever the platform that writes it
            dst.writestr(fixed, body, compresslevel=6)
    return out.getvalue()
