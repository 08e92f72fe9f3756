"""The ``methods`` section: methods, data tables used (:func:`tables_used`), references.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd

from hydrocalc import data, rainfall, runoff
from hydrocalc.criteria.ny_editions import (
    applied_edition,
    design_manual_edition,
    design_manual_label,
)
from hydrocalc.report.sections.builder import _Builder, distribution_label
from hydrocalc.report.sections.computation import Context
from hydrocalc.report.tables import Table, md_escape

_REFERENCES_SMDM = ("NYSDEC (2015). New York State Stormwater Management Design Manual, "
                    "Chapter 4: Unified Stormwater Sizing Criteria.")
_REFERENCES = (
    ("TR-55", "USDA Soil Conservation Service (1986). Urban Hydrology for Small Watersheds, "
              "Technical Release 55, 2nd ed. Washington, DC."),
    ("NEH 630 Ch. 15", "USDA NRCS (2010). National Engineering Handbook, Part 630 "
                       "Hydrology, Chapter 15: Time of Concentration."),
    ("NEH 630 Ch. 16", "USDA NRCS (2007). National Engineering Handbook, Part 630 "
                       "Hydrology, Chapter 16: Hydrographs."),
    ("NEH 630 Ch. 17", "USDA NRCS (2014). National Engineering Handbook, Part 630 "
                       "Hydrology, Chapter 17: Flood Routing."),
    ("WinTR-20", "USDA NRCS (2015). WinTR-20 Project Formulation Hydrology, user guide and "
                 "rainfall distribution tables."),
    ("Chow et al. 1988", "Chow, V. T., Maidment, D. R., Mays, L. W. (1988). Applied "
                         "Hydrology. McGraw-Hill, Section 8.2 (level-pool routing)."),
    ("NYS SMDM", _REFERENCES_SMDM),
    ("NYS Blue Book", "NYSDEC / Empire State Chapter SWCS (2016). New York State "
                      "Standards and Specifications for Erosion and Sediment Control."),
    ("Williams 1975", "Williams, J. R. (1975). Sediment-yield prediction with universal "
                      "equation using runoff energy factor. ARS-S-40, USDA, pp. 244-252 "
                      "(MUSLE)."),
)


def _design_manual_row(site) -> tuple[str, str, str]:
    """Return the methods row naming the NYS SMDM edition the criteria use.

    The methods row naming the NYS SMDM edition the criteria use (and, for the 2015
    manual, the justification the site file gives).
    """
    stated = getattr(site.project, "design_manual", None)
    method = design_manual_label(stated)
    if stated is not None:
        method += " (project.design_manual)"
    why = getattr(site.project, "design_manual_justification", "")
    if why:
        method += f"; justification for the {stated} manual: {why}"
    return ("Design manual", method, f"NYS SMDM ({applied_edition(site.project)})")


def _references(site) -> tuple:
    """:data:`_REFERENCES` with the NYS SMDM entry citing the edition the site uses."""
    ed = design_manual_edition(applied_edition(site.project))
    smdm = ("NYS SMDM", _REFERENCES_SMDM if ed["id"] == "2015" else
            f"{ed['citation']}, Chapter 4: Unified Stormwater Sizing Criteria.")
    return tuple(smdm if key == "NYS SMDM" else (key, ref) for key, ref in _REFERENCES)


def _uses_conveyance(site) -> bool:
    return any(rch.conveyance is not None for sc in site.scenarios.values()
               for rch in sc.reaches)


def _conveyance_methods(site) -> list[tuple[str, str, str]]:
    """Return the methods rows of routed reaches and rational subcatchments.

    Methods rows of routed pipe/channel reaches and of rational subcatchments, only when
    the site has them.
    """
    rows = []
    if any(sc.rational for sc in site.scenarios.values()):
        rows.append(("Rational method", "Q = C i A for the subcatchments marked rational; "
                     "composite C; intensity for a duration equal to Tc; modified rational "
                     "hydrograph with storm duration = Tc",
                     "HEC-22 Sec. 3.2.2 and Table 3-1; Kuichling 1889; Poertner 1974"))
    if not _uses_conveyance(site):
        return rows
    return rows + [("Pipe and channel reaches",
             "variable-parameter Muskingum-Cunge routing; Manning's equation (k = 1.49) for "
             "normal depth, velocity and full-flow capacity",
             "NEH 630 Ch. 17; Ponce and Chaganti 1994; TR-55 Eq. 3-4")]


def _conveyance_references(site) -> tuple:
    refs: tuple = ()
    if any(sc.rational for sc in site.scenarios.values()):
        refs += (("HEC-22", "FHWA (2009). Urban Drainage Design Manual, Hydraulic Engineering "
                  "Circular No. 22, 3rd ed., FHWA-NHI-10-009, Section 3.2.2 and Table 3-1."),
                 ("Kuichling 1889", "Kuichling, E. (1889). The relation between the rainfall "
                  "and the discharge of sewers in populous districts. Transactions ASCE 20, "
                  "1-56."),
                 ("Poertner 1974", "Poertner, H. G. (1974). Practices in Detention of Urban "
                  "Stormwater Runoff. APWA Special Report No. 43 (modified rational method)."))
        if getattr(site.rational, "source", "") == "idf":
            refs += (("TxDOT HDM", "Texas Department of Transportation (2019). Hydraulic "
                      "Design Manual, Ch. 4 Sec. 12, Rational Method (IDF equation "
                      "i = b / (t + d)^e)."),)
    if not _uses_conveyance(site):
        return refs
    return refs + (("Ponce and Chaganti 1994", "Ponce, V. M., Chaganti, P. V. (1994). "
             "Variable-parameter Muskingum-Cunge method revisited. Journal of Hydrology 162, "
             "433-439."),)


def tables_used(ctx: Context) -> list[str]:
    """The shipped tables (and regulation profile) the computation of this site reads.

    Determined from what the computation used, so the list is the same whichever sections
    a process computed first (the loader's own record, :func:`hydrocalc.data.tables_read`,
    depends on the process's history because callers cache their tables): the curve-number
    table of every cover looked up, the sheet-flow n table when a segment names a surface,
    the unit hydrograph, the rainfall distribution's table, the criteria tables when
    criteria are evaluated, the sediment-trap criteria and MUSLE factor tables when traps
    are checked, and the municipality's profile.
    """
    site, r = ctx.site, ctx.results
    used: list[str] = []
    covers = r.covers
    if len(covers):
        looked_up = covers[~covers["cn_given"].astype(bool)] if "cn_given" in covers else covers
        if len(looked_up):
            frame = runoff.cn_frame()
            keys = set(looked_up["cover"].astype(str))
            used += [t for t in runoff.CN_TABLES
                     if keys & set(frame.loc[frame["table"] == t, "key"])]
    segs = r.tc_segments
    if len(segs) and "surface" in segs and segs["surface"].fillna("").astype(str).str.len().gt(0) \
            .any() and (segs["type"] == "sheet").any():
        used.append("tr55_sheet_flow_n")
    if any(s.covers for sc in site.scenarios.values() for s in sc.rational):
        used.append("rational_runoff_coefficients")
    used.append("nrcs_dimensionless_uh")
    key = rainfall.canonical_distribution(site.storms.distribution)
    if key is not None:
        used.append(rainfall.SHIPPED_DISTRIBUTIONS[key][0])
    if site.criteria.standard != "none" and not r.criteria.empty:
        used.append("ny_sizing_criteria")
        if site.criteria.rrv_specific_reduction_factor is None:
            used.append("ny_rrv_specific_reduction_factors")
    plan = site.construction
    if ctx.trap_checks:
        used.append("sediment_trap_criteria")
        if any(getattr(t, "k_factor", None) is not None for t in getattr(plan, "traps", ())):
            used += ["musle_c_factors", "musle_p_factors", "sediment_dry_unit_weight"]
    used.append(f"regulation_profile_{site.project.municipality}")
    known = set(data.list_tables(kind=None))
    return [t for t in dict.fromkeys(used) if t in known]


def _build_methods(b: _Builder) -> None:
    import hydrocalc

    site = b.ctx.site
    opt = site.options
    methods = [
        ("Runoff depth", "NRCS curve number, Q = (P - Ia)² / (P - Ia + S), S = 1000/CN - 10, "
                         f"Ia = {opt.ia_ratio:g} S", "TR-55 Ch. 2, Eqs. 2-1 to 2-4"),
        ("Composite CN", "area-weighted CN; impervious cover CN 98, connected (Fig. 2-3) or "
                         "unconnected (Fig. 2-4)", "TR-55 Ch. 2"),
        ("Time of concentration", "sum of sheet, shallow concentrated and channel travel "
                                  "times", "TR-55 Ch. 3; NEH 630 Ch. 15"),
        ("Design storms", f"{distribution_label(site.storms.distribution)} 24-hour distribution, "
                          f"{site.storms.rain_dt_hr:g}-hr steps", "TR-55 App. B; WinTR-20"),
        ("Runoff hydrographs", f"NRCS dimensionless unit hydrograph, peak rate factor "
                               f"{opt.prf:g}, computation step {opt.dt_hr:g} hr, convolution "
                               "of the excess hyetograph", "NEH 630 Ch. 16"),
        ("Pond routing", "storage-indication (modified Puls) level-pool routing",
         "NEH 630 Ch. 17; Chow et al. 1988 Sec. 8.2"),
        ("Reaches", "translation by a lag time", "NEH 630 Ch. 17"),
        *_conveyance_methods(site),
        ("Sizing criteria", "WQv, RRv, Cpv, Qp, Qf", "NYS SMDM Ch. 4"),
        _design_manual_row(site),
        ("Sediment traps", "storage per acre of drainage area from the named criteria row; "
                           "MUSLE sediment yield", "NYS Blue Book; Williams 1975"),
    ]
    b.res.add_table(Table("methods", "Methods", pd.DataFrame(
        methods, columns=["step", "method", "reference"]), key_columns=["step"]))
    hashes = data.table_hashes()
    rows = []
    for name in tables_used(b.ctx):
        info = data.table_info(name)
        rows.append({"table": name, "title": info.get("title", ""),
                     "source": f"{info.get('source', '')} ({info.get('location', '')})",
                     "sha256_prefix": hashes.get(name, "")[:12]})
    b.res.add_table(Table("data_tables", "Published tables this computation read",
                          pd.DataFrame(rows), labels={"sha256_prefix": "SHA-256 (first 12)"},
                          caption="Full hashes are in results.json (data_tables).",
                          key_columns=["table"]))
    b.res.add_table(Table("references", "References",
                          pd.DataFrame(_references(site) + _conveyance_references(site),
                                       columns=["key", "reference"]),
                          key_columns=["key"]))
    versions = [("hydrocalc", hydrocalc.__version__),
                ("python", sys.version.split()[0]),
                ("numpy", np.__version__), ("pandas", pd.__version__)]
    b.res.values.update({"prf": opt.prf, "dt_hr": opt.dt_hr, "ia_ratio": opt.ia_ratio,
                         "hydrocalc_version": hydrocalc.__version__})
    b.res.add_table(Table("software", "Software", pd.DataFrame(versions,
                                                             columns=["package", "version"]),
                          key_columns=["package"]))
    manual_md = ("" if site.criteria.standard == "none" else "Sizing criteria follow the "
                 f"{md_escape(design_manual_label(getattr(site.project, 'design_manual', None)))}"
                 ". ")
    b.res.narrative_md = (
        f"Runoff is computed with the NRCS curve-number method (Ia = {opt.ia_ratio:g} S) and "
        f"turned into hydrographs with the NRCS dimensionless unit hydrograph (peak rate "
        f"factor {opt.prf:g}) at {opt.dt_hr:g}-hour steps, for the "
        f"{md_escape(distribution_label(site.storms.distribution))} design storms. "
        "Ponds are routed by "
        f"storage-indication. {manual_md}Every published table this computation read "
        "is listed with its "
        "source and SHA-256, so a reviewer can check the numbers it rests on; "
        f"`hydrocalc verify` re-computes this report from the input files stored with it."
    )
    b.echo("analysis_inputs", "Computation options as entered", ["analysis"])
