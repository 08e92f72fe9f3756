"""The work of one batch task, run in a worker: :func:`run_task`.

A task analyses one site file, or a chunk of the scenarios of a sweep (in blocks, by
:func:`hydrocalc.analysis.analyze_many` with ``detail="summary"``), and returns its summary
rows; a failing input or scenario becomes an
error row. Sweeps are loaded once per worker process (cached on the file's fingerprint).
Everything here is a module-level function: tasks are pickled by reference to the workers.

Part of :mod:`hydrocalc.batch`; every name is importable from there.
"""

from __future__ import annotations

import itertools
import math
import os
import sys
import time
from typing import Any, cast

from hydrocalc.analysis import analyze, analyze_many
from hydrocalc.analysis.summary import SummaryRows
from hydrocalc.batch.sweep import load_sweep
from hydrocalc.site import load_site

# ----------------------------------------------------------------------------------------
# tasks (module-level functions: pickled by reference to the workers)


#: Routing engine of the tasks' analyses: compiled when numba is installed (its one-off
#: import pays off over many scenarios), else numpy; the same numbers either way.
ENGINE = "auto"


def _message(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    name = type(exc).__name__
    prefix = "" if name in ("InputError", "OutOfRangeError") else f"{name}: "
    return prefix + " | ".join(lines)


def _proc_status_mb(key: str) -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return float(line.split()[1]) / 1024.0  # kB
    except OSError:
        return None
    return None


def _peak_rss_mb() -> float:
    """Peak resident memory of this process since it started its program [MB].

    On Linux ``VmHWM`` of ``/proc/self/status``: ``getrusage`` would also count the parent's
    memory at the fork that preceded a spawned worker's ``exec``.
    """
    hwm = _proc_status_mb("VmHWM")
    if hwm is not None:
        return hwm
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return math.nan
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, B on macOS
    return rss / (1024.0 * 1024.0) if sys.platform == "darwin" else rss / 1024.0


def current_rss_mb() -> float:
    """Resident memory of this process now (NaN where it cannot be read) [MB]."""
    v = _proc_status_mb("VmRSS")
    return math.nan if v is None else v


def _error_row(source: str, scenario: str, message: str, *, site: str = "",
               values: dict | None = None) -> dict:
    row = {"source": source, "site": site, "scenario": scenario, "status": "error",
           "error": message}
    if values:
        row.update(values)
    return row


def _ok_rows(results, source: str, scenario: str, values: dict | None = None) -> list[dict]:
    rows = []
    for r in results.summary_rows(scenario=scenario):
        row = {"source": source, **r, "status": "ok", "error": ""}
        if values:
            row.update(values)
        rows.append(row)
    return rows


class RowBlock:
    """The summary rows of one sweep task as columns (what a worker sends back).

    Row dicts cost most of the transfer (each pickled and rebuilt with its keys) and of
    the summary table's assembly; columns are lists of values in row order. ``key`` is the
    ``(input, scenario index)`` of the first row: the rows are in scenario order, and the
    tasks of a sweep cover disjoint ranges, so blocks sorted by ``key`` are rows sorted by
    scenario. A missing column of a row is None (as a row dict without the key).
    """

    __slots__ = ("columns", "key", "n")

    def __init__(self, columns: dict[str, list], n: int, key: tuple[int, int]):
        self.columns = columns
        self.n = n
        self.key = key

    @classmethod
    def from_rows(cls, rows: list) -> RowBlock:
        """Return the rows as one block in scenario order (a stable sort).

        Rows (dicts with ``_input``/``_index``, or blocks) as one block in scenario
        order (a stable sort: the rows of one scenario keep their order).
        """
        blocks = [r for r in rows if isinstance(r, RowBlock)]
        if len(blocks) == len(rows):  # blocks of disjoint scenario ranges: concatenated
            blocks.sort(key=lambda b: b.key)
            spans = [(b.columns["_index"][0], b.columns["_index"][-1]) for b in blocks if b.n]
            if all(a[1] < b[0] for a, b in itertools.pairwise(spans)):
                return cls.concat(blocks)
        flat: list[dict] = []
        for r in rows:
            flat.extend(r.rows() if isinstance(r, RowBlock) else (r,))
        flat.sort(key=lambda r: (r.get("_input", 0), r.get("_index", 0)))
        names: dict[str, None] = {}
        for r in flat:
            names.update(dict.fromkeys(r))
        key = (flat[0].get("_input", 0), flat[0].get("_index", 0)) if flat else (0, 0)
        return cls({c: [r.get(c) for r in flat] for c in names}, len(flat), key)

    @classmethod
    def concat(cls, blocks: list[RowBlock]) -> RowBlock:
        """The blocks one after the other (a column missing from a block is None there)."""
        names: dict[str, None] = {}
        for b in blocks:
            names.update(dict.fromkeys(b.columns))
        cols: dict[str, list] = {c: [] for c in names}
        for b in blocks:
            for c, out in cols.items():
                got = b.columns.get(c)
                out.extend(got if got is not None else [None] * b.n)
        key = blocks[0].key if blocks else (0, 0)
        return cls(cols, sum(b.n for b in blocks), key)

    def rows(self) -> list[dict]:
        """The rows as dicts (missing values as None)."""
        names = list(self.columns)
        return [dict(zip(names, vals, strict=True))
                for vals in zip(*self.columns.values(), strict=True)] if names else []

    def __len__(self) -> int:
        return self.n

    def __eq__(self, other) -> bool:
        return isinstance(other, RowBlock) and (self.n, self.key, self.columns) == (
            other.n, other.key, other.columns)

    __hash__ = None  # type: ignore[assignment]  # unhashable (mutable columns), as dict

    def __getstate__(self):
        return self.columns, self.n, self.key

    def __setstate__(self, state):
        self.columns, self.n, self.key = state


_SWEEPS: dict[str, tuple[tuple, Any]] = {}


def _stat_key(path) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return (str(path), None, None)
    return (str(path), st.st_mtime_ns, st.st_size)


def _fingerprint(path: str, sw=None) -> tuple:
    """Stats of the sweep file, its base site and every file the site read."""
    keys = [_stat_key(path)]
    if sw is not None:
        keys.append(_stat_key(sw.base))
        keys += [_stat_key(sw.base.parent / rel) for rel in sorted(sw.site.input_files)]
    return tuple(keys)


def _cached_sweep(path: str, preload: bytes | None = None):
    """Return the sweep at ``path``, loaded once per process and reloaded on change.

    The sweep at ``path``, loaded once per process and reloaded when the sweep file, its
    base site or a file the site reads changes (long-lived distributed workers).

    ``preload`` (:func:`_sweep_blob`, made by the planning process) is the sweep as the
    planner loaded it, with the stats of its files: used when this process sees the same
    files (same paths, sizes and modification times), so a worker does not parse and
    validate the site again; otherwise the files are loaded.
    """
    hit = _SWEEPS.get(path)
    if hit is not None and hit[0] == _fingerprint(path, hit[1]):
        return hit[1]
    if len(_SWEEPS) > 8:
        _SWEEPS.clear()
    sw = None
    if preload is not None:
        import pickle

        try:  # e.g. a cluster worker with another hydrocalc: load the files instead
            stamp, planned = pickle.loads(preload)
            if stamp == _fingerprint(path, planned):
                sw = planned
        except Exception:  # noqa: BLE001 - the files are the reference
            sw = None
    if sw is None:
        sw = load_sweep(path)
    _SWEEPS[path] = (_fingerprint(path, sw), sw)
    return sw


def _sweep_blob(path: str, sw) -> bytes | None:
    """The loaded sweep and the stats of its files, pickled for the workers (a few kB)."""
    import copy
    import pickle

    try:
        bare = copy.copy(sw)
        bare.__dict__.pop("_nodes", None)  # the scenarios' rebuilt nodes stay here
        return pickle.dumps((_fingerprint(path, sw), bare), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - not picklable: the workers load the files
        return None


def run_task(spec: dict) -> dict:
    """Run one task of a batch plan (see :func:`plan_tasks`); never raises on bad input.

    Returns
    -------
    dict
        ``rows`` (summary rows with ``_input``/``_index`` ordering keys; a sweep task's as
        one :class:`RowBlock` of columns), ``n`` (inputs or
        scenarios done), ``failed``, ``pid``, ``peak_rss_mb``, ``elapsed_s``, ``cpu_s`` (CPU
        time of the task's thread), ``paths`` (sweep scenarios computed by the summary
        arrays and by the full analysis, with the reasons of the latter; empty for a site).
    """
    import warnings

    start = time.time()
    t0 = time.perf_counter()
    c0 = time.thread_time()
    rows: list = []  # row dicts, or RowBlocks for a sweep
    failed = 0
    paths: dict = {}
    kind = spec["kind"]
    source = spec["source"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # analyze() records its warnings itself
        try:
            if kind == "site":
                rows, failed = _site_rows(spec)
            elif kind == "sweep":
                rows, failed, paths = _sweep_rows(spec)
                rows = [RowBlock.from_rows(rows)] if rows else []
            else:
                raise AssertionError(kind)
        except Exception as exc:  # noqa: BLE001 - a task reports, never raises
            n = spec.get("stop", 1) - spec.get("start", 0)
            what = "" if kind == "site" else \
                f"scenarios {spec['start']} to {spec['stop'] - 1} not completed: "
            rows = [dict(_error_row(source, "", what + _message(exc)),
                         _input=spec["input"], _index=spec.get("start", 0))]
            failed = n
    return {"rows": rows, "n": spec.get("stop", 1) - spec.get("start", 0), "failed": failed,
            "pid": os.getpid(), "peak_rss_mb": _peak_rss_mb(),
            "elapsed_s": time.perf_counter() - t0, "cpu_s": time.thread_time() - c0,
            "task": spec.get("task"), "paths": paths, "t_start": start}


def _site_rows(spec: dict) -> tuple[list[dict], int]:
    source = spec["source"]
    site = None
    try:
        site = load_site(spec["path"])
        res = analyze(site, storms=spec.get("storms"), engine=ENGINE)
    except Exception as exc:  # noqa: BLE001 - recorded in the summary
        return [dict(_error_row(source, "", _message(exc),
                                site=site.name if site is not None else ""),
                     _input=spec["input"], _index=0)], 1
    rows = _ok_rows(res, source, "")
    for r in rows:
        r.update(_input=spec["input"], _index=0)
    return rows, 0


def _sweep_rows(spec: dict) -> tuple[list[dict], int, dict]:
    """Rows of the scenarios ``start`` to ``stop - 1`` of a sweep task.

    Scenarios go in blocks to :func:`hydrocalc.analysis.analyze_many`: by default with
    ``detail="summary"`` (``summary_batch`` scenarios at a time: the summary arrays where
    they express the scenarios, else the full analysis), or, with ``summary`` off, the full
    analysis (``batch`` scenarios at a time). The third value returned counts the paths,
    ``{"summary_arrays": n, "full_analysis": n, "reasons": {reason: n}}`` (reported in
    ``batch.json``).
    """
    source = spec["source"]
    sw = _cached_sweep(spec["path"], spec.get("preload"))
    storms = list(sw.storms) if sw.storms else spec.get("storms")
    site_name = sw.site.name
    rows: list[dict] = []
    failed = 0
    valid: list[tuple[int, Any]] = []
    for i in range(spec["start"], spec["stop"]):
        try:
            valid.append((i, sw.scenario(i)))
        except Exception as exc:  # noqa: BLE001 - an invalid scenario is one error row
            failed += 1
            rows.append(dict(_error_row(source, sw.scenario_id(i), _message(exc),
                                        site=site_name, values=sw.values(i)),
                             _input=spec["input"], _index=i))
    paths: dict = {"summary_arrays": 0, "full_analysis": 0, "reasons": {}}
    use_summary = spec.get("summary", True)
    full = max(1, int(spec.get("batch") or len(valid) or 1))
    step = max(1, int(spec.get("summary_batch") or full)) if use_summary else full
    for b in range(0, len(valid), step):
        block = valid[b:b + step]
        if not use_summary:
            reason = "summary arrays turned off (per-scenario analysis requested)"
            paths["full_analysis"] += len(block)
            paths["reasons"][reason] = paths["reasons"].get(reason, 0) + len(block)
        failed += _summary_block(block, storms, sw, spec, rows, paths, use_summary)
    return rows, failed, paths


def _summary_block(block, storms, sw, spec, rows, paths, arrays: bool) -> int:
    """Compute the rows of ``block`` by analyze_many; return the failures.

    Rows of ``block`` by :func:`hydrocalc.analysis.analyze_many` (summary rows by the
    arrays where ``arrays``, else from the full analysis); returns the failures.
    """
    sites = [s for _, s in block]
    if arrays:
        summary = cast(SummaryRows, analyze_many(sites, storms=storms, detail="summary",
                                                 errors="collect", engine=ENGINE))
        for key in ("summary_arrays", "full_analysis"):
            paths[key] += summary.paths[key]
        for why, n in summary.paths["reasons"].items():
            paths["reasons"][why] = paths["reasons"].get(why, 0) + n
        results = list(summary)
    else:
        results = [r if isinstance(r, Exception) else r.summary_rows()
                   for r in analyze_many(sites, storms=storms, errors="collect", engine=ENGINE)]
    retry = [k for k, r in enumerate(results) if isinstance(r, Exception)]
    if len(block) > 1 and retry:
        # a group failed as a whole: analyse its members one by one to isolate the culprit
        for k in retry:
            r = analyze_many([sites[k]], storms=storms, errors="collect", engine=ENGINE)[0]
            results[k] = r if isinstance(r, Exception) else r.summary_rows()
    done = [(item, r) for item, r in zip(block, results, strict=True)
            if not isinstance(r, Exception)]
    if done:
        rows.append(_block_columns([d for d, _ in done], [r for _, r in done], sw, spec))
    failed = 0
    for (i, _), res in zip(block, results, strict=True):
        if isinstance(res, Exception):
            failed += 1
            rows.append(dict(_error_row(spec["source"], sw.scenario_id(i), _message(res),
                                        site=sw.site.name, values=sw.values(i)),
                             _input=spec["input"], _index=i))
    return failed


def _block_columns(block, results, sw, spec) -> RowBlock:
    """Return the rows of a summary block as a :class:`RowBlock`.

    The rows of a summary block as a :class:`RowBlock` (the row dicts of
    :func:`_summary_block`'s callers, built column by column).
    """
    source = spec["source"]
    first = next((res[0] for res in results if res), None)
    if first is None:
        return RowBlock({}, 0, (spec["input"], block[0][0] if block else 0))
    row_keys = list(first)
    values0 = sw.values(block[0][0])
    fixed = {"source", "status", "error", "_input", "_index"}
    if fixed & set(row_keys) or (set(row_keys) | fixed) & (set(values0) - {"scenario"}) \
            or "scenario" in values0:  # a name taken twice: the dicts say which value wins
        return RowBlock.from_rows(_block_rows(block, results, sw, spec))
    names = ["source", *row_keys, "status", "error", *values0, "_input", "_index"]
    cols: dict[str, list] = {c: [] for c in dict.fromkeys(names)}
    own = [(c, cols[c]) for c in row_keys if c != "scenario"]
    for (i, _), res in zip(block, results, strict=True):
        k = len(res)
        if not k:
            continue
        values = sw.values(i)
        if list(values) != list(values0) or any(list(r) != row_keys for r in res):
            return RowBlock.from_rows(_block_rows(block, results, sw, spec))  # as dicts
        for c, out in own:
            out.extend([r[c] for r in res])
        for c, v in (("source", source), ("scenario", sw.scenario_id(i)), ("status", "ok"),
                     ("error", ""), *values.items(), ("_input", spec["input"]),
                     ("_index", i)):
            cols[c].extend([v] * k)
    n = len(cols["_index"])
    return RowBlock(cols, n, (spec["input"], cols["_index"][0] if n else 0))


def _block_rows(block, results, sw, spec) -> list[dict]:
    source = spec["source"]
    rows = []
    for (i, _), res in zip(block, results, strict=True):
        sid = sw.scenario_id(i)
        values = sw.values(i)
        for r in res:
            rows.append({"source": source, **r, "scenario": sid, "status": "ok", "error": "",
                         **values, "_input": spec["input"], "_index": i})
    return rows
