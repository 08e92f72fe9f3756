"""Rich displays (hydrocalc.display): text reprs and _repr_html_ of the objects people look at."""

from __future__ import annotations

import datetime as dt
import html.parser
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from hydrocalc import display
from hydrocalc.hydraulics.outlets import BroadCrestedWeir, CircularOrifice, RectangularWeir
from hydrocalc.hydraulics.routing import StageStorage, route_reservoir
from hydrocalc.hydrograph import runoff_hydrograph, runoff_hydrographs
from hydrocalc.rainfall import design_storm

ROOT = pathlib.Path(__file__).resolve().parents[2]


class _Balance(html.parser.HTMLParser):
    """Checks that every opened non-void tag is closed in order (well-formed enough)."""

    VOID = frozenset({"img", "br", "wbr", "hr", "meta", "input"})

    def __init__(self):
        super().__init__()
        self.stack, self.errors = [], []

    def handle_starttag(self, tag, attrs):
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        pass

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"unexpected </{tag}> (open: {self.stack[-3:]})")
        else:
            self.stack.pop()


def _valid(text: str) -> str:
    parser = _Balance()
    parser.feed(text)
    parser.close()
    assert not parser.errors and not parser.stack, (parser.errors, parser.stack)
    assert text.startswith('<div class="hc-display">')
    return text


@pytest.fixture(scope="module")
def storm():
    return design_storm(5.0, distribution="III", dt_hr=0.1, name="10yr")


@pytest.fixture(scope="module")
def inflow(storm):
    return runoff_hydrograph(12.0, 78, 0.35, storm, name="S-1")


@pytest.fixture(scope="module")
def pond():
    return StageStorage.from_areas([0, 2, 4, 6], [4000, 5200, 6500, 7900], name="P-1")


def test_hydrograph_html_has_units_values_and_a_figure(inflow):
    out = _valid(inflow._repr_html_())
    assert "Peak [cfs]" in out and "Volume [ac-ft]" in out and "Runoff [in]" in out
    assert f"{inflow.peak_cfs:,.2f}" in out and f"{inflow.volume_acft:,.3f}" in out
    assert "data:image/png;base64," in out
    assert repr(inflow).startswith("Hydrograph(name='S-1'")


def test_hydrograph_set_html_lists_every_subcatchment(storm):
    hs = runoff_hydrographs([3.1, 5.0], [70, 85], [0.3, 0.5], [storm], names=["A", "B"])
    out = _valid(hs._repr_html_())
    assert "1 storms x 2 subcatchments" in out and "Peak [cfs]" in out
    assert f"{hs.peak_cfs[0, 1]:,.2f}" in out and "data:image/png" in out
    assert "HydrographSet(1 storms x 2 subcatchments" in repr(hs)


def test_routing_result_text_and_html(inflow, pond):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = route_reservoir(inflow, pond, [CircularOrifice(6, 0.0), RectangularWeir(4.0, 4.5)])
    text = repr(res)
    assert text.startswith("RoutingResult(") and len(text) < 200 and "array" not in text
    assert f"peak_outflow_cfs={res.peak_outflow_cfs:.4g}" in text
    out = _valid(res._repr_html_())
    assert "Peak stage [ft]" in out and f"{res.peak_stage_ft:,.2f}" in out
    assert "Mass balance error [%]" in out and "data:image/png" in out


def test_stage_storage_html_shows_the_table_points(pond):
    out = _valid(pond._repr_html_())
    assert "Storage [ft³]" in out and "Area [ft²]" in out
    assert f"{pond.max_storage_ft3:,.0f}" in out and "data:image/png" in out


@pytest.mark.parametrize("device", [CircularOrifice(4.0, 0.0), RectangularWeir(3.0, 3.0),
                                    BroadCrestedWeir(10.0, 4.2)], ids=type)
def test_outlet_devices_show_their_coefficients(device):
    out = _valid(device._repr_html_())
    assert type(device).__name__ in out and "Lowest active stage [ft]" in out
    if isinstance(device, CircularOrifice):
        assert "Diameter [in]" in out and ">0.6" in out  # Cd echoed
    # the text repr stays the dataclass one (doctests rely on it)
    assert repr(device).startswith(type(device).__name__ + "(")


def test_compound_device_lists_every_leaf():
    both = CircularOrifice(4.0, 0.0) + RectangularWeir(3.0, 3.0)
    out = _valid(display.html(both))
    assert "CircularOrifice" in out and "RectangularWeir" in out


@pytest.fixture(scope="module")
def pelham():
    from hydrocalc.site import load_site

    return load_site(ROOT / "examples" / "pelham" / "site.toml")


def test_site_text_is_one_line_and_html_lists_scenarios(pelham):
    text = repr(pelham)
    assert "\n" not in text and len(text) < 300 and text.startswith("Site(")
    out = _valid(pelham._repr_html_())
    assert "Area [ac]" in out and "Subcatchments" in out and "Design storms" in out
    assert f"{pelham.post.area_ac:,.3f}" in out
    for name, depth in pelham.storms.depths_in.items():
        assert name in out and f"{depth:,.2f}" in out


def test_site_results_html_shows_peaks_and_criteria(pelham):
    from hydrocalc.analysis import analyze

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = analyze(pelham, storms=["10yr"])
    out = _valid(res._repr_html_())
    assert "Pre peak [cfs]" in out and "Post peak [cfs]" in out and "Sizing criteria" in out
    row = res.comparison.iloc[0]
    assert f"{row.post_peak_cfs:,.2f}" in out
    assert ("meets every criterion" in out) == res.passed
    assert repr(res).startswith("SiteResults(")


def test_assessment_text_and_html(pelham):
    from hydrocalc.criteria.regulations import assess

    a = assess("pelham", pelham.project)
    text = repr(a)
    assert text.startswith("Assessment(profile='pelham'") and "\n" not in text
    out = _valid(a._repr_html_())
    assert "SWPPP required" in out and "Findings" in out and "checklist" in out
    assert "Pelham" in out


def test_inspection_schedule_text_and_html():
    from hydrocalc.construction.inspections import inspection_schedule

    days = pd.date_range("2027-04-01", "2027-05-31", freq="D")
    rain = pd.Series(0.0, index=days)
    rain.iloc[[3, 20, 40]] = [0.8, 0.3, 1.1]
    sch = inspection_schedule(dt.date(2027, 4, 1), dt.date(2027, 5, 31), rain,
                              interval_days=7, threshold_in=0.5, citation="Code ch. 83")
    text = repr(sch)
    assert text == (f"InspectionSchedule(2027-04-01 to 2027-05-31, {len(sch.visits)} visits, "
                    "every 7 days and after 0.5 in of rain)")
    out = _valid(sch._repr_html_())
    assert "2027-04" in out and "Visits" in out and "estimate" in out


def test_unknown_objects_fall_back_to_escaped_repr():
    assert display.html(np.arange(2)) == "<pre>array([0, 1])</pre>"
    assert display.text(3) == "3"


def test_long_tables_are_cut_with_a_note():
    frame = pd.DataFrame({"stage_ft": np.arange(50.0)})
    out = display.table_html("t", "T", frame)
    assert out.count("<tr") == display.MAX_ROWS + 1 and "First 30 of 50 rows" in out


@pytest.mark.slow
def test_import_hydrocalc_does_not_import_the_report_or_matplotlib():
    code = ("import sys, hydrocalc, hydrocalc.site, hydrocalc.hydraulics.routing; "
            "print([m for m in ('hydrocalc.report.tables', "
            "'matplotlib') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PYTHONPATH": str(ROOT / "src")})
    assert out.stdout.strip() == "[]"
