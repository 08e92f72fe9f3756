"""Turn a read HydroCAD report into a hydrocalc site file and the submitted results.

:func:`import_hydrocad` reads a report (:mod:`hydrocalc.review.importers.hydrocad`) and
writes, into one folder, ``site.toml`` (the site-file schema of ``docs/site_file.md``) and
``submitted.json`` (every printed result by node and storm, the inputs as printed, and what
was not imported and why). Both are written into a temporary folder beside the target and
moved into place only when complete.

Conversion rules (exact or not at all)
--------------------------------------
* **Storms**: NRCS Type I, IA, II, III 24-hour events with their printed depth; one
  distribution per site (events of another distribution are not imported).
* **Subcatchments** computed by "SCS TR-20 method, UH=SCS" (the NRCS unit hydrograph, PRF
  484): area, the printed CN (HydroCAD's weighted CN as it used it: rounded, or UI-adjusted)
  as ``cn`` and the printed Tc as ``tc_hr`` (the Tc HydroCAD computed, not re-derived from
  its segments). SBUH, rational, Delmarva or other unit hydrographs and "Split
  Pervious/Imperv." runoff are not imported.
* **Links**: a printed HydroCAD report does not state which node drains to which (they are
  drawn in the routing diagram only). Without a links file each imported subcatchment
  drains to one design point ``OUT`` that stands for no HydroCAD node, and ponds, reaches
  and links are not imported (their printed inputs and results are kept in
  ``submitted.json``). With ``links`` (``NODE = "DOWNSTREAM"``, read off the diagram by the
  reviewer: an explicit input, never inferred), ponds that convert exactly are imported
  (:func:`_convert_pond`): elevations become stages above the pond's datum (its lowest
  storage invert, recorded) and the stage table is written as a CSV beside the site file.
  A HydroCAD 10 round culvert becomes an FHWA HDS-5 culvert (its printed entrance mapped to
  the HDS-5 Table A.1 inlet, :data:`CULVERT_INLETS`); with devices routed through it
  (``Device 1``) it becomes the pond's ``barrel``. That conversion is not exact (HydroCAD's
  culvert procedure and its Cc are not HDS-5's): the difference is recorded in the site
  file's comments, ``submitted.json`` (``conversion.differences``) and the import summary,
  and the review names it when a pond value differs.
  Reaches stay out: HydroCAD routes them through a channel, hydrocalc reaches are lags.
* **Scenarios**: a report describes one network; it is written as ``post`` and copied as
  ``pre`` (the site schema needs both).
* **Project facts** a HydroCAD report does not print (municipality, receiving water, ...) are
  written as explicit placeholders marked ``NOT FROM THE HYDROCAD REPORT`` and the NY
  criteria are switched off (``[criteria] standard = "none"``): the imported site is for
  reviewing the hydrology.

Anything not imported is listed in ``submitted.json`` (``not_imported``) and the site is
marked incomplete (``complete = false`` and ``incomplete_reasons``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
import re
import shutil
import tempfile

from hydrocalc.errors import InputError
from hydrocalc.hydraulics import outlets
from hydrocalc.hydraulics.outlets import culvert
from hydrocalc.review.importers.hydrocad import HydroCADReport, read_report
from hydrocalc.review.importers.hydrocad_audit import audit_submitted
from hydrocalc.site import load_site

__all__ = ["CULVERT_INLETS", "SUBMITTED_FORMAT", "ImportResult", "convert_report", "device_check",
           "import_hydrocad"]

SUBMITTED_FORMAT = "hydrocalc-hydrocad-submitted-1"
OUTLET_ID = "OUT"
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_LINKS_REASON = ("the links between nodes are not printed in a HydroCAD report (only drawn in "
                 "its routing diagram), so this node cannot be placed in the network")


@dataclasses.dataclass
class ImportResult:
    """What :func:`import_hydrocad` wrote.

    Attributes
    ----------
    folder : pathlib.Path
        The output folder (``site.toml``, ``submitted.json``).
    complete : bool
        True when every printed node and storm was imported.
    not_imported : list of dict
        ``node``, ``kind``, ``item``, ``reason`` for each thing left out.
    submitted : dict
        The content of ``submitted.json``.
    has_site : bool
        False when no node can be re-run and only ``submitted.json`` was written (the input
        audit of ``hydrocalc review --submitted`` still applies).
    """

    folder: pathlib.Path
    complete: bool
    not_imported: list
    submitted: dict
    has_site: bool = True

    def message(self) -> str:
        """The import's report: a summary line, then one line per finding.

        One line per node not imported, per pond whose conversion is not exact (``note:``)
        and per device checked at HydroCAD's printed head (``check:``, :func:`device_check`).
        """
        nodes = self.submitted["nodes"]
        n_imp = sum(1 for n in nodes.values() if n["imported"])
        head = (f"imported {n_imp} of {len(nodes)} node(s), "
                f"{len(self.submitted['storms'])} storm(s) into {self.folder}")
        notes = [f"  note: pond {nid} is converted, not exactly: {x}"
                 for nid, n in nodes.items() if n["imported"]
                 for x in (n.get("conversion") or {}).get("differences", [])]
        notes += [f"  check: pond {nid}, storm {c['storm']!r}, device #{c['device']} at "
                  f"HydroCAD's printed HW {c['hw_elev_ft']} ft: printed {c['printed_cfs']} cfs, "
                  f"hydrocalc {c['hydrocalc_cfs']:.3g} cfs"
                  + (f" ({c['difference_pct']:+.1f} %)" if c["difference_pct"] is not None
                     else "")
                  for nid, n in nodes.items() for c in n.get("device_check", [])]
        if not self.has_site:
            head += " (no site.toml: no node can be re-run; submitted.json for the input audit)"
        if self.complete:
            return "\n".join([head + " (complete)", *notes])
        lines = [head + ": INCOMPLETE, not imported:"]
        for item in self.not_imported:
            what = f"{item['kind']} {item['node']}" if item["node"] else item["kind"]
            lines.append(f"  - {what}: {item['item']}: {item['reason']}")
        if not self.has_site:
            lines += [f"  - {r}" for r in self.submitted["incomplete_reasons"]
                      if r.startswith("no node can be re-run")]
        return "\n".join(lines + notes)


def _storm_id(name: str, used: set) -> str:
    base = re.sub(r"[^A-Za-z0-9_-]+", "_", name).strip("_") or "storm"
    if not base[0].isalnum():
        base = "s" + base
    sid, k = base, 2
    while sid in used:
        sid, k = f"{base}_{k}", k + 1
    used.add(sid)
    return sid


def convert_report(
        rep: HydroCADReport, *, allow_partial: bool = False,
        links: dict | None = None) -> tuple[str | None, dict, dict]:
    """The ``site.toml`` text, the ``submitted.json`` content and the CSV tables of a report.

    Parameters
    ----------
    rep : HydroCADReport
    allow_partial : bool, default False
        Import the complete records of a truncated report (marked incomplete) instead of
        refusing it; and when no node can be re-run (listings only, SBUH, storms other than
        NRCS Type I/IA/II/III, ...) but the report prints inputs the audit checks, return
        ``submitted`` without a site (``site_toml`` None).
    links : dict, optional
        ``{node id: downstream node id or "OUT"}``, the links a reviewer read off the routing
        diagram (a printed report does not state them). With links, ponds whose storage and
        devices convert exactly are imported too (see :func:`_convert_pond`); nodes not listed
        drain to ``OUT``.

    Returns
    -------
    site_toml : str or None
        None when no node can be re-run (only with ``allow_partial``: the report still prints
        inputs the input audit checks, :mod:`hydrocalc.review.importers.hydrocad_audit`).
    submitted : dict
    csv_files : dict
        File name -> CSV text (pond stage-storage tables) to write beside ``site.toml``.

    Raises
    ------
    InputError
        The report is truncated (and ``allow_partial`` is False) or nothing in it can be
        imported (the message says why, node by node).
    """
    src = rep.source
    if rep.truncated and not allow_partial:
        raise InputError(f"{src}: the report is truncated: {rep.truncated}; expected every "
                         "record complete to the end of the report. Extract the whole report "
                         "again, or pass --allow-partial to import the complete records only.")
    not_imported: list[dict] = []
    reasons: list[str] = []
    if rep.truncated:
        reasons.append(f"truncated report: {rep.truncated}")
        not_imported.append({"node": "", "kind": "report", "item": "end of the text",
                             "reason": rep.truncated})
    for p in rep.problems:
        not_imported.append({"node": "", "kind": "report", "item": "unreadable", "reason": p})

    storms, dist = _convert_storms(rep, not_imported)
    no_site = None  # why no node can be re-run (then only submitted.json is written)
    if not any(s["imported"] for s in storms.values()):
        unread = [p for p in rep.problems if p.startswith("rainfall event")]
        no_site = (f"{src}: nothing can be imported: no NRCS Type I/IA/II/III or NOAA/NRCC "
                   "A-D 24-hour "
                   f"rainfall event was found (events: {sorted(rep.storms) or 'none'}"
                   f"{'; ' + '; '.join(unread) if unread else ''}).")
        if not allow_partial:
            raise InputError(no_site)

    nodes_out, subs = _convert_nodes(rep, links, not_imported)
    targets = _network(rep, nodes_out, links, not_imported)
    subs = [(nid, node) for nid, node in subs if nodes_out[nid]["imported"]]
    if not subs:
        no_site = no_site or _no_subcatchment_reason(src, not_imported)
        if not allow_partial:
            raise InputError(no_site)
    if no_site:
        for info in nodes_out.values():
            info["imported"] = False
        reasons.append("no node can be re-run (no site.toml written; the input audit "
                       "of `hydrocalc review --submitted` only): "
                       + no_site.split(": ", 1)[1].rstrip("."))
    if not_imported:
        reasons.append(f"{len(not_imported)} item(s) not imported (see not_imported)")

    submitted = {
        "format": SUBMITTED_FORMAT,
        "source": {"file": src, "sha256": rep.sha256, "hydrocad_version": rep.version,
                   "project": rep.project, "preparer": rep.preparer, "printed": rep.printed},
        "complete": not reasons,
        "incomplete_reasons": reasons,
        "not_imported": not_imported,
        "scenario": "post",
        "outlet": OUTLET_ID,
        "settings": rep.settings,
        "listings": rep.listings,
        "storms": {s["id"]: {k: v for k, v in s.items() if k != "id"} for s in storms.values()},
        "nodes": nodes_out,
        "results": _submitted_results(rep, storms, nodes_out),
    }
    ponds = [(nid, nodes_out[nid]) for nid, n in rep.nodes.items()
             if n["kind"] == "pond" and nodes_out[nid]["imported"]]
    csv_files = {p["conversion"]["csv"]: p["conversion"]["csv_text"] for _, p in ponds}
    for _, p in ponds:
        p["conversion"] = {k: v for k, v in p["conversion"].items() if k != "csv_text"}
    submitted["links"] = links
    if no_site:
        if not sum(audit_submitted(submitted).checked.values()):
            raise InputError(no_site[:-1] + "; and it prints no input the input audit checks "
                             "(cover CN, weighted CN, Tc segment, storage or device flow).")
        return None, submitted, {}
    return _site_toml(rep, storms, dist, subs, ponds, targets), submitted, csv_files


def _convert_storms(rep: HydroCADReport, not_imported: list) -> tuple[dict, str | None]:
    """The report's storms by name (one NRCS distribution per site) and that distribution."""
    used: set = set()
    storms: dict = {}
    dists = [s["distribution"] for s in rep.storms.values() if s["distribution"]]
    dist = dists[0] if dists else None
    for name, s in rep.storms.items():
        sid = _storm_id(name, used)
        ok = s["distribution"] is not None and s["distribution"] == dist
        storms[name] = {"id": sid, "hydrocad_name": name, "imported": ok, **s}
        if not ok:
            why = (f"distribution {s['distribution_printed']!r} is not an NRCS Type I/IA/II/III "
                   "or NOAA/NRCC A-D 24-hour storm" if s["distribution"] is None else
                   f"its distribution ({s['distribution']}) differs from the site's ({dist}); "
                   "a site has one distribution")
            not_imported.append({"node": "", "kind": "storm", "item": name, "reason": why})
    return storms, dist


def _convert_nodes(rep: HydroCADReport, links: dict | None,
                   not_imported: list) -> tuple[dict, list]:
    """Each node's submitted record, and the subcatchments that convert exactly."""
    settings = rep.settings
    nodes_out: dict = {}
    subs = []
    for nid, node in rep.nodes.items():
        info = {k: v for k, v in node.items()}
        info["imported"] = False
        why: str | None  # a reason text, None for a node that is imported
        if node["kind"] == "subcatchment":
            why = _subcatchment_reason(nid, node, settings)
            if why is None:
                info["imported"] = True
                info["cn"] = int(node["cn_printed"])
                info["tc_hr"] = node["tc_min"] / 60.0
                subs.append((nid, node))
        elif node["kind"] == "pond":
            why = _convert_pond_node(nid, node, info, links)
        elif node["kind"] == "reach":
            method = node.get("routing") or settings.get("reach_routing") or "not printed"
            why = (_LINKS_REASON if links is None else
                   f"reach routing ({method}) through a channel is not supported: hydrocalc "
                   "reaches are pure lags")
        else:
            why = _LINKS_REASON if links is None else "link nodes are not supported"
        if why:
            info["not_imported_reason"] = why
            not_imported.append({"node": nid, "kind": node["kind"], "item": "node",
                                 "reason": why})
        nodes_out[nid] = info
    return nodes_out, subs


def _subcatchment_reason(nid: str, node: dict, settings: dict) -> str | None:
    """Why a subcatchment cannot be imported (None: SCS TR-20 with printed area, CN, Tc)."""
    method = node.get("method") or (
        settings.get("runoff_method", "") + (f", UH={settings['unit_hydrograph']}"
                                             if settings.get("unit_hydrograph") else ""))
    cn = node.get("cn_printed")
    if not method:
        return "the runoff method is not printed"
    if method.replace(" ", "") != "SCSTR-20,UH=SCS":
        return (f"runoff method {method!r} is not supported (hydrocalc computes the SCS "
                "TR-20 method with the NRCS unit hydrograph, UH=SCS)")
    if node.get("split_pervious_impervious"):
        return ("'Split Pervious/Imperv.' runoff (separate pervious and impervious "
                "runoff) is not supported")
    if node.get("area_ac") is None:
        return "its area is not printed (or not readable)"
    if cn is None or not re.fullmatch(r"\d{1,3}", str(cn)):
        return f"its curve number is not a single printed CN (got {cn!r})"
    if node.get("tc_min") is None:
        return "its Tc is not printed (or not readable)"
    if not _ID_RE.match(nid):
        return f"its id {nid!r} is not a valid hydrocalc id"
    return None


def _convert_pond_node(nid: str, node: dict, info: dict, links: dict | None) -> str | None:
    """Add a pond's datum, device check and conversion to ``info``; why it is not imported."""
    info.update(_pond_datum(node))
    checks = device_check(node)
    if checks:
        info["device_check"] = checks
    unsupported = _unsupported_devices(node)
    if links is None:
        return _LINKS_REASON + ("; also: " + "; ".join(unsupported) if unsupported else "")
    if unsupported:
        return "; ".join(unsupported)
    conv, why = _convert_pond(nid, node, info.get("datum_elev_ft"))
    if conv is not None:
        info["imported"] = True
        info["conversion"] = conv
    return why


def _no_subcatchment_reason(src: str, not_imported: list) -> str:
    """The message when no subcatchment converts, naming the first three left out."""
    subs_out = [n for n in not_imported if n["kind"] == "subcatchment"]
    detail = "; ".join(f"{n['node']}: {n['reason']}" for n in subs_out[:3]) or \
        "the report has no subcatchment"
    if len(subs_out) > 3:
        detail += f"; and {len(subs_out) - 3} more"
    return (f"{src}: nothing can be imported: no subcatchment computed by "
            "the SCS TR-20 method with a printed area, CN and Tc "
            f"({detail}).")


def _submitted_results(rep: HydroCADReport, storms: dict, nodes_out: dict) -> list[dict]:
    """The printed results with the site's storm id and whether their node and storm re-run."""
    results = []
    for r in rep.results:
        s = storms.get(r["storm"])
        row = dict(r)
        row["hydrocad_storm"] = r["storm"]
        row["storm"] = s["id"] if s else None
        row["imported"] = bool(s and s["imported"] and nodes_out[r["node"]]["imported"])
        results.append(row)
    return results


def _network(rep, nodes_out: dict, links: dict | None, not_imported: list) -> dict:
    """Downstream node of each imported node; leaves out ponds whose inflow is incomplete."""
    if links is None:
        return {nid: OUTLET_ID for nid, n in nodes_out.items() if n["imported"]}
    for k, v in links.items():
        for what, nid in (("node", k), ("target", v)):
            if nid != OUTLET_ID and nid not in rep.nodes:
                raise InputError(f"--links: {what} {nid!r} (in {k} = {v!r}) is not a node of "
                                 f"the report; nodes: {', '.join(sorted(rep.nodes)[:12])}, "
                                 f"or {OUTLET_ID!r}.")
    changed = True
    while changed:  # a pond whose inflow is incomplete cannot be compared: leave it out
        changed = False
        for nid, info in nodes_out.items():
            if not info["imported"] or info["kind"] != "pond":
                continue
            ups = [u for u, t in links.items() if t == nid]
            bad = [u for u in ups if not nodes_out[u]["imported"]]
            why = (f"it receives flow from {', '.join(bad)}, not imported" if bad else
                   None if ups else "no node drains to it (in --links)")
            if why:
                info["imported"] = False
                info["not_imported_reason"] = why
                not_imported.append({"node": nid, "kind": "pond", "item": "node", "reason": why})
                changed = True
    targets = {}
    for nid, info in nodes_out.items():
        if info["imported"]:
            t = links.get(nid, OUTLET_ID)
            if t != OUTLET_ID and not nodes_out[t]["imported"]:
                info["drains_to_hydrocad"] = t  # its own results are still comparable
                t = OUTLET_ID
            targets[nid] = t
    return targets


_DEVICE_PATTERNS = (
    (re.compile(r'^(\d+(?:\.\d+)?)" Vert\. Orifice/Grate C= ?(\d?\.\d+)$'),
     lambda m: {"type": "circular_orifice", "diameter_in": float(m.group(1)),
                "cd": float(m.group(2))}),
    (re.compile(r'^(\d+(?:\.\d+)?)" W x (\d+(?:\.\d+)?)" H Vert\. Orifice/Grate '
                r'C= ?(\d?\.\d+)$'),
     lambda m: {"type": "rectangular_orifice", "width_in": float(m.group(1)),
                "height_in": float(m.group(2)), "cd": float(m.group(3))}),
    (re.compile(r"^(\d+(?:\.\d+)?) in/hr Exfiltration over (Surface|Wetted) area$"),
     lambda m: {"type": "exfiltration", "rate_in_hr": float(m.group(1)),
                "over": m.group(2).lower()}),
)


# HydroCAD's printed culvert entrance (``L= 20.0' CMP, square edge headwall, Ke= 0.500``) ->
# the FHWA HDS-5 (2001) Table A.1 inlet hydrocalc computes
# (hydrocalc.hydraulics.outlets.culvert.inlet_codes()).
# Only entrances with the same material and edge in Table A.1 (chart 1: concrete, chart 2:
# corrugated metal) are mapped; anything else (RCP square-cut projecting, rounded edge,
# end sections, plastic pipe entrances) has no Table A.1 row and is not imported.
CULVERT_INLETS = {
    "cmp, square edge headwall": "cmp_headwall",            # chart 2, scale 1 (headwall)
    "cmp, mitered to conform to fill": "cmp_mitered",       # chart 2, scale 2
    "cmp, projecting, no headwall": "cmp_projecting",       # chart 2, scale 3
    "rcp, square edge headwall": "concrete_square_headwall",  # chart 1, scale 1
    "rcp, groove end w/headwall": "concrete_groove_headwall",  # chart 1, scale 2
    "rcp, groove end projecting": "concrete_groove_projecting",  # chart 1, scale 3
}
_N = r"-?(?:\d[\d,]*(?:\.\d+)?|\.\d+)"
# HydroCAD 10's printed round culvert (as in the City of Eugene report of the test suite)
_CULVERT_RE = re.compile(
    (r'^(?P<d>N)" Round Culvert L=(?P<L>N)\' (?P<inlet>[^=]+?), Ke=(?P<ke>N) '
     r"Inlet / Outlet Invert=(?P<ii>N)' ?/ ?(?P<oi>N)' S=(?P<s>N) ?'(?:/')? Cc=(?P<cc>N) "
     r"n=(?P<n>N)(?: (?P<ndesc>[^=]*?))?(?:,? Flow Area=(?P<fa>N) sf)?$").replace("N", _N))


def _culvert(desc: str) -> tuple[dict | None, str | None]:
    """A HydroCAD round culvert as a hydrocalc HDS-5 culvert (in elevations), or the reason.

    Returns the culvert fields (``inlet_invert_ft``/``outlet_invert_ft`` are elevations here)
    with ``_differences``: what HydroCAD computes differently (recorded in the import).
    """
    m = _CULVERT_RE.match(desc)
    if not m:
        if "Culvert" in desc:
            return None, ("only a HydroCAD 10 round culvert ('D\" Round Culvert L= ... Ke= ... "
                          "Inlet / Outlet Invert= ... Cc= ... n= ...') is read; this one is not "
                          "in that form")
        return None, None
    f = {k: float(v.replace(",", "")) for k, v in m.groupdict().items()
         if k not in ("inlet", "ndesc") and v is not None}
    printed_inlet = " ".join(m.group("inlet").split())
    code = CULVERT_INLETS.get(printed_inlet.lower())
    if code is None:
        return None, (f"culvert entrance {printed_inlet!r} has no FHWA HDS-5 Table A.1 inlet "
                      f"hydrocalc computes (mapped: {', '.join(sorted(CULVERT_INLETS))})")
    assert code in culvert.inlet_codes("circular")
    area = math.pi / 4.0 * (f["d"] / 12.0) ** 2  # full circular barrel [ft2]
    fa = m.group("fa")
    half = 0.5 * 10.0 ** -(len(fa.split(".")[1]) if fa and "." in fa else 0)
    if fa is not None and abs(f["fa"] - area) > half + 1e-9:
        return None, (f"culvert flow area printed {f['fa']} sf is not the full {f['d']}\" "
                      f"barrel ({area:.3f} sf): a partly filled barrel is not supported")
    conv = {"type": "culvert", "shape": "circular", "diameter_in": f["d"], "inlet": code,
            "length_ft": f["L"], "inlet_invert_ft": f["ii"], "outlet_invert_ft": f["oi"],
            "n": f["n"], "ke": f["ke"],
            "_printed": f"{printed_inlet}, Ke={m.group('ke')}, Cc={m.group('cc')}"}
    conv["_differences"] = [(
        f"culvert: HydroCAD's own culvert procedure (printed entrance {printed_inlet!r}, "
        f"Cc={m.group('cc')}) is replaced by FHWA HDS-5 inlet control (Table A.1 {code!r}) "
        f"and outlet control with the printed Ke={m.group('ke')} and n={m.group('n')}; "
        "hydrocalc has no Cc, so flows where the culvert controls may differ")]
    return conv, None


def _convert_device(d: dict) -> tuple[dict | None, str | None]:
    """One printed device as a hydrocalc outlet (elevations kept), or ``(None, reason)``."""
    conv, why = _culvert(d["description"])
    if conv is not None or why is not None:
        return conv, why
    for rx, make in _DEVICE_PATTERNS:
        m = rx.match(d["description"])
        if m:
            return make(m), None
    return None, "not supported"


def _convert_pond(nid: str, node: dict, datum: float | None) -> tuple[dict | None, str | None]:
    """Conversion of a pond, or ``(None, reason)``.

    Converted: one storage volume given as stage data "Listed below" whose table has a
    ``Cum.Store`` column (written as a ``stage_storage`` CSV: the storage HydroCAD computed,
    elevations turned into stages above the datum, the lowest storage invert), and devices:
    vertical circular or rectangular orifices/grates with their printed C and HydroCAD 10
    round culverts (``type = "culvert"``, FHWA HDS-5) routed to Primary, exfiltration over the
    surface or wetted area routed to Discarded. Devices routed to ``Device N`` (in series)
    are converted when device N is a culvert routed to Primary and every other device except
    exfiltration discharges through it: the culvert becomes the pond's ``barrel``. Inverts
    become stages above the datum.

    Where the conversion is not exact (a culvert: HydroCAD's culvert procedure and its Cc
    differ from HDS-5), the difference is recorded in ``differences`` (written to the site
    file's comments, ``submitted.json`` and the import summary; the review names it when a
    pond value differs).
    """
    table, storage = node.get("stage_table"), node.get("storage", [])
    if datum is None or not table or "Cum.Store" not in table["columns"]:
        return None, "its stage-storage table (Elevation ... Cum.Store) was not read"
    if len(storage) != 1 or "Listed below" not in storage[0]["description"]:
        return None, ("only one storage volume given as a listed stage table is supported; "
                      f"got {[v['description'][:30] for v in storage]}")
    ci = table["columns"].index("Cum.Store")
    rows = [(round(r[0] - datum, 6), r[ci]) for r in table["rows"]]
    if rows[0] != (0.0, 0.0):
        return None, ("its stage table does not start at the datum with zero storage "
                      f"(first row {table['rows'][0]})")
    convs = {}
    for d in node.get("devices", []):
        conv, why = _convert_device(d)
        wanted = "Discarded" if conv and conv["type"] == "exfiltration" else "Primary"
        if conv is None or not (d["routing"] == wanted or (
                d["routing"].startswith("Device ") and wanted == "Primary")):
            return None, (f"device #{d['device']} {d['description'][:50]!r} routed to "
                          f"{d['routing']} is not supported"
                          + (f": {why}" if why and why != "not supported" else ""))
        if conv["type"] == "culvert":
            if abs(conv["inlet_invert_ft"] - d["invert_elev_ft"]) > 1e-6:
                return None, (f"device #{d['device']}: the culvert's printed inlet invert "
                              f"{conv['inlet_invert_ft']}' differs from the device invert "
                              f"{d['invert_elev_ft']}'")
            conv["inlet_invert_ft"] = round(conv["inlet_invert_ft"] - datum, 6)
            conv["outlet_invert_ft"] = round(conv["outlet_invert_ft"] - datum, 6)
        elif conv["type"] != "exfiltration":
            conv["invert_ft"] = round(d["invert_elev_ft"] - datum, 6)
        low = min((conv[k] for k in ("invert_ft", "inlet_invert_ft") if k in conv), default=0.0)
        if low < 0.0:
            return None, (f"device #{d['device']} has its invert at {d['invert_elev_ft']}', below "
                          f"the lowest storage ({datum}'): not supported")
        conv["id"] = f"device_{d['device']}"
        conv["elevation_ft"] = d["invert_elev_ft"]
        convs[d["device"]] = (d, conv)
    if not convs:
        return None, "no outlet device was read"
    series = {d["routing"] for d, _ in convs.values() if d["routing"].startswith("Device ")}
    barrel = None
    if series:
        into = {int(r.split()[1]) for r in series}
        k = next(iter(into))
        target = convs.get(k)
        if len(into) > 1 or target is None or target[1]["type"] != "culvert" \
                or target[0]["routing"] != "Primary":
            return None, (f"devices in series ({', '.join(sorted(series))}) are supported only "
                          "into one culvert routed to Primary (the pond's barrel)")
        direct = [d["device"] for d, c in convs.values() if d["device"] != k
                  and c["type"] != "exfiltration" and not d["routing"].startswith("Device ")]
        if direct:
            return None, (f"device(s) #{', #'.join(map(str, direct))} routed to Primary beside "
                          f"culvert #{k}, which others discharge through: hydrocalc's barrel "
                          "takes every device (not supported)")
        barrel = convs.pop(k)[1]
        barrel["id"] = "barrel"
        through = ", #".join(str(d["device"]) for d, _ in convs.values()
                             if d["routing"] == f"Device {k}")
        barrel["_differences"] = barrel.get("_differences", []) + [(
            "devices in series: hydrocalc passes the smaller of the devices' total and the "
            "culvert's capacity at the pond level (the rule HydroCAD's device report shows: "
            "'Passes ... cfs of ... cfs potential flow'); how HydroCAD lets the culvert's "
            f"headwater act on devices #{through} is not printed")]
    outlets = [c for _, c in convs.values()]
    differences = [x for c in outlets + ([barrel] if barrel else [])
                   for x in c.get("_differences", [])]
    csv_name = re.sub(r"[^A-Za-z0-9_.-]", "_", nid) + "_stage_storage.csv"
    csv_text = "stage_ft,storage_ft3\n" + "".join(f"{a!r},{b!r}\n" for a, b in rows)
    out = {"datum_elev_ft": datum, "csv": csv_name, "csv_text": csv_text,
           "outlets": outlets, "differences": differences}
    if barrel is not None:
        out["barrel"] = barrel
    return out, None


def device_check(node: dict) -> list[dict]:
    """Each convertible device's flow beside the flow HydroCAD printed at the same head.

    HydroCAD prints, under a pond's devices, the maximum outflow with the headwater (HW) and
    tailwater (TW) at that time and each device's flow, "calculated directly from the
    discharge equations at the listed HW and TW elevations" (hydrocad.net/deviceflow.htm).
    For every device that converts (culverts: their *potential* flow, "Passes x cfs of y cfs
    potential flow"; vertical orifices: the flow they control) this evaluates the converted
    hydrocalc device at the printed HW: a check of the conversion on the report's own
    numbers, independent of the routing and of the pond's inflow. Devices under a tailwater
    above their outlet (culvert outlet invert, orifice invert) are not checked.

    Parameters
    ----------
    node : dict
        A pond node read by :func:`hydrocalc.review.importers.hydrocad.parse_report`.

    Returns
    -------
    list of dict
        ``storm``, ``device``, ``hw_elev_ft``, ``printed_cfs`` (as printed), ``decimals``,
        ``hydrocalc_cfs``, ``difference_pct`` (None when the printed flow is 0).
    """
    devices = {d["device"]: d for d in node.get("devices", [])}
    out = []
    for om in node.get("outflow_max", []):
        hw, tw = om["hw_elev_ft"], om.get("tw_elev_ft")
        for row in om["devices"]:
            d = devices.get(row["device"])
            if d is None or "printed" not in row:
                continue
            conv, _ = _convert_device(d)
            if conv is None or conv["type"] == "exfiltration":
                continue
            if conv["type"] == "culvert":
                if row["status"] != "passes" or (tw is not None and tw > conv["outlet_invert_ft"]):
                    continue
                kw = {k: v for k, v in conv.items() if not k.startswith("_") and k != "type"}
                q = float(culvert.Culvert(**kw).discharge_cfs(hw))
            else:
                if row["status"] != "controls" or (tw is not None and tw > d["invert_elev_ft"]):
                    continue
                dev: outlets.CircularOrifice | outlets.RectangularOrifice
                if conv["type"] == "circular_orifice":
                    dev = outlets.CircularOrifice(conv["diameter_in"], d["invert_elev_ft"],
                                                  cd=conv["cd"])
                else:
                    dev = outlets.RectangularOrifice(conv["width_in"], conv["height_in"],
                                                     d["invert_elev_ft"], cd=conv["cd"])
                q = float(dev.discharge_cfs(hw))
            printed = float(row["printed"])
            out.append({"storm": om["storm"], "device": row["device"], "hw_elev_ft": hw,
                        "printed_cfs": row["printed"],
                        "decimals": len(row["printed"].split(".")[1]) if "." in row["printed"]
                        else 0,
                        "hydrocalc_cfs": q,
                        "difference_pct": 100.0 * (q - printed) / printed if printed else None})
    return out


def _pond_datum(node: dict) -> dict:
    inv = [s["invert_elev_ft"] for s in node.get("storage", [])]
    table = node.get("stage_table")
    if table:
        inv.append(table["rows"][0][0])
    return {"datum_elev_ft": min(inv)} if inv else {}


# HydroCAD's public page on orifices (hydrocad.net/orifice.htm) says only that a horizontal
# grate "will check for possible weir flow around the perimeter of the grate" and that the
# "discharge equations ... are provided in the Reference Manual and the help system": the
# weir coefficient and length of the weir limit are neither printed nor publicly documented.
HORIZONTAL_GRATE_REASON = (
    "a horizontal orifice/grate 'limited to weir flow at low heads' uses a weir coefficient and "
    "weir length the report does not print and HydroCAD's public documentation does not give "
    "(hydrocad.net/orifice.htm refers to its Reference Manual)")


def _unsupported_devices(node: dict) -> list[str]:
    """Devices hydrocalc cannot represent (listed even though links block the pond)."""
    out = []
    devices = {d["device"]: d for d in node.get("devices", [])}
    for d in devices.values():
        desc = d["description"]
        if "Culvert" in desc:
            conv, why = _culvert(desc)
            if conv is not None:
                continue
        elif "Horiz. Orifice" in desc:
            why = (HORIZONTAL_GRATE_REASON if "weir flow" in desc else
                   "a horizontal orifice/grate has no hydrocalc outlet (hydrocalc's orifices are "
                   "vertical)")
        elif re.search(r"Pump|Sim-Route|Custom Weir|Special & User", desc, re.IGNORECASE):
            why = "not supported"
        elif d["routing"].startswith("Device"):
            k = int(d["routing"].split()[1]) if d["routing"].split()[1].isdigit() else None
            if k in devices and "Culvert" in devices[k]["description"]:
                continue
            why = (f"devices in series ({d['routing']}) are supported only into a culvert")
        else:
            continue
        out.append(f"device #{d['device']} {desc[:40]!r}: {why}")
    if "Dyn" in (node.get("routing") or ""):
        out.append("dynamic storage-indication routing (tailwater from downstream) is not "
                   "supported")
    return out


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def _device_lines(o: dict, datum: float) -> list[str]:
    """``key = value`` lines of one converted device (elevations as comments)."""
    out = []
    for k, v in o.items():
        if k == "elevation_ft" or k.startswith("_") or (k == "id" and v == "barrel"):
            continue
        note = ""
        if k == "invert_ft":
            note = f"  # elevation {o['elevation_ft']} ft"
        elif k in ("inlet_invert_ft", "outlet_invert_ft"):
            note = f"  # elevation {round(v + datum, 6)} ft"
        elif k == "inlet" and o.get("_printed"):
            note = f"  # HDS-5 Table A.1; HydroCAD printed {o['_printed']}"
        out.append(f"{k} = {_q(v) if isinstance(v, str) else repr(v)}{note}")
    return out


def _site_toml(rep: HydroCADReport, storms: dict, dist: str | None, subs: list, ponds: list,
               targets: dict) -> str:
    name = rep.project or pathlib.Path(rep.source).stem
    span = rep.settings.get("time_span_hr")
    lines = [
        f"# Imported by `hydrocalc import hydrocad` from {rep.source} (sha256 {rep.sha256[:12]}),",
        (f"# HydroCAD {rep.version}, prepared by {rep.preparer or 'not printed'}, "
        f"printed {rep.printed or 'not printed'}."),
        "# Inputs are the values HydroCAD printed: area, CN (as HydroCAD used it) and Tc.",
        "# The printed results are in submitted.json; review with",
        "#   hydrocalc review site.toml --submitted submitted.json",
        "",
        "[project]",
        f"name = {_q(name)}",
        "# NOT FROM THE HYDROCAD REPORT: placeholders required by the site schema.",
        'municipality = "nys_generic"',
        'receiving_water = "NOT FROM THE HYDROCAD REPORT"',
        "drains_to_impaired_water = false",
        "disturbed_area_ac = 0",
        "new_impervious_area_ac = 0",
        'project_type = "other"',
        "# NYS SMDM edition: stated because every new site file states it; the sizing",
        "# criteria are not evaluated here ([criteria] standard = \"none\")",
        'design_manual = "2015"',
        f"preparer = {_q(rep.preparer or 'not printed')}",
        "",
        "[storms]",
        f'distribution = "{dist}"',
        'source = ' + _q(f"HydroCAD report {rep.source}: printed rainfall events"),
        "# NOT FROM THE HYDROCAD REPORT: required by the schema, unused (criteria off).",
        "wqv_precip_in = 1.0",
        'wqv_precip_source = "NOT FROM THE HYDROCAD REPORT: placeholder, criteria not evaluated"',
        "[storms.depths_in]",
    ]
    for s in storms.values():
        if s["imported"]:
            lines.append(f'"{s["id"]}" = {s["precip_in"]!r}  '
                         f'# HydroCAD event {s["hydrocad_name"]!r}')
    lines += ["", "[analysis]", "dt_hr = 0.01"]
    if span and span[0] == 0.0 and span[1] > 0:
        lines.append(f"duration_hr = {span[1]!r}  # HydroCAD time span {span[0]}-{span[1]} h")
    lines += ["", "[criteria]", 'standard = "none"', ""]
    for scen in ("pre", "post"):
        if scen == "pre":
            lines.append("# pre: a copy of the imported network (a report has one network)")
        for nid, node in subs:
            lines += [f"[[{scen}.subcatchment]]", f"id = {_q(nid)}",
                      f"to = {_q(targets[nid])}"]
            if node.get("name") and node["name"] != nid:
                lines.append(f"description = {_q(node['name'])}")
            printed = node.get("area_printed", "")
            if printed.endswith(" sf"):  # keep the printed number: no unit conversion
                lines.append(f"area_ft2 = {float(printed[:-3].replace(',', ''))!r}"
                             f"  # printed {printed}")
            else:
                lines.append(f"area_ac = {node['area_ac']!r}  # printed {printed}")
            lines += [
                      f"cn = {int(node['cn_printed'])}  # printed CN",
                      f"tc_hr = {node['tc_min'] / 60.0!r}  # printed Tc = {node['tc_min']} min",
                      ""]
        for pid, info in ponds:
            conv = info["conversion"]
            lines += [f"[[{scen}.pond]]", f"id = {_q(pid)}", f"to = {_q(targets[pid])}"]
            if info.get("name") and info["name"] != pid:
                lines.append(f"description = {_q(info['name'])}")
            lines += [(f"# stages from the pond bottom: stage 0 = elevation "
                      f"{conv['datum_elev_ft']} ft (datum)"),
                      f"[{scen}.pond.storage]", 'type = "stage_storage"',
                      f"csv = {_q(conv['csv'])}  # HydroCAD's Cum.Store by elevation"]
            if conv.get("differences"):
                lines += ["# NOT EXACT (named by `hydrocalc review` when a pond value differs):"]
                lines += [f"#   - {x}" for x in conv["differences"]]
            for o in conv["outlets"]:
                lines.append(f"[[{scen}.pond.outlet]]")
                lines += _device_lines(o, conv["datum_elev_ft"])
            if conv.get("barrel"):
                lines.append(f"[{scen}.pond.barrel]  # HydroCAD device routed to Primary; "
                             "the devices above discharge through it")
                lines += _device_lines(conv["barrel"], conv["datum_elev_ft"])
            lines.append("")
        lines += [f"[[{scen}.design_point]]", f'id = "{OUTLET_ID}"',

                  'description = "all imported subcatchments (not a HydroCAD node)"', ""]
    return "\n".join(lines)


def import_hydrocad(report: str | os.PathLike, out: str | os.PathLike, *,
                    allow_partial: bool = False,
                    links: str | os.PathLike | None = None) -> ImportResult:
    """Import a HydroCAD report into ``out/site.toml`` and ``out/submitted.json``.

    Parameters
    ----------
    report : path
        The report: a PDF or its text (see
        :func:`hydrocalc.review.importers.hydrocad.report_text`).
    out : path
        Output folder; created, or replaced if it holds only a previous import (``site.toml``
        and ``submitted.json``). Written into a temporary folder and moved into place only
        when complete.
    allow_partial : bool, default False
        See :func:`convert_report`.
    links : path, optional
        A TOML file with a ``[links]`` table ``NODE = "DOWNSTREAM"`` (or ``"OUT"``), read off
        the report's routing diagram by the reviewer; see :func:`convert_report`.

    Returns
    -------
    ImportResult

    Raises
    ------
    InputError
        Not a HydroCAD report, an encrypted or image-only PDF, a truncated report, nothing
        importable, or ``out`` not usable. Nothing is written then.
    """
    link_map = _read_links(links) if links is not None else None
    # read_report opens any path-like through pathlib.Path
    rep = read_report(report, allow_partial=allow_partial)  # type: ignore[arg-type]
    site_toml, submitted, csv_files = convert_report(rep, allow_partial=allow_partial,
                                                     links=link_map)
    out = pathlib.Path(out)
    if out.exists() and not out.is_dir():
        raise InputError(f"--out must be a folder; got {str(out)!r} (a file).")
    if out.is_dir():
        extra = sorted(p.name for p in out.iterdir()
                       if p.name not in ("site.toml", "submitted.json"))
        extra = [n for n in extra if not n.endswith("_stage_storage.csv")]
        if extra:
            raise InputError(f"--out must be a new folder or a previous import; {str(out)!r} "
                             f"holds other files ({', '.join(extra[:3])}). Choose another "
                             "folder.")
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    except OSError as exc:
        raise InputError(f"--out must be a writable folder path; got {str(out)!r} "
                         f"({exc.strerror or exc}).") from None
    try:
        if site_toml is not None:
            (tmp / "site.toml").write_text(site_toml, encoding="utf-8")
        for name, text in csv_files.items():
            (tmp / name).write_text(text, encoding="utf-8")
        (tmp / "submitted.json").write_text(
            json.dumps(submitted, indent=1, sort_keys=True, ensure_ascii=False) + "\n",
            encoding="utf-8")
        if site_toml is not None:  # the written site must load: never hand over a bad one
            load_site(tmp / "site.toml")
        os.chmod(tmp, 0o777 & ~_umask())
        if out.is_dir():
            shutil.rmtree(out)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return ImportResult(folder=out, complete=submitted["complete"],
                        not_imported=submitted["not_imported"], submitted=submitted,
                        has_site=site_toml is not None)


def _read_links(path) -> dict:
    """The ``[links]`` table of a links file (``NODE = "DOWNSTREAM"``)."""
    import tomllib

    from hydrocalc.input_file import read_input_bytes

    p = pathlib.Path(path)
    raw = read_input_bytes(p, what="--links file")
    try:
        doc = tomllib.loads(raw.decode("utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise InputError(f"--links {p}: must be UTF-8 text; byte {exc.start} is not.") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"--links {p}: not valid TOML ({exc}).") from None
    links = doc.get("links")
    if not isinstance(links, dict) or set(doc) != {"links"} or not all(
            isinstance(v, str) for v in links.values()):
        raise InputError(f"--links {p}: expected one table [links] of NODE = \"DOWNSTREAM\" "
                         f"(a node id or {OUTLET_ID!r}); got keys {sorted(doc)}.")
    return dict(links)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask
