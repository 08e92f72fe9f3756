r"""Parameter sweeps: one base site, many variants (CN +-, Tc +-, orifice sizes, storm depths).

A sweep file is a small TOML file beside (or pointing to) a site file::

    base = "../pelham/site.toml"   # the site file, relative to this file
    name = "pelham_sweep"          # optional; default: the file name without .toml
    combine = "grid"               # "grid" (default) or "zip"
    seed = 20240611                # required when an entry is sampled at random
    samples = 20                   # number of random draws (required with random entries)

    [[vary]]
    field = "post.subcatchment[*].cn"   # which value(s) of the site to change
    op = "add"                          # "set" (default), "add" or "scale"
    values = [-2.0, 0.0, 2.0]           # or range / linspace / uniform / normal / choice

    [[vary]]
    field = "post.pond[UG-1].outlet[OR-1].diameter_in"
    range = [3.0, 6.0, 0.5]             # start, stop (inclusive), step

:func:`load_sweep` validates the file and resolves every ``field`` against the base site
(unknown ids are errors with "did you mean"); :meth:`Sweep.scenario` gives the overrides of
scenario ``i`` and :func:`apply_overrides` builds the varied :class:`hydrocalc.site.Site`
(``dataclasses.replace`` on the loaded site: no file is re-read). See ``docs/batch.md`` for
the full format.

Fields
------
``pre|post|*`` selects the scenario; ``[id]`` selects a node (``[*]`` all of them):

==========================================================  =============================
Field                                                       Meaning
==========================================================  =============================
``<sc>.subcatchment[<id>].cn``                              curve number used [-]
``<sc>.subcatchment[<id>].tc_hr``                           time of concentration used [h]
``<sc>.subcatchment[<id>].area_ac``                         area [ac]
``<sc>.subcatchment[<id>].impervious_connected_ac``         [ac] (also ``..._unconnected_ac``)
``<sc>.pond[<id>].initial_stage_ft``                        also ``count``, ``rrv_credit_pct``
``<sc>.pond[<id>].outlet[<id>].<key>``                      any numeric key of the device
                                                            (``diameter_in``, ``invert_ft``,
                                                            ``length_ft``, ``crest_ft``, ``cd``...)
``<sc>.pond[<id>].barrel.<key>``                            barrel ``diameter_in`` ...
``<sc>.pond[<id>].storage[<i>].<key>``                      basin/drywell dimensions
                                                            (``bottom_length_ft``, ``depth_ft``...)
``<sc>.reach[<id>].lag_hr``                                 reach lag [h]
``storms.depths_in.<name>`` (``.*`` all)                    24-hour storm depth [in]
``storms.wqv_precip_in``, ``storms.distribution``           WQv rainfall [in]; distribution
``analysis.prf``                                            also ``ia_ratio``, ``dt_hr``,
                                                            ``duration_hr``
``criteria.<numeric setting>``                              e.g. ``cpv_detention_hr``
==========================================================  =============================

``cn`` and ``tc_hr`` address the values the analysis uses (given in the file, or computed
from cover rows and Tc segments at load time); a varied value replaces them. Changing
``area_ac`` does not rescale cover rows or impervious areas.

Combination
-----------
Each ``[[vary]]`` entry is a list of values. Entries sharing a ``group`` name are zipped
(equal lengths, taken together); groups are combined as a full grid (cartesian product, the
last group varying fastest), or all zipped with ``combine = "zip"``. Random entries
(``uniform``, ``normal``, ``choice``) draw ``samples`` values each from
``numpy.random.default_rng(seed)`` in file order and form the group ``"random"`` unless they
name another. Overrides apply in file order, each to the value left by the previous one.

Modules (each builds on the ones above it)
------------------------------------------
======================================  ==========================================================
:mod:`hydrocalc.batch.sweep.fields`     the field grammar, :class:`Target`, :func:`resolve_field`,
                                        the variable attributes and their valid ranges
:mod:`hydrocalc.batch.sweep.overrides`  :func:`apply_overrides` (values into a copy of the site)
:mod:`hydrocalc.batch.sweep.model`      :class:`Variation`, :class:`Sweep` (scenario numbering)
:mod:`hydrocalc.batch.sweep.parse`      :func:`load_sweep`, :func:`parse_sweep`,
                                        :func:`is_sweep_document`
======================================  ==========================================================

Every name is importable from :mod:`hydrocalc.batch.sweep` itself.

References
----------
.. [1] NumPy, "Random Generator" (PCG64 bit generator), numpy.random.default_rng.
"""

from __future__ import annotations

# Names the single module imported stay reachable as its attributes (e.g. routing.S_PER_HR).
from hydrocalc._validate import fmt_value, suggest  # noqa: F401 (re-exported)
from hydrocalc.batch.sweep.fields import (  # noqa: F401 (re-exported)
    OPS,
    Target,
    resolve_field,
)
from hydrocalc.batch.sweep.model import (  # noqa: F401 (re-exported)
    Sweep,
    Variation,
)
from hydrocalc.batch.sweep.overrides import (  # noqa: F401 (re-exported)
    apply_overrides,
)
from hydrocalc.batch.sweep.parse import (  # noqa: F401 (re-exported)
    is_sweep_document,
    load_sweep,
    parse_sweep,
)
from hydrocalc.errors import HydrocalcError, InputError  # noqa: F401 (re-exported)

__all__ = [
    "Variation",
    "Target",
    "Sweep",
    "load_sweep",
    "parse_sweep",
    "is_sweep_document",
    "apply_overrides",
    "resolve_field",
    "OPS",
]
