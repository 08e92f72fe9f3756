"""``[[pre.subcatchment]]`` / ``[[post.subcatchment]]`` (TR-55 method) and their CSV form.

Every key is checked by the declared model (:class:`hydrocalc.site.schema.Subcatchment`, its
``[[...cover]]`` rows and its ``[[...tc_segment]]`` rows, one model per ``type``); the CSV
rows become entries checked by the same model. What stays here: the rules between keys (an
area in acres or in square feet, a CN or cover rows, a Tc or segments), the physical rules
(the areas add up) and the values computed at load time. Curve numbers come from cover tables
(TR-55 Tables 2-2a..d, :func:`hydrocalc.runoff.curve_number`) or are given; impervious areas
compose the CN (TR-55 Figs. 2-3 and 2-4), or alone make an all-impervious subcatchment
(CN 98, TR-55 Table 2-2a); Tc is given or summed from travel-time segments (TR-55 Ch. 3,
:func:`hydrocalc.tc.time_of_concentration`).
"""

from __future__ import annotations

import dataclasses
import math
import typing
import warnings
from collections.abc import Mapping

from hydrocalc import tc
from hydrocalc._validate import fmt_value, suggest, text_problem
from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.runoff import (
    IMPERVIOUS_CN,  # CN 98, TR-55 Table 2-2a (all HSGs)
    curve_number,
    impervious_composite_cn,
)
from hydrocalc.schema import InputModel
from hydrocalc.schema_errors import FieldError, choices, field_errors
from hydrocalc.site import schema
from hydrocalc.site.files import _csv_value, _Ctx, _read_csv_rows, _register_input, _site_path
from hydrocalc.site.model import Cover, Subcatchment, TcSegment
from hydrocalc.site.problems import _msg, _path_label, _Problems, _short, choice_message
from hydrocalc.units import FT2_PER_AC

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


def _segment_travel_times(segs: list[dict]) -> tuple[float, list[float]]:
    rows = []
    for seg in segs:
        row = {k: v for k, v in seg.items() if k != "type"}
        row["kind"] = seg["type"]
        if seg["type"] == "sheet" and "surface" in row:
            row["n"] = row.pop("surface")  # a TR-55 Table 3-1 key; tc looks it up
        rows.append(row)
    total, table = tc.segment_travel_times(rows)
    times = [float(r["travel_time_hr"]) for r in table]
    return float(total), times


# ----------------------------------------------------------------------------------------
# the model's records, in the loader's words

#: The keys the loader reads: those of the declared model's tables.
_SUB_KEYS = tuple(schema.Subcatchment.model_fields)
_COVER_KEYS = tuple(schema.Cover.model_fields)
_SEG_KEYS = {"sheet": tuple(schema.SheetSegment.model_fields),
             "shallow": tuple(schema.ShallowSegment.model_fields),
             "channel": tuple(schema.ChannelSegment.model_fields)}
#: The CSV columns: the subcatchment's own keys, then its cover row's (``cover_`` before a
#: name the subcatchment has too).
_CSV_KEYS = tuple(k for k in _SUB_KEYS if k not in ("method", "cover", "tc_segment"))
_CSV_COVER = {(f"cover_{k}" if k in _CSV_KEYS else k): k
              for k in sorted(_COVER_KEYS, key=lambda k: k in _CSV_KEYS)}
_CSV_TEXT = ("id", "to", "description", "impervious_hsg")
_IMPERVIOUS = ("impervious_connected", "impervious_unconnected")


def _is_list(tp) -> bool:
    """True for a declared list (an array of tables), optional or not."""
    return typing.get_origin(tp) is list or any(typing.get_origin(a) is list
                                                for a in typing.get_args(tp))


def _write(P: _Problems, errors: list[FieldError], doc: Mapping) -> None:
    """Write the declared model's records; a few keys keep the wording of their own rule."""
    rest = []
    for e in errors:
        path = _path_label(doc, e.path)
        opts = e.allowed if e.kind == "tag" else choices(e.info)
        if e.kind == "tag" or e.kind == "missing" and opts:
            P.add(f"{path}.type" if e.kind == "tag" else path, choice_message(opts, e.value))
        elif e.kind == "missing" and e.key == "to":
            P.add(path, "is required; got nothing: the node drains nowhere. Name the "
                        "downstream pond, reach or design point.")
        elif e.key == "id" and e.kind == "value" and (bad := text_problem(e.value, required=True)):
            P.add(path, bad)  # before the id's own rule
        elif e.key in ("hsg", "impervious_hsg") and e.kind != "unknown":
            P.add(path, "is required; got nothing. Use one of: A, B, C, D" if e.kind == "missing"
                  else f"must be one of A, B, C, D; got {e.value!r}. For a dual group such as "
                       "C/D enter the group that applies (drained: C; undrained: D)")
        elif e.kind == "unknown" and e.table[-2:-1] == ("cover",) and e.key in _SUB_KEYS:
            # the TOML trap: a subcatchment key written after a [[...cover]] header
            P.raw(f"{P.where}: unknown key {path}: {e.key} is a subcatchment key; TOML puts "
                  f"every key after a [[...cover]] header into that cover row, so move {e.key} "
                  f"above the first [[...cover]] header of the subcatchment{P.line_of(path)}")
        elif e.kind == "value" and e.path[-1:] == (e.key,) and _is_list(
                e.info.annotation if e.info else None):
            P.add(path, f"must be an array of tables ([[{path}]]); got {_short(e.value)}")
        else:
            rest.append(e)
    P.declared(rest, doc)


# ----------------------------------------------------------------------------------------
# the CSV form


def _subcatchments_from_csv(P: _Problems, prefix: str, raw: str,
                            ctx: _Ctx) -> list[tuple[dict, str]]:
    """The entries of ``subcatchments_csv`` (one per id), each with its first row's line."""
    path = _site_path(P, f"{prefix}.subcatchments_csv", ctx.base_dir, raw, what="CSV file")
    if path is None:
        return []
    try:
        header, rows = _read_csv_rows(path)
    except InputError as exc:  # names the CSV file and line
        P.raw(f"{exc}")
        return []
    _register_input(ctx.input_files, ctx.base_dir, path)
    allowed = (*_CSV_KEYS, *_CSV_COVER)
    bad = [h for h in header if h not in allowed]
    for h in bad:
        P.raw(f"{P.where}: {prefix}.subcatchments_csv: unknown column {h!r} in {path.name}"
              f"{suggest(h, allowed) or '. Valid columns: ' + ', '.join(allowed)}")
    if bad:
        return []
    if "id" not in header:
        P.raw(f"{P.where}: {prefix}.subcatchments_csv: column 'id' is required in {path.name}")
        return []
    entries: dict[str, tuple[dict, str]] = {}
    for lineno, row in rows:
        typed = {h: _csv_value(v) for h, v in row.items()}
        sid = typed.get("id")
        if sid is None:
            P.raw(f"{P.where}: {prefix}.subcatchments_csv: {path.name} line {lineno}: id is empty")
            continue
        sid = str(sid)
        cover = {_CSV_COVER[k]: v for k, v in typed.items() if k in _CSV_COVER and v is not None}
        scal = {k: (str(v) if k in _CSV_TEXT else v)
                for k, v in typed.items() if k in _CSV_KEYS and v is not None}
        if sid not in entries:
            entries[sid] = (dict(scal), f"{path.name} line {lineno}")
        entry = entries[sid][0]
        for k, v in scal.items():
            if entry.setdefault(k, v) is not v and entry[k] != v:
                P.raw(f"{P.where}: {prefix}.subcatchment[{sid}].{k} differs between rows of "
                      f"{path.name} (line {lineno}: {v!r}, first row: {entry[k]!r}); "
                      "continuation rows must leave it blank or repeat it")
        if cover:
            entry.setdefault("cover", []).append(cover)
    return list(entries.values())


def _csv_errors(entries: list[dict], prefix: tuple, start: int) -> list[FieldError]:
    """The declared model's records of CSV entries, at ``prefix + (start + index, ...)``."""
    return [dataclasses.replace(e, path=(*prefix, start + i, *e.path))
            for i, entry in enumerate(entries) for e in field_errors(schema.Subcatchment, entry)]


# ----------------------------------------------------------------------------------------
# Tc segments


def _segment_rules(P: _Problems, s: Mapping, path: str, ctx: _Ctx) -> None:
    """A sheet-flow segment's Manning's n or surface (exactly one) and its 2-year rainfall."""
    if s.get("type") != "sheet":
        return
    if ("n" in s) == ("surface" in s):
        P.add(f"{path}.n", "(Manning's n) or surface (a TR-55 Table 3-1 key) is required, "
                           "exactly one; got " + ("both" if "n" in s else "neither"))
    if "p2_in" not in s and ctx.p2_in is None:
        P.add(f"{path}.p2_in", "is required (2-year 24-hour rainfall for sheet flow, TR-55 "
                               "Eq. 3-3) because [storms.depths_in] has no \"2yr\" storm; got "
                               "nothing")


def _segment(s: Mapping, ctx: _Ctx) -> dict:
    """A valid segment's values, with the ``"2yr"`` storm as the default ``p2_in``."""
    seg = {k: s[k] if isinstance(s[k], str) else float(s[k])
           for k in _SEG_KEYS[s["type"]] if k in s}
    if seg["type"] == "sheet":
        seg.setdefault("p2_in", ctx.p2_in)
    return seg


class _OneSegment(InputModel):
    """One Tc segment on its own."""

    segment: schema.TcSegment


def _parse_segment(P: _Problems, s: Mapping, path: str, ctx: _Ctx) -> dict | None:
    """One Tc segment of a table checked outside the site model (a rational subcatchment)."""
    n0 = len(P.items)
    errors = field_errors(_OneSegment, {"segment": s})
    _write(P, [dataclasses.replace(e, path=(path, *e.path[1:])) for e in errors], {path: s})
    _segment_rules(P, s, path, ctx)
    return None if len(P.items) > n0 else _segment(s, ctx)


def _segment_tc(P: _Problems, path: str,
                segs: list[dict]) -> tuple[float, tuple[TcSegment, ...]] | None:
    """Tc [h] and the timed segments of valid segments; None on a problem."""
    try:
        tc_hr, times = _segment_travel_times(segs)
    except HydrocalcError as exc:
        P.add(f"{path}.tc_segment", f"travel time could not be computed: {_msg(exc)}")
        return None
    if tc_hr > 100.0:  # the range of tc_hr
        P.add(f"{path}.tc_segment", f"must give a Tc <= 100 h, as tc_hr; got "
                                    f"{fmt_value(tc_hr)} h. Check the lengths and slopes")
        return None
    return tc_hr, tuple(TcSegment(**{**s, "travel_time_hr": t})
                        for s, t in zip(segs, times, strict=True))


# ----------------------------------------------------------------------------------------
# subcatchments


def _acres(m: Mapping, base: str) -> float:
    """``<base>_ac`` or ``<base>_ft2`` in acres (0 when neither is a number)."""
    for key, per_ac in ((f"{base}_ac", 1.0), (f"{base}_ft2", FT2_PER_AC)):
        v = m.get(key)
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
            return float(v) / per_ac
    return 0.0


def _one_unit(P: _Problems, m: Mapping, path: str, base: str, *, required: bool) -> None:
    """``<base>_ac`` or ``<base>_ft2``: not both (and one when ``required``)."""
    given = [k for k in (f"{base}_ac", f"{base}_ft2") if k in m]
    if len(given) == 2:
        P.add(f"{path}.{base}_ac", f"and {base}_ft2 must not both be given; got both. Keep one.")
    elif required and not given:
        P.add(f"{path}.{base}_ac", f"(or {base}_ft2) is required; got nothing. Add one.")


def _cover(P: _Problems, c: Mapping, path: str, valid: bool) -> Cover | None:
    """A cover row with its curve number (given or from TR-55 Tables 2-2a..d)."""
    n0 = len(P.items)
    _one_unit(P, c, path, "area", required=True)
    if not valid or len(P.items) > n0:
        return None
    hsg, cond = c["hsg"].strip().upper(), c.get("condition")
    cn = float(c["cn"]) if "cn" in c else None
    if cn is None:
        try:
            cn = _lookup_cn(c["cover"], hsg, cond)
        except HydrocalcError as exc:
            P.add(f"{path}.cover", f"could not be looked up in TR-55 Tables 2-2a..d: {_msg(exc)}")
            return None
        if not (cn > 0 and math.isfinite(cn)):
            P.add(f"{path}.cover", f"has no curve number for HSG {hsg} in TR-55 Tables 2-2a..d "
                                   f"({c['cover']!r}); give cn for this row")
            return None
    return Cover(cover=c["cover"], hsg=hsg, area_ac=_acres(c, "area"), cn=cn, condition=cond,
                 cn_given="cn" in c)


def _parse_subcatchment(P: _Problems, e: Mapping, path: str, ctx: _Ctx,
                        faults: list[tuple]) -> Subcatchment | None:
    """A TR-55 subcatchment: the rules between its keys, then its values computed.

    Its keys were checked by the declared model; ``faults`` are the paths (inside the entry)
    of the keys it refused.
    """
    n0 = len(P.items)
    for base in ("area", *_IMPERVIOUS):
        _one_unit(P, e, path, base, required=False)
    imp = sum(_acres(e, b) for b in _IMPERVIOUS)
    rows = e.get("cover", []) if ("cover",) not in faults else []
    if "cn" in e and rows:
        P.add(f"{path}.cn", "and cover rows must not both be given; got both. Give cn (the "
                            "composite CN) or [[...cover]] rows (CN from TR-55 tables).")
    elif "cn" not in e and not rows and imp <= 0:
        P.add(f"{path}.cn", "(or [[...cover]] rows) is required; got nothing. Give the composite "
                            "cn, land-cover rows with cover, hsg and area_ac, or, for an "
                            "all-impervious subcatchment, impervious_connected_ac / "
                            "impervious_unconnected_ac alone.")
    segs = e.get("tc_segment", []) if ("tc_segment",) not in faults else []
    if "tc_hr" in e and segs:
        P.add(f"{path}.tc_hr", "and tc_segment rows must not both be given; got both. Keep one.")
    elif "tc_hr" not in e and not segs and not any(
            isinstance(c, Mapping) and ("tc_hr" in c or "tc_segment" in c) for c in rows):
        # (a tc_hr caught inside a cover row is reported there, with the fix)
        P.add(f"{path}.tc_hr", "(or [[...tc_segment]] rows) is required; got nothing.")
    for i, s in enumerate(segs):
        _segment_rules(P, s, f"{path}.tc_segment[{i}]", ctx)
    covers = [_cover(P, c, f"{path}.cover[{i}]", not any(f[:2] == ("cover", i) for f in faults))
              for i, c in enumerate(rows)]
    if faults or len(P.items) > n0:
        return None
    return _build(P, e, path, [c for c in covers if c is not None],
                  [_segment(s, ctx) for s in segs])


def _build(P: _Problems, e: Mapping, path: str, covers: list[Cover],
           segs: list[dict]) -> Subcatchment | None:
    """A valid subcatchment's area, CN and Tc; None when the areas do not add up."""
    imp_c, imp_u = (_acres(e, b) for b in _IMPERVIOUS)
    imp = imp_c + imp_u
    derived = _area_and_cn(P, path, e, covers, imp, imp_u)
    if derived is None:
        return None
    area, cn, cn_method, pervious_cn = derived
    tc_segments: tuple[TcSegment, ...] = ()
    tc_hr, tc_method = e.get("tc_hr"), "given"
    if segs:
        timed = _segment_tc(P, path, segs)
        if timed is None:
            return None
        (tc_hr, tc_segments), tc_method = timed, "segments (TR-55 Ch. 3)"
    imp_hsg = e["impervious_hsg"].strip().upper() if "impervious_hsg" in e else None
    if imp_hsg is None and imp > 0 and covers and len({c.hsg for c in covers}) == 1:
        imp_hsg = covers[0].hsg
    return Subcatchment(id=e["id"], to=e["to"], area_ac=float(area), cn=float(cn),
                        tc_hr=float(typing.cast(float, tc_hr)), impervious_connected_ac=imp_c,
                        impervious_unconnected_ac=imp_u, impervious_hsg=imp_hsg,
                        covers=tuple(covers), tc_segments=tc_segments, pervious_cn=pervious_cn,
                        cn_method=cn_method, tc_method=tc_method,
                        description=e.get("description", ""))


def _cn_of(covers: list[Cover], cn, imp: float,
           imp_u: float) -> tuple[float | None, float, str, float | None]:
    """The area the CN is computed over (None: a given CN), the CN, how, and the pervious CN.

    Area-weighted over the cover rows (TR-55 Table 2-2), composed with the impervious areas
    (TR-55 Figs. 2-3/2-4), CN 98 for the impervious areas alone (TR-55 Table 2-2a), or given.
    """
    if not covers:
        return (None, cn, "given", None) if cn is not None else (
            imp, IMPERVIOUS_CN, "impervious (TR-55 Table 2-2a, CN 98)", None)
    cover_area = sum(c.area_ac for c in covers)
    pervious = sum(c.cn * c.area_ac for c in covers) / cover_area
    if imp <= 0:
        return cover_area, pervious, "covers (area-weighted, TR-55 Table 2-2)", pervious
    total = cover_area + imp
    return (total, _composite_cn(pervious, 100.0 * imp / total, 100.0 * imp_u / imp),
            "covers+impervious (TR-55 Fig. 2-3/2-4)", pervious)


def _area_and_cn(P: _Problems, path: str, e: Mapping, covers: list[Cover], imp: float,
                 imp_u: float) -> tuple | None:
    """Area [ac], CN, CN method and pervious CN of a valid subcatchment; None on a problem.

    A given area must equal the cover and impervious areas it is computed from.
    """
    try:
        total, cn, cn_method, pervious_cn = _cn_of(covers, e.get("cn"), imp, imp_u)
    except HydrocalcError as exc:
        P.add(path, f"composite CN could not be computed: {_msg(exc)}")
        return None
    area = _acres(e, "area") if "area_ac" in e or "area_ft2" in e else total
    if area is None:
        P.add(f"{path}.area_ac", "(or area_ft2) is required when cn is given; got nothing.")
        return None
    if total is not None and not math.isclose(total, area, rel_tol=0.005, abs_tol=1e-4):
        what, when, fix = (("cover areas plus the impervious areas", "", "Fix the areas")
                           if covers else ("impervious areas", " when the subcatchment has no "
                                           "cover rows and no cn", "Add [[...cover]] rows for "
                                           "the pervious rest,"))
        P.add(f"{path}.area_ac", f"must equal the {what} ({fmt_value(round(total, 6))} ac) "
                                 f"within 0.5 %{when}; got {fmt_value(area)}. {fix} or omit "
                                 "area_ac.")
        return None
    if imp > area * (1 + 1e-9):
        P.add(f"{path}.impervious_connected_ac", f"plus impervious_unconnected_ac must be <= "
                                                 f"area_ac ({fmt_value(area)}); got "
                                                 f"{fmt_value(imp)}")
        return None
    return area, cn, cn_method, pervious_cn
