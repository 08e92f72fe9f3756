r"""NY SMDM unified sizing criteria evaluated for a whole site: rows of the criteria table.

:func:`evaluate` reads a site's ``[criteria]`` settings (:class:`hydrocalc.site.CriteriaSettings`)
and the hydrology computed by :func:`hydrocalc.analysis.analyze` (a
:class:`hydrocalc.analysis.Hydrology`: routed hydrographs, pond storages, volumes) and
returns one row per criterion (and design point) with ``required``, ``provided``, ``units``,
``passed``/``result``, the method, details, the criterion's source, location and
verification ``status``, and a ``note`` (the reason of a waiver, of "not evaluated", or of
a zero credit). The equations are the pure functions of :mod:`hydrocalc.criteria.ny`
(NYSDEC SMDM 2015, Chapter 4, Table 4.1); this module composes them and never computes
hydrology itself.

It is the ``"ny_smdm"`` entry of the jurisdiction registry in :mod:`hydrocalc.criteria`.

References
----------
.. [1] New York State Department of Environmental Conservation, "New York State Stormwater
   Management Design Manual," Albany, NY, Jan. 2015, Chapter 4, Table 4.1.
.. [2] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds," Technical
   Release 55, 2nd ed., 1986, Chapter 6 and Appendix F (Table F-2).
"""

from __future__ import annotations

import math

import numpy as np

from hydrocalc.criteria import ny
from hydrocalc.criteria import ny_redevelopment as rd
from hydrocalc.criteria import practices as gi
from hydrocalc.criteria.ny_editions import edition_criteria_info, edition_values_to_confirm
from hydrocalc.errors import InputError
from hydrocalc.rainfall import tr55_rainfall_type
from hydrocalc.units import FT2_PER_AC

__all__ = ["evaluate"]


def _crit_row(table, key, criterion, design_point, storm, required, provided, units,
              comparison, passed, *, method="", details="", note="", result=None):
    info = table.get(key, {})
    if result is None:
        result = "n/a" if passed is None else ("pass" if passed else "fail")
    return {
        "criterion": criterion, "symbol": info.get("symbol", ""), "design_point": design_point,
        "storm": storm, "required": required, "provided": provided, "units": units,
        "comparison": comparison, "passed": True if passed is None else bool(passed),
        "result": result, "equation": info.get("equation", ""), "method": method,
        "details": details, "source": info.get("source", ""),
        "location": info.get("location", ""), "status": info.get("status", ""), "note": note,
    }


def _key(value) -> tuple:
    """An exact memo key of one input value: its type name and repr.

    ``-0.0`` and ``0.0``, or ``1`` and ``1.0``, are different keys.
    """
    return type(value).__name__, repr(value)


def _memo(hydro, key: tuple, compute):
    """``compute()``, through ``hydro.memo`` when the hydrology offers one.

    See :meth:`hydrocalc.analysis.Hydrology.memo`; ``key`` names the function and holds every
    input it reads.
    """
    memo = getattr(hydro, "memo", None)
    return compute() if memo is None else memo(key, compute)


def _wqv_acft(hydro, p_in, imp_pct, area_ac, min_rv=None) -> float:
    """:func:`hydrocalc.criteria.ny.water_quality_volume` as a float [acre-ft]."""
    return _memo(hydro, ("wqv", _key(p_in), _key(imp_pct), _key(area_ac), _key(min_rv)),
                 lambda: float(ny.water_quality_volume(p_in, imp_pct, area_ac,
                                                       min_rv=min_rv)))


def _rv(hydro, imp_pct) -> float:
    """:func:`hydrocalc.criteria.ny.runoff_coefficient` as a float [-]."""
    return _memo(hydro, ("rv", _key(imp_pct)),
                 lambda: float(ny.runoff_coefficient(imp_pct)))


def _rrv_min_acft(hydro, p_in, area_ac, factor) -> float:
    """:func:`hydrocalc.criteria.ny.minimum_runoff_reduction_volume` as a float [acre-ft]."""
    return _memo(hydro, ("rrv_min", _key(p_in), _key(area_ac), _key(factor)),
                 lambda: float(ny.minimum_runoff_reduction_volume(p_in, area_ac, factor)))


def _peak(hydro, scenario: str, node: str, i: int) -> float:
    """Peak of ``node``'s outflow in storm ``i`` (:meth:`Hydrology.peak_cfs`) [ft3/s]."""
    peak = getattr(hydro, "peak_cfs", None)
    if peak is None:
        return float(hydro.runs[scenario].node_outflow(node)[i].max())
    return peak(scenario, node, i)


def _fmt(v, unit="") -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    s = f"{v:.4g}"
    return f"{s} {unit}".strip()


def _waived_row(table, cs, key, criterion, dp, storm, units) -> dict:
    """Row of a criterion the site file waives, with the reason given there."""
    return _crit_row(table, key, criterion, dp, storm, None, None, units, "", True,
                     note=f"waived: {cs.waived[key]}", result="waived")


def _pond_capture_ft3(hydro, p) -> float:
    """Storage of pond ``p`` below its lowest surface outlet (all of it without one), in ft3."""
    inv = p.surface_outlet_invert_ft
    return hydro.max_storage_ft3(p) if not math.isfinite(inv) else hydro.storage_at_ft3(p, inv)


def _pond_wqv_ft3(hydro, post, p_in, p) -> float:
    """WQv of the drainage area of pond ``p`` (its upstream subcatchments), in ft3."""
    up = post.upstream_subcatchments(p.id)
    a = sum(s.area_ac for s in up)
    i = min(100.0, 100.0 * sum(s.impervious_ac for s in up) / a)
    return _wqv_acft(hydro, p_in, i, a) * FT2_PER_AC


def _provided_volumes(site, hydro, details, to_confirm) -> tuple:
    """WQv and RRv provided by the ponds, other practices and runoff-reduction practices.

    Returns (rrv_ft3, wqv_ft3, rrv_parts, wqv_parts, zero_credit, no_rrv): the volumes,
    their descriptions, the ponds that get no credit (dry detention basins) and the ponds
    that hold water but get no RRv credit.
    """
    cs = site.criteria
    post = site.post
    p_in = site.storms.wqv_precip_in
    rrv_parts, wqv_parts = [], []
    rrv_prov = cs.rrv_provided_acft * FT2_PER_AC
    wqv_prov = cs.wqv_provided_acft * FT2_PER_AC
    zero_credit, no_rrv = [], []
    for p in post.ponds:
        cap = _pond_capture_ft3(hydro, p)
        if cap <= 0:
            zero_credit.append(f"{p.id} is a dry detention basin: it holds no water below its "
                               "lowest outlet, so it gets no WQv or RRv credit (it controls "
                               "peaks only)")
            continue
        wqv_prov += cap
        wqv_parts.append(f"{p.id}: storage below its lowest outlet {_fmt(cap, 'ft3')}")
        if p.rrv_credit_pct:
            contrib = _pond_wqv_ft3(hydro, post, p_in, p)
            reduced = min(cap, contrib)
            credit = reduced * p.rrv_credit_pct / 100.0
            rrv_prov += credit
            rrv_parts.append(f"{p.id}: min(storage below its lowest outlet {_fmt(cap, 'ft3')}, "
                             f"WQv of its drainage area {_fmt(contrib, 'ft3')}) x "
                             f"{p.rrv_credit_pct:g} % = {_fmt(credit, 'ft3')}")
        else:
            why = ("rrv_credit_pct = 0" if p.rrv_credit_pct is not None
                   else "rrv_credit_pct is not set (no default)")
            no_rrv.append(f"{p.id}: RRv credit 0 because {why}; its storage below the lowest "
                          f"outlet ({_fmt(cap, 'ft3')}) counts toward WQv only. If it "
                          "infiltrates (a drywell or infiltration basin on suitable soil, SMDM "
                          "Section 4.3), claim the credit with rrv_credit_pct = 100 (or the "
                          f"share that infiltrates) on [[post.pond]] {p.id}")
            rrv_parts.append(f"{p.id}: 0 (rrv_credit_pct not given)"
                             if p.rrv_credit_pct is None else f"{p.id}: 0 (rrv_credit_pct = 0)")
    if cs.rrv_provided_acft:
        rrv_parts.append(f"other practices: {_fmt(cs.rrv_provided_acft, 'acre-ft')} "
                         f"({cs.rrv_provided_note})")
    if cs.wqv_provided_acft:
        wqv_parts.append(f"other practices: {_fmt(cs.wqv_provided_acft, 'acre-ft')} "
                         f"({cs.wqv_provided_note})")
    if cs.practices:
        prac_rows = [gi.evaluate_practice(pr, p_in) for pr in cs.practices]
        for pr, r in zip(cs.practices, prac_rows, strict=True):
            wqv_prov += r["captured_ft3"]
            rrv_prov += r["rrv_ft3"]
            wqv_parts.append(f"{r['id']} ({r['kind']}): captured {_fmt(r['captured_ft3'], 'ft3')}")
            rrv_parts.append(f"{r['id']} ({r['kind']}): captured {_fmt(r['captured_ft3'], 'ft3')}"
                             f" x {r['rrv_credit_fraction']:g} = {_fmt(r['rrv_ft3'], 'ft3')}")
            to_confirm.extend(gi.values_to_confirm(pr))
        details["practices"] = prac_rows
    return rrv_prov, wqv_prov, rrv_parts, wqv_parts, zero_credit, no_rrv


def _wqv_rows(site, hydro, table, rows, details, notes, to_confirm, wqv_area,  # noqa: PLR0913
              wqv_prov_acft, rrv_prov_acft, wqv_parts, zero_note) -> None:
    """WQv detail and row (plain, waived, or under the redevelopment option).

    ``wqv_area`` is (area [ac], impervious area [ac], impervious share [%]) of the WQv.
    """
    cs = site.criteria
    p_in = site.storms.wqv_precip_in
    area, imp, imp_pct = wqv_area
    rv_plain = _rv(hydro, imp_pct)
    wqv_plain = _wqv_acft(hydro, p_in, imp_pct, area)
    min_rv = ny.minimum_rv_applies(cs.min_rv_rule, wqv_plain, rrv_prov_acft)
    wqv_req = _wqv_acft(hydro, p_in, imp_pct, area, ny.MIN_RV if min_rv else None)
    rv_used = max(rv_plain, ny.MIN_RV) if min_rv else rv_plain
    details["wqv"] = {"precip_in": p_in, "precip_source": site.storms.wqv_precip_source,
                      "area_ac": area, "impervious_ac": imp, "impervious_pct": imp_pct,
                      "rv_formula": rv_plain, "rv_used": rv_used,
                      "min_rv_rule": cs.min_rv_rule, "min_rv_applied": min_rv,
                      "wqv_formula_acft": wqv_plain, "wqv_required_acft": wqv_req,
                      "wqv_provided_acft": wqv_prov_acft, "provided_by": wqv_parts}
    if min_rv and rv_plain < ny.MIN_RV:
        notes.append(f"WQv: minimum Rv = 0.2 applied (min_rv_rule = {cs.min_rv_rule!r}; the "
                     "2015 SMDM Table 4.1 text 'Minimum Rv = 0.2 if WQv > RRv' - its "
                     "interpretation is unverified)")
    if "wqv" in cs.waived:
        rows.append(_waived_row(table, cs, "wqv", "wqv", "site", "", "acre-ft"))
    elif cs.redevelopment is not None:
        _redevelopment_rows(site, table, rows, details, to_confirm, wqv_prov_acft, wqv_parts,
                            zero_note)
    else:
        rows.append(_crit_row(
            table, "wqv", "wqv", "site", "", wqv_req, wqv_prov_acft, "acre-ft",
            "provided >= required", wqv_prov_acft >= wqv_req * (1 - 1e-9),
            method=f"P = {_fmt(p_in, 'in')} ({site.storms.wqv_precip_source}); min_rv_rule = "
                   f"{cs.min_rv_rule}",
            details=f"A = {_fmt(area, 'ac')}, I = {_fmt(imp_pct, '%')}, Rv = {_fmt(rv_used)}"
                    f"{' (minimum 0.2 applied)' if min_rv and rv_plain < ny.MIN_RV else ''}; "
                    f"provided: {'; '.join(wqv_parts) or 'none'}",
            note=zero_note))


def _rrv_factors(cs) -> tuple[dict, str, str]:
    """Specific reduction factors S by HSG, their source and their status."""
    if cs.rrv_specific_reduction_factor is not None:
        factors = dict(cs.rrv_specific_reduction_factor)
        f_src, f_status = "site file (criteria.rrv_specific_reduction_factor)", "user input"
    else:
        f = ny.specific_reduction_factors(cs.rrv_factors)
        factors, f_src, f_status = f["factors"], f"{f['source']}, {f['location']}", f["status"]
    return factors, f_src, f_status


def _impervious_by_hsg(sc) -> dict[str, float]:
    """Impervious area of a scenario by the HSG under it, in acres."""
    d: dict[str, float] = {}
    for s in sc.subcatchments:
        if s.impervious_ac > 0:
            d[s.impervious_hsg] = d.get(s.impervious_hsg, 0.0) + s.impervious_ac
    return d


def _new_impervious(site) -> tuple:
    """New impervious area by HSG (None when an HSG is unknown), its source, unknown ones."""
    cs = site.criteria
    pre, post = site.pre, site.post
    no_hsg = [f"{sc.name}.subcatchment[{s.id}]" for sc in (pre, post) for s in sc.subcatchments
              if s.impervious_ac > 0 and s.impervious_hsg is None]
    new_imp, imp_src = None, None
    if cs.new_impervious_ac_by_hsg is not None:
        new_imp = dict(cs.new_impervious_ac_by_hsg)
        imp_src = "site file (criteria.new_impervious_ac_by_hsg)"
    elif not no_hsg:
        a_post, a_pre = _impervious_by_hsg(post), _impervious_by_hsg(pre)
        new_imp = {h: max(a_post.get(h, 0.0) - a_pre.get(h, 0.0), 0.0)
                   for h in sorted(set(a_post) | set(a_pre))}
        imp_src = "post minus pre impervious area by HSG"
    return new_imp, imp_src, no_hsg


def _rrv_rows(site, hydro, table, rows, details, notes, rrv_prov_acft,  # noqa: PLR0913
              rrv_parts, zero_note, no_rrv) -> None:
    """RRv detail, notes and row (waived, not evaluated, or the minimum RRv)."""
    cs = site.criteria
    p_in = site.storms.wqv_precip_in
    if "rrv" in cs.waived:
        rows.append(_waived_row(table, cs, "rrv", "rrv", "site", "", "acre-ft"))
        return
    factors, f_src, f_status = _rrv_factors(cs)
    new_imp, imp_src, no_hsg = _new_impervious(site)
    if new_imp is None:
        rows.append(_crit_row(
            table, "rrv", "rrv", "site", "", None, rrv_prov_acft, "acre-ft",
            "provided >= required", False, result="not evaluated",
            note=f"the soil group under the impervious area of {', '.join(no_hsg)} is "
                 "unknown: add impervious_hsg (or criteria.new_impervious_ac_by_hsg)"))
        notes.append(f"RRv not evaluated: impervious_hsg missing for {', '.join(no_hsg)}")
        return
    missing = [h for h, a in new_imp.items() if a > 0 and h not in factors]
    if missing:
        raise InputError(f"criteria.rrv_specific_reduction_factor must give S for HSG "
                         f"{', '.join(missing)}; got {factors}")
    rrv_min = sum(_rrv_min_acft(hydro, p_in, a, factors[h])
                  for h, a in new_imp.items() if a > 0)
    total_new = sum(new_imp.values())
    proj_new = getattr(site.project, "new_impervious_area_ac", None)
    if proj_new is not None and cs.new_impervious_ac_by_hsg is None and (
            abs(total_new - proj_new) > max(0.1 * proj_new, 0.005)):
        notes.append(f"RRv: new impervious cover from the scenarios ({total_new:.4g} ac) "
                     f"differs from project.new_impervious_area ({proj_new:.4g} ac) by more "
                     "than 10 %; check the impervious areas or give "
                     "criteria.new_impervious_ac_by_hsg")
    notes.append(f"RRv: specific reduction factors S = "
                 f"{', '.join(f'{h} {v:g}' for h, v in sorted(factors.items()))} from "
                 f"{f_src}; status: {f_status}. The minimum-RRv equation "
                 "(P Rv* Ai / 12, Ai = S Aic) is unverified in the primary SMDM text")
    aic_text = ", ".join(f"{h} {_fmt(a, 'ac')}" for h, a in new_imp.items()) or "0"
    details["rrv"] = {"precip_in": p_in, "new_impervious_ac_by_hsg": new_imp,
                      "new_impervious_source": imp_src,
                      "specific_reduction_factors": factors, "factors_source": f_src,
                      "factors_status": f_status, "rrv_min_acft": rrv_min,
                      "rrv_provided_acft": rrv_prov_acft, "provided_by": rrv_parts}
    rows.append(_crit_row(
        table, "rrv", "rrv", "site", "", rrv_min, rrv_prov_acft, "acre-ft",
        "provided >= required", rrv_prov_acft >= rrv_min * (1 - 1e-9),
        method=f"S by HSG from {f_src} (status: {f_status})",
        details=f"Aic = {aic_text}; provided: {'; '.join(rrv_parts) or 'none'}",
        note="full RRv target is the WQv; the minimum applies with documented justification"
             + (f"; {zero_note}" if zero_note else "")
             + "".join(f"; {n}" for n in no_rrv)))
    notes.extend(f"RRv: {n}" for n in no_rrv)


def _peak_rows(site, hydro, dp, table, rows) -> None:
    """Qp and Qf rows of one design point, and the Qf safe-passage row of its ponds."""
    cs = site.criteria
    runs, names = hydro.runs, hydro.storms
    for key, storm in (("qp", cs.qp_storm), ("qf", cs.qf_storm)):
        if key in cs.waived:
            rows.append(_waived_row(table, cs, key, key, dp, storm, "cfs"))
            continue
        if storm not in names:
            rows.append(_crit_row(table, key, key, dp, storm, None, None, "cfs",
                                  "provided <= required", False, result="not evaluated",
                                  note=_missing_storm_note(site, key, storm)))
            continue
        i = names.index(storm)
        pre_pk = _peak(hydro, "pre", dp, i)
        post_pk = _peak(hydro, "post", dp, i)
        rows.append(_crit_row(
            table, key, key, dp, storm, pre_pk, post_pk, "cfs", "provided <= required",
            bool(ny.peak_not_increased(pre_pk, post_pk)),
            method="routed peaks at the design point (TR-20 method, storage-indication)",
            details=f"pre {_fmt(pre_pk, 'cfs')}, post {_fmt(post_pk, 'cfs')}"))
        if key == "qf":
            ups = site.post.upstream[dp]
            over = [pid for pid, res in runs["post"].ponds.items()
                    if pid in ups and bool(res["overtopped"][i])]
            ponds_up = [pid for pid in runs["post"].ponds if pid in ups]
            if ponds_up:
                rows.append(_crit_row(
                    table, "qf", "qf_safe_passage", dp, storm, 0, len(over),
                    "ponds overtopped", "provided <= required", not over,
                    method="routed 100-year storm: no upstream pond above its top stage",
                    details=f"ponds {', '.join(ponds_up)}; overtopped: "
                            f"{', '.join(over) or 'none'}"))
def evaluate(site, hydro) -> tuple[list[dict], dict, list[str]]:
    """Evaluate WQv, RRv, Cpv, Qp and Qf for one analysed site.

    Parameters
    ----------
    site : hydrocalc.site.Site
        The site; its ``criteria`` settings choose the storms, rules and waivers.
    hydro : hydrocalc.analysis.Hydrology
        The site's computed hydrology (both scenarios, every storm analysed).

    Returns
    -------
    rows : list of dict
        One row per criterion and design point (keys of
        ``hydrocalc.analysis.SiteResults.criteria``).
    details : dict
        Intermediate values per criterion (``"wqv"``, ``"rrv"``, ``"cpv:<design point>"``).
    notes : list of str
        Notes for the results' warnings list (unverified values used, rules applied).

    Raises
    ------
    InputError
        If the site's specific reduction factors lack an HSG that has new impervious cover.
    """
    cs = site.criteria
    rows: list[dict] = []
    details: dict = {}
    notes: list[str] = []
    if cs.standard == "none":
        return rows, details, notes
    edition = getattr(site.project, "design_manual", None)
    table = {k: edition_criteria_info(ny.criteria_info(k), edition)
             for k in ("wqv", "rrv", "cpv", "qp", "qf")}
    post = site.post
    p_in = site.storms.wqv_precip_in

    # -- site-level quantities: WQv, RRv --------------------------------------------------
    area = cs.wqv_area_ac if cs.wqv_area_ac is not None else post.area_ac
    imp = cs.wqv_impervious_ac if cs.wqv_impervious_ac is not None else post.impervious_ac
    imp_pct = min(100.0, 100.0 * imp / area)
    to_confirm: list[dict] = []
    rrv_prov, wqv_prov, rrv_parts, wqv_parts, zero_credit, no_rrv = _provided_volumes(
        site, hydro, details, to_confirm)
    rrv_prov_acft = rrv_prov / FT2_PER_AC
    wqv_prov_acft = wqv_prov / FT2_PER_AC
    zero_note = "; ".join(zero_credit)
    _wqv_rows(site, hydro, table, rows, details, notes, to_confirm, (area, imp, imp_pct),
              wqv_prov_acft, rrv_prov_acft, wqv_parts, zero_note)
    _rrv_rows(site, hydro, table, rows, details, notes, rrv_prov_acft, rrv_parts, zero_note,
              no_rrv)

    # -- per design point: Cpv, Qp, Qf ----------------------------------------------------
    for dp in site.design_point_ids:
        _cpv_rows(site, hydro, dp, table, rows, details, notes)
        _peak_rows(site, hydro, dp, table, rows)
    to_confirm.extend(edition_values_to_confirm(edition, p_in, cs))
    if to_confirm:
        details["values_to_confirm"] = to_confirm
    return rows, details, notes


def _redevelopment_rows(site, table, rows, details, to_confirm, wqv_prov_acft, wqv_parts,
                        zero_note):
    """WQv row under the SMDM Chapter 9 option (and the impervious-reduction row)."""
    r = site.criteria.redevelopment
    p_in = site.storms.wqv_precip_in
    new_imp = max(site.post.impervious_ac - site.pre.impervious_ac, 0.0)
    req = rd.required_wqv_acft(r, p_in, new_imp)
    to_confirm.extend(rd.values_to_confirm(r))
    provided = wqv_prov_acft
    parts = list(wqv_parts)
    if r.option == "alternative_practices":
        provided += r.alternative_treated_acft
        parts.append(f"alternative practices: {_fmt(r.alternative_treated_acft, 'acre-ft')} "
                     f"({r.alternative_practice_note})")
    details["wqv"].update(redevelopment={
        "option": r.option, "fraction": r.fraction, "fraction_source": r.fraction_source,
        "redeveloped_area_ac": r.redeveloped_area_ac,
        "existing_impervious_ac": r.existing_impervious_ac, "new_impervious_ac": new_imp,
        **req, "wqv_provided_acft": provided})
    details["wqv"]["wqv_required_acft"] = req["wqv_required_acft"]
    details["wqv"]["wqv_provided_acft"] = provided
    src = f"{r.fraction_source}; NOT verified in hydrocalc's references"
    share = "" if r.option == "impervious_reduction" else f"{r.fraction:g} x "
    rows.append(_crit_row(
        table, "wqv", "wqv", "site", "", req["wqv_required_acft"], provided, "acre-ft",
        "provided >= required", provided >= req["wqv_required_acft"] * (1 - 1e-9),
        method=f"redevelopment (SMDM Chapter 9), option {r.option}: WQv of the new impervious "
               f"area + {share or '0 x '}WQv of the redeveloped area; fraction "
               f"{r.fraction:g} from {src}",
        details=f"new impervious {_fmt(new_imp, 'ac')} -> {_fmt(req['wqv_new_acft'], 'acre-ft')}; "
                f"redeveloped area {_fmt(r.redeveloped_area_ac, 'ac')} with "
                f"{_fmt(r.existing_impervious_pct, '%')} existing impervious -> "
                f"{_fmt(req['wqv_redeveloped_acft'], 'acre-ft')} x "
                f"{req['fraction_applied']:g}; provided: {'; '.join(parts) or 'none'}",
        note=zero_note))
    if r.option == "impervious_reduction":
        got = r.reduction_provided
        rows.append(_crit_row(
            table, "wqv", "wqv_redevelopment_impervious_reduction", "site", "", r.fraction,
            got, "fraction", "provided >= required",
            got is not None and got >= r.fraction * (1 - 1e-9),
            method=f"share of the existing impervious cover removed; required share from {src}",
            details=f"existing impervious {_fmt(r.existing_impervious_ac, 'ac')}, after "
                    f"{_fmt(r.impervious_after_ac, 'ac')}"))


def _cpv_reduction(hydro, run, post, i, dp) -> tuple:
    """1-year inflow peak [ft3/s], unrouted runoff [ft3], runoff reduced [ft3], ponds upstream.

    Reduced: what the upstream ponds exfiltrate plus what they still hold at the end below
    their lowest surface outlet.
    """
    unrouted = run.unrouted(i, dp)
    qi = float(unrouted.max())
    v_unrouted = float(hydro.volume_ft3(unrouted))
    ups = post.upstream[dp]
    ponds_up = [post.nodes[p] for p in run.ponds if p in ups]
    lost = 0.0
    for p in ponds_up:
        res = run.ponds[p.id]
        lost += float(hydro.volume_ft3(res["discarded_cfs"][i]))
        inv = p.surface_outlet_invert_ft
        end = float(res["storage_ft3"][i, -1])
        below = (hydro.max_storage_ft3(p) if not math.isfinite(inv)
                 else hydro.storage_at_ft3(p, inv))
        lost += min(end, below)
    return qi, v_unrouted, lost, ponds_up


def _cpv_orifice_rows(hydro, cs, with_surface, vs_ft3, qo, table, rows, det,  # noqa: PLR0913
                      dp, storm) -> None:
    """Cpv orifice: the diameter that releases qo at the head of Vs, against the one built."""
    head = cs.cpv_orifice_head_ft
    control = None
    if len(with_surface) == 1:
        control = with_surface[0]
    d_req = math.nan
    d_prov = math.nan
    head_src = "criteria.cpv_orifice_head_ft"
    if head is None and control is not None:
        inv = control.surface_outlet_invert_ft
        s0 = hydro.storage_at_ft3(control, inv)
        head = hydro.stage_at_ft(control, s0 + vs_ft3) - inv
        head_src = f"pond {control.id}: stage at Vs above the lowest outlet"
    if head is not None and head > 0:
        d = 0.0
        for _ in range(20):  # head to the orifice centre depends on d
            ho = max(head - d / 24.0, 0.05 * head)
            d = float(ny.orifice_diameter_in(qo, ho, cd=cs.cpv_orifice_cd))
        d_req = d
    if control is not None:
        lows = [(s, s.get("invert_ft", s.get("crest_ft"))) for s in control.outlet_spec
                if s["type"] != "exfiltration"]
        lowest = min(lows, key=lambda x: x[1])[0]
        if lowest["type"] == "circular_orifice":
            d_prov = float(lowest["diameter_in"])
    det.update(orifice_head_ft=head, orifice_head_source=head_src,
               orifice_diameter_required_in=d_req, orifice_diameter_provided_in=d_prov)
    if math.isfinite(d_req):
        rows.append(_crit_row(
            table, "cpv", "cpv_orifice", dp, storm, d_req,
            d_prov if math.isfinite(d_prov) else None,
            "in", "provided <= required",
            (d_prov <= d_req * (1 + 1e-9)) if math.isfinite(d_prov) else None,
            method=f"orifice equation, Cd = {cs.cpv_orifice_cd:g}, head from {head_src}",
            details=f"qo = {_fmt(qo, 'cfs')}, ho = {_fmt(head, 'ft')} (to the invert), "
                    f"largest diameter {_fmt(d_req, 'in')}",
            result=None if math.isfinite(d_prov) else "n/a",
            note="" if math.isfinite(d_prov) else "lowest outlet is not a circular orifice"))


def _cpv_detention_row(hydro, cs, run, with_surface, i, table, rows, det, dp, storm) -> None:
    """Cpv detention-time row: routed centre-of-mass detention through the controlling ponds."""
    # routed detention time through each controlling pond (centre of mass, MD App. D.11);
    # flow that a tailwater or an interconnected pond drives back (negative) is not water
    # released downstream: the centroids are of the forward flows
    per_pond = {}
    for p in with_surface:
        per_pond[p.id] = ny.centroid_detention_time_hr(
            hydro.time_hr, np.clip(run.node_inflow(p.id)[i], 0.0, None),
            np.clip(run.ponds[p.id]["primary_cfs"][i], 0.0, None))
    finite = {pid: t for pid, t in per_pond.items() if math.isfinite(t)}
    t_det = min(finite.values()) if finite else math.nan
    det["detention_time_hr"] = t_det
    det["detention_time_by_pond_hr"] = per_pond
    if not with_surface:
        passed, note = False, "no pond with a surface outlet upstream of the design point"
    elif not finite:
        passed, note = True, "no surface outflow from the ponds in the 1-year storm"
    else:
        passed, note = t_det >= cs.cpv_detention_hr, ""
    text = ", ".join(f"{pid} {_fmt(t, 'h')}" for pid, t in per_pond.items()) or "none"
    rows.append(_crit_row(
        table, "cpv", "cpv_detention_time", dp, storm, cs.cpv_detention_hr,
        t_det if math.isfinite(t_det) else None, "h", "provided >= required", passed,
        method="centre-of-mass detention time of the routed 1-year storm: centroid of each "
               "upstream pond's outflow minus centroid of its inflow (smallest reported)",
        details=f"by pond: {text}", note=note))


def _cpv_rows(site, hydro, dp, table, rows, details, notes):  # noqa: PLR0913
    """Cpv rows of one design point: storage, orifice and detention time."""
    cs = site.criteria
    runs, names = hydro.runs, hydro.storms
    storm = cs.cpv_storm
    if "cpv" in cs.waived:
        rows.append(_crit_row(table, "cpv", "cpv", dp, storm, None, None, "acre-ft", "", True,
                              note=f"waived: {cs.waived['cpv']}", result="waived"))
        return
    if storm not in names:
        rows.append(_crit_row(table, "cpv", "cpv", dp, storm, None, None, "acre-ft",
                              "provided >= required", False, result="not evaluated",
                              note=_missing_storm_note(site, "cpv", storm)))
        return
    rtype = cs.cpv_rainfall_type or tr55_rainfall_type(site.storms.distribution)
    if rtype is None:
        rows.append(_crit_row(table, "cpv", "cpv", dp, storm, None, None, "acre-ft",
                              "provided >= required", False, result="not evaluated",
                              note=f"set criteria.cpv_rainfall_type (I, IA, II or III): TR-55 "
                                   f"Table F-2 has no coefficients for distribution "
                                   f"{site.storms.distribution!r}"))
        return
    post = site.post
    run = runs["post"]
    i = names.index(storm)
    qi, v_unrouted, lost, ponds_up = _cpv_reduction(hydro, run, post, i, dp)
    vr = max(v_unrouted - lost, 0.0)
    det = {"storm": storm, "inflow_peak_cfs": qi, "unrouted_volume_ft3": v_unrouted,
           "reduced_volume_ft3": min(lost, v_unrouted), "remaining_volume_ft3": vr,
           "rainfall_type": rtype, "detention_hr": cs.cpv_detention_hr,
           "ponds": [p.id for p in ponds_up]}
    details[f"cpv:{dp}"] = det
    if qi <= 0 or vr <= 1e-3 * max(v_unrouted, 1e-9):
        det.update(storage_acft=0.0, outflow_peak_cfs=0.0)
        rows.append(_crit_row(
            table, "cpv", "cpv", dp, storm, 0.0, 0.0, "acre-ft", "provided >= required", True,
            method="1-year runoff remaining after runoff reduction",
            details=f"1-year runoff {_fmt(v_unrouted, 'ft3')}; reduced (exfiltration and "
                    f"retained storage) {_fmt(min(lost, v_unrouted), 'ft3')}; remaining "
                    f"{_fmt(vr, 'ft3')}",
            note="no Cpv needed: the post-development 1-year runoff is fully reduced"))
        return
    vs_acft, qo, r = (float(x) for x in ny.channel_protection_storage(
        qi, vr, detention_hr=cs.cpv_detention_hr, rainfall_type=rtype))
    vs_ft3 = vs_acft * FT2_PER_AC
    det.update(storage_acft=vs_acft, outflow_peak_cfs=qo, qo_over_qi=r)
    # provided storage: peak storage used in the routed 1-year storm by the upstream ponds
    used = sum(float(run.ponds[p.id]["storage_ft3"][i].max()) for p in ponds_up)
    rows.append(_crit_row(
        table, "cpv", "cpv", dp, storm, vs_acft, used / FT2_PER_AC, "acre-ft",
        "provided >= required", used >= vs_ft3 * (1 - 1e-9),
        method=f"TR-55 Ch. 6 storage ratio (Table F-2, type {rtype}) with qo = Vs / "
               f"{cs.cpv_detention_hr:g} h; provided = peak storage in the routed 1-year storm",
        details=f"qi = {_fmt(qi, 'cfs')}, Vr = {_fmt(vr, 'ft3')} (after "
                f"{_fmt(min(lost, v_unrouted), 'ft3')} reduced), qo/qi = {_fmt(r)}, qo = "
                f"{_fmt(qo, 'cfs')}, Vs = {_fmt(vs_ft3, 'ft3')}"))
    with_surface = [p for p in ponds_up if math.isfinite(p.surface_outlet_invert_ft)]
    _cpv_orifice_rows(hydro, cs, with_surface, vs_ft3, qo, table, rows, det, dp, storm)
    _cpv_detention_row(hydro, cs, run, with_surface, i, table, rows, det, dp, storm)


def _missing_storm_note(site, key: str, storm: str) -> str:
    if storm in site.storms.depths_in:
        return f"storm {storm!r} was not analysed (storms= subset)"
    return (f"storm {storm!r} (criteria.{key}_storm) is not a design storm of the site; add it "
            f"to [storms.depths_in] or set criteria.{key}_storm")



