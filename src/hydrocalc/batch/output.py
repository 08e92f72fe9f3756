"""The batch's outputs: :class:`BatchResult`, the summary table and its files.

:func:`summary_frame` orders the rows into the summary table (:data:`SUMMARY_COLUMNS`, then
the varied fields); the CSV, the Parquet file and ``batch.json`` are written in a staging
folder and moved into place only when all three are complete.

Part of :mod:`hydrocalc.batch`; every name is importable from there.
"""

from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import math
import os
import pathlib
import shutil
import socket
import tempfile
from collections.abc import Callable, Sequence
from typing import Any

from hydrocalc._process import pid_alive
from hydrocalc.batch.columns import SUMMARY_COLUMNS
from hydrocalc.batch.tasks import RowBlock

_TEXT = ("source", "site", "scenario", "design_point", "storm", "status", "error")
_BOOL = ("post_le_pre", "wqv_pass", "rrv_pass", "cpv_pass", "qp_pass", "qf_pass",
         "criteria_pass")


@dataclasses.dataclass
class BatchResult:
    """Outcome of :func:`run_batch`.

    Attributes
    ----------
    summary : pandas.DataFrame
        The summary table (see the module docstring).
    n_inputs, n_scenarios, n_failed : int
        Input files, analysed units (site files + sweep scenarios) and failed units.
    elapsed_s : float
        Wall time from planning to the written files. [s]
    files : dict
        ``{"csv": path, "parquet": path, "json": path}`` written (empty without ``out_dir``).
    scheduler : str
        ``"processes"``, ``"threads"``, ``"synchronous"`` or the cluster address.
    workers : int or None
    n_tasks : int
    worker_peak_rss_mb : dict
        Peak resident memory of each process that ran tasks (by pid). [MB]
    parent_peak_rss_mb : float
        Peak resident memory of the calling process. [MB]
    task_cpu_s : float
        CPU time of all tasks (each task's thread), the work independent of how busy the
        machine was; ``n_scenarios / task_cpu_s`` is the throughput of one free core. [s]
    paths : dict
        Sweep scenarios computed by the summary arrays (``summary_arrays``) and by the full
        analysis (``full_analysis``), and ``reasons``: why scenarios took the full
        analysis, with their counts (also ``sweep_paths`` in ``batch.json``).
    n_interrupted : int
        Units (site files + sweep scenarios) not completed because the batch was
        interrupted (Ctrl-C or SIGTERM); their rows have ``status = "interrupted"``. They
        are counted in ``n_failed`` too.
    """

    summary: Any
    n_inputs: int
    n_scenarios: int
    n_failed: int
    elapsed_s: float
    files: dict
    scheduler: str
    workers: int | None
    n_tasks: int
    worker_peak_rss_mb: dict
    parent_peak_rss_mb: float
    task_cpu_s: float = math.nan
    paths: dict = dataclasses.field(default_factory=dict)
    n_interrupted: int = 0

    @property
    def scenarios_per_s(self) -> float:
        """Analysed units per second of wall time [1/s]."""
        return self.n_scenarios / self.elapsed_s if self.elapsed_s > 0 else math.nan

    @property
    def ok(self) -> bool:
        """True when no input or scenario failed."""
        return self.n_failed == 0

    def errors(self):
        """The failed rows (source, scenario, error).

        Errors, and the rows an interrupt left not completed (``status = "interrupted"``).
        """
        s = self.summary
        return s.loc[s["status"] != "ok", ["source", "scenario", "error"]]

    def describe(self) -> str:
        """A few lines for the terminal."""
        mem = max(self.worker_peak_rss_mb.values(), default=math.nan)
        lines = [
            f"{self.n_scenarios} run(s) (site files and sweep scenarios) from "
            f"{self.n_inputs} input(s) in "
            f"{self.elapsed_s:.1f} s ({self.scenarios_per_s:.1f}/s) on {self.scheduler}"
            + (f" with {self.workers} worker(s)" if self.workers else "")
            + f"; {self.n_tasks} task(s); peak memory per worker {mem:.0f} MB",
            f"ok: {self.n_scenarios - self.n_failed}, failed: {self.n_failed}",
        ]
        p = self.paths or {}
        if p.get("summary_arrays") or p.get("full_analysis"):
            lines.append(f"sweep scenarios by the summary arrays: {p['summary_arrays']}, by "
                         f"the full analysis: {p['full_analysis']}")
            for why, n in sorted(p.get("reasons", {}).items()):
                lines.append(f"  full analysis for {n}: {why}")
        for kind in ("csv", "parquet", "json"):
            if kind in self.files:
                lines.append(f"  {self.files[kind]}")
        return "\n".join(lines)


class BatchInterrupted(KeyboardInterrupt):
    """Raised by :func:`hydrocalc.batch.run_batch` when Ctrl-C or SIGTERM stopped the batch.

    Raised after its partial summary was written (every unfinished row ``status =
    "interrupted"``, ``batch.json`` ``"interrupted": true``).

    A :class:`KeyboardInterrupt`, so code that stops on Ctrl-C still stops.

    Attributes
    ----------
    result : BatchResult
        What was completed, and the files written.
    """

    def __init__(self, result: BatchResult, why: str = "interrupted"):
        super().__init__(why)
        self.result = result


def summary_frame(rows: Sequence[dict], extra_columns: Sequence[str] = ()):
    """Rows -> the summary DataFrame with stable dtypes (text, nullable boolean, float)."""
    cols = list(SUMMARY_COLUMNS) + [c for c in extra_columns if c not in SUMMARY_COLUMNS]
    rows = rows if isinstance(rows, list) else list(rows)
    # column by column (a missing key is a missing value, as DataFrame(list of dicts))
    return _frame({c: [r.get(c) for r in rows] for c in cols}, cols)


def _frame(data: dict[str, list], cols: list[str]):
    """:func:`summary_frame` of the columns ``data`` (lists of equal length)."""
    import numpy as np
    import pandas as pd

    data = dict(data)
    text = []
    for c in _TEXT:  # columns of text only: converted once (no inference from the list)
        if all(type(v) is str for v in data[c]):
            data[c] = pd.Series(np.array(data[c], dtype=object), dtype=object).astype(str)
        else:
            text.append(c)
    frame = pd.DataFrame(data, columns=cols)
    for c in text:
        frame[c] = frame[c].astype(object).where(frame[c].notna(), "").astype(str)
    for c in _BOOL:
        frame[c] = frame[c].astype("boolean")
    for c in cols:
        if c in _TEXT or c in _BOOL:
            continue
        if c in SUMMARY_COLUMNS or pd.api.types.is_numeric_dtype(frame[c]):
            frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
        else:
            frame[c] = frame[c].astype(object).where(frame[c].notna(), None)
            if all(isinstance(v, str) or v is None for v in frame[c]):
                frame[c] = frame[c].astype("string")
            else:
                frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    return frame


def summary_frame_of(pieces: Sequence, extra_columns: Sequence[str] = ()):
    """:func:`summary_frame` of row dicts and :class:`hydrocalc.batch.tasks.RowBlock` blocks.

    The column blocks are what the tasks send back; in scenario order: the pieces stably sorted by
    their ``(input, index)``; the rows of a block are in order and blocks of one input
    cover disjoint ranges. The same table as :func:`summary_frame` of the rows one by one
    sorted by ``(_input, _index)``.
    """

    def key(p):
        return p.key if isinstance(p, RowBlock) else (p.get("_input", 0), p.get("_index", 0))

    def last(p):
        if isinstance(p, RowBlock):
            return (p.key[0], p.columns["_index"][-1]) if p.n else p.key
        return key(p)

    ordered = sorted(pieces, key=key)
    if any(last(a) >= key(b) and (isinstance(a, RowBlock) or isinstance(b, RowBlock))
           for a, b in itertools.pairwise(ordered)):
        # a block's range overlaps another piece: the rows one by one, in arrival order
        rows: list[dict] = []
        for p in pieces:
            rows.extend(p.rows() if isinstance(p, RowBlock) else (p,))
        rows.sort(key=lambda r: (r.get("_input", 0), r.get("_index", 0)))
        return summary_frame(rows, extra_columns)
    pieces = ordered
    cols = list(SUMMARY_COLUMNS) + [c for c in extra_columns if c not in SUMMARY_COLUMNS]
    data: dict[str, list] = {c: [] for c in cols}
    for p in pieces:
        if isinstance(p, RowBlock):
            for c, out in data.items():
                got = p.columns.get(c)
                out.extend(got if got is not None else [None] * p.n)
        else:
            for c, out in data.items():
                out.append(p.get(c))
    return _frame(data, cols)


def _atomic_write(target: pathlib.Path, write: Callable[[pathlib.Path], None]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = pathlib.Path(tmp)
    try:
        write(tmp_path)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp_path, 0o666 & ~umask)  # mkstemp makes 0600; give a normal file's mode
        os.replace(tmp_path, target)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def _csv_column(series) -> list[str]:
    """The text of one summary column as ``DataFrame.to_csv(float_format="%.10g")`` writes it.

    Floats with 10 significant digits, missing values empty, booleans True/False.
    """
    import numpy as np
    import pandas as pd

    if series.dtype.kind == "f":
        a = series.to_numpy()
        if a.size > 64 and not (np.signbit(a) & (a == 0)).any():  # -0.0 prints as "-0"
            # each distinct value formatted once (NaNs are one value: empty)
            uniq, inv = np.unique(a, return_inverse=True)
            text = np.array(["" if math.isnan(v) else f"{v:.10g}" for v in uniq.tolist()],
                            dtype=object)
            return text[inv.reshape(-1)].tolist()
        return ["" if math.isnan(v) else f"{v:.10g}" for v in a.tolist()]
    if str(series.dtype) == "boolean":
        text = np.where(series.fillna(False).to_numpy(dtype=bool), "True", "False")
        text = text.astype(object)
        text[series.isna().to_numpy()] = ""
        return text.tolist()
    values = series.tolist()
    if all(type(v) is str for v in values):  # text columns: written as they are
        return values
    return ["" if v is None or v is pd.NA or (isinstance(v, float) and v != v) else str(v)
            for v in values]


def _write_csv(frame, path: pathlib.Path) -> None:
    r"""Write ``frame`` as CSV to ``path``, column by column.

    The same bytes as
    ``frame.to_csv(path, index=False, float_format="%.10g", lineterminator="\n")``, built
    column by column (the csv module's minimal quoting, as pandas uses): about
    twice as fast for a sweep's summary, whose floats pandas formats one call at a time.
    """
    _write_csv_columns([(c, frame[c]) for c in frame.columns], path)


def _write_csv_columns(columns, path: pathlib.Path) -> None:
    """:func:`_write_csv` of ``[(name, Series), ...]`` (taken from the frame beforehand).

    Fields that may need quoting (a delimiter, quote, line break or blank) are quoted by
    the csv module itself, one distinct value at a time; the others are joined as they are
    (what the csv module writes for them).
    """
    import csv
    import io

    header = [str(c) for c, _ in columns]
    cols = [_csv_column(series) for _, series in columns]
    if len(cols) < 2:  # a row of one empty field is written '""': leave it to csv
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            w.writerows(zip(*cols, strict=True))
        return
    buf = io.StringIO()
    one = csv.writer(buf, lineterminator="\n")
    special = set(',"\r\n \t\x0b\x0c')
    memo: dict[str, str] = {}

    def field(v: str) -> str:
        if not v or special.isdisjoint(v):
            return v
        hit = memo.get(v)
        if hit is None:
            buf.seek(0)
            buf.truncate()
            one.writerow([v])
            hit = memo[v] = buf.getvalue()[:-1]
        return hit

    cols = [col if all(not v or special.isdisjoint(v) for v in set(col))
            else [field(v) for v in col] for col in cols]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        fh.write(",".join(field(h) for h in header) + "\n")
        fh.writelines(",".join(row) + "\n" for row in zip(*cols, strict=True))


#: Prefix of the staging folders of a batch's files inside its output folder.
STAGING_PREFIX = ".batch.partial-"
_STAGING_MARKER = ".hydrocalc-staging"  # "<pid> <host>" of the batch that made the folder


def clean_stale_batch_staging(out_dir: str | os.PathLike) -> list[pathlib.Path]:
    """Remove the staging folders (``.batch.partial-*``) of killed batches in ``out_dir``.

    A staging folder stays when a batch is killed before moving its files into ``out_dir``.
    Its name carries the process id and host of the batch that made it
    (``.batch.partial-<pid>@<host>-<random>``), so a batch killed at any moment, even before
    it wrote a byte, is recognised. Only folders made on this machine by a process that is
    no longer running are removed (and, of an older layout, those whose marker file names
    such a process, or empty ones). Returns the folders removed.
    """
    out_dir = pathlib.Path(out_dir)
    removed: list[pathlib.Path] = []
    if not out_dir.is_dir():
        return removed
    host = socket.gethostname()
    for folder in out_dir.glob(STAGING_PREFIX + "*"):
        if folder.is_symlink() or not folder.is_dir():
            continue
        owner = _staging_owner(folder)
        if owner is None:
            if not any(folder.iterdir()):  # killed before it wrote anything: remove it
                folder.rmdir()
                removed.append(folder)
            continue
        pid, made_on = owner
        if made_on != host or (pid != os.getpid() and pid_alive(pid)):
            continue  # another machine's batch, or one still running
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def _staging_owner(folder: pathlib.Path) -> tuple[int, str] | None:
    """(pid, host) of the batch that made a staging folder: from its name, else its marker."""
    tail = folder.name[len(STAGING_PREFIX):]
    if "@" in tail and "-" in tail.split("@", 1)[1]:
        pid_text, rest = tail.split("@", 1)
        if pid_text.isdigit():
            return int(pid_text), rest.rsplit("-", 1)[0]
    marker = folder / _STAGING_MARKER
    try:
        pid_text, made_on = marker.read_text(encoding="utf-8").split()[:2]
        return int(pid_text), made_on
    except (OSError, ValueError):
        return None


def _write_outputs(frame, meta: dict, out_dir: pathlib.Path, *,
                   parallel: bool = True) -> dict:
    """Write summary.csv, summary.parquet and batch.json into ``out_dir``.

    The three files are written in a staging folder inside ``out_dir`` and moved into place
    (three renames, batch.json last) only when all are complete: a batch killed while
    writing (even by SIGKILL) leaves the previous files as they were. ``batch.json``
    records the SHA-256 of the two tables it describes (``sha256``).
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    clean_stale_batch_staging(out_dir)
    staging = pathlib.Path(tempfile.mkdtemp(
        prefix=f"{STAGING_PREFIX}{os.getpid()}@{socket.gethostname()}-", dir=out_dir))
    names = {"csv": "summary.csv", "parquet": "summary.parquet", "json": "batch.json"}
    staged = {k: staging / v for k, v in names.items()}
    files = {k: out_dir / v for k, v in names.items()}
    try:
        _write_tables(frame, staged, parallel=parallel)
        meta = {**meta, "files": dict(names),
                "sha256": {names[k]: _sha256(staged[k]) for k in ("csv", "parquet")}}
        staged["json"].write_text(json.dumps(meta, indent=1, sort_keys=True, default=str)
                                  + "\n", encoding="utf-8")
        umask = os.umask(0)
        os.umask(umask)
        for key in ("csv", "parquet", "json"):  # batch.json, which describes them, last
            os.chmod(staged[key], 0o666 & ~umask)
            os.replace(staged[key], files[key])
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return files


def _sha256(path: pathlib.Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _write_tables(frame, staged: dict, *, parallel: bool) -> None:
    """The CSV and Parquet files of the summary at ``staged["csv"]``/``staged["parquet"]``."""
    columns = [(c, frame[c]) for c in frame.columns]  # the frame is only read from here on

    def parquet(p):
        frame.to_parquet(p, index=False, engine="pyarrow")

    if parallel:
        try:  # imported here, in the calling thread, not by the writer thread
            import pandas.io.parquet  # noqa: F401
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            parallel = False
    if not parallel:  # e.g. after an interrupt: everything in this thread
        _write_csv_columns(columns, staged["csv"])
        parquet(staged["parquet"])
        return
    from concurrent.futures import ThreadPoolExecutor

    # the Parquet file is written (pyarrow, mostly without the GIL) while the CSV text is
    # formatted
    with ThreadPoolExecutor(1) as ex:
        done = ex.submit(parquet, staged["parquet"])
        _write_csv_columns(columns, staged["csv"])
        done.result()
