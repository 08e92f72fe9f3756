"""Entry points: read, validate and build a site.

:func:`load_site`, :func:`check_site`, :func:`parse_site`, :func:`site_problems`.

Calls the section parsers in order (project and construction, storms, analysis, criteria,
the two scenarios, rational settings, checks, confirmations), collects every problem with
its line number, and refuses the site with all of them at once.
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import re
import tomllib
from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import fmt_value, suggest
from hydrocalc.criteria.ny_editions import design_manual_warnings, rrv_factor_problem
from hydrocalc.criteria.state_permit import start_date_problem
from hydrocalc.design_storms import storm_shape_warning
from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.schema_errors import FieldError, field_errors
from hydrocalc.site import plausibility
from hydrocalc.site import project as project_mod
from hydrocalc.site import rational as rational_site
from hydrocalc.site.files import (
    _ALLOW_OUTSIDE,
    _Ctx,
    _register_input,
    _resolve,
    _where,
    outside_paths_default,
    read_site_file,
)
from hydrocalc.site.model import SCENARIOS, Site
from hydrocalc.site.problems import _Problems, capped, key_lines
from hydrocalc.site.scenario import _parse_scenario
from hydrocalc.site.schema import SiteFile
from hydrocalc.site.settings import (
    _confirmation_notes,
    _load_storm_file,
    _parse_analysis,
    _parse_confirmations,
    _parse_criteria,
    _parse_report,
    _parse_storms,
)
from hydrocalc.unit_hydrograph import MIN_TC_HR, max_dt_hr

# ----------------------------------------------------------------------------------------
# entry points

_TOP_KEYS = ("project", "construction", "storms", "analysis", "criteria", "checks", "pre",
             "post", "confirmations", "rational", "report")


def _site_errors(doc: Mapping, tables: tuple[str, ...]) -> dict[str, list[FieldError]]:
    """The problems the declared site model finds in ``tables`` of a parsed site file.

    One validation of the whole file (:class:`hydrocalc.site.schema.SiteFile`), by table; the
    tables whose keys are still checked by their parsers are left out.
    """
    if not isinstance(doc, Mapping):
        return {}
    crit = doc.get("criteria")
    if isinstance(crit, Mapping) and isinstance(crit.get("practice"), Mapping):
        # one [criteria.practice] table is read as an array of one
        doc = {**doc, "criteria": {**crit, "practice": [crit["practice"]]}}
    out: dict[str, list[FieldError]] = {}
    for e in field_errors(SiteFile, doc):
        if (e.path[:1] and e.path[0] in tables and not (e.kind == "missing" and len(e.path) == 1)
                and not any(e.path[:len(t)] == t for t in _BY_HAND)):
            out.setdefault(e.path[0], []).append(e)
    return out


#: The tables whose keys the declared model checks (the others: their parsers, by hand).
_DECLARED = ("project", "construction", "analysis", "criteria", "storms", "report", "checks",
             "confirmations", "rational", "pre", "post")
#: Tables inside them still parsed by hand.
_BY_HAND: tuple[tuple[str, ...], ...] = ()


def _annotate(problems: list[str], P: _Problems) -> list[str]:
    """Append line numbers to problems produced by other modules' parsers."""
    out = []
    pat = re.compile(rf"^{re.escape(P.where)}: (?:unknown key )?([A-Za-z0-9_.\[\]\-]+)")
    for line in problems:
        m = pat.match(line)
        if m and "(line " not in line:
            path = re.sub(r"\[\d+\]$", "", m.group(1))
            line = line + P.line_of(path)
        out.append(line)
    return out


def _p2_fallback(doc: Mapping, base: pathlib.Path) -> float | None:
    """The 2-yr depth when ``[storms]`` has other problems.

    So that every problem is reported in one pass without false "no 2yr storm" errors.

    The inline ``depths_in."2yr"`` or the depth file's 2-yr depth when readable; when the
    depths cannot be known (the storms problems are reported), a placeholder of 3 in lets
    the Tc checks run (the site is refused anyway).
    """
    m = doc.get("storms")
    if not isinstance(m, Mapping):
        return None
    own = m.get("depths_in")
    if isinstance(own, Mapping):
        v = own.get("2yr")
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v > 0:
            return float(v)
    raw = m.get("file")
    if isinstance(raw, str):
        try:
            info = _load_storm_file(_resolve(base, raw, field="storms.file", design_storms=True))
            v = info["depths_in"].get("2yr")
            if v is not None:
                return float(v)
        except (HydrocalcError, OSError, ValueError, RecursionError, tomllib.TOMLDecodeError):
            return 3.0
        return None
    return None if isinstance(own, Mapping) else 3.0


def site_problems(doc: Mapping[str, Any], *, where: str = "site.toml",
                  base_dir: pathlib.Path | str | None = None, text: str | None = None,
                  input_files: dict[str, str] | None = None,
                  path: pathlib.Path | None = None,
                  allow_outside_paths: bool | None = None) -> tuple[Site | None, list[str]]:
    """Validate a parsed site mapping; return ``(site or None, problems)`` without raising.

    ``doc`` is the parsed TOML, ``where`` the file name prefixing each problem, ``base_dir``
    the folder relative file names resolve against, ``text`` the TOML text (for line
    numbers), ``input_files`` the ``{relative path: sha256}`` collected so far and ``path``
    the site file. ``allow_outside_paths`` None: the environment default
    (:func:`outside_paths_default`).
    """
    if allow_outside_paths is None:
        allow_outside_paths = outside_paths_default()
    token = _ALLOW_OUTSIDE.set(bool(allow_outside_paths))
    try:
        return _site_problems(doc, where=where, base_dir=base_dir, text=text,
                              input_files=input_files, path=path,
                              allow_outside_paths=bool(allow_outside_paths))
    finally:
        _ALLOW_OUTSIDE.reset(token)


def _site_problems(doc: Mapping[str, Any], *, where: str, base_dir, text, input_files, path,
                   allow_outside_paths: bool) -> tuple[Site | None, list[str]]:
    """Validate a parsed site mapping; return ``(site or None, problems)`` without raising.

    Parameters
    ----------
    doc : mapping
        The parsed TOML document.
    where : str
        File name used as the prefix of each problem line.
    base_dir : path-like, optional
        Folder that relative file names (CSV, storm and rainfall files) resolve against.
    text : str, optional
        The TOML text, used only to add line numbers to problems.
    input_files : dict, optional
        ``{relative path: sha256}`` already collected (the site file itself); extended with
        every file the site references.
    path : pathlib.Path, optional
        The site file, stored on the :class:`Site`.
    allow_outside_paths : bool, optional
        Accept file names that leave the site's folder (``..``, absolute paths, symbolic
        links out of it). Default (None): False unless the environment variable
        ``HYDROCALC_ALLOW_OUTSIDE_PATHS=1`` is set (the CLI's ``--allow-outside-paths``).
        By default every file a site names (CSV tables, rainfall record, depth files) must lie
        inside the site file's folder, and a depth file may also lie
        in a ``design_storms/`` folder (see ``docs/validation.md``), so a site file from a
        stranger cannot read the rest of the machine.
    """
    base = pathlib.Path(base_dir) if base_dir is not None else pathlib.Path.cwd()
    P = _Problems(where, key_lines(text) if text else None)
    files = dict(input_files or {})
    if not isinstance(doc, Mapping):
        return None, [f"{where}: the site file must be a TOML table; got {type(doc).__name__}"]
    for key in doc:
        if key not in _TOP_KEYS:
            hint = suggest(str(key), _TOP_KEYS) or f". Valid: {', '.join(_TOP_KEYS)}"
            P.raw(f"{where}: unknown top-level key {key}{hint}{P.line_of(str(key))}")


    declared = _site_errors(doc, _DECLARED + SCENARIOS)
    facts, probs = project_mod.parse_project(doc.get("project"), where=where,
                                             errors=declared.get("project", []))
    P.items += _annotate(probs, P)
    construction = None
    if "construction" in doc:
        municipality = facts.municipality if facts is not None else None
        construction, probs = project_mod.parse_construction(
            doc.get("construction"), where=where, base_dir=base, municipality=municipality,
            allow_outside_paths=allow_outside_paths,
            errors=declared.get("construction", []))
        P.items += _annotate(probs, P)
        rf = getattr(construction, "rainfall_file", None)
        if rf is not None and pathlib.Path(rf).is_file():
            _register_input(files, base, pathlib.Path(rf))
    if facts is not None and construction is not None and facts.state_permit is not None:
        bad = start_date_problem(facts.state_permit.edition, construction.start_date)
        if bad:
            P.add("construction.start_date", bad.split(" ", 1)[1])
    storms = _parse_storms(P, doc.get("storms"), base, files, declared.get("storms", []), doc)
    options = _parse_analysis(P, doc.get("analysis"), declared.get("analysis", []), doc)
    criteria = _parse_criteria(P, doc.get("criteria"), storms, declared.get("criteria", []),
                               doc)
    if facts is not None and criteria is not None and criteria.standard == "ny_smdm":
        bad = rrv_factor_problem(facts.design_manual,
                                 criteria.rrv_specific_reduction_factor is not None,
                                 "rrv" not in criteria.waived)
        if bad:
            P.add("criteria.rrv_specific_reduction_factor", bad.split(" ", 1)[1])
    p2 = storms.depths_in.get("2yr") if storms is not None else _p2_fallback(doc, base)
    ctx = _Ctx(base, files, p2, declared, doc)
    scenarios = {}
    for name in SCENARIOS:
        sc = _parse_scenario(P, name, doc.get(name), ctx, declared.get(name, []), doc)
        if sc is not None:
            scenarios[name] = sc
    rational = _parse_rational(P, doc, base, files, storms, criteria, scenarios,
                               declared.get("rational", []))
    _scenario_rules(P, scenarios, options)
    notes = []
    if storms is not None:
        notes += list(storms.warnings)
        shape = storm_shape_warning(storms.source, storms.distribution,
                                    illustrative=storms.illustrative,
                                    suggested=storms.suggested_distribution)
        if shape:
            notes.append(shape)
    if facts is not None:
        permit = facts.state_permit.edition if facts.state_permit is not None else None
        notes += design_manual_warnings(facts.design_manual, facts.design_manual_justification,
                                        permit)

    checks = plausibility.parse_checks(P, doc.get("checks"), declared.get("checks", []), doc)
    confirmations = _parse_confirmations(P, doc.get("confirmations"),
                                         declared.get("confirmations", []))
    report = _parse_report(P, doc.get("report"), base, files, declared.get("report", []), doc)
    if P.items:
        return None, P.items
    notes += _confirmation_notes(confirmations, where)
    # one pre/post area tolerance: [checks] area_tolerance_pct (plausibility and report alike)
    # no problem: every section parser returned its value
    assert facts is not None and storms is not None and criteria is not None
    assert options is not None and report is not None
    options = dataclasses.replace(options, area_tolerance_pct=float(checks["area_tolerance_pct"]))
    site = Site(name=facts.name, project=facts, storms=storms, scenarios=scenarios,
                criteria=criteria, options=options, construction=construction, path=path,
                input_files=dict(sorted(files.items())), notes=tuple(notes),
                confirmations=confirmations, rational=rational, report=report)
    # the site as a whole: refuse the impossible, warn on the implausible
    impossible, implausible = plausibility.site_checks(site, checks)
    if impossible:
        return None, _annotate([f"{where}: {line}" for line in impossible], P)
    if implausible:
        site = dataclasses.replace(site, notes=site.notes + tuple(implausible))
    return site, []


def _scenario_rules(P: _Problems, scenarios: Mapping, options) -> None:
    """Rules across the scenarios: the same design points in both; a step that resolves Tc.

    The step ``analysis.dt_hr`` must resolve the unit hydrograph of the quickest subcatchment:
    D <= 0.25 Tp (NEH 630 Ch. 16), :func:`hydrocalc.unit_hydrograph.max_dt_hr`.
    """
    if len(scenarios) == 2:
        pre_dp = {d.id for d in scenarios["pre"].design_points}
        post_dp = {d.id for d in scenarios["post"].design_points}
        for sc_name, own, other in (("pre", pre_dp, post_dp), ("post", post_dp, pre_dp)):
            missing_from = "post" if sc_name == "pre" else "pre"
            for dp in sorted(own - other):
                P.add(f"{sc_name}.design_point[{dp}]",
                      f"is missing from scenario {missing_from}; every design point must be in "
                      "both scenarios to compare them")
    if options is not None and scenarios:
        subs = [(sc.name, sb) for sc in scenarios.values() for sb in sc.subcatchments]
        if subs:
            name, tight = min(subs, key=lambda x: x[1].tc_hr)
            limit = float(max_dt_hr(max(tight.tc_hr, MIN_TC_HR)))
            if options.dt_hr > limit * (1 + 1e-9):
                P.add("analysis.dt_hr",
                      f"must be <= {limit:.4g} h to resolve the unit hydrograph of "
                      f"{name}.subcatchment[{tight.id}] (Tc {fmt_value(round(tight.tc_hr, 4))} h; "
                      f"D <= 0.25 Tp, NEH 630 Ch. 16); got {fmt_value(options.dt_hr)}. "
                      "Use 0.01 (resolves any Tc >= 0.1 h)")


site_problems.__doc__ = _site_problems.__doc__


def _parse_rational(P: _Problems, doc, base, files, storms, criteria, scenarios, errors):
    """``[rational]`` settings; required by (and only with) rational subcatchments.

    Those need ``[criteria] standard = "none"`` (the sizing criteria need impervious covers).
    """
    users = [(sc.name, s.id) for sc in scenarios.values() for s in sc.rational]
    settings = None
    if "rational" in doc and storms is not None:
        settings = rational_site.parse_settings(P, doc["rational"], base, files, storms.names,
                                                errors, doc)
    if users and "rational" not in doc:
        name, sid = users[0]
        P.add(f"{name}.subcatchment[{sid}].method", "= \"rational\" needs a [rational] "
              "table naming the intensity source (pfds_csv, depth_file or idf); got none")
    if users and criteria is not None and criteria.standard != "none":
        name, sid = users[0]
        P.add(f"{name}.subcatchment[{sid}].method", f"= \"rational\" cannot be used with the "
              f"sizing criteria (criteria.standard = {criteria.standard!r}): WQv, RRv and Cpv "
              "need every area's impervious cover and curve number. Give the area as a TR-55 "
              "subcatchment, or set [criteria] standard = \"none\" for a conveyance study")
    if settings is not None:
        rational_site.check_durations(P, settings, scenarios, storms.names)
    return settings


def parse_site(doc: Mapping[str, Any], *, where: str = "site.toml",
               base_dir: pathlib.Path | str | None = None, text: str | None = None,
               input_files: dict[str, str] | None = None,
               path: pathlib.Path | None = None, allow_outside_paths: bool | None = None) -> Site:
    """Validate a parsed site mapping and build a :class:`Site` (see :func:`site_problems`).

    Raises
    ------
    InputError
        Listing every problem, one per line (the first
        :data:`~hydrocalc.site.problems.MAX_PROBLEMS_SHOWN` and a count of the rest).
    """
    site, problems = site_problems(doc, where=where, base_dir=base_dir, text=text,
                                   input_files=input_files, path=path,
                                   allow_outside_paths=allow_outside_paths)
    if problems:
        raise InputError("\n".join(capped(problems)))
    assert site is not None  # no problem: the site was built
    return site


def check_site(path, *, allow_outside_paths: bool | None = None) -> list[str]:
    r"""Every problem of site file ``path`` (empty list if it is valid); never raises on content.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "site.toml").write_text("[projct]\n")
    >>> print(check_site(d / "site.toml")[0])  # doctest: +NORMALIZE_WHITESPACE
    site.toml: unknown top-level key projct; did you mean 'project' or 'post' or
    'report'? (line 1)
    """
    try:
        p, text, doc, files = read_site_file(path)
    except InputError as exc:
        return str(exc).splitlines()
    _, problems = site_problems(doc, where=_where(p), base_dir=p.parent, text=text,
                                input_files=files, path=p,
                                allow_outside_paths=allow_outside_paths)
    return problems


def load_site(path, *, allow_outside_paths: bool | None = None) -> Site:
    """Read, validate and build the site in TOML file ``path``.

    Parameters
    ----------
    path : path-like
        The site file. Relative file names inside it (CSV tables, ``storms.file``,
        ``construction.rainfall_file``) resolve against its folder and must lie inside it
        (a depth file may also lie in a ``design_storms/`` folder).
    allow_outside_paths : bool, optional
        Accept file names outside the folder (for a site file you wrote yourself). Default:
        the ``HYDROCALC_ALLOW_OUTSIDE_PATHS`` environment variable (CLI
        ``--allow-outside-paths``), else False.

    Returns
    -------
    Site

    Raises
    ------
    InputError
        One error listing every problem found, one per line, each as
        ``site.toml: post.subcatchment[S-2].area_ac must be > 0; got -3 (line 41)``.
    """
    p, text, doc, files = read_site_file(path)
    return parse_site(doc, where=_where(p), base_dir=p.parent, text=text, input_files=files,
                      path=p, allow_outside_paths=allow_outside_paths)
