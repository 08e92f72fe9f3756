"""``hydrocalc diff A B``: what changed between two calculations, inputs and results.

A and B are each a site file, a folder holding ``site.toml`` (an import by ``hydrocalc import
hydrocad``, with its ``submitted.json``), or a report folder written by ``hydrocalc report``
(its ``results.json`` names the stored site file). :func:`diff_paths` returns:

* **changed inputs** by field path, the key carrying its unit, entries of arrays of tables
  named by their ``id`` (``post.pond[P-1].outlet[low_orifice].diameter_in 2.0 -> 3.0``);
  CSV tables a site reads are compared by content (``... .csv: 12 rows -> 13 rows``);
* **changed results** of both sites analysed (:func:`hydrocalc.analysis.analyze`) by
  scenario, node *name*, storm and quantity, design-point comparison rows and criteria rows,
  at reporting precision: ``REPORT_DIGITS`` (3) significant figures, times to 0.01 h;
* **changed submitted values** when both sides hold a ``submitted.json`` (as printed).

Values equal at reporting precision are not differences; :attr:`Diff.equal` is the command's
exit status (0 equal, 1 different).
"""

from __future__ import annotations

import dataclasses
import hashlib
import html
import json
import math
import pathlib
import tomllib

from hydrocalc.analysis import analyze
from hydrocalc.errors import InputError
from hydrocalc.review.rerun import load_submitted
from hydrocalc.site import load_site

__all__ = ["REPORT_DIGITS", "Change", "Diff", "diff_paths", "fmt_report"]

REPORT_DIGITS = 3  #: significant figures of results at reporting precision
_RESULT_COLUMNS = {
    "nodes": (("scenario", "node", "storm"),
              ("peak_cfs", "time_of_peak_hr", "volume_acft", "runoff_in")),
    "ponds": (("scenario", "pond", "storm"),
              ("peak_outflow_cfs", "peak_stage_ft", "peak_storage_ft3", "overtopped")),
    "comparison": (("design_point", "storm"),
                   ("pre_peak_cfs", "post_peak_cfs", "post_volume_ft3", "post_le_pre")),
    "criteria": (("criterion", "design_point", "storm"), ("required", "provided", "result")),
}


def fmt_report(value, key: str = "") -> str:
    """A value at reporting precision: 3 significant figures; times [h] to 0.01 h."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int, float)):
        v = float(value)
        if not math.isfinite(v):
            return str(v)
        if key.endswith("_hr"):
            return f"{v:.2f}"
        if v == 0:
            return "0"
        text = f"{v:.{REPORT_DIGITS}g}"
        if "e" in text:  # 1.23e+04 -> 12300
            text = f"{float(text):.0f}" if abs(v) >= 1 else text
        return text
    return str(value)


@dataclasses.dataclass
class Change:
    """One difference: ``kind`` is ``input``, ``result`` or ``submitted``."""

    kind: str
    path: str
    old: str
    new: str

    def line(self) -> str:
        """``path  old -> new``."""
        return f"{self.path}  {self.old} -> {self.new}"


@dataclasses.dataclass
class Diff:
    """The differences between calculations ``a`` and ``b``."""

    a: str
    b: str
    changes: list
    notes: list

    @property
    def equal(self) -> bool:
        """True when nothing differs at reporting precision."""
        return not self.changes

    def text(self, width: int = 100) -> str:
        """Terminal text, lines at most ``width`` characters (long ones wrapped)."""
        out = [f"diff A: {self.a}"[:width], f"  -> B: {self.b}"[:width]]
        for kind, title in (("input", "changed inputs"), ("result", "changed results"),
                            ("submitted", "changed submitted values")):
            rows = [c for c in self.changes if c.kind == kind]
            if not rows:
                continue
            out.append(f"{title} ({len(rows)}):")
            for c in rows:
                line = "  " + c.line()
                while len(line) > width:
                    out.append(line[:width])
                    line = "      " + line[width:]
                out.append(line)
        for n in self.notes:
            out.append(("note: " + n)[:width])
        out.append("EQUAL at reporting precision" if self.equal else
                   f"DIFFERENT: {len(self.changes)} change(s)")
        return "\n".join(out)

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {"a": self.a, "b": self.b, "equal": self.equal, "notes": self.notes,
                "changes": [dataclasses.asdict(c) for c in self.changes]}

    def to_html(self) -> str:
        """A self-contained HTML page."""
        e = html.escape
        rows = "".join(f"<tr><td>{e(c.kind)}</td><td><code>{e(c.path)}</code></td>"
                       f"<td>{e(c.old)}</td><td>{e(c.new)}</td></tr>" for c in self.changes)
        notes = "".join(f"<li>{e(n)}</li>" for n in self.notes)
        verdict = "EQUAL at reporting precision" if self.equal else \
            f"DIFFERENT: {len(self.changes)} change(s)"
        return ("<!DOCTYPE html><html><head><meta charset='utf-8'><title>diff</title><style>"
                "body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px "
                "solid #999;padding:2px 6px}</style></head><body>"
                f"<h1>{e(self.a)} &rarr; {e(self.b)}</h1><p><b>{e(verdict)}</b></p>"
                "<table><tr><th>kind</th><th>path</th><th>A</th><th>B</th></tr>"
                f"{rows}</table><ul>{notes}</ul></body></html>\n")


@dataclasses.dataclass
class _Side:
    label: str
    site: pathlib.Path
    submitted: pathlib.Path | None


def _resolve(arg: str) -> _Side:
    p = pathlib.Path(arg)
    if p.is_file():
        return _Side(arg, p, None)
    if p.is_dir():
        sub = p / "submitted.json"
        if (p / "site.toml").is_file():
            return _Side(arg, p / "site.toml", sub if sub.is_file() else None)
        res = p / "results.json"
        if res.is_file():
            try:
                rel = json.loads(res.read_text(encoding="utf-8"))["parameters"]["site_file"]
            except (ValueError, KeyError, TypeError):
                rel = None
            if rel and (p / rel).is_file():
                return _Side(arg, p / rel, None)
        raise InputError(f"{arg}: expected a site file, a folder with site.toml (an import) "
                         "or a report folder (results.json naming its site file); found none.")
    raise InputError(f"{arg}: no such file or folder; expected a site file or a folder.")


def _load_toml(path: pathlib.Path) -> dict:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except OSError as exc:
        raise InputError(f"{path}: could not be read ({exc.strerror or exc}).") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML ({exc}).") from None


def _flatten(obj, prefix: str, out: dict, base: pathlib.Path) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            _flatten(v, f"{prefix}.{k}" if prefix else str(k), out, base)
    elif isinstance(obj, list) and obj and all(isinstance(x, dict) for x in obj):
        counts: dict = {}
        for i, item in enumerate(obj):
            key = item.get("id")
            if key is None and "type" in item:  # outlet default id <type>_<n>
                counts[item["type"]] = counts.get(item["type"], 0) + 1
                key = f"{item['type']}_{counts[item['type']]}"
            _flatten(item, f"{prefix}[{key if key is not None else i}]", out, base)
    else:
        out[prefix] = obj
        leaf = prefix.rsplit(".", 1)[-1]
        if isinstance(obj, str) and (leaf in ("csv", "subcatchments_csv", "file",
                                              "rainfall_file")):
            f = base / obj
            try:
                data = f.read_bytes()
                rows = data.decode("utf-8", "replace").count("\n")
                out[prefix + " (content)"] = (f"{rows} lines, sha256 "
                                              f"{hashlib.sha256(data).hexdigest()[:12]}")
            except OSError:
                out[prefix + " (content)"] = "missing"


def _input_changes(a: _Side, b: _Side) -> list:
    fa: dict[str, object] = {}
    fb: dict[str, object] = {}
    _flatten(_load_toml(a.site), "", fa, a.site.parent)
    _flatten(_load_toml(b.site), "", fb, b.site.parent)
    changes = []
    for key in sorted(set(fa) | set(fb)):
        va, vb = fa.get(key, _MISSING), fb.get(key, _MISSING)
        if va != vb:
            changes.append(Change("input", key, _show(va), _show(vb)))
    return changes


class _Missing:
    def __repr__(self):
        return "(absent)"


_MISSING = _Missing()


def _show(v) -> str:
    if v is _MISSING:
        return "(absent)"
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)
    return str(v)


def _result_tables(side: _Side) -> dict:
    res = analyze(load_site(side.site))
    tables = {}
    for name, (keys, cols) in _RESULT_COLUMNS.items():
        df = getattr(res, name)
        rows = {}
        if df is not None and len(df):
            for rec in df.to_dict("records"):
                key = tuple(str(rec.get(k, "")) for k in keys)
                rows[key] = {c: rec.get(c) for c in cols if c in rec}
        tables[name] = rows
    return tables


def _result_changes(a: _Side, b: _Side) -> list:
    ta, tb = _result_tables(a), _result_tables(b)
    changes = []
    for name in _RESULT_COLUMNS:
        ra, rb = ta[name], tb[name]
        for key in sorted(set(ra) | set(rb)):
            label = f"{name}[{', '.join(k for k in key if k)}]"
            if key not in ra or key not in rb:
                changes.append(Change("result", label, "present" if key in ra else "(absent)",
                                      "present" if key in rb else "(absent)"))
                continue
            for col in sorted(set(ra[key]) | set(rb[key])):
                va = fmt_report(ra[key].get(col), col)
                vb = fmt_report(rb[key].get(col), col)
                if va != vb:
                    changes.append(Change("result", f"{label}.{col}", va, vb))
    return changes


def _submitted_changes(a: pathlib.Path, b: pathlib.Path) -> list:
    sa, sb = load_submitted(a), load_submitted(b)

    def index(s):
        return {(r["node"], r.get("hydrocad_storm") or r.get("storm"), r["quantity"]):
                r["printed"] for r in s["results"]}

    ia, ib = index(sa), index(sb)
    changes = []
    for key in sorted(set(ia) | set(ib), key=lambda k: tuple(str(x) for x in k)):
        va, vb = ia.get(key, "(absent)"), ib.get(key, "(absent)")
        if va != vb:
            changes.append(Change("submitted", f"{key[0]}[{key[1]}].{key[2]}", va, vb))
    return changes


def diff_paths(a: str, b: str, *, results: bool = True) -> Diff:
    """Compare calculations ``a`` and ``b`` (see the module notes).

    Parameters
    ----------
    a, b : str
        Site files or folders.
    results : bool, default True
        Also analyse both sites and compare results.

    Returns
    -------
    Diff

    Raises
    ------
    InputError
        A side is not a site file or a usable folder, or its site does not load.
    """
    sa, sb = _resolve(a), _resolve(b)
    changes = _input_changes(sa, sb)
    notes = []
    if results:
        changes += _result_changes(sa, sb)
    if sa.submitted and sb.submitted:
        changes += _submitted_changes(sa.submitted, sb.submitted)
    elif bool(sa.submitted) != bool(sb.submitted):
        notes.append("only one side holds a submitted.json; submitted values not compared")
    return Diff(a=a, b=b, changes=changes, notes=notes)
