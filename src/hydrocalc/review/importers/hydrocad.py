"""Read the text of a printed HydroCAD report: storms, nodes, inputs and printed results.

A HydroCAD report reaches a reviewer as a PDF. Its text layer (or text extracted from it by a
web viewer) is the input here; :func:`report_text` extracts it from a PDF with ``pypdfium2``
(the ``report`` extra). :func:`parse_report` turns the text into a :class:`HydroCADReport`:
what was printed, by node and storm, and what could not be read.

What is read
------------
* the page footer (``HydroCAD® 10.00-16 s/n ... © 2015 HydroCAD Software Solutions LLC``:
  the program version; also OCR'd, ``HydroCAD®8.50 s/n 000476 @2007 ...``), the
  ``Prepared by ...`` line and the routing diagram title (``Drainage Diagram for NAME``);
* the rainfall events from the page headers (``Type II 24-hr 2 YR Rainfall=2.80"``); the
  NRCS Type I/IA/II/III storms and HydroCAD's ``NOAA 24-hr A``-``D`` and ``NRCC 24-hr A``-``D``
  storms map to hydrocalc's distributions of the same shape (``"II"``, ``"NOAA_D"``,
  ``"NRCC_C"``...); other types (``MSE 24-hr 3``, user storms) are listed as not imported;
* the calculation settings (``Time span=0.00-72.00 hrs, dt=0.10 hrs``, ``Runoff by SCS TR-20
  method, UH=SCS``, reach and pond routing methods);
* the one-line-per-node "runoff listing" of each storm (``Subcatchment FT4.1: ... Tc=19.6 min
  CN=83 Runoff=1.43 cfs 0.109 af``, ``Pond P1: ... Peak Elev=... Storage=... Inflow=...``,
  ``Reach 1R: ... Inflow=... Outflow=...``);
* each "Summary for Subcatchment / Reach / Pond" section: area, CN, Tc, method, storm and
  results; for ponds the storage volumes, the stage table, the device table and the device
  analysis printed under it (``Primary OutFlow Max=... HW=... TW=...`` and each device's
  flow, kept as ``outflow_max``);
* for the input audit (:mod:`hydrocalc.review.importers.hydrocad_audit`): every Area Listing
  with its ``TOTAL AREA`` CN, each subcatchment's cover rows (``*`` marks kept) and every row
  of its Tc table (``tc_table``), every custom stage table of a pond (``stage_tables``) and
  its printed peak storages; each distinct per-storm copy of these tables is kept
  (``area_tables``, ``tc_tables``, ``storage_copies``, ``peak_storages``).

Extraction damage it copes with: lost line breaks (the text is read as one stream of words),
``<br />`` separators, repeated page headers and footers, thousands separators (``254,589
sf``), numbers run into words (``9.77435Brush``), split words (``Orif i ce/G rate``), ``of``
for ``af`` after a volume and ``HydroCADO`` for ``HydroCAD®``. Fields are found by their
printed labels, not by position, so a listing whose fields were reordered by the extraction
(``Runoff Area=... Runoff Depth=..."Subcatchment FT4.1: ...``) is read too.

It never guesses: a value that is not printed is not invented, and a record cut by the end
of the text makes the report *truncated* (:attr:`HydroCADReport.truncated`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import re

from hydrocalc.errors import InputError
from hydrocalc.input_file import read_input_bytes

__all__ = ["HydroCADReport", "parse_report", "read_report", "report_text"]

#: Largest HydroCAD report read (a report of several hundred pages is a few MB).
MAX_REPORT_BYTES = 100 * 1024 * 1024

_NUM = r"\d[\d,]*(?:\.\d+)?"
_STORM_RE = re.compile(
    r"(?P<dist>Type (?:IA|III|II|I) 24-hr|(?:NOAA10|NOAA|NRCC|MSE) 24-hr [A-D1-6]|"
    r"[A-Z][\w-]{0,15} "
    r"24-hr) (?P<name>[^\"=]{0,30}?) ?Rainfall=(?P<depth>\d+(?:\.\d+)?)\"")
# HydroCAD storm types hydrocalc reproduces (rainfall.design_storm distributions): the NRCS
# Type I/IA/II/III, and HydroCAD's "NOAA 24-hr A-D" and "NRCC 24-hr A-D", the NRCS
# distributions drawn from NOAA Atlas 14 and NRCC depths (shipped as NOAA_A-D, NRCC_A-D).
_NRCS_TYPES = {"Type I 24-hr": "I", "Type IA 24-hr": "IA", "Type II 24-hr": "II",
               "Type III 24-hr": "III",
               **{f"{fam} 24-hr {x}": f"{fam}_{x}" for fam in ("NOAA", "NRCC") for x in "ABCD"}}
_SECTION_RE = re.compile(r"Summary for (?P<kind>Subcatchment|Reach|Pond|Link) ?(?P<id>[^\s:]+): ?")
# The copyright sign may be OCR'd as "@" or "0" ("@2007", "02009") or lost.
_FOOTER_RE = re.compile(
    r"HydroCAD®? ?(?P<version>\d+\.\d+(?:-\w+)?) ?(?:s/ ?n|S/N|sin) ?\S+ "
    r"(?:[©@]|\(c\)|0)? ?\d{4} ?"
    r"HydroCAD Software Solutions ?LLC(?: ?Page ?\d+)?")
_PREPARED_RE = re.compile(
    r"Prepared by (?P<by>.{1,80}?),? ?(?:Printed )?(?P<date>\d{1,2}/\d{1,2}/\d{4})")
_SPLIT_WORDS = ("Orifice", "Grate", "Culvert", "Exfiltration", "Discarded", "Primary",
                "Secondary", "Subcatchment", "Summary", "Outflow", "Inflow", "Impervious",
                "Weighted", "Average")


def _num(text: str) -> float:
    """A printed number without its thousands separators."""
    return float(text.replace(",", ""))


def _decimals(text: str) -> int:
    """Decimals printed in ``text`` (``"1.290"`` -> 3, ``"254,589"`` -> 0)."""
    return len(text.split(".", 1)[1]) if "." in text else 0


@dataclasses.dataclass
class HydroCADReport:
    """What a HydroCAD report prints, read from its text.

    Attributes
    ----------
    source : str
        File name of the report.
    sha256 : str
        Hash of the file read.
    version : str or None
        HydroCAD version from the page footer (``"7.10"``, ``"10.00-16"``).
    project, preparer, printed : str or None
        Diagram title, ``Prepared by`` name and print date.
    storms : dict
        HydroCAD event name -> ``{"distribution_printed", "distribution", "precip_in"}``
        (``distribution`` is the hydrocalc name, None when not an NRCS 24-hour type).
    settings : dict
        ``time_span_hr``, ``dt_hr``, ``runoff_method``, ``unit_hydrograph``,
        ``reach_routing``, ``pond_routing`` as printed (keys absent when not printed).
    nodes : dict
        Node id -> dict with ``kind`` (subcatchment, pond, reach, link), ``name`` and the
        inputs read (``area_ac``, ``cn_printed``, ``tc_min``, ``method``, ``storage``,
        ``devices``, ...).
    results : list of dict
        One row per printed result: ``node``, ``kind``, ``storm`` (HydroCAD event name),
        ``quantity`` (``peak_cfs``, ``time_of_peak_hr``, ``volume_acft``, ``runoff_in``,
        ``inflow_peak_cfs``, ``inflow_volume_acft``, ``peak_elevation_ft``,
        ``peak_storage_ft3``, ...), ``value``, ``decimals`` (printed), ``where``.
    problems : list of str
        Things printed that could not be read (each names the node and the field).
    listings : dict
        ``area``: rows of the "Area Listing" (``area``, ``unit``, ``cn``, ``description``,
        ``subcatchments``) and ``area_total``; ``soil``: rows of the "Soil Listing"
        (``area``, ``unit``, ``group``, ``subcatchments``). As printed, for the reviewer.
    truncated : str or None
        Why the text is considered cut short (a record cut by the end of the text).
    """

    source: str
    sha256: str
    version: str | None = None
    project: str | None = None
    preparer: str | None = None
    printed: str | None = None
    storms: dict = dataclasses.field(default_factory=dict)
    settings: dict = dataclasses.field(default_factory=dict)
    nodes: dict = dataclasses.field(default_factory=dict)
    results: list = dataclasses.field(default_factory=list)
    problems: list = dataclasses.field(default_factory=list)
    truncated: str | None = None
    listings: dict = dataclasses.field(default_factory=dict)

    def add_result(self, node, kind, storm, quantity, text, where, *, factor=1.0, unit_dec=0):
        """Record one printed value (``text`` as printed; ``factor`` converts its unit)."""
        value = _num(text) * factor
        row = {"node": node, "kind": kind, "storm": storm, "quantity": quantity,
               "value": value, "printed": text, "decimals": _decimals(text) + unit_dec,
               "where": where}
        key = (node, storm, quantity)
        for old in self.results:
            if (old["node"], old["storm"], old["quantity"]) == key:
                if abs(old["value"] - value) > 1e-9 * max(1.0, abs(value)):
                    self.problems.append(
                        f"{kind} {node}, storm {storm!r}: {quantity} printed twice with "
                        f"different values ({old['printed']} and {text})")
                return
        self.results.append(row)


# -- text --------------------------------------------------------------------------------

def report_text(path: str | pathlib.Path) -> tuple[str, str]:
    """Text of a HydroCAD report file (PDF or text) and the file's sha256.

    Parameters
    ----------
    path : str or pathlib.Path
        A PDF (text layer extracted with ``pypdfium2``) or a UTF-8 text file.

    Returns
    -------
    text, sha256 : str

    Raises
    ------
    InputError
        The file cannot be read, is an encrypted or damaged PDF, has no text layer
        (a scanned, image-only PDF), or is not UTF-8 text.
    """
    p = pathlib.Path(path)
    data = read_input_bytes(p, what="HydroCAD report", max_bytes=MAX_REPORT_BYTES)
    digest = hashlib.sha256(data).hexdigest()
    if data[:5] == b"%PDF-":
        return _pdf_text(p), digest
    try:
        return data.decode("utf-8-sig"), digest
    except UnicodeDecodeError as exc:
        raise InputError(f"{p}: expected a HydroCAD report as a PDF or as UTF-8 text; byte "
                         f"{exc.start} is not UTF-8 ({exc.reason}).") from None


def _pdf_text(p: pathlib.Path) -> str:
    try:
        import pypdfium2 as pdfium
    except ImportError:  # pragma: no cover - the report extra is installed in CI
        raise InputError(f"{p}: reading a PDF needs pypdfium2 (pip install "
                         "'hydrocalc[report]'), or give the report's text instead.") from None
    try:
        pdf = pdfium.PdfDocument(str(p))
    except pdfium.PdfiumError as exc:
        msg = str(exc)
        if "password" in msg.lower():
            raise InputError(f"{p}: the PDF is encrypted (password protected); expected an "
                             "unprotected HydroCAD report. Ask for an unprotected copy or "
                             "give its text.") from None
        raise InputError(f"{p}: not a readable PDF ({msg}); expected a HydroCAD report "
                         "PDF.") from None
    try:
        pages = []
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            pages.append(textpage.get_text_range())
            textpage.close()
            page.close()
    finally:
        pdf.close()
    text = "\n".join(pages)
    if not text.strip():
        raise InputError(f"{p}: the PDF has no text layer ({len(pages)} page(s), images "
                         "only: a scan?); expected a HydroCAD report printed to PDF. Run OCR "
                         "on it first or ask for the report as printed by HydroCAD.")
    return text


def _normalize(text: str) -> str:
    """One stream of words with the extraction damage repaired (see the module notes).

    Lines starting with ``#`` before the report's text are comments (a reviewer's note of
    where the text came from) and are dropped.
    """
    lines = text.splitlines()
    while lines and (lines[0].startswith("#") or not lines[0].strip()):
        lines.pop(0)
    text = "\n".join(lines)
    t = re.sub(r"<br\s*/?>", " ", text, flags=re.IGNORECASE)
    t = t.replace("\u00a0", " ").replace("\u2019", "'").replace("\u201d", '"')
    t = re.sub(r"HydroCAD(?:O|\(R\)|®|@(?= ?\d))", "HydroCAD®", t)
    for word in _SPLIT_WORDS:  # "Orif i ce" -> "Orifice"
        pattern = r"\b" + r" ?".join(re.escape(c) for c in word) + r"\b"
        t = re.sub(pattern, word, t)
    t = re.sub(r"(\d\.\d+) ?of\b", r"\1 af", t)  # "0.029 of" -> "0.029 af"
    t = " ".join(t.split())
    # OCR spacing: "Tc =30.0", "Volume= 0.528", "@12.12", "TR -20", "Stor- Ind +Trans"
    t = re.sub(r" ?= ?", "=", t)
    t = re.sub(r" ?@ ?", " @ ", t)
    t = re.sub(r"(?<=\w) -(?=\w)|(?<=\w)- (?=[A-Za-z])", "-", t)
    t = re.sub(r"(?<=\w) \+(?=\w)", "+", t)
    return t


# -- parsing -----------------------------------------------------------------------------

def read_report(path: str | pathlib.Path, *, allow_partial: bool = False) -> HydroCADReport:
    """Read a HydroCAD report file (PDF or text); see :func:`parse_report`."""
    text, digest = report_text(path)
    return parse_report(text, source=pathlib.Path(path).name, sha256=digest,
                        allow_partial=allow_partial)


def parse_report(text: str, *, source: str = "<text>", sha256: str = "",
                 allow_partial: bool = False) -> HydroCADReport:
    """Parse the text of a HydroCAD report.

    Parameters
    ----------
    text : str
        The report's text (any line breaks; ``<br />`` separators accepted).
    source, sha256 : str
        Recorded in the result.
    allow_partial : bool, default False
        Accept a report with no node section and no runoff listing when it prints an Area
        Listing (inputs a reviewer can audit, :mod:`hydrocalc.review.importers.hydrocad_audit`).

    Returns
    -------
    HydroCADReport

    Raises
    ------
    InputError
        The text is not a HydroCAD report (no HydroCAD page footer, or no node section or
        runoff listing in it and, with ``allow_partial``, no Area Listing either).
    """
    t = _normalize(text)
    rep = HydroCADReport(source=source, sha256=sha256 or hashlib.sha256(
        text.encode()).hexdigest())
    versions = [m.group("version") for m in _FOOTER_RE.finditer(t)]
    if not versions:
        raise InputError(f"{source}: not a HydroCAD report: expected its page footer "
                         "'HydroCAD® <version> s/n ... HydroCAD Software Solutions LLC'.")
    rep.version = versions[0]
    m = re.search(r"Drainage Diagram for (.+?) ?Prepared by", t)
    if m:
        rep.project = m.group(1).strip()
    m = _PREPARED_RE.search(t)
    if m:
        rep.preparer, rep.printed = m.group("by").strip(), m.group("date")
    if rep.project is None:
        m = re.match(r"(\S.{0,80}?) (?=Type \w+ 24-hr|Prepared by)", t)
        if m:
            rep.project = m.group(1).strip()
    # strip footers and prepared-by lines (they interrupt records that span pages)
    t = _FOOTER_RE.sub(" ", t)
    t = _PREPARED_RE.sub(" ", t)
    t = " ".join(t.split())
    storm_pos = []
    for sm in _STORM_RE.finditer(t):
        name = " ".join(sm.group("name").split()) or sm.group("dist")
        printed = sm.group("dist").strip()
        info = {"distribution_printed": printed,
                "distribution": _NRCS_TYPES.get(sm.group("dist").strip()),
                "precip_in": _num(sm.group("depth"))}
        old = rep.storms.setdefault(name, info)
        if old != info:
            rep.problems.append(f"storm {name!r} printed with two definitions "
                                f"({old['distribution_printed']} {old['precip_in']} in and "
                                f"{printed} {info['precip_in']} in)")
        storm_pos.append((sm.start(), name))
    _events_listing(rep, t)
    _area_soil_listings(rep, t)
    spans = [(sm.start(), sm.end()) for sm in _STORM_RE.finditer(t)]
    for rm in re.finditer(r"(?:Type )?\S+-hr [^\"=]{0,30}?Rainfall=\d+(?:\.\d+)?\"", t):
        if not any(a <= rm.start() < b or a < rm.end() <= b for a, b in spans):
            rep.problems.append(f"rainfall event {rm.group(0)!r} could not be read (not a "
                                "HydroCAD storm type line)")
    _settings(rep, t)

    def storm_at(pos: int) -> str | None:
        name = None
        for p, n in storm_pos:
            if p <= pos:
                name = n
            else:
                break
        return name

    _listing(rep, t, storm_at)
    _sections(rep, t, storm_at)
    if not rep.nodes and not (allow_partial and rep.listings.get("area")):
        raise InputError(f"{source}: not a HydroCAD report with results: expected "
                         "'Summary for Subcatchment ...' sections or the runoff listing "
                         "('Subcatchment ID: ... Runoff=... cfs ... af'); found neither.")
    return rep


def _split_ids(text: str | None) -> list[str]:
    return [x.strip() for x in (text or "").split(",") if x.strip()]


_AREA_LISTING_RE = re.compile(
    r"Area Listing \((?:all|selected) nodes\) Area (?:\((acres|sq-ft)\) ?)?CN ?"
    r"Description (?:\((acres|sq-ft)\) )?\((?:subcats|subcatchment- ?numbers)\) "
    r"(.*?)(?=TOTAL AREA|Soil Listing|Ground Covers|$)")


def _area_listing(m: re.Match, t: str) -> dict | None:
    """Rows, TOTAL AREA and its CN (when printed) of one "Area Listing" page."""
    if not (m.group(1) or m.group(2)):
        return None
    unit = "ac" if (m.group(1) or m.group(2)) == "acres" else "sf"
    num = r"\d[\d,]*\.\d{3}" if unit == "ac" else r"\d[\d,]*"
    start = re.compile(r"(?:(?<=^)|(?<= ))(" + num + r") ?(\d{2,3})(?=\D)")
    starts = list(start.finditer(m.group(3)))
    rows: list[dict] = []
    out: dict = {"rows": rows}
    for i, sm in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(m.group(3))
        rest = re.sub(r"(?<=\)) ?\d[\d,.]*$", "", m.group(3)[sm.end():end].strip())
        dm = re.match(r"(.*?) ?(?:\(([^)]*)\)?)?$", rest)
        desc, subs = (dm.group(1), dm.group(2)) if dm else (rest, None)
        if i + 1 == len(starts) and (re.fullmatch(num, rest or "x") or not rest):
            if not rest:  # "14.950 73 TOTAL AREA": the total with its weighted CN
                out["total_cn"] = sm.group(2)
            break
        rows.append({"area": _num(sm.group(1)), "unit": unit, "cn": int(sm.group(2)),
                     "description": desc.strip(), "subcatchments": _split_ids(subs)})
    tm = re.search(r"(" + num + r") ?(?:\d{2,3} )?TOTAL AREA", t[m.start():])
    if tm:
        out["total"] = _num(tm.group(1))
    return out


def _area_soil_listings(rep: HydroCADReport, t: str) -> None:
    """The "Area Listing" and "Soil Listing" pages (information for the reviewer).

    ``listings["area"]``, ``["area_total"]`` and ``["area_total_cn"]`` are the first Area
    Listing; ``listings["area_listings"]`` every distinct one (a submission may hold the
    reports of several HydroCAD projects, e.g. existing and proposed).
    """
    for m in _AREA_LISTING_RE.finditer(t):
        listing = _area_listing(m, t)
        if listing is None:
            continue
        if "area" not in rep.listings:
            rep.listings["area"] = listing["rows"]
            if "total" in listing:
                rep.listings["area_total"] = listing["total"]
            if "total_cn" in listing:
                rep.listings["area_total_cn"] = listing["total_cn"]
        if listing not in rep.listings.setdefault("area_listings", []):
            rep.listings["area_listings"].append(listing)
    soil = re.search(r"Soil Listing \((?:all|selected) nodes\) Area \((acres|sq-ft)\) ?Soil "
                     r"Group Subcatchment Numbers (.*?)(?=TOTAL AREA|$)", t)
    if soil:
        unit = "ac" if soil.group(1) == "acres" else "sf"
        rows = []
        for sm in re.finditer(r"(\d[\d,]*(?:\.\d{3})?) ?(HSG [A-D]|Other) ?(.*?)"
                              r"(?= \d[\d,]*(?:\.\d{3})? ?(?:HSG [A-D]|Other)|$)",
                              soil.group(2)):
            rows.append({"area": _num(sm.group(1)), "unit": unit, "group": sm.group(2),
                         "subcatchments": _split_ids(re.sub(r" ?\d[\d,.]*$", "",
                                                            sm.group(3)))})
        rep.listings["soil"] = rows


def _events_listing(rep: HydroCADReport, t: str) -> None:
    """HydroCAD 10's "Rainfall Events Listing": event, storm type, curve mode, depth."""
    m = re.search(r"Rainfall Events Listing.*?Event# Event Name Storm Type Curve Mode Duration "
                  r"\(hours\) B/B Depth \(inches\) AMC (.*?)(?=Area Listing|Prepared by|$)", t)
    if not m:
        return
    for em in re.finditer(r"(\d+) (\S+(?: \S+)?) (Type (?:IA|III|II|I) 24-hr|"
                          r"(?:NOAA10|NOAA|NRCC|MSE) "
                          r"24-hr [A-D1-6]|\S+ 24-hr) (Default|Smooth|Tabular) (\d+\.\d+) "
                          r"(\d+) (\d+(?:\.\d+)?) (\d)\b", m.group(1)):
        name, dist = em.group(2), em.group(3)
        info = {"distribution_printed": dist, "distribution": _NRCS_TYPES.get(dist),
                "precip_in": _num(em.group(7))}
        rep.storms.setdefault(name, info)
        rep.storms[name]["curve_mode"] = em.group(4)
        rep.storms[name]["duration_hr"] = _num(em.group(5))
        if _num(em.group(5)) != 24.0:
            rep.storms[name]["distribution"] = None


def _settings(rep: HydroCADReport, t: str) -> None:
    s = rep.settings
    m = re.search(r"Time ?span=(\d+\.\d+)-(\d+\.\d+) hrs, dt=(\d+\.\d+) hrs", t, re.IGNORECASE)
    if m:
        s["time_span_hr"] = [_num(m.group(1)), _num(m.group(2))]
        s["dt_hr"] = _num(m.group(3))
    m = re.search(r"Runoff by (.+?) method(?:, UH=(\w+))?", t)
    if m:
        s["runoff_method"] = m.group(1).strip()
        if m.group(2):
            s["unit_hydrograph"] = m.group(2)
    m = re.search(r"Reach routing by (.+?) method", t)
    if m:
        s["reach_routing"] = m.group(1).strip()
    m = re.search(r"Pond routing by (.+?) method", t)
    if m:
        s["pond_routing"] = m.group(1).strip()


def _node(rep: HydroCADReport, node_id: str, kind: str, name: str | None) -> dict:
    node = rep.nodes.setdefault(node_id, {"kind": kind, "name": name or node_id})
    if node["kind"] != kind:
        rep.problems.append(f"node {node_id} printed as a {node['kind']} and as a {kind}")
    if name and node.get("name") in (None, node_id):
        node["name"] = name
    return node


_SUB_TAIL = (r"(?:Flow Length=(?P<len>{n})' ?)?(?:Slope=(?P<slope>\d?\.\d+) ?'/' ?)?"
             r"Tc=(?P<tc>\d+(?:\.\d+)?) min (?P<ui>UI Adjusted )?CN=(?P<cn>[\d./]+) "
             r"Runoff=(?P<q>{n}) cfs (?P<v>{n}) af").replace("{n}", _NUM)
_SUB_HEAD = (r"Runoff Area=(?P<area>{n}) ?(?P<au>ac|sf)(?: (?P<imp>\d+(?:\.\d+)?)% Impervious)? "
             r"Runoff Depth=(?P<depth>\d+(?:\.\d+)?)\"").replace("{n}", _NUM)
_NAME = r"(?P<name>(?:(?!Subcatchment|Runoff Area|Flow Length|Tc=|Reach |Pond ).){0,80}?)"
_LIST_SUB_A = re.compile(_SUB_HEAD + r" ?Subcatchment ?(?P<id>[^\s:]+): ?" + _NAME + r" ?"
                         + _SUB_TAIL)
_LIST_SUB_B = re.compile(r"Subcatchment ?(?P<id>[^\s:]+): ?" + _NAME + r" ?" + _SUB_HEAD
                         + r" ?" + _SUB_TAIL)
_LIST_POND = re.compile(
    r"Pond ?(?P<id>[^\s:]+): ?(?P<name>(?:(?!Pond |Reach |Subcatchment).){0,80}?) ?"
    r"Peak Elev=(?P<elev>{n})' Storage=(?P<stor>{n}) (?P<su>cf|af) Inflow=(?P<qi>{n}) cfs "
    r"(?P<vi>{n}) af(?P<rest>(?:(?!Pond |Reach |Subcatchment).){0,300}?)Outflow=(?P<qo>{n}) "
    r"cfs (?P<vo>{n}) af".replace("{n}", _NUM))
_LIST_REACH = re.compile(
    r"Reach ?(?P<id>[^\s:]+): ?(?P<name>(?:(?!Pond |Reach |Subcatchment).){0,80}?) ?"
    r"(?P<rest1>(?:(?!Pond |Reach |Subcatchment).){0,200}?)Inflow=(?P<qi>{n}) cfs "
    r"(?P<vi>{n}) af(?P<rest>(?:(?!Pond |Reach |Subcatchment).){0,300}?)Outflow=(?P<qo>{n}) "
    r"cfs (?P<vo>{n}) af".replace("{n}", _NUM))


def _listing(rep: HydroCADReport, t: str, storm_at) -> None:
    seen = set()
    for rx in (_LIST_SUB_A, _LIST_SUB_B):
        for m in rx.finditer(t):
            if m.start() in seen:
                continue
            seen.add(m.start())
            storm = storm_at(m.start())
            sid = m.group("id")
            node = _node(rep, sid, "subcatchment", m.group("name").strip() or None)
            area = _num(m.group("area")) / (43560.0 if m.group("au") == "sf" else 1.0)
            inputs = {"area_ac": area, "area_printed": f"{m.group('area')} {m.group('au')}",
                      "tc_min": _num(m.group("tc")), "cn_printed": m.group("cn")}
            if m.group("imp") is not None:
                inputs["impervious_pct"] = _num(m.group("imp"))
            if m.group("len"):
                inputs["flow_length_ft"] = _num(m.group("len"))
            if m.group("ui"):
                inputs["ui_adjusted_cn"] = True
            _merge_inputs(rep, sid, node, inputs)
            w = "runoff listing"
            rep.add_result(sid, "subcatchment", storm, "peak_cfs", m.group("q"), w)
            rep.add_result(sid, "subcatchment", storm, "volume_acft", m.group("v"), w)
            rep.add_result(sid, "subcatchment", storm, "runoff_in", m.group("depth"), w)
    for m in _LIST_POND.finditer(t):
        storm = storm_at(m.start())
        pid = m.group("id")
        pnode = _node(rep, pid, "pond", m.group("name").strip() or None)
        w = "runoff listing"
        rep.add_result(pid, "pond", storm, "peak_elevation_ft", m.group("elev"), w)
        f = 43560.0 if m.group("su") == "af" else 1.0
        _add_copy(pnode, "peak_storages", {"storm": storm, "elevation": m.group("elev"),
                                           "storage": m.group("stor"), "unit": m.group("su")})
        rep.add_result(pid, "pond", storm, "peak_storage_ft3", m.group("stor"), w, factor=f)
        rep.add_result(pid, "pond", storm, "inflow_peak_cfs", m.group("qi"), w)
        rep.add_result(pid, "pond", storm, "inflow_volume_acft", m.group("vi"), w)
        rep.add_result(pid, "pond", storm, "peak_cfs", m.group("qo"), w)
        rep.add_result(pid, "pond", storm, "volume_acft", m.group("vo"), w)
        for dm in re.finditer(
                r"(Primary|Secondary|Discarded)=({n}) cfs ({n}) af".replace("{n}", _NUM),
                m.group("rest")):
            key = dm.group(1).lower()
            rep.add_result(pid, "pond", storm, f"{key}_peak_cfs", dm.group(2), w)
            rep.add_result(pid, "pond", storm, f"{key}_volume_acft", dm.group(3), w)
    for m in _LIST_REACH.finditer(t):
        storm = storm_at(m.start())
        rid = m.group("id")
        _node(rep, rid, "reach", m.group("name").strip() or None)
        w = "runoff listing"
        rep.add_result(rid, "reach", storm, "inflow_peak_cfs", m.group("qi"), w)
        rep.add_result(rid, "reach", storm, "inflow_volume_acft", m.group("vi"), w)
        rep.add_result(rid, "reach", storm, "peak_cfs", m.group("qo"), w)
        rep.add_result(rid, "reach", storm, "volume_acft", m.group("vo"), w)
    _truncation(rep, t)


def _truncation(rep: HydroCADReport, t: str) -> None:
    """A listing record or section heading cut by the end of the text."""
    tail = t[-400:]
    matches = list(re.finditer(r"(Runoff Area=|Subcatchment ?[^\s:]+:|Pond ?[^\s:]+:|"
                               r"Reach ?[^\s:]+:)", tail))
    if not matches:
        return
    m = matches[-1]
    rest = tail[m.start():]
    complete = re.search(r"(?:Runoff|Outflow)=" + _NUM + r" cfs " + _NUM + r" af", rest)
    if complete is None and not re.search(r"Summary for", rest):
        ids = re.findall(r"(?:Subcatchment|Pond|Reach) ?([^\s:]+):", t[-1200:])
        last = f"; last node named: {ids[-1]}" if ids else ""
        rep.truncated = (f"the text ends inside a runoff-listing record "
                         f"({rest[:60].strip()!r} ...{last})")


def _merge_inputs(rep, node_id, node, inputs: dict) -> None:
    for k, v in inputs.items():
        if k in node and node[k] != v and not (isinstance(v, float) and isinstance(node[k], float)
                                                and abs(node[k] - v) <= 1e-6 * max(1, abs(v))):
            if k == "area_printed":
                continue
            rep.problems.append(f"subcatchment {node_id}: {k} printed as {node[k]} and as {v}")
            continue
        node[k] = v


def _sections(rep: HydroCADReport, t: str, storm_at) -> None:
    heads = list(_SECTION_RE.finditer(t))
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(t)
        body = t[h.end():end]
        kind, nid = h.group("kind").lower(), h.group("id")
        sm = _STORM_RE.search(body)
        storm = (" ".join(sm.group("name").split()) or sm.group("dist")) if sm else \
            storm_at(h.start())
        if kind == "subcatchment":
            _sub_section(rep, nid, body, storm)
        elif kind == "pond":
            _pond_section(rep, nid, body, storm)
        elif kind == "reach":
            _reach_section(rep, nid, body, storm)
        else:
            _node(rep, nid, "link", _section_name(body))
        if i + 1 == len(heads) and len(body) < 40:
            rep.truncated = f"the text ends at the heading of {kind} {nid}"
        elif i + 1 == len(heads) and not _section_complete(kind, body):
            rep.truncated = (f"the text ends inside the summary of {kind} {nid} (before its "
                             f"{_SECTION_END[kind][1]})")
            rep.nodes[nid]["truncated"] = True


#: What the last printed part of each summary section is (the text ending before it is cut).
_SECTION_END = {
    "subcatchment": (r"Tc Length Slope Velocity", "Tc table"),
    "pond": (r"(?:Primary|Secondary|Discarded) OutFlow Max=", "device analysis"),
    "reach": (r"Outflow=.*Invert=", "channel description"),
    "link": (r"", ""),
}


def _section_complete(kind: str, body: str) -> bool:
    """Whether the last section of the text is printed to its end (not cut by the text's end).

    A subcatchment ends with its Tc table: complete when the table's ``Total`` row is printed
    or at least 150 characters follow the start of its last segment (a printed report goes
    on with the hydrograph page); a pond ends with its device analysis
    (``Primary OutFlow Max=...``); a reach with its channel description (``... Invert=``).
    """
    pattern = _SECTION_END[kind][0]
    m = re.search(pattern, body)
    if m is None:
        return False
    if kind != "subcatchment":
        return True
    table = body[m.end():]
    heads = list(_TC_SEG_RE.finditer(table))
    if not heads:
        return False
    return bool(_TC_TOTAL_RE.search(table[heads[-1].end():])) or \
        len(table) - heads[-1].start() >= 150


def _section_name(body: str) -> str | None:
    m = re.match(r"(.{0,80}?)(?= Runoff\b| Inflow Area| Inflow\b| " + _NUM + r" cfs @|$)",
                 body)
    name = m.group(1).strip() if m else ""
    return name or None


def _flows(rep, nid, kind, body, storm, labels):
    for label, q in labels:
        m = re.search(r"\b" + label + r"=(" + _NUM + r") cfs @ (\d+\.\d+) hrs, Volume=("
                      + _NUM + r") af", body)
        if m:
            w = f"summary for {kind}"
            rep.add_result(nid, kind, storm, f"{q}peak_cfs", m.group(1), w)
            rep.add_result(nid, kind, storm, f"{q}time_of_peak_hr", m.group(2), w)
            rep.add_result(nid, kind, storm, f"{q}volume_acft", m.group(3), w)


def _sub_section(rep, nid, body, storm) -> None:
    node = _node(rep, nid, "subcatchment", _section_name(body))
    w = "summary for subcatchment"
    m = re.search(r"(" + _NUM + r") cfs @ (\d+\.\d+) hrs, Volume=(" + _NUM +
                  r") af, Depth=(\d+\.\d+)\"", body)
    if m:
        rep.add_result(nid, "subcatchment", storm, "peak_cfs", m.group(1), w)
        rep.add_result(nid, "subcatchment", storm, "time_of_peak_hr", m.group(2), w)
        rep.add_result(nid, "subcatchment", storm, "volume_acft", m.group(3), w)
        rep.add_result(nid, "subcatchment", storm, "runoff_in", m.group(4), w)
    else:
        rep.problems.append(f"subcatchment {nid}: its runoff line ('... cfs @ ... hrs, "
                            "Volume= ... af, Depth= ...\"') was not found")
    mm = re.search(r"Runoff by (.+?) method(?:, UH=(\w+))?(?P<split>, Split Pervious/Imperv\.)?",
                   body)
    if mm:
        node["method"] = mm.group(1).strip() + (f", UH={mm.group(2)}" if mm.group(2) else "")
        if mm.group("split"):
            node["split_pervious_impervious"] = True
    am = re.search(r"Area \((sf|ac)\) CN (Adj )?Description", body)
    if am:
        unit = 43560.0 if am.group(1) == "sf" else 1.0
        block = body[am.end():]
        stop = re.search(r"Tc Length|Summary for", block)
        block = block[:stop.start()] if stop else block
        wm = re.search(r"(" + _NUM + r") (\d{2,3}) Weighted Average", block)
        rows = re.findall(r"(?:^| )(\* ?)?(" + _NUM + r") (\d{2,3}|\*) (?!Weighted)(?![\d.]+%)"
                          r"((?:(?! (?:\* ?)?" + _NUM + r" (?:\d{2,3}|\*) | " + _NUM +
                          r" [\d.]+% |Weighted).)*)", block)
        node["covers"] = [{"area_printed": a, "cn_printed": c, "description": d.strip(),
                           "area_unit": "sf" if unit > 1 else "ac", "marked": bool(star)}
                          for star, a, c, d in rows]
        if wm:
            node["weighted_printed"] = {"area": wm.group(1), "cn": wm.group(2)}
        if am.group(2) or "UI Adjusted" in block:
            node["ui_adjusted_table"] = True
        _add_copy(node, "area_tables", {"covers": node["covers"],
                                        "weighted_printed": node.get("weighted_printed"),
                                        "ui_adjusted": bool(node.get("ui_adjusted_table"))})
        u = "sf" if unit > 1 else "ac"
        if wm:
            inputs = {"area_ac": _num(wm.group(1)) / unit, "cn_printed": wm.group(2),
                      "area_printed": f"{wm.group(1)} {u}"}
        elif len(rows) == 1 and rows[0][2] != "*":
            inputs = {"area_ac": _num(rows[0][1]) / unit, "cn_printed": rows[0][2],
                      "area_printed": f"{rows[0][1]} {u}"}
        else:
            inputs = {}
            rep.problems.append(f"subcatchment {nid}: the weighted CN ('... Weighted "
                                "Average') was not found")
        ip = re.search(r"(\d+\.\d+)% Impervious Area", block)
        if ip:
            inputs["impervious_pct"] = _num(ip.group(1))
        _merge_inputs(rep, nid, node, inputs)
    tm = re.search(r"Tc Length Slope Velocity Capacity Description(?: \(min\) \(feet\) "
                   r"\(ft/ft\) \(ft/sec\) \(cfs\))?(.*)", body)
    if tm:
        segs = list(re.finditer(
            r"(\d+\.\d) (\d[\d,]*) (\d?\.\d+) (\d+\.\d+)(?: (\d[\d,]*\.\d+))? (Sheet Flow|"
            r"Shallow Concentrated Flow|Channel Flow|Pipe Channel|Circular Channel|"
            r"Trap/Vee/Rect Channel Flow|Lag/CN Method), ?", tm.group(1)))
        node["tc_segments"] = [
            {"tc_min": _num(g.group(1)), "length_ft": _num(g.group(2)),
             "slope_ftft": _num(g.group(3)), "velocity_fps": _num(g.group(4)),
             "capacity_cfs": _num(g.group(5)) if g.group(5) else None, "type": g.group(6),
             "description": tm.group(1)[g.end():segs[i + 1].start() if i + 1 < len(segs)
                                       else None].split(" Summary for")[0].strip()[:120]}
            for i, g in enumerate(segs)]
        node["tc_table"] = _tc_table(tm.group(1))
        _add_copy(node, "tc_tables", node["tc_table"])
    if tm and "tc_min" not in node:
        tb = tm.group(1)
        total = re.search(r"(\d+\.\d) (?:" + _NUM + r" )?Total", tb)
        single = re.match(r" ?(\d+\.\d) (?:" + _NUM + r" )?(?:\d?\.\d+ )?(?:\d+\.\d+ )?"
                          r"(?:\d+\.\d+ )?[A-Z][\w /-]*?(?:Flow|Entry|Channel|Method)\b", tb)
        if total:
            node["tc_min"] = _num(total.group(1))
        elif single and not re.search(r"Sheet Flow|Shallow|Channel", tb[single.end():]):
            node["tc_min"] = _num(single.group(1))
        else:
            rep.problems.append(f"subcatchment {nid}: the Tc (total of the Tc table) was not "
                                "found")


def _add_copy(node: dict, key: str, value) -> None:
    """Keep each distinct printed copy of a node's input table (one per storm is printed)."""
    copies = node.setdefault(key, [])
    if value not in copies:
        copies.append(value)


_TC_TYPES = (r"Sheet Flow|Shallow Concentrated Flow|Trap/Vee/Rect Channel Flow|Channel Flow|"
             r"Pipe Channel|Circular Channel|Lake or Reservoir|Direct Entry|Lag/CN Method")
_TC_SEG_RE = re.compile(r"(?:^| )(?P<tc>\d+\.\d+)(?P<nums>(?: \d[\d,]*(?:\.\d+)?){0,4}) "
                        r"(?P<type>" + _TC_TYPES + r")\b,? ?")
_TC_TOTAL_RE = re.compile(r"(?:^| )(?P<tc>\d+\.\d+)(?: (?P<len>\d[\d,]*))? Total\b")


def _tc_table(text: str) -> dict:
    """Every row of a Tc table in printed order, as printed (for the input audit).

    ``segments``: ``printed`` (the time), ``type`` (``Sheet Flow``, ...), ``numbers`` (the
    printed length, slope, velocity and capacity columns present) and ``description`` (the
    rest of the row: surface, n, P2, Kv, Area, Perim, ...); ``total``: the printed ``Total``
    row (``printed``, ``length``) or None (one segment, or not printed).
    """
    stop = re.search(r" Summary for | Area \((?:sf|ac)\) CN ", text)
    text = text[:stop.start()] if stop else text
    heads = list(_TC_SEG_RE.finditer(text))
    segments = []
    total = None
    for i, h in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        desc = text[h.end():end]
        if i + 1 == len(heads):
            tm = _TC_TOTAL_RE.search(desc)
            if tm:
                total = {"printed": tm.group("tc"), "length": tm.group("len")}
                desc = desc[:tm.start()]
        segments.append({"printed": h.group("tc"), "type": h.group("type"),
                         "numbers": h.group("nums").split(), "description": desc.strip()[:200]})
    return {"segments": segments, "total": total}


def _reach_section(rep, nid, body, storm) -> None:
    node = _node(rep, nid, "reach", _section_name(body))
    _flows(rep, nid, "reach", body, storm, (("Inflow", "inflow_"), ("Outflow", "")))
    m = re.search(r"Routing by (.+?) method", body)
    if m:
        node["routing"] = m.group(1).strip()
    m = re.search(r"Peak Storage=(" + _NUM + r") (cf|af)", body)
    if m:
        rep.add_result(nid, "reach", storm, "peak_storage_ft3", m.group(1),
                       "summary for reach", factor=43560.0 if m.group(2) == "af" else 1.0)
    m = re.search(r"Average Depth at Peak Storage=(\d+\.\d+)'", body)
    if m:
        rep.add_result(nid, "reach", storm, "peak_depth_ft", m.group(1), "summary for reach")
    desc = re.search(r"Bank-Full Depth.*?(?=Outlet Invert=[\d.,]+'|Summary for|$)", body)
    if desc:
        node["channel"] = desc.group(0)[:400]


def _pond_section(rep, nid, body, storm) -> None:
    node = _node(rep, nid, "pond", _section_name(body))
    _flows(rep, nid, "pond", body, storm,
           (("Inflow", "inflow_"), ("Outflow", ""), ("Primary", "primary_"),
            ("Secondary", "secondary_"), ("Discarded", "discarded_")))
    w = "summary for pond"
    m = re.search(r"Routing by (.+?) method", body)
    if m:
        node["routing"] = m.group(1).strip()
    m = re.search(r"Peak Elev=(" + _NUM + r")' @ (\d+\.\d+) hrs(?: Surf\.Area=(" + _NUM +
                  r") (sf|ac))? Storage=(" + _NUM + r") (cf|af)", body)
    if m:
        rep.add_result(nid, "pond", storm, "peak_elevation_ft", m.group(1), w)
        rep.add_result(nid, "pond", storm, "peak_storage_ft3", m.group(5), w,
                       factor=43560.0 if m.group(6) == "af" else 1.0)
        _add_copy(node, "peak_storages", {"storm": storm, "elevation": m.group(1),
                                          "storage": m.group(5), "unit": m.group(6)})
    vols = re.search(r"Volume Invert Avail\.Storage Storage Description(.*?)"
                     r"(?=Device Routing|Elevation |$)", body)
    storage = []
    if vols:
        for vm in re.finditer(r"#(\d+) (" + _NUM + r")' (" + _NUM + r") (cf|af) (.*?)"
                              r"(?= #\d+ " + _NUM + r"'|$)", vols.group(1)):
            storage.append({"volume": int(vm.group(1)), "invert_elev_ft": _num(vm.group(2)),
                            "available_ft3": _num(vm.group(3)) * (
                                43560.0 if vm.group(4) == "af" else 1.0),
                            "available_printed": f"{vm.group(3)} {vm.group(4)}",
                            "description": vm.group(5).strip()})
    node["storage"] = storage
    tab = re.search(r"Elevation (Surf\.Area (?:Wet\.Area )?Inc\.Store Cum\.Store|Cum\.Store)"
                    r" \(feet\)(?: \([\w-]+\))+ ((?:" + _NUM + r" ?)+)", body)
    if tab:
        ncol = len(tab.group(1).split()) + 1
        nums = tab.group(2).split()
        if len(nums) % ncol:
            rep.problems.append(f"pond {nid}: the stage table has {len(nums)} numbers, not a "
                                f"multiple of its {ncol} columns")
        else:
            rows = [nums[i:i + ncol] for i in range(0, len(nums), ncol)]
            node["stage_table"] = {"columns": ["Elevation", *tab.group(1).split()],
                                   "rows": [[_num(x) for x in r] for r in rows]}
    node["stage_tables"] = _stage_tables(body)
    _add_copy(node, "storage_copies", {"storage": storage, "stage_tables": node["stage_tables"]})
    dev = re.search(r"Device Routing Invert Outlet Devices (.*?)(?=(?:Primary|Secondary|"
                    r"Discarded|Tertiary) OutFlow|$)", body)
    devices = []
    if dev:
        for dm in re.finditer(r"#(\d+) (Primary|Secondary|Tertiary|Discarded|Device \d+) ("
                              + _NUM + r")' (.*?)(?= #\d+ (?:Primary|Secondary|Tertiary|"
                              r"Discarded|Device \d+) |$)", dev.group(1)):
            devices.append({"device": int(dm.group(1)), "routing": dm.group(2),
                            "invert_elev_ft": _num(dm.group(3)),
                            "description": dm.group(4).strip()})
    node["devices"] = devices
    _outflow_max(node, body, storm)


_STAGE_TABLE_RE = re.compile(
    r"Elevation (?P<cols>(?:(?:Surf\.Area|Wet\.Area|Perim\.|Inc\.Store|Cum\.Store) ?)+) ?"
    r"(?P<units>(?:\((?:feet|sq-ft|acres|cubic-feet|acre-feet)\) ?)+)"
    r"(?P<nums>(?:" + _NUM + r"(?: |$))+)")


def _stage_tables(body: str) -> list[dict]:
    """Every custom stage table of a pond section, in printed order (for the input audit).

    Each: ``columns`` (``Elevation``, ``Surf.Area``, ...), ``units`` as printed
    (``feet``, ``sq-ft`` or ``acres``, ``cubic-feet`` or ``acre-feet``) and ``rows`` of the
    numbers as printed (strings). A table whose count of numbers is not a multiple of its
    columns is left out (a page break inside it).
    """
    tables = []
    for m in _STAGE_TABLE_RE.finditer(body):
        cols = ["Elevation", *m.group("cols").split()]
        units = re.findall(r"\(([\w-]+)\)", m.group("units"))
        nums = m.group("nums").split()
        if len(units) != len(cols) or len(nums) % len(cols):
            continue
        rows = [nums[i:i + len(cols)] for i in range(0, len(nums), len(cols))]
        tables.append({"columns": cols, "units": units, "rows": rows})
    return tables


_OUTFLOW_MAX_RE = re.compile(
    r"(?P<kind>Primary|Secondary|Discarded|Tertiary) OutFlow Max=(?P<q>{n}) cfs @ "
    r"(?P<t>\d+\.\d+) hrs HW=(?P<hw>-?{n})'(?: TW=(?P<tw>-?{n})')? \((?P<twmode>[^)]*)\)"
    r"(?P<rest>.*?)(?=(?:Primary|Secondary|Discarded|Tertiary) OutFlow Max=|Summary for|$)"
    .replace("{n}", _NUM))
_DEVICE_FLOW_RE = re.compile(
    r"(?:^| )[^\s\d]?(?P<dev>\d+)=(?P<what>[A-Za-z/ -]+?) ?\( ?(?P<text>[^)]*)\)")


def _outflow_max(node: dict, body: str, storm) -> None:
    """The device analysis HydroCAD prints under a pond's devices, by storm.

    ``Primary OutFlow Max=0.04 cfs @ 8.44 hrs HW=887.62' TW=886.55' (Dynamic Tailwater)``
    followed by one line per device (``1=Culvert (Passes 0.04 cfs of 0.41 cfs potential
    flow)``, ``2=Orifice/Grate (Orifice Controls 0.04 cfs @ 2.93 fps)``). HydroCAD computes
    these flows "directly from the discharge equations at the listed HW and TW elevations"
    (hydrocad.net/deviceflow.htm): a rating check of each device at one printed head.
    """
    for m in _OUTFLOW_MAX_RE.finditer(body):
        devs = []
        for dm in _DEVICE_FLOW_RE.finditer(m.group("rest")):
            text = dm.group("text")
            row = {"device": int(dm.group("dev")), "type": dm.group("what").strip(),
                   "text": text.strip()}
            pm = re.search(r"Passes (" + _NUM + r") cfs of (" + _NUM + r") cfs potential", text)
            cm = re.search(r"(?:(\w+) )?Controls (" + _NUM + r") cfs(?: @ (" + _NUM + r") fps)?",
                           text)
            if pm:
                row.update(status="passes", flow_cfs=_num(pm.group(1)),
                           potential_cfs=_num(pm.group(2)), printed=pm.group(2))
            elif cm:
                row.update(status="controls", flow_cfs=_num(cm.group(2)),
                           printed=cm.group(2), equation=cm.group(1))
                if cm.group(3):
                    row["velocity_fps"] = _num(cm.group(3))
            devs.append(row)
        node.setdefault("outflow_max", []).append({
            "storm": storm, "outflow": m.group("kind"), "max_cfs": _num(m.group("q")),
            "time_hr": _num(m.group("t")), "hw_elev_ft": _num(m.group("hw")),
            "tw_elev_ft": _num(m.group("tw")) if m.group("tw") else None,
            "tailwater": m.group("twmode").strip(), "devices": devs})
