"""Ratings of outlet works: :func:`rating_table` and :func:`rating_figure`.

Ratings of outlet works: :func:`rating_table` (a DataFrame) and :func:`rating_figure`
(matplotlib, imported on use).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets.structure import as_structure, unique_names


def _rating_stages(structure, stage_ft, stage_storage, n):
    if stage_ft is not None:
        return as_float_array(stage_ft, "stage_ft", lower=0.0)
    if stage_storage is not None:
        top = stage_storage.top_stage_ft
    else:
        top = max(max(structure.breakpoints_ft) * 1.5, 1.0)
    if not 2 <= n <= 100_001:
        raise InputError(f"n must be an integer in [2, 100001] (even stage steps); got {n}")
    grid = np.linspace(0.0, top, n)
    pts = [p for p in structure.breakpoints_ft if 0.0 <= p <= top]
    return np.unique(np.concatenate([grid, pts]))


def rating_table(outlets, stage_ft: npt.ArrayLike | None = None, *, stage_storage=None,
                 n: int = 41):
    """Stage-discharge (and stage-storage) rating of a structure as a DataFrame.

    Parameters
    ----------
    outlets : Device, list of Device or OutletStructure
        The outlet works (a list means devices in parallel).
    stage_ft : array_like, optional
        Stages to tabulate. [ft] Default: ``n`` even steps from 0 to the top of
        ``stage_storage`` (or to 1.5 x the highest device breakpoint) plus every device
        breakpoint (inverts, crowns, crests).
    stage_storage : StageStorage, optional
        Adds ``storage_ft3`` and ``area_ft2`` columns and binds exfiltration devices.
    n : int, default 41
        Number of even steps when ``stage_ft`` is not given.

    Returns
    -------
    pandas.DataFrame
        Columns ``stage_ft``, [``area_ft2``, ``storage_ft3``], one column per elementary
        device (``<name>_cfs``, after any barrel cap) and ``total_cfs``. [ft, ft2, ft3, ft3/s]

    Examples
    --------
    >>> from hydrocalc.hydraulics.outlets import CircularOrifice, RectangularWeir
    >>> t = rating_table([CircularOrifice(6, 0.0), RectangularWeir(4.0, 3.0)],
    ...                  stage_ft=[0.0, 3.0, 4.0])
    >>> list(t.columns)
    ['stage_ft', 'orifice_6in_cfs', 'weir_4ft_cfs', 'total_cfs']
    >>> round(float(t.total_cfs.iloc[-1]), 3)
    15.151
    """
    import pandas as pd

    structure = as_structure(outlets)
    if stage_storage is not None:
        structure = structure.bind(stage_storage)
    stage = np.atleast_1d(_rating_stages(structure, stage_ft, stage_storage, int(n)))
    cols = {"stage_ft": stage}
    if stage_storage is not None:
        cols["area_ft2"] = stage_storage._area_ext(stage)
        cols["storage_ft3"] = stage_storage._storage_ext(stage)
    parts = structure._components(stage)
    for name, (_, q) in zip(unique_names([d for d, _ in parts]), parts, strict=True):
        cols[f"{name}_cfs"] = q
    cols["total_cfs"] = np.sum([q for _, q in parts], axis=0)
    return pd.DataFrame(cols)


def rating_figure(outlets, stage_ft: npt.ArrayLike | None = None, *, stage_storage=None,
                  n: int = 81, title: str = ""):
    """Stage-discharge rating as a matplotlib Figure (stage on y, flow on x).

    Parameters are those of :func:`rating_table`; with ``stage_storage`` a second panel shows
    the stage-storage curve. matplotlib is imported here, not at module import.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    table = rating_table(outlets, stage_ft, stage_storage=stage_storage, n=n)
    ncols = 2 if stage_storage is not None else 1
    fig = Figure(figsize=(5.0 * ncols, 4.0))
    ax = fig.add_subplot(1, ncols, 1)
    flow_cols = [c for c in table.columns if c.endswith("_cfs") and c != "total_cfs"]
    for col in flow_cols:
        ax.plot(table[col], table.stage_ft, lw=1.0, label=col[:-4])
    ax.plot(table.total_cfs, table.stage_ft, "k-", lw=2.0, label="total")
    ax.set_xlabel("discharge [ft3/s]")
    ax.set_ylabel("stage above bottom [ft]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    if stage_storage is not None:
        ax2 = fig.add_subplot(1, 2, 2, sharey=ax)
        ax2.plot(table.storage_ft3, table.stage_ft, "b-")
        ax2.axhline(stage_storage.top_stage_ft, color="r", ls="--", lw=1.0, label="top")
        ax2.set_xlabel("storage [ft3]")
        ax2.grid(True, alpha=0.3)
        ax2.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
