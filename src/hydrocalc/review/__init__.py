"""Reviewing a submitted calculation: re-run, explain, compare and import.

- :mod:`hydrocalc.review.rerun` -- ``hydrocalc review``: re-run a submitted site and explain
  every difference (its public names are re-exported here);
- :mod:`hydrocalc.review.diff` -- ``hydrocalc diff``: what changed between two calculations;
- :mod:`hydrocalc.review.importers` -- readers of other tools' reports (HydroCAD).

A product layer: it imports the analysis and everything below it, never the commands.
"""

from __future__ import annotations

from hydrocalc.review.rerun import (
    COARSE_DT_MAX_PCT,
    PEAK_RTOL,
    SHORT_TC_MAX_PCT,
    Review,
    ReviewRow,
    load_submitted,
    review_site,
)

__all__ = [
    "COARSE_DT_MAX_PCT",
    "PEAK_RTOL",
    "SHORT_TC_MAX_PCT",
    "Review",
    "ReviewRow",
    "load_submitted",
    "review_site",
]
