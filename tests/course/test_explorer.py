"""The interactive explorer: the compute callback, the static fallback and the widget."""

from __future__ import annotations

import builtins
import sys

import numpy as np
import pytest

from hydrocalc.course import explorer
from hydrocalc.hydrograph import runoff_hydrograph
from hydrocalc.rainfall import design_storm
from hydrocalc.runoff import impervious_composite_cn, runoff_depth


def test_compute_calls_the_package_and_wires_its_results():
    res = explorer.compute(precip_in=5.0, cn=70.0, impervious_pct=40.0, tc_hr=0.25,
                           orifice_diameter_in=6.0, weir_length_ft=4.0)
    assert res.post_cn == pytest.approx(impervious_composite_cn(70.0, 40.0), rel=1e-12)
    assert res.pre_runoff_in == pytest.approx(runoff_depth(5.0, 70.0), rel=1e-12)
    assert res.post_runoff_in > res.pre_runoff_in
    storm = design_storm(5.0, distribution="III", dt_hr=0.1)
    direct = runoff_hydrograph(5.0, res.post_cn, 0.25, storm)
    np.testing.assert_allclose(res.post.flow_cfs, direct.flow_cfs, rtol=1e-12)
    assert res.routed.peak_inflow_cfs == pytest.approx(res.post.peak_cfs, rel=1e-9)
    # the pond attenuates; a bigger orifice releases more and stores less
    assert res.routed.peak_outflow_cfs < res.post.peak_cfs
    big = explorer.compute(orifice_diameter_in=18.0)
    small = explorer.compute(orifice_diameter_in=3.0)
    assert big.routed.peak_outflow_cfs > small.routed.peak_outflow_cfs
    assert big.routed.peak_stage_ft < small.routed.peak_stage_ft


def test_more_impervious_cover_raises_runoff_and_peak():
    lo, hi = explorer.compute(impervious_pct=0.0), explorer.compute(impervious_pct=80.0)
    assert hi.post_runoff_in > lo.post_runoff_in and hi.post.peak_cfs > lo.post.peak_cfs
    assert lo.post_cn == pytest.approx(lo.pre_cn)


def test_bad_slider_value_raises_the_package_error():
    from hydrocalc.errors import InputError

    with pytest.raises(InputError, match="cn"):
        explorer.compute(cn=120.0)


def test_static_figure_and_table():
    res = explorer.compute()
    fig = explorer.figure(res)
    assert fig.png.startswith(b"\x89PNG") and "not a design" in fig.caption
    html = explorer.table(res).to_html()
    assert "Peak [cfs]" in html and f"{res.routed.peak_outflow_cfs:,.2f}" in html


def test_static_fallback_without_ipywidgets(monkeypatch):
    real_import = builtins.__import__

    def no_widgets(name, *args, **kwargs):
        if name.startswith("ipywidgets"):
            raise ImportError("no ipywidgets")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "ipywidgets", raising=False)
    monkeypatch.setattr(builtins, "__import__", no_widgets)
    shown = []
    monkeypatch.setattr(explorer, "_show", shown.append)
    monkeypatch.setattr(explorer, "_kernel_running", lambda: True)
    out = explorer.explore(precip_in=4.0)
    assert isinstance(out, explorer.ExplorerResult) and out.inputs["precip_in"] == 4.0
    assert shown == [out]


def test_static_when_asked_or_outside_a_kernel(monkeypatch):
    shown = []
    monkeypatch.setattr(explorer, "_show", shown.append)
    assert isinstance(explorer.explore(static=True), explorer.ExplorerResult)
    assert len(shown) == 1
    # outside a kernel (plain python): the result, nothing displayed
    assert isinstance(explorer.explore(), explorer.ExplorerResult) and len(shown) == 1


def test_widget_has_the_six_sliders_and_updates_while_dragging(monkeypatch):
    widgets = pytest.importorskip("ipywidgets")
    monkeypatch.setattr(explorer, "_kernel_running", lambda: True)
    box = explorer.explore(cn=75.0, area_ac=3.0)
    sliders = [w for row in box.children[0].children for w in row.children]
    assert [s.description for s in sliders] == [v[3] for v in explorer.SLIDERS.values()]
    assert sliders[1].value == 75.0
    assert all(s.continuous_update for s in sliders)  # live while dragging
    out = box.children[1]
    assert 'data-cn="75"' in out.value and "MEETS" in out.value
    sliders[0].value = 7.0  # moving a slider recomputes and redraws
    assert 'data-precip-in="7"' in out.value
    expected = explorer.compute(precip_in=7.0, cn=75.0, area_ac=3.0)
    assert f'data-peak-outflow-cfs="{expected.routed.peak_outflow_cfs:.4f}"' in out.value
    assert isinstance(box, widgets.VBox)


def test_widget_shows_a_hint_and_a_preview_before_it_runs(monkeypatch):
    pytest.importorskip("ipywidgets")
    monkeypatch.setattr(explorer, "_kernel_running", lambda: True)
    bundle = explorer.explore()._repr_mimebundle_()
    assert bundle["text/plain"] == explorer.HINT and "VBox" not in bundle["text/plain"]
    assert "\n" not in explorer.HINT
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert 'src="data:image/svg+xml;base64,' in bundle["text/html"]
    assert explorer.HINT.split(":")[0] in bundle["text/html"]


def test_verdict_line_follows_the_routed_peak():
    ok = explorer.compute()
    assert explorer.verdict(ok)[0] == "meets"
    no_pond = explorer.compute(orifice_diameter_in=24.0, weir_length_ft=20.0,
                               impervious_pct=100.0)
    cls, line = explorer.verdict(no_pond)
    assert cls == "fails" and line.startswith("EXCEEDS")
