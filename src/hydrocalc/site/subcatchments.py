"""``[[pre.subcatchment]]`` / ``[[post.subcatchment]]`` (TR-55 method) and their CSV form.

Curve numbers come from cover tables (TR-55 Tables 2-2a..d, :func:`hydrocalc.runoff.curve_number`)
or are given; impervious areas compose the CN (TR-55 Figs. 2-3 and 2-4), or alone make an
all-impervious subcatchment (CN 98, TR-55 Table 2-2a); Tc is given or
summed from travel-time segments (TR-55 Ch. 3, :func:`hydrocalc.tc.time_of_concentration`).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from typing import Any, cast

from hydrocalc import tc
from hydrocalc._validate import fmt_value, suggest
from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.runoff import (
    IMPERVIOUS_CN,  # CN 98, TR-55 Table 2-2a (all HSGs)
    curve_number,
    impervious_composite_cn,
)
from hydrocalc.site.files import _csv_value, _Ctx, _read_csv_rows, _register_input, _site_path
from hydrocalc.site.model import HSGS, Cover, Subcatchment, TcSegment
from hydrocalc.site.problems import _msg, _Problems, _to

# ----------------------------------------------------------------------------------------
# dependency adapters (layer 1/2 modules of the other topics)


def _lookup_cn(cover: str, hsg: str, condition: str | None) -> float:
    if condition is None:
        return float(curve_number(cover, hsg))
    return float(curve_number(cover, hsg, condition=condition))


def _composite_cn(pervious_cn: float, impervious_pct: float, unconnected_pct: float) -> float:

    # The loader computes the percentage from areas, so impervious_composite_cn's guess that
    # a value between 0 and 1 is a fraction typed as a percentage does not apply here; a
    # small impervious share is reported once, as a plausibility warning with its accept key
    # (plausibility.site_checks, "small_impervious_share"), not as a raw Python warning.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="impervious_pct looks like a fraction",
                                category=UserWarning)
        return float(impervious_composite_cn(pervious_cn, impervious_pct,
                                             unconnected_pct=unconnected_pct))


def _segment_travel_times(segments: list[dict]) -> tuple[float, list[float]]:
    rows = []
    for seg in segments:
        row = {k: v for k, v in seg.items() if k != "type"}
        row["kind"] = seg["type"]
        if seg["type"] == "sheet" and "surface" in row:
            row["n"] = row.pop("surface")  # a TR-55 Table 3-1 key; tc looks it up
        rows.append(row)
    total, table = tc.segment_travel_times(rows)
    times = [float(r["travel_time_hr"]) for r in table]
    return float(total), times
_SUB_KEYS = ("id", "to", "description", "area_ac", "area_ft2", "cn", "cover", "tc_hr",
             "tc_segment", "impervious_connected_ac", "impervious_connected_ft2",
             "impervious_unconnected_ac", "impervious_unconnected_ft2", "impervious_hsg")
_COVER_KEYS = ("cover", "hsg", "area_ac", "area_ft2", "condition", "cn")
_SEG_TYPES = ("sheet", "shallow", "channel")
_SEG_KEYS = {
    "sheet": ("type", "length_ft", "slope_ftft", "n", "surface", "p2_in", "max_length_ft"),
    "shallow": ("type", "length_ft", "slope_ftft", "surface"),
    "channel": ("type", "length_ft", "slope_ftft", "n", "area_ft2", "wetted_perimeter_ft"),
}
_SUB_CSV_SCALARS = ("id", "to", "description", "area_ac", "area_ft2", "cn", "tc_hr",
                    "impervious_connected_ac", "impervious_connected_ft2",
                    "impervious_unconnected_ac", "impervious_unconnected_ft2", "impervious_hsg")
_SUB_CSV_COVER = {"cover": "cover", "hsg": "hsg", "condition": "condition",
                  "cover_area_ac": "area_ac", "cover_area_ft2": "area_ft2", "cover_cn": "cn"}


def _subcatchments_from_csv(P: _Problems, prefix: str, raw: str, ctx: _Ctx) -> list[dict]:
    path = _site_path(P, f"{prefix}.subcatchments_csv", ctx.base_dir, raw, what="CSV file")
    if path is None:
        return []
    try:
        header, rows = _read_csv_rows(path)
    except InputError as exc:  # names the CSV file and line
        P.raw(f"{exc}")
        return []
    _register_input(ctx.input_files, ctx.base_dir, path)
    allowed = (*_SUB_CSV_SCALARS, *_SUB_CSV_COVER)
    bad = [h for h in header if h not in allowed]
    for h in bad:
        P.raw(f"{P.where}: {prefix}.subcatchments_csv: unknown column {h!r} in {path.name}"
              f"{suggest(h, allowed) or '. Valid columns: ' + ', '.join(allowed)}")
    if bad:
        return []
    if "id" not in header:
        P.raw(f"{P.where}: {prefix}.subcatchments_csv: column 'id' is required in {path.name}")
        return []
    entries: dict[str, dict] = {}
    for lineno, row in rows:
        typed = {h: _csv_value(v) for h, v in row.items()}
        sid = typed.get("id")
        if sid is None:
            P.raw(f"{P.where}: {prefix}.subcatchments_csv: {path.name} line {lineno}: id is empty")
            continue
        sid = str(sid)
        cover = {_SUB_CSV_COVER[k]: v for k, v in typed.items()
                 if k in _SUB_CSV_COVER and v is not None}
        scal = {k: (str(v) if k in ("id", "to", "description", "impervious_hsg") else v)
                for k, v in typed.items() if k in _SUB_CSV_SCALARS and v is not None}
        if sid not in entries:
            entry = dict(scal)
            entry["__line__"] = f"{path.name} line {lineno}"
            if cover:
                entry["cover"] = [cover]
            entries[sid] = entry
        else:
            entry = entries[sid]
            for k, v in scal.items():
                if k != "id" and k in entry and entry[k] != v:
                    P.raw(f"{P.where}: {prefix}.subcatchment[{sid}].{k} differs between rows of "
                          f"{path.name} (line {lineno}: {v!r}, first row: {entry[k]!r}); "
                          "continuation rows must leave it blank or repeat it")
                entry.setdefault(k, v)
            if cover:
                entry.setdefault("cover", []).append(cover)
    return list(entries.values())


def _hsg(P: _Problems, m: Mapping, key: str, path: str, *, required: bool) -> str | None:
    """A hydrologic soil group A-D (case-insensitive)."""
    if key not in m:
        if required:
            P.add(f"{path}.{key}", "is required; got nothing. Use one of: A, B, C, D")
        return None
    v = m[key]
    if isinstance(v, str) and v.strip().upper() in HSGS:
        return v.strip().upper()
    P.add(f"{path}.{key}", f"must be one of A, B, C, D; got {v!r}. For a dual group such as "
                           "C/D enter the group that applies (drained: C; undrained: D)")
    return None


def _parse_cover(P, c, path) -> Cover | None:
    n0 = len(P.items)
    for key in c:  # the TOML trap: a subcatchment key written after a [[...cover]] header
        if key not in _COVER_KEYS and key in _SUB_KEYS:
            P.items.append(
                f"{P.where}: unknown key {path}.{key}: {key} is a subcatchment key; TOML puts "
                f"every key after a [[...cover]] header into that cover row, so move {key} "
                f"above the first [[...cover]] header of the subcatchment"
                f"{P.line_of(f'{path}.{key}')}")
    P.unknown_keys({k: v for k, v in c.items() if k not in _SUB_KEYS or k in _COVER_KEYS},
                   _COVER_KEYS, path)
    key = P.text(c, "cover", path, required=True)
    hsg = _hsg(P, c, "hsg", path, required=True)
    area = P.area_ac(c, path, "area", required=True, lower_inclusive=False)
    cond = P.text(c, "condition", path) if "condition" in c else None
    cn_given = "cn" in c
    cn = (P.number(c, "cn", path, lower=0.0, lower_inclusive=False, upper=100.0)
          if cn_given else None)
    if len(P.items) > n0:
        return None
    # no problem recorded: the required cover and hsg were parsed (not None)
    key, hsg = cast(str, key), cast(str, hsg)
    if not cn_given:
        try:
            cn = _lookup_cn(key, hsg, cond)
        except ImportError:
            P.add(f"{path}.cover", "cannot be looked up: hydrocalc.runoff.curve_number is not "
                                   "available; give cn for this row")
            return None
        except HydrocalcError as exc:
            P.add(f"{path}.cover", f"could not be looked up in TR-55 Tables 2-2a..d: {_msg(exc)}")
            return None
        if not (cn > 0 and math.isfinite(cn)):
            P.add(f"{path}.cover", f"has no curve number for HSG {hsg} in TR-55 Tables 2-2a..d "
                                   f"({key!r}); give cn for this row")
            return None
    return Cover(cover=key, hsg=hsg, area_ac=area, cn=cast(float, cn), condition=cond,
                 cn_given=cn_given)


def _parse_segment(P, s, path, ctx: _Ctx) -> dict | None:
    n0 = len(P.items)
    kind = P.choice(s, "type", path, _SEG_TYPES, required=True)
    if kind is None:
        return None
    P.unknown_keys(s, _SEG_KEYS[kind], path)
    seg: dict[str, Any] = {"type": kind}
    seg["length_ft"] = P.number(s, "length_ft", path, required=True, lower=0.0,
                                lower_inclusive=False)
    seg["slope_ftft"] = P.number(s, "slope_ftft", path, required=True, lower=0.0,
                                 lower_inclusive=False, upper=1.0)
    if kind == "sheet":
        if ("n" in s) == ("surface" in s):
            P.add(f"{path}.n", "(Manning's n) or surface (a TR-55 Table 3-1 key) is required, "
                               "exactly one; got " + ("both" if "n" in s else "neither"))
        elif "n" in s:
            seg["n"] = P.number(s, "n", path, lower=0.0, lower_inclusive=False, upper=1.0)
        else:
            seg["surface"] = P.text(s, "surface", path)
        if "max_length_ft" in s:
            seg["max_length_ft"] = P.number(s, "max_length_ft", path, lower=0.0,
                                            lower_inclusive=False)
        if "p2_in" in s:
            seg["p2_in"] = P.number(s, "p2_in", path, lower=0.0, lower_inclusive=False)
        elif ctx.p2_in is None:
            P.add(f"{path}.p2_in", "is required (2-year 24-hour rainfall for sheet flow, TR-55 "
                                   "Eq. 3-3) because [storms.depths_in] has no \"2yr\" storm; got "
                                   "nothing")
        else:
            seg["p2_in"] = ctx.p2_in
    elif kind == "shallow":
        seg["surface"] = P.choice(s, "surface", path, ("unpaved", "paved"), required=True)
    else:
        seg["n"] = P.number(s, "n", path, required=True, lower=0.0, lower_inclusive=False,
                            upper=1.0)
        seg["area_ft2"] = P.number(s, "area_ft2", path, required=True, lower=0.0,
                                   lower_inclusive=False)
        seg["wetted_perimeter_ft"] = P.number(s, "wetted_perimeter_ft", path, required=True,
                                              lower=0.0, lower_inclusive=False)
    if len(P.items) > n0:
        return None
    return seg


def _parse_cn_inputs(P: _Problems, e: Mapping, path: str,
                     imp: float) -> tuple[Any, list[Cover]]:
    """The given composite CN (or None) and the parsed cover rows of a subcatchment entry."""
    covers_raw = P.tables(e, "cover", path) if "cover" in e else []
    has_cn = "cn" in e
    if has_cn and covers_raw:
        P.add(f"{path}.cn", "and cover rows must not both be given; got both. Give cn (the "
                            "composite CN) or [[...cover]] rows (CN from TR-55 tables).")
    elif not has_cn and not covers_raw and imp <= 0:
        P.add(f"{path}.cn", "(or [[...cover]] rows) is required; got nothing. Give the composite "
                            "cn, land-cover rows with cover, hsg and area_ac, or, for an "
                            "all-impervious subcatchment, impervious_connected_ac / "
                            "impervious_unconnected_ac alone.")
    cn = P.number(e, "cn", path, lower=0.0, lower_inclusive=False, upper=100.0) if has_cn else None
    covers: list[Cover] = []
    for i, c in enumerate(covers_raw):
        cv = _parse_cover(P, c, f"{path}.cover[{i}]")
        if cv is not None:
            covers.append(cv)
    return cn, covers


def _parse_tc_inputs(P: _Problems, e: Mapping, path: str,
                     ctx: _Ctx) -> tuple[Any, list[dict]]:
    """The given Tc [h] (or None) and the parsed Tc segments of a subcatchment entry."""
    has_tc, segs_raw = "tc_hr" in e, (P.tables(e, "tc_segment", path) if "tc_segment" in e else [])
    cover_rows = e.get("cover")
    if has_tc and segs_raw:
        P.add(f"{path}.tc_hr", "and tc_segment rows must not both be given; got both. Keep one.")
    elif not has_tc and not segs_raw and not any(
            isinstance(c, Mapping) and ("tc_hr" in c or "tc_segment" in c)
            for c in (cover_rows if isinstance(cover_rows, list) else [])):
        # (a tc_hr caught inside a cover row is reported there, with the fix)
        P.add(f"{path}.tc_hr", "(or [[...tc_segment]] rows) is required; got nothing.")
    tc_hr = (P.number(e, "tc_hr", path, lower=0.0, lower_inclusive=False, upper=100.0)
             if has_tc else None)
    segs = []
    for i, s in enumerate(segs_raw):
        seg = _parse_segment(P, s, f"{path}.tc_segment[{i}]", ctx)
        if seg is not None:
            segs.append(seg)
    return tc_hr, segs


def _derived_cn(P: _Problems, path: str, covers: list[Cover], cn: Any, area: Any,
                has_area: bool, imp: float, imp_u: float) -> tuple[Any, Any, str, Any] | None:
    """Area [ac], CN, CN method and pervious CN of a parsed subcatchment; None on a problem."""
    cn_method, pervious_cn = "given", None
    if covers:
        cover_area = sum(c.area_ac for c in covers)
        total = cover_area + imp
        if has_area and not math.isclose(total, area, rel_tol=0.005, abs_tol=1e-4):
            P.add(f"{path}.area_ac", f"must equal the cover areas plus the impervious areas "
                                     f"({fmt_value(round(total, 6))} ac) within 0.5 %; got "
                                     f"{fmt_value(area)}. Fix the areas or omit area_ac.")
            return None
        area = area if has_area else total
        pervious_cn = sum(c.cn * c.area_ac for c in covers) / cover_area
        imp_pct = 100.0 * imp / (cover_area + imp)
        unc_pct = 100.0 * imp_u / imp if imp > 0 else 0.0
        if imp > 0:
            try:
                cn = _composite_cn(pervious_cn, imp_pct, unc_pct)
            except ImportError:
                cn = pervious_cn + imp_pct / 100.0 * (98.0 - pervious_cn)
            except HydrocalcError as exc:
                P.add(path, f"composite CN could not be computed: {_msg(exc)}")
                return None
            cn_method = "covers+impervious (TR-55 Fig. 2-3/2-4)"
        else:
            cn = pervious_cn
            cn_method = "covers (area-weighted, TR-55 Table 2-2)"
    elif cn is None:
        # all impervious (roofs, driveways, paved parking): the impervious keys alone
        if has_area and not math.isclose(imp, area, rel_tol=0.005, abs_tol=1e-4):
            P.add(f"{path}.area_ac", f"must equal the impervious areas "
                                     f"({fmt_value(round(imp, 6))} ac) within 0.5 % when the "
                                     f"subcatchment has no cover rows and no cn; got "
                                     f"{fmt_value(area)}. Add [[...cover]] rows for the "
                                     "pervious rest, or omit area_ac.")
            return None
        area = area if has_area else imp
        cn = IMPERVIOUS_CN
        cn_method = "impervious (TR-55 Table 2-2a, CN 98)"
    elif area is None:
        P.add(f"{path}.area_ac", "(or area_ft2) is required when cn is given; got nothing.")
        return None
    if imp > area * (1 + 1e-9):
        P.add(f"{path}.impervious_connected_ac", f"plus impervious_unconnected_ac must be <= "
                                                 f"area_ac ({fmt_value(area)}); got "
                                                 f"{fmt_value(imp)}")
        return None
    return area, cn, cn_method, pervious_cn


def _segment_tc(P: _Problems, path: str,
                segs: list[dict]) -> tuple[float, tuple[TcSegment, ...]] | None:
    """Tc [h] and the timed segments of a parsed segment list; None on a problem."""
    try:
        tc_hr, times = _segment_travel_times(segs)
    except ImportError:
        P.add(f"{path}.tc_segment", "cannot be computed: hydrocalc.tc is not available; give "
                                    "tc_hr")
        return None
    except HydrocalcError as exc:
        P.add(f"{path}.tc_segment", f"travel time could not be computed: {_msg(exc)}")
        return None
    return tc_hr, tuple(TcSegment(**{**s, "travel_time_hr": t})
                        for s, t in zip(segs, times, strict=True))


def _parse_subcatchment(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> Subcatchment | None:
    n0 = len(P.items)
    csv_line = e.get("__line__")
    if csv_line:
        P.csv_lines[path] = csv_line
        e = {k: v for k, v in e.items() if k != "__line__"}
    P.unknown_keys(e, _SUB_KEYS, path)
    sid = P.text(e, "id", path, required=True)
    to = _to(P, e, path)
    desc = P.text(e, "description", path, default="") or ""
    area = P.area_ac(e, path, "area", required=False, lower_inclusive=False)
    has_area = "area_ac" in e or "area_ft2" in e
    imp_c = P.area_ac(e, path, "impervious_connected", required=False, lower_inclusive=True) or 0.0
    imp_u = P.area_ac(e, path, "impervious_unconnected", required=False,
                      lower_inclusive=True) or 0.0
    imp_hsg = _hsg(P, e, "impervious_hsg", path, required=False)
    cn, covers = _parse_cn_inputs(P, e, path, imp_c + imp_u)
    tc_hr, segs = _parse_tc_inputs(P, e, path, ctx)
    if len(P.items) > n0:
        return None
    # derived values
    imp = imp_c + imp_u
    derived = _derived_cn(P, path, covers, cn, area, has_area, imp, imp_u)
    if derived is None:
        return None
    area, cn, cn_method, pervious_cn = derived
    tc_method = "given"
    tc_segments: tuple[TcSegment, ...] = ()
    if segs:
        timed = _segment_tc(P, path, segs)
        if timed is None:
            return None
        tc_hr, tc_segments = timed
        tc_method = "segments (TR-55 Ch. 3)"
    if imp_hsg is None and imp > 0 and covers and len({c.hsg for c in covers}) == 1:
        imp_hsg = covers[0].hsg
    # no problem recorded: the destination and Tc were parsed (not None)
    return Subcatchment(id=sid, to=cast(str, to), area_ac=float(area), cn=float(cn),
                        tc_hr=float(cast(float, tc_hr)),
                        impervious_connected_ac=float(imp_c),
                        impervious_unconnected_ac=float(imp_u), impervious_hsg=imp_hsg,
                        covers=tuple(covers), tc_segments=tc_segments, pervious_cn=pervious_cn,
                        cn_method=cn_method, tc_method=tc_method, description=desc)
