"""What a report run hands its notebooks: rendered sections that present like the results.

A report run computes every section in its own process and pickles a ``SectionView`` per
section (presentation rendered there); the notebook presenting it must show exactly what the
``SectionResult`` itself shows, and must not need pandas or matplotlib to do so. Also: the
warnings section built from the sections already computed equals the one built alone, and
the inspection calendar drawn from its wet days only is the same picture.
"""

from __future__ import annotations

import datetime as dt
import io
import pathlib
import pickle
import subprocess
import sys

import numpy as np
import pytest

from hydrocalc.report import build
from hydrocalc.report import figures as F
from hydrocalc.report import sections as S
from hydrocalc.report.result import SectionResult
from hydrocalc.report.view import HTMLBlock, MarkdownBlock, SectionView

ROOT = pathlib.Path(__file__).resolve().parents[2]
PELHAM = ROOT / "examples" / "pelham" / "site.toml"
KEYS = ["storms", "ponds", "criteria"]


@pytest.fixture(scope="module")
def computed():
    return build.compute_sections(PELHAM, KEYS, site_label="site.toml")


def test_view_presents_exactly_what_the_result_presents(computed, tmp_path):
    path = build.save_sections(computed, tmp_path / "sections.pkl")
    payload = build.load_sections(path)
    assert payload["schema"] == build.PICKLE_SCHEMA
    for key, res in computed.items():
        view = payload["sections"][key]
        assert isinstance(view, SectionView)
        for method in ("heading", "body", "warnings_table"):
            shown = getattr(view, method)()
            assert isinstance(shown, HTMLBlock)
            assert shown._repr_html_() == getattr(res, method)()._repr_html_(), (key, method)
        assert isinstance(view.narrative(), MarkdownBlock)
        assert view.narrative()._repr_markdown_() == res.narrative()._repr_markdown_()
        # everything else is the full result's
        assert view.key == res.key and view.title == res.title
        assert isinstance(view.result, SectionResult)
        assert view.to_dict() == res.to_dict()
        assert list(view.tables) == list(res.tables)
        assert {n: f.png for n, f in view.figures.items()} == \
            {n: f.png for n, f in res.figures.items()}


def test_view_pickles_its_result_once_and_survives_a_round_trip(computed):
    view = SectionView(computed["ponds"])
    again = pickle.loads(pickle.dumps(view))
    assert again.__dict__["_full"] is None  # not unpickled until asked for
    assert again.body()._repr_html_() == view.body()._repr_html_()
    assert again.values == computed["ponds"].values
    with pytest.raises(AttributeError):
        again.no_such_attribute  # noqa: B018


@pytest.mark.slow
def test_presenting_a_section_imports_neither_pandas_nor_matplotlib(computed, tmp_path):
    path = build.save_sections(computed, tmp_path / "sections.pkl")
    code = (
        "import sys\n"
        "from hydrocalc.report import build\n"
        f"r = build.section('ponds', site_file='', results_file={str(path)!r})\n"
        "html = r.heading()._repr_html_() + r.body()._repr_html_() + "
        "r.warnings_table()._repr_html_()\n"
        "md = r.narrative()._repr_markdown_()\n"
        "assert 'hc-figure' in html and md\n"
        "print(sorted(m for m in ('pandas', 'matplotlib', 'nbformat') if m in sys.modules))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_unknown_section_in_a_results_file_is_refused(computed, tmp_path):
    from hydrocalc.errors import InputError, ReportError

    path = build.save_sections(computed, tmp_path / "sections.pkl")
    with pytest.raises(InputError, match="section must be one of"):
        build.section("pondz", results_file=str(path))
    with pytest.raises(InputError, match="scenario must be 'pre' or 'post'"):
        build.section("hydrology", results_file=str(path), scenario="during")
    with pytest.raises(ReportError, match="section 'hydrology_pre' is not in"):
        build.section("hydrology", results_file=str(path), scenario="pre")


def test_warnings_section_from_computed_sections_equals_the_one_built_alone():
    keys = list(S.SECTIONS)
    for site in sorted((ROOT / "examples").glob("*/site.toml")):
        done = build.compute_sections(site, keys, figures=False)
        alone = S.build_section("warnings", site, sections=keys, figures=False)
        reused = done["warnings"].to_dict()
        reused.pop("parameters")
        expected = alone.to_dict()
        expected.pop("parameters")
        assert reused == expected, site


def _calendar_all_bars(name, title, days, rain_in, inspections, *, threshold_in):
    """The calendar as drawn before: one bar per day, dry days included."""
    import matplotlib.dates as mdates

    fig, axes = F.new_figure(3.2, bottom_in=0.8)
    ax = axes[0, 0]
    ax.bar(days, rain_in, width=1.0, color="#6baed6", label="Daily rainfall")
    ax.axhline(threshold_in, color=F._COLORS[1], linestyle="--", linewidth=0.9,
               label="Inspection trigger depth")
    top = max(float(np.nanmax(rain_in)) if len(rain_in) else 0.0, threshold_in) * 1.3 or 1.0
    reasons = sorted({r for _, r in inspections})
    for k, reason in enumerate(reasons):
        dates = [d for d, r in inspections if r == reason]
        ax.plot(dates, [top * (0.95 - 0.07 * k)] * len(dates), "v", markersize=4,
                color=F._COLORS[(k + 2) % len(F._COLORS)], label=f"Inspection: {reason}")
    ax.set_ylim(0, top)
    ax.set_ylabel("Rainfall [in]")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    F._legend(ax, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=3)
    return F.render(fig, name, title)


@pytest.mark.parametrize("as_dates", [False, True])
def test_calendar_from_wet_days_is_the_same_picture(as_dates):
    from PIL import Image

    rng = np.random.default_rng(3)
    days = np.arange("2026-04-01", "2026-10-15", dtype="datetime64[D]")
    rain = np.where(rng.random(len(days)) < 0.3, rng.gamma(1.2, 0.4, len(days)), 0.0)
    rain[0] = rain[-1] = 0.0  # dry first and last days: the axis must still span them
    if as_dates:
        days = [dt.date.fromisoformat(str(d)) for d in days]
    inspections = [(days[10], "weekly"), (days[40], "rain"), (days[41], "weekly")]
    new = F.inspection_calendar_figure.__wrapped__("c", "C", days, rain, inspections,
                                                   threshold_in=0.5)
    old = _calendar_all_bars("c", "C", days, rain, inspections, threshold_in=0.5)
    a = np.asarray(Image.open(io.BytesIO(new.png)))
    b = np.asarray(Image.open(io.BytesIO(old.png)))
    assert a.shape == b.shape
    assert np.array_equal(a, b)
