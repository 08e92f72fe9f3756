"""Audit the inputs a HydroCAD report prints against the tables and equations they come from.

A re-run answers "do the outputs follow from the inputs?"; this module answers the reviewer's
first question, "are the inputs right?". :func:`audit_submitted` reads the printed inputs kept
in ``submitted.json`` (``hydrocalc import hydrocad``) and recomputes each one from the
report's own printed numbers:

============== ================================================ ==========================
quantity       recomputed                                       finding when
============== ================================================ ==========================
cover_cn       TR-55 Tables 2-2a..2-2d (:func:`cover_table_cn`)  ``submitted != recomputed``
weighted_cn    area-weighted mean of the printed rows           ``|diff| > 0.6``
tc_segment_min TR-55 eq. 3-3 (sheet), App. F / printed Kv        ``|diff| > 0.05 + 0.03 x
               (shallow), Manning (channel); eq. 3-1             recomputed``
tc_total_min   sum of the printed segment times (eq. 3-2)       ``|diff| > 0.05 x (n + 1)``
storage_ft3    average end area (Prismatic), frustum (Conic)    ``|diff| > half a printed
                                                                unit + 0.05 x recomputed``
discharge_cfs  orifice C A (2 g h)^0.5; weir C L h^1.5          ``|diff| > half a printed
                                                                unit + 0.10 x recomputed``
============== ================================================ ==========================

Only what the report prints is checked; nothing is guessed. A printed value that cannot be
mapped (a cover description that names no table row, a row without the HSG its CN depends
on, a Direct Entry Tc, a culvert, a device under tailwater, a weir whose coefficient is not
printed, ...) is listed in ``not_checked`` with the reason and never counted.

Tolerances and their reasons
----------------------------
* **cover_cn** 0: the tables are integers and HydroCAD copies them.
* **weighted_cn** 0.6: HydroCAD prints the weighted CN rounded to an integer (0.5) and the
  printed areas are themselves rounded.
* **tc_segment_min** 0.05 min (half the printed 0.1 min) + 3 % (the printed n, slope, Kv,
  Area and Perim are rounded).
* **tc_total_min** 0.05 min per printed segment time and for the total (each is rounded).
* **storage_ft3** half a printed unit + 5 % (printed areas and elevations are rounded).
* **discharge_cfs** half a printed unit + 10 % (the printed HW, C and size are rounded).

References
----------
.. [1] USDA SCS, TR-55, 2nd ed., 1986: Tables 2-2a..2-2d; Chapter 3, Eqs. 3-1..3-4;
   Appendix F.
.. [2] USBR, Water Measurement Manual, 3rd ed., 2001: orifice Q = C A (2 g h)^0.5
   (Chapter 9), rectangular weir Q = C L h^1.5 (Chapter 7).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re

import numpy as np

from hydrocalc.errors import InputError
from hydrocalc.runoff import curve_number_table
from hydrocalc.tc import SHALLOW_K_FPS, SHEET_FLOW_COEFF, SHEET_FLOW_LIMIT_FT
from hydrocalc.units import GRAVITY_FT_S2

__all__ = [
    "AUDIT_QUANTITIES",
    "InputAudit",
    "audit_submitted",
    "channel_flow_time_min",
    "cover_table_cn",
    "orifice_flow_cfs",
    "shallow_flow_time_min",
    "sheet_flow_time_min",
    "stage_storage_ft3",
    "weighted_cn",
    "weir_flow_cfs",
]

#: The six audited quantities, in report order.
AUDIT_QUANTITIES = ("cover_cn", "weighted_cn", "tc_segment_min", "tc_total_min", "storage_ft3",
                    "discharge_cfs")
WEIGHTED_CN_TOL = 0.6  #: weighted CN tolerance [-]
TC_ABS_TOL_MIN = 0.05  #: half the printed 0.1 min [min]
TC_RTOL = 0.03  #: relative tolerance of a segment time [-]
STORAGE_RTOL = 0.05  #: relative tolerance of a storage [-]
DISCHARGE_RTOL = 0.10  #: relative tolerance of a device flow [-]
#: Manning's constant in US customary units as HydroCAD uses it (TR-55 Eq. 3-4 rounds it to 1.49).
MANNING_K_HYDROCAD = 1.486
_SF_PER_AC = 43560.0

# -- pure checks ----------------------------------------------------------------------------

_COND = r"(poor|fair|good)"
#: HydroCAD's wording of TR-55 Table 2-2a..2-2d rows (lower case, HSG removed) -> cover key.
_COVER_PATTERNS: list[tuple[str, str]] = [
    (r"<50% grass cover, poor", "open_space_poor"),
    (r"50-75% grass cover, fair", "open_space_fair"),
    (r">75% grass cover, good", "open_space_good"),
    ((r"paved parking|roofs|paved parking & roofs|paved parking, roofs|unconnected pavement|"
     r"unconnected roofs|paved parking lots, roofs, driveways"), "impervious_paved_parking_roofs"),
    (r"paved roads w/ ?curbs & sewers", "streets_paved_curbs_storm_sewers"),
    (r"paved roads w/ ?open ditches(?:, 50% imp)?", "streets_paved_open_ditches"),
    (r"gravel roads", "streets_gravel"),
    (r"dirt roads", "streets_dirt"),
    (r"natural desert landscaping", "desert_landscaping_natural"),
    (r"artificial desert landscaping", "desert_landscaping_artificial"),
    (r"urban commercial(?:, 85% imp)?", "commercial_business"),
    (r"urban industrial(?:, 72% imp)?", "industrial"),
    (r"1/8 acre lots(?:, 65% imp)?", "residential_1_8_acre"),
    (r"1/4 acre lots(?:, 38% imp)?", "residential_1_4_acre"),
    (r"1/3 acre lots(?:, 30% imp)?", "residential_1_3_acre"),
    (r"1/2 acre lots(?:, 25% imp)?", "residential_1_2_acre"),
    (r"1 acre lots(?:, 20% imp)?", "residential_1_acre"),
    (r"2 acre lots(?:, 12% imp)?", "residential_2_acre"),
    (r"newly graded area", "newly_graded"),
    (r"pasture/grassland/range, " + _COND, "pasture_{}"),
    (r"meadow, non-grazed", "meadow"),
    (r"brush, " + _COND, "brush_{}"),
    (r"woods/grass comb\., " + _COND, "woods_grass_{}"),
    (r"woods, " + _COND, "woods_{}"),
    (r"farmsteads", "farmsteads"),
    (r"herbaceous, " + _COND, "herbaceous_{}"),
    (r"oak/aspen(?: range)?, " + _COND, "oak_aspen_{}"),
    (r"pinyon/juniper(?: range)?, " + _COND, "pinyon_juniper_{}"),
    (r"sagebrush(?: range)?, " + _COND, "sagebrush_{}"),
    (r"desert shrub(?: range)?, " + _COND, "desert_shrub_{}"),
    (r"fallow, bare soil", "fallow_bare_soil"),
    (r"fallow, (?:cr|crop residue), (poor|good)", "fallow_crop_residue_{}"),
]
_CROPS = {"row crops": "row_crops", "small grain": "small_grain",
          "legumes": "close_seeded_legumes", "close-seeded legumes": "close_seeded_legumes"}
_TREATMENTS = {"straight row": "straight_row", "sr": "straight_row",
               "sr ?\\+ ?cr": "straight_row_residue",
               "straight row ?\\+ ?cr": "straight_row_residue",
               "contoured": "contoured", "c": "contoured", "c ?\\+ ?cr": "contoured_residue",
               "contoured ?\\+ ?cr": "contoured_residue", "c ?& ?t": "contoured_terraced",
               "contoured & terraced": "contoured_terraced",
               "c ?& ?t ?\\+ ?cr": "contoured_terraced_residue",
               "contoured & terraced ?\\+ ?cr": "contoured_terraced_residue"}


def _cover_key(base: str) -> str | None:
    """The TR-55 cover key HydroCAD's wording ``base`` (lower case, no HSG) names, or None."""
    for pattern, key in _COVER_PATTERNS:
        m = re.fullmatch(pattern, base)
        if m:
            return key.format(*m.groups())
    m = re.fullmatch(r"(row crops|small grain|legumes|close-seeded legumes), (.+), (poor|good)",
                     base)
    if m:
        for pattern, treat in _TREATMENTS.items():
            if re.fullmatch(pattern, m.group(2)):
                return f"{_CROPS[m.group(1)]}_{treat}_{m.group(3)}"
    return None


def cover_table_cn(description: str) -> tuple[float | None, str, str]:
    """The TR-55 (1986) Table 2-2a..2-2d CN of a cover row as HydroCAD words it.

    Parameters
    ----------
    description : str
        The printed description, e.g. ``">75% Grass cover, Good, HSG B"``, ``"Woods, Fair,
        HSG C (UNGRADED)"``, ``"Paved parking, HSG A"``, ``"1/4 acre lots, 38% imp, HSG D"``.
        A trailing comment in parentheses is ignored.

    Returns
    -------
    cn : float or None
        The tabulated CN [-]; None when the row cannot be checked.
    reference : str
        ``"TR-55 Table 2-2a"`` .. ``"TR-55 Table 2-2d"`` ("" when not mapped).
    reason : str
        Why the row is not checked ("" when ``cn`` is given).

    Notes
    -----
    A description that names no table row (custom text, ``Water Surface``, empty) is never
    guessed. A row without an HSG is checked only when the table gives the same CN for every
    group (impervious covers, CN 98). Dual groups (``HSG B/D``) likewise. Values: TR-55
    (1986) Tables 2-2a to 2-2d [1]_, the shipped ``tr55_cn_*`` tables.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Tables 2-2a to 2-2d.

    Examples
    --------
    >>> cover_table_cn(">75% Grass cover, Good, HSG B")
    (61.0, 'TR-55 Table 2-2a', '')
    """
    text = " ".join(str(description).replace("*", " ").split())
    while True:  # trailing comments "(UNGRADED)"
        stripped = re.sub(r" ?\([^()]*\)$", "", text).strip()
        if stripped == text:
            break
        text = stripped
    if not text:
        return None, "", "the row has no description"
    low = text.lower()
    # OCR spacing inside HydroCAD's wording: "> 75 %" -> ">75%", "50 - 75%" -> "50-75%"
    low = re.sub(r"([<>]) (?=\d)", r"\1", low)
    low = re.sub(r"(?<=\d) %", "%", low)
    low = re.sub(r"(?<=\d) ?- ?(?=\d)", "-", low)
    hm = re.search(r",? ?hsg ?([a-d](?:/[a-d])?)\b", low)
    hsg = hm.group(1).upper() if hm else None
    base = (low[:hm.start()] + low[hm.end():]).strip(" ,") if hm else low.strip(" ,")
    key = _cover_key(base)
    if key is None:
        return None, "", f"'{text}' names no TR-55 Table 2-2a..2-2d row"
    table = curve_number_table()
    row = table.loc[table["key"] == key]
    if row.empty:
        return None, "", f"'{text}' names no TR-55 Table 2-2a..2-2d row"
    row = row.iloc[0]
    ref = f"TR-55 {row['location']}"
    cns = [float(row[f"cn_{g}"]) for g in "abcd"]
    if hsg is not None and "/" not in hsg:
        cn = cns["ABCD".index(hsg)]
        if math.isnan(cn):
            return None, ref, f"{ref} gives no CN for HSG {hsg} ('{text}')"
        return cn, ref, ""
    if not any(math.isnan(c) for c in cns) and len(set(cns)) == 1:
        return cns[0], ref, ""
    return None, ref, (f"'{text}' states no single hydrologic soil group and the {ref} CN "
                       "depends on it")


def weighted_cn(areas: np.typing.ArrayLike, cns: np.typing.ArrayLike) -> float:
    """Area-weighted mean curve number, TR-55 Chapter 2 (Worksheet 2).

    Parameters
    ----------
    areas : array_like
        Areas of the rows, > 0, any one unit.
    cns : array_like
        Their curve numbers. [-]

    Returns
    -------
    float
        ``sum(area x CN) / sum(area)``, unrounded. [-]

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 2 and Worksheet 2 (weighted CN).
    """
    a = np.asarray(areas, dtype=float)
    c = np.asarray(cns, dtype=float)
    if a.size == 0 or a.sum() <= 0:
        raise InputError(f"areas must sum to > 0; got {a.tolist()}")
    return float((a * c).sum() / a.sum())


def sheet_flow_time_min(n: float, length_ft: float, slope_ftft: float, p2_in: float) -> float:
    r"""Sheet-flow travel time, TR-55 eq. 3-3, in minutes.

    :math:`T_t = 0.007 (n L)^{0.8} / (P_2^{0.5} s^{0.4})` hours (L ft, P2 in, s ft/ft), here
    times 60. No length limit: the audit recomputes what was printed.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eq. 3-3.

    Examples
    --------
    >>> round(sheet_flow_time_min(0.24, 100, 0.01, 3.6) / 60, 2)  # TR-55 Example 3-1: 0.30 h
    0.3
    """
    return 60.0 * SHEET_FLOW_COEFF * (n * length_ft) ** 0.8 / (p2_in ** 0.5 * slope_ftft ** 0.4)


def shallow_flow_time_min(length_ft: float, slope_ftft: float, kv_fps: float) -> float:
    r"""Shallow concentrated flow time, :math:`V = K_v s^{0.5}`, :math:`T = L / (60 V)`.

    ``kv_fps`` is 16.1345 (unpaved) or 20.3282 (paved), TR-55 Appendix F, or the Kv HydroCAD
    prints for its other surfaces. [min]

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Eq. 3-1, Fig. 3-1 and Appendix F.

    Examples
    --------
    >>> round(shallow_flow_time_min(1400, 0.01, 16.1345), 1)  # TR-55 Example 3-1: 0.24 h
    14.5
    """
    return length_ft / (60.0 * kv_fps * slope_ftft ** 0.5)


def channel_flow_time_min(length_ft: float, slope_ftft: float, n: float, area_ft2: float,
                          perimeter_ft: float) -> float:
    r"""Channel flow time by Manning's equation, TR-55 eqs. 3-4, 3-5 and 3-1 [min].

    :math:`V = 1.486 r^{2/3} s^{1/2} / n`, :math:`r = a / p_w`, :math:`T = L / (60 V)`.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eqs. 3-1, 3-4, 3-5.

    Examples
    --------
    >>> round(channel_flow_time_min(7300, 0.005, 0.05, 27.0, 28.2), 0)  # Example 3-1: 0.99 h
    60.0
    """
    r = area_ft2 / perimeter_ft  # Eq. 3-5
    v = MANNING_K_HYDROCAD * r ** (2.0 / 3.0) * slope_ftft ** 0.5 / n  # Eq. 3-4
    return length_ft / (60.0 * v)  # Eq. 3-1


def stage_storage_ft3(elev_ft: float, elevs_ft, areas_ft2, *, conic: bool = False) -> float:
    r"""Storage at ``elev_ft`` from a stage-area table (HydroCAD custom stage data).

    Between rows the surface area is interpolated linearly in elevation. Each slice holds
    :math:`(A_1 + A_2) h / 2` (average end area, "Prismatic") or
    :math:`h (A_1 + A_2 + \sqrt{A_1 A_2}) / 3` (frustum, "Conic").

    Parameters
    ----------
    elev_ft : float
        Elevation; below the first row the storage is 0. [ft]
    elevs_ft, areas_ft2 : array_like
        The table's rows (elevations increasing). [ft], [ft2]
    conic : bool, default False
        Frustum instead of average end area.

    Returns
    -------
    float
        Cumulative storage above the first row. [ft3]

    Raises
    ------
    InputError
        Elevations not increasing, or ``elev_ft`` above the top row.

    References
    ----------
    .. [1] HydroCAD Stormwater Modeling System Owner's Manual, v10 (2011): custom stage
       data, Prismatic (average end area) and Conic (frustum) calculation.
    """
    e = np.asarray(elevs_ft, dtype=float)
    a = np.asarray(areas_ft2, dtype=float)
    if np.any(np.diff(e) <= 0):
        raise InputError(f"elevations must increase; got {e.tolist()}")
    if elev_ft > e[-1] + 1e-9:
        raise InputError(f"elevation must be <= the top row {e[-1]}; got {elev_ft}")
    total = 0.0
    for k in range(len(e) - 1):
        if elev_ft <= e[k]:
            break
        top = min(elev_ft, e[k + 1])
        a2 = a[k] + (a[k + 1] - a[k]) * (top - e[k]) / (e[k + 1] - e[k])
        h = top - e[k]
        if conic:
            total += h * (a[k] + a2 + math.sqrt(a[k] * a2)) / 3.0
        else:
            total += h * (a[k] + a2) / 2.0
    return float(total)


def orifice_flow_cfs(c: float, area_ft2: float, head_ft: float) -> float:
    r"""Orifice flow :math:`Q = C A \sqrt{2 g h}` (g = 32.2 ft/s2) [cfs].

    References
    ----------
    .. [1] USBR, Water Measurement Manual, 3rd ed., 2001, Chapter 9 (orifices).

    Examples
    --------
    >>> round(orifice_flow_cfs(0.6, 0.012272, 0.37), 4)
    0.0359
    """
    return c * area_ft2 * math.sqrt(2.0 * GRAVITY_FT_S2 * max(head_ft, 0.0))


def weir_flow_cfs(c: float, length_ft: float, head_ft: float) -> float:
    r"""Rectangular weir flow :math:`Q = C L h^{1.5}` with the printed C and L [cfs].

    References
    ----------
    .. [1] USBR, Water Measurement Manual, 3rd ed., 2001, Chapter 7 (rectangular weirs).

    Examples
    --------
    >>> weir_flow_cfs(3.0, 2.0, 1.0)
    6.0
    """
    return c * length_ft * max(head_ft, 0.0) ** 1.5


# -- the audit of a submitted.json ------------------------------------------------------------

def _num(text) -> float:
    return float(str(text).replace(",", ""))


def _half(printed: str) -> float:
    """Half a unit in the last printed digit."""
    text = str(printed).split()[0]
    dec = len(text.split(".", 1)[1]) if "." in text else 0
    return 0.5 * 10.0 ** (-dec)


@dataclasses.dataclass
class InputAudit:
    """Findings, counts of checked values and the values that could not be checked.

    Attributes
    ----------
    findings : list of dict
        ``node``, ``quantity``, ``item``, ``unit``, ``submitted``, ``printed``,
        ``recomputed``, ``tolerance``, ``reference``, ``severity`` ("error" or "warning"),
        ``message``.
    checked : dict
        Quantity -> number of printed values found, mapped and recomputed.
    not_checked : list of dict
        ``node``, ``quantity``, ``item``, ``reason``.
    """

    findings: list = dataclasses.field(default_factory=list)
    checked: dict = dataclasses.field(
        default_factory=lambda: {q: 0 for q in AUDIT_QUANTITIES})
    not_checked: list = dataclasses.field(default_factory=list)

    @property
    def errors(self) -> list:
        """Findings of severity ``error``."""
        return [f for f in self.findings if f["severity"] == "error"]

    def to_dict(self) -> dict:
        """``findings``, ``checked`` and ``not_checked``, JSON-ready."""
        return {"findings": list(self.findings), "checked": dict(self.checked),
                "not_checked": list(self.not_checked)}

    def check(self, node, quantity, item, unit, printed, submitted, recomputed, tolerance,
              reference, message) -> None:
        """Count one recomputed value; record a finding when beyond ``tolerance``."""
        self.checked[quantity] += 1
        if abs(submitted - recomputed) > tolerance + 1e-9:
            self.findings.append({
                "node": node, "quantity": quantity, "item": item, "unit": unit,
                "submitted": float(submitted), "printed": printed,
                "recomputed": float(recomputed), "tolerance": float(tolerance),
                "reference": reference, "severity": "error", "message": message})

    def skip(self, node, quantity, item, reason) -> None:
        """List a printed value that is not checked, with the reason."""
        self.not_checked.append({"node": node, "quantity": quantity, "item": item,
                                 "reason": reason})


def audit_submitted(submitted: dict) -> InputAudit:
    """Audit the printed inputs of a ``submitted.json`` (see the module notes).

    Parameters
    ----------
    submitted : dict
        The content written by ``hydrocalc import hydrocad``.

    Returns
    -------
    InputAudit
    """
    audit = InputAudit()
    listings = submitted.get("listings") or {}
    _audit_area_listing(audit, listings)
    for nid, node in (submitted.get("nodes") or {}).items():
        cut = bool(node.get("truncated"))
        if cut and node.get("kind") != "subcatchment":  # numbers cut by the end of the text
            audit.skip(nid, "", "node", "the text ends inside this node's summary")
            continue
        tables = node.get("area_tables") or ([{
            "covers": node["covers"], "weighted_printed": node.get("weighted_printed"),
            "ui_adjusted": bool(node.get("ui_adjusted_table"))}] if node.get("covers") else [])
        if tables:  # a row cut by the end of the text names no table row: never checked
            _audit_covers(audit, nid, tables)
        tc_tables = node.get("tc_tables") or ([node["tc_table"]] if node.get("tc_table") else [])
        if cut:  # the last segment of a Tc table without its Total may be cut
            tc_tables = [t if t.get("total") else {**t, "segments": t["segments"][:-1]}
                         for t in tc_tables]
            audit.skip(nid, "tc_segment_min", "last segment",
                       "the text ends inside this node's Tc table")
        if tc_tables:
            _audit_tc(audit, nid, tc_tables)
        if node.get("kind") == "pond":
            _audit_storage(audit, nid, node, submitted.get("results") or [])
            _audit_devices(audit, nid, node)
    return audit


def _cover_finding(audit, node, description, printed_cn) -> None:
    if printed_cn is None or not re.fullmatch(r"\d{1,3}", str(printed_cn)):
        audit.skip(node, "cover_cn", description, f"no CN printed (got {printed_cn!r})")
        return
    cn, ref, reason = cover_table_cn(description)
    if cn is None:
        audit.skip(node, "cover_cn", description, reason)
        return
    sub = float(printed_cn)
    audit.check(node, "cover_cn", description, "", str(printed_cn), sub, cn, 0.0, ref,
                f"CN {printed_cn} printed for '{description}'; {ref} gives {cn:g}")


def _audit_area_listing(audit: InputAudit, listings: dict) -> None:
    """Each Area Listing: its rows' CNs and the CN of its TOTAL AREA (when printed)."""
    pages = listings.get("area_listings") or (
        [{"rows": listings["area"], "total_cn": listings.get("area_total_cn")}]
        if listings.get("area") else [])
    seen: set = set()
    for page in pages:
        rows = page["rows"]
        for r in rows:
            key = (r["description"], r["cn"])
            if key not in seen:
                seen.add(key)
                _cover_finding(audit, "Area Listing", r["description"], r["cn"])
        total_cn = page.get("total_cn")
        if total_cn is None or not rows:
            continue
        rec = weighted_cn([r["area"] for r in rows], [r["cn"] for r in rows])
        audit.check("Area Listing", "weighted_cn", "TOTAL AREA", "", str(total_cn),
                    float(total_cn), rec, WEIGHTED_CN_TOL, "TR-55 Chapter 2 (weighted CN)",
                    f"TOTAL AREA CN {total_cn} printed; the area-weighted mean of the "
                    f"{len(rows)} printed rows is {rec:.2f}")


def _audit_covers(audit: InputAudit, nid: str, tables: list) -> None:
    """Each distinct printed cover row and weighted CN of a node's area tables.

    One table is printed per storm: a value differing in one copy is checked in that copy.
    """
    seen: set = set()
    for table in tables:
        for c in table["covers"]:
            key = (c["description"], c["cn_printed"])
            if key not in seen:
                seen.add(key)
                _cover_finding(audit, nid, c["description"], c["cn_printed"])
    for table in tables:
        _audit_weighted(audit, nid, table)


def _audit_weighted(audit: InputAudit, nid: str, table: dict) -> None:
    covers = table["covers"]
    wp = table.get("weighted_printed")
    if not wp:
        return
    if table.get("ui_adjusted"):
        audit.skip(nid, "weighted_cn", "Weighted Average",
                   "UI Adjusted: the CN is adjusted for unconnected impervious area "
                   "(TR-55 Fig. 2-4), not the weighted mean of the rows")
        return
    usable = [c for c in covers if re.fullmatch(r"\d{1,3}", str(c["cn_printed"]))]
    if len(usable) != len(covers) or not usable:
        audit.skip(nid, "weighted_cn", "Weighted Average", "a row prints no CN")
        return
    rec = weighted_cn([_num(c["area_printed"]) for c in usable],
                      [float(c["cn_printed"]) for c in usable])
    audit.check(nid, "weighted_cn", "Weighted Average", "", wp["cn"], float(wp["cn"]), rec,
                WEIGHTED_CN_TOL, "TR-55 Chapter 2 (weighted CN)",
                f"Weighted Average CN {wp['cn']} printed; the area-weighted mean of the "
                f"{len(usable)} printed rows is {rec:.2f}")


def _value(pattern: str, text: str) -> float | None:
    m = re.search(pattern, text)
    return _num(m.group(1)) if m else None


def _segment_time(seg: dict) -> tuple[float | None, str, str]:
    """(recomputed min, reference, reason not checked) of one printed Tc segment."""
    kind, desc = seg["type"], seg["description"]
    nums = seg["numbers"]
    if kind in ("Direct Entry", "Lag/CN Method"):
        return None, "", f"{kind}: no equation to recompute"
    if kind == "Lake or Reservoir":
        return None, "", "Lake or Reservoir: not checked"
    if len(nums) < 3:
        return None, "", "length, slope and velocity not printed"
    length, slope = _num(nums[0]), _num(nums[1])
    if length <= 0 or slope <= 0:
        return None, "", "length or slope not > 0"
    if kind == "Sheet Flow":
        n = _value(r"\bn= ?(\d*\.\d+)", desc)
        p2 = _value(r"\bP2= ?(\d+(?:\.\d+)?)\"?", desc)
        if n is None or p2 is None or n <= 0 or p2 <= 0:
            return None, "", "sheet flow without a printed n and P2"
        return sheet_flow_time_min(n, length, slope, p2), "TR-55 eq. 3-3", ""
    if kind == "Shallow Concentrated Flow":
        m = re.search(r"\b(Unpaved|Paved) Kv= ?\d", desc)
        if m:
            k = SHALLOW_K_FPS[m.group(1).lower()]
            return shallow_flow_time_min(length, slope, k), "TR-55 App. F", ""
        kv = _value(r"\bKv= ?(\d+(?:\.\d+)?)", desc)
        if kv is None or kv <= 0:
            return None, "", "shallow concentrated flow without a printed Kv"
        return (shallow_flow_time_min(length, slope, kv),
                "TR-55 eq. 3-1 (V = Kv s^0.5, printed Kv)", "")
    n = _value(r"\bn= ?(\d*\.\d+)", desc)
    pipe = re.search(r"(\d+(?:\.\d+)?)\" Round", desc) if kind == "Pipe Channel" else None
    area = _value(r"\bArea= ?(\d[\d,]*(?:\.\d+)?) sf", desc)
    perim = _value(r"\bPerim= ?(\d[\d,]*(?:\.\d+)?)'", desc)
    if n is None or n <= 0:
        return None, "", f"{kind} without a printed n"
    if pipe:  # a full round pipe: r = D/4 (its printed Area is rounded to 0.1 sf)
        d_ft = _num(pipe.group(1)) / 12.0
        area, perim = math.pi * d_ft ** 2 / 4.0, math.pi * d_ft
    if area is None or perim is None or area <= 0 or perim <= 0:
        return None, "", f"{kind} without a printed Area and Perim"
    return (channel_flow_time_min(length, slope, n, area, perim),
            "Manning's equation (TR-55 eq. 3-4)", "")


def _audit_tc(audit: InputAudit, nid: str, tables: list) -> None:
    """Each distinct printed Tc segment and total of a node's Tc tables (one per storm)."""
    seen: set = set()
    for table in tables:
        _audit_tc_table(audit, nid, table, seen)


def _audit_tc_table(audit: InputAudit, nid: str, table: dict, seen: set) -> None:
    segs = table.get("segments") or []
    for i, seg in enumerate(segs, start=1):
        item = f"segment {i}: {seg['type']}"
        key: tuple = (i, seg["type"], seg["printed"], tuple(seg["numbers"]),
                      seg["description"])
        if key in seen:
            continue
        seen.add(key)
        rec, ref, reason = _segment_time(seg)
        if rec is None:
            audit.skip(nid, "tc_segment_min", item, reason)
            continue
        sub = _num(seg["printed"])
        tol = TC_ABS_TOL_MIN + TC_RTOL * rec
        audit.check(nid, "tc_segment_min", item, "min", seg["printed"], sub, rec, tol, ref,
                    f"{seg['type']} time {seg['printed']} min printed; {ref} with the printed "
                    f"inputs gives {rec:.2f} min")
        if seg["type"] == "Sheet Flow" and seg["numbers"] and \
                _num(seg["numbers"][0]) > SHEET_FLOW_LIMIT_FT:
            audit.findings.append({  # advisory: not an input error
                "node": nid, "quantity": "tc_segment_min", "item": item, "unit": "min",
                "submitted": sub, "printed": seg["printed"], "recomputed": float(rec),
                "tolerance": float(tol), "reference": "NEH 630 Ch. 15 (2010)",
                "severity": "warning",
                "message": f"sheet flow over {seg['numbers'][0]} ft: NEH 630 Ch. 15 limits "
                           f"sheet flow to {SHEET_FLOW_LIMIT_FT:g} ft (TR-55 1986: 300 ft)"})
    total = table.get("total")
    key = ("total", total and total["printed"], tuple(s["printed"] for s in segs))
    if total and segs and key not in seen:
        seen.add(key)
        rec = sum(_num(s["printed"]) for s in segs)
        tol = TC_ABS_TOL_MIN * (len(segs) + 1)
        audit.check(nid, "tc_total_min", "Total", "min", total["printed"],
                    _num(total["printed"]), rec, tol, "TR-55 eq. 3-2",
                    f"Tc Total {total['printed']} min printed; the printed segment times add "
                    f"up to {rec:.1f} min")


def _volume_tables(audit: InputAudit, nid: str, node: dict) -> list[dict] | None:
    """Each custom-stage volume with its table in ft and ft2/ft3; None when not all map."""
    volumes = node.get("storage") or []
    tables = node.get("stage_tables") or []
    listed = [v for v in volumes if "Listed below" in v.get("description", "")]
    if not tables:
        return None
    if len(listed) != len(tables):
        for t in tables:
            audit.skip(nid, "storage_ft3", f"{t['rows'][-1][0]}'",
                       "the stage tables cannot be matched to the printed storage volumes")
        return None
    out = []
    for v, t in zip(listed, tables, strict=False):
        desc = v["description"]
        conic = "(Conic)" in desc
        cols = t["columns"]
        top = f"{t['rows'][-1][0]}'"
        if not (conic or "(Prismatic)" in desc) or "Surf.Area" not in cols \
                or "Cum.Store" not in cols:
            for r in t["rows"]:
                audit.skip(nid, "storage_ft3", f"{r[0]}'",
                           f"volume #{v['volume']} is not Prismatic or Conic custom stage "
                           "data with surface areas")
            continue
        ia, ic = cols.index("Surf.Area"), cols.index("Cum.Store")
        fa = _SF_PER_AC if t["units"][ia] == "acres" else 1.0
        fs = _SF_PER_AC if t["units"][ic] == "acre-feet" else 1.0
        rows = t["rows"]
        elevs = [_num(r[0]) for r in rows]
        if any(b <= a for a, b in itertools.pairwise(elevs)):
            audit.skip(nid, "storage_ft3", top, "the stage table's elevations do not increase")
            continue
        out.append({"volume": v, "conic": conic, "elevs": elevs, "top": top,
                    "areas": [_num(r[ia]) * fa for r in rows],
                    "cum_printed": [r[ic] for r in rows], "fs": fs,
                    "elev_printed": [r[0] for r in rows],
                    "suffix": " af" if fs > 1 else "", "voids": _voids(desc)})
    return out if len(out) == len(listed) else None


def _voids(description: str) -> float:
    """The void fraction of a volume printed ``... Overall x 40.0% Voids`` (1 when none)."""
    m = re.search(r"x ?(\d+(?:\.\d+)?) ?% Voids", description)
    return _num(m.group(1)) / 100.0 if m else 1.0


def _audit_storage(audit: InputAudit, nid: str, node: dict, results: list) -> None:
    """Cum.Store rows, Avail.Storage and the storage at each printed peak elevation.

    The storage volumes and stage tables are printed once per storm; each distinct printed
    value is checked once.
    """
    copies = node.get("storage_copies") or [
        {"storage": node.get("storage") or [], "stage_tables": node.get("stage_tables") or []}]
    seen: set = set()
    vols = None
    for copy in copies:
        got = _volume_tables(audit, nid, copy)
        if got is None:
            continue
        if vols is None and len(got) == len(copy.get("storage") or []):
            vols = got  # every storage volume is mapped: the peak storage can be checked
        for k, v in enumerate(got):
            _audit_volume(audit, nid, k, v, seen)
    peaks = node.get("peak_storages")
    if peaks is None:  # a submitted.json written before the printed copies were kept
        peaks = _peaks_from_results(nid, results)
    if vols is None:
        for pk in peaks:
            audit.skip(nid, "storage_ft3", f"{pk['elevation']}'",
                       "not every storage volume is custom stage data with surface areas")
        return
    ref = "average end area / frustum of the printed stage tables"
    for pk in peaks:
        key = ("peak", pk["elevation"], pk["storage"], pk["unit"])
        if key in seen:  # printed in the runoff listing and in the pond summary
            continue
        seen.add(key)
        elev = _num(pk["elevation"])
        item = f"{pk['elevation']}'"
        if any(elev > v["elevs"][-1] + 1e-9 for v in vols):
            audit.skip(nid, "storage_ft3", item, "the peak elevation is above a stage table")
            continue
        rec = sum(v["voids"] * stage_storage_ft3(elev, v["elevs"], v["areas"], conic=v["conic"])
                  for v in vols)
        f = _SF_PER_AC if pk["unit"] == "af" else 1.0
        printed = pk["storage"] + (" af" if f > 1 else "")
        _storage_check(audit, nid, item, printed, _num(pk["storage"]) * f, f, rec, ref, "",
                       f"Storage= of Peak Elev= ({pk['storm']})")


def _peaks_from_results(nid: str, results: list) -> list[dict]:
    by_storm: dict = {}
    for r in results:
        if r.get("node") == nid and r.get("quantity") in ("peak_elevation_ft",
                                                            "peak_storage_ft3"):
            by_storm.setdefault(r.get("hydrocad_storm") or r.get("storm"), {})[
                r["quantity"]] = r
    out = []
    for storm, pair in by_storm.items():
        if len(pair) == 2:
            stor = pair["peak_storage_ft3"]
            unit = "af" if abs(stor["value"] - _num(stor["printed"])) > 1e-6 else "cf"
            out.append({"storm": storm, "elevation": pair["peak_elevation_ft"]["printed"],
                        "storage": stor["printed"], "unit": unit})
    return out


def _audit_volume(audit: InputAudit, nid: str, k: int, v: dict, seen: set) -> None:
    ref = ("frustum (HydroCAD Conic)" if v["conic"] else "average end area (HydroCAD Prismatic)")
    for e, e_text, printed in zip(v["elevs"], v["elev_printed"], v["cum_printed"], strict=False):
        item = f"{e_text}'"
        key: tuple = (k, "row", tuple(v["elev_printed"]), tuple(v["areas"]), e_text, printed)
        if key in seen:
            continue
        seen.add(key)
        rec = stage_storage_ft3(e, v["elevs"], v["areas"], conic=v["conic"])
        _storage_check(audit, nid, item, printed, _num(printed) * v["fs"], v["fs"], rec,
                       ref, v["suffix"], "Cum.Store")
    avail = v["volume"].get("available_printed")
    key = (k, "avail", tuple(v["elev_printed"]), tuple(v["areas"]), avail)
    if avail and key not in seen:
        seen.add(key)
        num, unit = avail.split()
        f = _SF_PER_AC if unit == "af" else 1.0
        rec = v["voids"] * stage_storage_ft3(v["elevs"][-1], v["elevs"], v["areas"],
                                             conic=v["conic"])
        _storage_check(audit, nid, v["top"], num + (" af" if f > 1 else ""),
                       _num(num) * f, f, rec, ref, "", "Avail.Storage")


def _storage_check(audit, nid, item, printed, submitted, factor, rec, ref, suffix,
                   what) -> None:
    """Check one printed storage (``printed`` as printed, `` af`` appended when in af)."""
    tol = _half(printed) * factor + STORAGE_RTOL * rec
    text = printed + suffix
    shown = text if text.endswith(" af") else f"{text} cf"
    audit.check(nid, "storage_ft3", item, "ft3", text, submitted, rec, tol, ref,
                f"{what} {shown} printed at {item}; the printed elevations and surface areas "
                f"give {rec:,.0f} cf ({ref})")


_ORIF_ROUND = re.compile(r"(?P<d>\d+(?:\.\d+)?)\" (?:Round )?(?P<o>Vert|Horiz)\. Orifice/Grate")
_ORIF_RECT = re.compile(r"(?P<w>\d+(?:\.\d+)?)\" ?W? ?x ?(?P<h>\d+(?:\.\d+)?)\" ?H? "
                        r"(?P<o>Vert|Horiz)\. Orifice/Grate")


def _device_flow(dev: dict, flow: dict, hw: float) -> tuple[float | None, str, str]:
    """(recomputed cfs, reference, reason not checked) of one device at the printed HW."""
    desc = dev["description"]
    invert = dev["invert_elev_ft"]
    if "Culvert" in desc or "Culvert" in flow.get("type", ""):
        return None, "", "culvert: HydroCAD's culvert procedure is not FHWA HDS-5"
    if hw - invert <= 0:
        return None, "", "HW at or below the device invert"
    c = _value(r"\bC= ?(\d*\.\d+)", desc)
    eq = flow.get("equation")
    rect, rnd = _ORIF_RECT.search(desc), _ORIF_ROUND.search(desc)
    if rect or rnd:
        if eq != "Orifice":
            return None, "", (f"the analysis line says {eq or 'no'} Controls: the weir "
                              "coefficient is not printed")
        if c is None:
            return None, "", "orifice without a printed C"
        if re.search(r"Orifice/Grate X \d+(?:\.\d+)? ?(?:columns )?X \d+ rows", desc):
            return None, "", "orifice rows at different heads"
        cm = re.search(r"Orifice/Grate X (\d+(?:\.\d+)?)", desc)
        count = _num(cm.group(1)) if cm else 1.0
        if rect:
            w_ft, h_ft, o = _num(rect.group("w")) / 12, _num(rect.group("h")) / 12, rect["o"]
            area = w_ft * h_ft
        elif rnd:  # always: rect or rnd matched
            d_ft, o = _num(rnd.group("d")) / 12, rnd["o"]
            area, h_ft = math.pi * d_ft ** 2 / 4.0, d_ft
        if o == "Vert":
            if hw < invert + h_ft:
                return None, "", "vertical orifice not submerged at the printed HW"
            head = hw - (invert + h_ft / 2.0)
            where = "above the centroid"
        else:
            head = hw - invert
            where = "above the invert"
        return (count * orifice_flow_cfs(c, area, head),
                f"orifice Q = C A (2 g h)^0.5, h {where}", "")
    lm = re.search(r"(\d+(?:\.\d+)?)' long", desc)
    if lm and "Weir" in desc:
        ends = re.search(r"(\d) End Contraction", desc)
        if c is None or "Coef." in desc or "Cv=" in desc or len(re.findall(r"\bC=", desc)) > 1:
            return None, "", "weir coefficient not printed as one C"
        if ends and int(ends.group(1)) > 0:
            return None, "", "end contractions: the effective length is not printed"
        if eq not in (None, "Weir"):
            return None, "", f"the analysis line says {eq} Controls"
        return weir_flow_cfs(c, _num(lm.group(1)), hw - invert), "weir Q = C L h^1.5", ""
    return None, "", "device type not audited"


def _audit_devices(audit: InputAudit, nid: str, node: dict) -> None:
    devices = {d["device"]: d for d in node.get("devices") or []}
    for om in node.get("outflow_max") or []:
        if om.get("outflow") != "Primary":
            continue
        hw, tw = om["hw_elev_ft"], om.get("tw_elev_ft")
        for flow in om.get("devices") or []:
            item = f"#{flow['device']}"
            dev = devices.get(flow["device"])
            if dev is None or flow.get("printed") is None:
                audit.skip(nid, "discharge_cfs", item, "device not printed in the device table")
                continue
            if tw is not None and tw > dev["invert_elev_ft"]:
                audit.skip(nid, "discharge_cfs", item, "tailwater above the device invert")
                continue
            rec, ref, reason = _device_flow(dev, flow, hw)
            if rec is None:
                audit.skip(nid, "discharge_cfs", item, reason)
                continue
            printed = flow["printed"] if flow.get("status") == "controls" else None
            if printed is None:
                audit.skip(nid, "discharge_cfs", item, "no controlling flow printed")
                continue
            tol = _half(printed) + DISCHARGE_RTOL * rec
            audit.check(nid, "discharge_cfs", item, "cfs", printed, _num(printed), rec, tol,
                        ref, f"device {item} flow {printed} cfs printed at HW={hw:g}'; "
                             f"{ref} gives {rec:.3g} cfs")
