r"""Site rainfall inputs: depth-duration-frequency files, importers and CSV loaders.

This module is the file layer of the design storms (:mod:`hydrocalc.rainfall` holds the
equations and never reads files):

* **DDF files** (``design_storms/*.toml``): a site's precipitation depths by duration and
  return period, with a mandatory ``source`` field, optional 90 % bounds, and an
  ``illustrative`` flag. :func:`load_depth_file` returns a :class:`DepthFrequencyTable`
  whose ``warning`` every report must print (and emits it as a ``UserWarning``);
  :func:`read_depth_file` returns just ``(frame, warning)``.
* **Importers** for the NOAA Atlas 14 precipitation-frequency CSV as downloaded from the
  PFDS page [1]_ (partial-duration or annual-maximum series, depth in inches, mean table and
  optional upper/lower 90 % bound tables) and for the NRCC "Extreme Precipitation in New York
  & New England" table [2]_; both tolerate UTF-8, Latin-1/cp1252 and U+FFFD degree signs,
  spreadsheet re-saves padded with commas and CRLF line ends, files without bound tables,
  and labels or colons that a spreadsheet dropped. :func:`import_precipitation_frequency`
  writes a DDF file from either.
* The importer **suggests** the closest shipped distribution from the 60-min/24-h ratio of
  the 25-yr depths (the criterion NRCS used to draw the NRCC distribution regions [3]_), but
  never chooses it: the distribution is always an explicit project setting.
* **User distributions and hyetographs** from CSV (:func:`load_distribution_csv`,
  :func:`load_hyetograph_csv`), and the NOAA Atlas 14 Volume 10 temporal distributions
  (:func:`read_a14_temporal_csv`, :func:`a14_temporal_distribution`) [4]_.

Modules
-------
=============================================  ===============================================
:mod:`hydrocalc.design_storms.ddf`             durations, DDF physics checks,
                                               :class:`DepthFrequencyTable`
:mod:`hydrocalc.design_storms.depth_file`      DDF files (TOML): load, read, write
:mod:`hydrocalc.design_storms.reading`         limits and helpers for downloaded text files
:mod:`hydrocalc.design_storms.frequency_csv`   NOAA Atlas 14 PFDS and NRCC importers,
                                               distribution suggestion
:mod:`hydrocalc.design_storms.patterns`        user distributions and hyetographs (CSV),
                                               Atlas 14 Volume 10 temporal distributions
=============================================  ===============================================

Every name is importable from :mod:`hydrocalc.design_storms` itself.

Symbols
-------
==================  ======  ==================================================
API name            Unit    Meaning
==================  ======  ==================================================
duration_hr         h       rainfall duration of a DDF row (5 min = 0.0833 h)
return_period_yr    yr      average recurrence interval (PDS) or 1/AEP (AMS)
depth_in            in      mean (point) precipitation-frequency estimate
upper_in, lower_in  in      bounds of the 90 % confidence interval
time_hr             h       time since the start of a storm
cumulative_frac     -       cumulative fraction of the storm depth
cumulative_in       in      cumulative rainfall
==================  ======  ==================================================

References
----------
.. [1] NOAA National Weather Service, Hydrometeorological Design Studies Center,
   "Precipitation Frequency Data Server (PFDS)," NOAA Atlas 14 point estimates, CSV export.
.. [2] Northeast Regional Climate Center / NRCS, "Extreme Precipitation in New York & New
   England," http://precip.eas.cornell.edu (2011 static data).
.. [3] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation, 2015.
.. [4] NOAA, "NOAA Atlas 14 Volume 10: Precipitation-Frequency Atlas of the United States,
   Northeastern States," 2015 (temporal distributions, 24-h, by quartile).
"""

from __future__ import annotations

from hydrocalc.design_storms.ddf import (  # noqa: F401 (re-exported)
    BOUND_TOLERANCE_FRAC,
    DEPTH_CLOSE_TOL_IN,
    ILLUSTRATIVE_WARNING,
    RETURN_PERIOD_RANGE_YR,
    WORLD_RECORD_MARGIN,
    DepthFrequencyTable,
    ddf_physics_problems,
    parse_duration,
    world_record_depth_in,
)
from hydrocalc.design_storms.depth_file import (  # noqa: F401 (re-exported)
    load_depth_file,
    read_depth_file,
    write_depth_file,
)
from hydrocalc.design_storms.frequency_csv import (  # noqa: F401 (re-exported)
    import_precipitation_frequency,
    read_nrcc_csv,
    read_pfds_csv,
    read_precipitation_frequency,
    suggest_distribution,
)
from hydrocalc.design_storms.patterns import (  # noqa: F401 (re-exported)
    a14_temporal_distribution,
    load_distribution_csv,
    load_hyetograph_csv,
    read_a14_temporal_csv,
)
from hydrocalc.design_storms.reading import (  # noqa: F401 (re-exported)
    MAX_DDF_FILE_BYTES,
)
from hydrocalc.design_storms.shape import (  # noqa: F401 (re-exported)
    DEPTH_SOURCES,
    depth_source_kind,
    matching_distributions,
    storm_shape_warning,
)

__all__ = [
    "ILLUSTRATIVE_WARNING",
    "DepthFrequencyTable",
    "load_depth_file",
    "read_depth_file",
    "write_depth_file",
    "parse_duration",
    "read_pfds_csv",
    "read_nrcc_csv",
    "read_precipitation_frequency",
    "import_precipitation_frequency",
    "suggest_distribution",
    "DEPTH_SOURCES",
    "depth_source_kind",
    "matching_distributions",
    "storm_shape_warning",
    "load_distribution_csv",
    "load_hyetograph_csv",
    "read_a14_temporal_csv",
    "a14_temporal_distribution",
]
