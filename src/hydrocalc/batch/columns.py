"""The fixed columns of a batch's summary table (the varied fields' columns follow them).

Kept apart so that the sweep file's reader can refuse a ``label`` that would overwrite one.
"""

from __future__ import annotations

#: Fixed columns of the summary table, in order (varied-field columns follow).
SUMMARY_COLUMNS = (
    "source", "site", "scenario", "design_point", "storm", "precip_in", "pre_peak_cfs",
    "post_peak_cfs", "peak_change_pct", "pre_volume_ft3", "post_volume_ft3",
    "volume_change_pct", "post_le_pre", "wqv_pass", "rrv_pass", "cpv_pass", "qp_pass",
    "qf_pass", "criteria_pass", "status", "error",
)
