"""The entry points of an analysis: :func:`analyze` and :func:`analyze_many`.

:func:`load_shipped_tables` reads, once per process, the shipped tables an analysis uses;
a process that forks workers or kernels calls it first, so that each starts with them.

Sites are grouped by storms, options and network topology; each group is computed with
shared array work (:mod:`hydrocalc.analysis.flows`), then every site gets its comparison rows,
criteria (:func:`hydrocalc.criteria.evaluate`), pond checks and collected warnings.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np

from hydrocalc import criteria, rainfall
from hydrocalc._validate import suggest
from hydrocalc.analysis.flows import _run_all
from hydrocalc.analysis.hydrology import Hydrology
from hydrocalc.analysis.ponds import _max_storage, _storage_at, _top
from hydrocalc.analysis.results import SiteResults
from hydrocalc.analysis.storms import _end_hr, _storms
from hydrocalc.analysis.summary import summary_rows
from hydrocalc.analysis.tables import _comparison_rows
from hydrocalc.criteria import ny
from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.hydraulics.routing.kernel import resolve_engine


def load_shipped_tables() -> None:
    """Read the shipped tables every analysis uses, once in this process (they are cached).

    The New York sizing criteria and RRv factor sets (:func:`hydrocalc.criteria.ny.criteria_info`,
    :func:`~hydrocalc.criteria.ny.rrv_factor_sets`) and the NRCS rainfall distributions
    (:func:`hydrocalc.rainfall.shipped_distribution`). Called by a process that then forks
    (the batch's fork server, the report's kernel server), so that every child starts with
    them read; an analysis reads them itself when they are not.
    """
    ny.criteria_info("wqv")
    ny.rrv_factor_sets()
    for key in rainfall.SHIPPED_DISTRIBUTIONS:
        rainfall.shipped_distribution(key)


def analyze(site, *, storms: Sequence[str] | None = None, engine: str = "numpy"
            ) -> SiteResults:
    """Analyse a site: both scenarios, every storm and node, comparison and NY criteria.

    Parameters
    ----------
    site : hydrocalc.site.Site
        From :func:`hydrocalc.site.load_site` (or :func:`~hydrocalc.site.parse_site`, or a
        :func:`dataclasses.replace` / :meth:`~hydrocalc.site.Site.replace_node` variant).
    storms : sequence of str, optional
        Storm names to analyse (default: all). Criteria whose storm is left out are reported
        as not evaluated.
    engine : {"numpy", "numba", "auto"}, default "numpy"
        The pond-routing loop, as in :func:`analyze_many` (the same numbers either way).

    Returns
    -------
    SiteResults

    Raises
    ------
    InputError
        If a computation step rejects its input (e.g. a time step that cannot resolve a
        unit hydrograph).

    Examples
    --------
    >>> from hydrocalc.site import load_site          # doctest: +SKIP
    >>> res = analyze(load_site("examples/pelham/site.toml"))   # doctest: +SKIP
    >>> cols = ["design_point", "storm", "pre_peak_cfs", "post_peak_cfs"]  # doctest: +SKIP
    >>> res.comparison[cols]  # doctest: +SKIP
    """
    return analyze_many([site], storms=storms, engine=engine)[0]


def _group_key(site, names) -> tuple:
    st = site.storms
    opt = site.options
    topo = tuple(
        (name, tuple((nid, sc.nodes[nid].kind, sc.nodes[nid].to) for nid in sc.order))
        for name, sc in sorted(site.scenarios.items()))
    return (tuple((n, float(st.depths_in[n])) for n in names), st.distribution,
            float(st.rain_dt_hr), float(st.duration_hr), float(opt.dt_hr), float(opt.prf),
            float(opt.ia_ratio), topo)


def analyze_many(sites: Sequence, *, storms: Sequence[str] | None = None,
                 errors: str = "raise", detail: str = "full", engine: str = "numpy") -> list:
    """Analyse many sites (e.g. the variants of a parameter sweep) with shared array work.

    Sites with the same storms, options and network topology (node ids, kinds and links) are
    computed together: one batch of runoff hydrographs for all their subcatchments, one batch
    routing per pond id across all variants and storms, and scenario objects shared between
    variants (``dataclasses.replace`` keeps unchanged scenarios identical) computed once.
    Results equal those of :func:`analyze` on each site.

    Parameters
    ----------
    sites : sequence of hydrocalc.site.Site
    storms : sequence of str, optional
        Storm names to analyse (default: all of each site).
    errors : {"raise", "collect"}, default "raise"
        "collect" puts the exception in place of the results of a failing group of sites
        instead of raising.
    detail : {"full", "summary"}, default "full"
        "full": a :class:`SiteResults` per site. "summary": only the rows of
        :meth:`SiteResults.summary_rows` per site (peaks, volumes and criteria flags at the
        design points), computed as array work across the sites where
        :mod:`hydrocalc.analysis.summary` expresses them (several times faster over a
        sweep), else by the full analysis; equal to ``analyze(site).summary_rows()``.
    engine : {"numpy", "numba", "auto"}, default "numpy"
        The pond-routing loop (:func:`hydrocalc.hydraulics.routing.route_reservoirs`): the
        same numbers either way; "numba" (or "auto" with numba installed) pays its one-off
        import over many sites and keeps routing tables for reuse in this process.

    Returns
    -------
    list
        In the order of ``sites``: SiteResults (``detail="full"``) or lists of row dicts
        (``detail="summary"``: a :class:`hydrocalc.analysis.summary.SummaryRows` whose
        ``paths`` counts the sites computed by the arrays and by the full analysis, with
        the reasons), or exceptions with ``errors="collect"``.

    Notes
    -----
    Memory is about 3 x storms x variants x nodes x time steps x 8 bytes per group; analyse
    very large sweeps in chunks of a few hundred variants.
    """
    if errors not in ("raise", "collect"):
        raise InputError(f"errors must be 'raise' or 'collect'; got {errors!r}")
    if detail not in ("full", "summary"):
        raise InputError(f"detail must be 'full' or 'summary'; got {detail!r}")
    engine = resolve_engine(engine)
    groups: dict[tuple, list[int]] = {}
    name_lists = []
    for idx, site in enumerate(sites):
        names = tuple(site.storms.names if storms is None else storms)
        for n in names:
            if n not in site.storms.depths_in:

                raise InputError(f"storm must be one of {', '.join(site.storms.names)}; got "
                                 f"{n!r}{suggest(str(n), site.storms.names)}")
        name_lists.append(names)
        groups.setdefault(_group_key(site, names), []).append(idx)
    if detail == "summary":
        return summary_rows(sites, groups, name_lists, analyze_many, errors=errors,
                            engine=engine)
    out: list = [None] * len(sites)
    for members in groups.values():
        group_sites = [sites[i] for i in members]
        results: list[SiteResults] | list[Exception]
        try:
            try:
                results = _analyze_group(group_sites, name_lists[members[0]], engine)
            except HydrocalcError as exc:  # name the site in the message
                label = group_sites[0].path.name if group_sites[0].path else group_sites[0].name
                raise type(exc)(f"{label}: analysis failed: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - collected on request, re-raised otherwise
            if errors == "raise":
                raise
            results = [exc] * len(members)
        for i, r in zip(members, results, strict=True):
            out[i] = r
    return out


def _analyze_group(sites: Sequence, names: tuple[str, ...], engine: str = "numpy"
                   ) -> list[SiteResults]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hyetos = _storms(sites[0], names)
        end_hr = max(_end_hr(s, float(s.storms.duration_hr)) for s in sites)
        per_scenario = _run_all(sites, hyetos, names, end_hr, engine)
    shared = [f"{w.category.__name__}: {w.message}" for w in caught]
    out = []
    for v, site in enumerate(sites):
        runs = {name: per_scenario[name][v] for name in ("pre", "post")}
        time_hr = runs["pre"].time_hr
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            comparison = _comparison_rows(site, runs, names)
            crit_rows, details, notes, extras = criteria.evaluate(
                site, Hydrology(runs, names, time_hr, site.options.dt_hr))
            _check_ponds(site, runs, names, time_hr)
        messages: list[str] = list(site.notes) + shared
        messages += [f"{w.category.__name__}: {w.message}" for w in caught]
        messages += notes
        seen, unique = set(), []
        for msg in messages:
            if msg not in seen:
                seen.add(msg)
                unique.append(msg)
        out.append(SiteResults(site, names, time_hr, runs, None, comparison, crit_rows,
                               details, unique, end_hr, criteria_extras=extras))
    return out


def _check_ponds(site, runs, names, time_hr) -> None:
    for name, run in runs.items():
        for pid, res in run.ponds.items():
            pond = site.scenarios[name].nodes[pid]
            st = res["storage_ft3"]
            peak = st.max(axis=1)
            inv = pond.surface_outlet_invert_ft
            # water below the lowest outlet leaves only by exfiltration: no later outflow
            below = _storage_at(pond, inv) if math.isfinite(inv) else _max_storage(pond)
            end = np.clip(st[:, -1] - below, 0.0, None)
            top = _top(pond)
            for i, storm in enumerate(names):
                if res["overtopped"][i]:
                    warnings.warn(
                        f"{name}.pond[{pid}] overtops in the {storm} storm: peak stage "
                        f"{float(res['stage_ft'][i].max()):.4g} ft exceeds the top of the "
                        f"storage ({top:.4g} ft); results above the top assume vertical walls "
                        "and no flow over the top. Enlarge the pond or its outlets",
                        RuntimeWarning, stacklevel=2)
                if peak[i] > 0 and end[i] > 0.05 * peak[i] and end[i] > 1.0:
                    warnings.warn(
                        f"{name}.pond[{pid}] still stores {end[i]:.4g} ft3 above its lowest "
                        f"outlet ({100 * end[i] / peak[i]:.0f} % of its peak) at the end of the "
                        f"{storm} simulation ({time_hr[-1]:g} h); volumes leaving it later "
                        "are not in the results. Increase analysis.duration_hr to see them",
                        RuntimeWarning, stacklevel=2)
