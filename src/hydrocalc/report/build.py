"""The one call a section notebook makes: compute its section in the kernel and return it.

A report's section notebooks compute their sections themselves, from their parameters:
``site_file`` (the site file copied into the report's ``inputs/``), the scenario and the
section's options. Each calls :func:`section` once and displays the result once; the
display carries the HTML and, beside it, the section's data under
:data:`~hydrocalc.report.result.SECTION_MIME`, from which ``hydrocalc report`` writes
``results.json``, the workbook and the PDF. An executed notebook therefore re-runs as it
stands::

    cd REPORT && papermill notebooks/04_hydrology_post.ipynb out.ipynb

The site is loaded and analysed once per process and site-file content
(:func:`hydrocalc.report.sections.context`); sections built in the same process are kept
with that analysis, so the warnings section of a kernel that presented the others reuses
them instead of building them again.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from hydrocalc._validate import suggest
from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.report import sections as S
from hydrocalc.report.result import SectionResult

__all__ = ["section", "section_key", "compute_sections", "prepare"]


def section_key(key: str, scenario: str | None = None) -> str:
    """The section key for a notebook's ``KEY`` (``"hydrology"`` + scenario -> ``hydrology_post``).

    Examples
    --------
    >>> section_key("hydrology", "pre"), section_key("ponds")
    ('hydrology_pre', 'ponds')
    """
    if key == "hydrology":
        if scenario not in ("pre", "post"):
            raise InputError(f"scenario must be 'pre' or 'post'; got {scenario!r}"
                             f"{suggest(str(scenario), ('pre', 'post'))}")
        key = f"hydrology_{scenario}"
    if key not in S.SECTIONS:
        raise InputError(f"section must be one of {', '.join(S.SECTIONS)}; got {key!r}"
                         f"{suggest(str(key), list(S.SECTIONS))}")
    return key


def section(key: str, site_file: str | os.PathLike, out_dir: str = "", *,
            scenario: str | None = None,
            section_keys: Sequence[str] | None = None) -> SectionResult:
    """Compute one report section from the site file, here, and return it ready to display.

    Parameters
    ----------
    key : str
        Section key (see :data:`hydrocalc.report.sections.SECTIONS`), or ``"hydrology"``
        with ``scenario``.
    site_file : path
        The site file (TOML), relative to the working folder.
    out_dir : str, default ""
        When not empty, write ``sections/<key>.json``, the CSV tables and the PNG figures
        there (a report's notebooks write them into the report folder, ``"."``).
    scenario : {"pre", "post"}, optional
        For ``key="hydrology"``.
    section_keys : sequence of str, optional
        For ``key="warnings"``: the sections whose warnings are gathered (default all).

    Returns
    -------
    SectionResult
        Displayed by the notebook (its HTML and its data, see
        :meth:`~hydrocalc.report.result.SectionResult._repr_mimebundle_`).

    Raises
    ------
    InputError
        Unknown key, missing or invalid site file.
    """
    key = section_key(key, scenario)
    keys = list(section_keys) if section_keys else list(S.SECTIONS)
    ctx = S.context(site_file)
    res = S.build_section(key, site_file, sections=keys, figures=True, computed=ctx.built)
    res.parameters = S.section_parameters(key, site_file=os.fspath(site_file),
                                          out_dir=out_dir, sections=keys)
    ctx.built[key] = res
    if out_dir:
        res.write(out_dir)
    return res


def prepare(site_file: str | os.PathLike) -> None:
    """Load and analyse the site once in this process, ahead of its section notebooks.

    A report run calls it in each of its kernels as soon as the inputs are staged; the
    notebooks' :func:`section` calls then find the analysis cached (keyed by the site
    file's content, :func:`hydrocalc.report.sections.context`). An input error is left for
    the first notebook to raise, with its cell named.
    """
    try:
        S.context(site_file).results  # noqa: B018 - the analysis, cached
    except HydrocalcError:
        return


def compute_sections(site_file: str | os.PathLike, keys: Sequence[str], *,
                     figures: bool = True) -> dict[str, SectionResult]:
    """Every section in ``keys`` computed from one analysis of the site, in report order.

    Parameters
    ----------
    site_file : path
        The site file (TOML).
    keys : sequence of str
        Section keys (see :data:`hydrocalc.report.sections.SECTIONS`).
    figures : bool, default True
        Draw the figures.

    Returns
    -------
    dict
        Section key -> :class:`~hydrocalc.report.result.SectionResult`.

    Raises
    ------
    InputError
        On any input problem.
    """
    ctx = S.context(site_file)
    ctx.results  # noqa: B018 - the analysis is part of validation
    out: dict[str, SectionResult] = {}
    for key in keys:
        out[key] = S.build_section(key, site_file, sections=list(keys), figures=figures,
                                   computed=out)
        out[key].parameters = S.section_parameters(key, site_file=os.fspath(site_file),
                                                   out_dir="", sections=list(keys))
    return out
