"""Chains and trees of interconnected ponds against EPA SWMM 5 dynamic wave.

Three ponds in elevations in series (bottoms 102.0, 100.0 and 99.0 ft): each discharges
through an orifice and a weir into the next, whose level is its tailwater; the last drains
through its own orifice and weir. Case 1: a storm on the first pond (each downstream level
backs up the link above it). Case 2: a larger, later storm on the last pond drives flow back
up both links. SWMM (pyswmm, dynamic wave, 1-s step) models the same storage units and links
(:func:`to_swmm_inp_interconnected_chain`).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import CircularOrifice, Exfiltration, RectangularWeir
from hydrocalc.hydraulics.routing import StageStorage, route_reservoir
from hydrocalc.hydraulics.routing.interconnected import (
    route_interconnected,
    route_interconnected_chain,
    to_swmm_inp_interconnected_chain,
)
from hydrocalc.hydrograph import Hydrograph

T = np.arange(0.0, 24.0 + 0.005, 0.01)


def _gamma(peak_cfs, tp_hr, base=0.0):
    m = 3.7
    return Hydrograph(T, peak_cfs * (T / tp_hr) ** m * np.exp(m * (1 - T / tp_hr)) + base)


P0 = StageStorage.from_areas([102, 103, 104, 105, 106, 107],
                             [4000, 4600, 5300, 6000, 6800, 7600],
                             method="average_end_area", elevation=True)
P1 = StageStorage.from_areas([100, 101, 102, 103, 104, 105, 106, 107],
                             [6000, 7000, 8000, 9000, 10000, 11000, 12000, 13000],
                             method="average_end_area", elevation=True)
P2 = StageStorage.from_areas([99, 100, 101, 102, 103, 104, 105, 106, 107],
                             [12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000, 20000],
                             method="average_end_area", elevation=True)
PONDS = [P0, P1, P2]
OUTLETS = [[CircularOrifice(15.0, 102.0), RectangularWeir(5.0, 105.0)],
           [CircularOrifice(18.0, 100.0), RectangularWeir(6.0, 103.0)],
           [CircularOrifice(6.0, 99.0), RectangularWeir(3.0, 104.0)]]
CASES = {
    "storm on the first pond, backwater along the chain": (
        [_gamma(25.0, 1.0, 0.1), None, None]),
    "storm on the last pond, flow back up both links": (
        [_gamma(6.0, 1.0, 0.1), None, _gamma(45.0, 3.0)]),
}


def _swmm(inflows, path, to=None):
    pyswmm = pytest.importorskip("pyswmm")
    path.write_text(to_swmm_inp_interconnected_chain(inflows, PONDS, OUTLETS, to=to))
    depth = [[], [], []]
    links = [[], [], []]
    with pyswmm.Simulation(str(path)) as sim:
        nodes, lk = pyswmm.Nodes(sim), pyswmm.Links(sim)
        ns = [nodes[f"P{i}"] for i in range(3)]
        groups = [[lk["P0_1"], lk["P0_2"]], [lk["P1_1"], lk["P1_2"]], [lk["L1"], lk["L2"]]]
        for _ in sim:
            for i in range(3):
                depth[i].append(ns[i].depth)
                links[i].append(sum(x.flow for x in groups[i]))
    return np.array(depth), np.array(links)


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_three_ponds_in_series_agree_with_swmm_dynamic_wave(case, tmp_path):
    inflows = CASES[case]
    ours = route_interconnected_chain(inflows, PONDS, OUTLETS, names=["P0", "P1", "P2"])
    depth, flow = _swmm(inflows, tmp_path / "chain.inp")
    ts = np.arange(1, depth.shape[1] + 1) / 3600.0            # SWMM's 1-s steps
    assert (ours.peak_stage_ft < [p.top_stage_ft for p in PONDS]).all()
    # measured (docs/hydraulics.md): peak levels within 0.09 %, levels at every SWMM step
    # within 0.019 ft, peak outflow within 0.24 %, link volumes within 0.17 %, peak reverse
    # flows within 0.17 %, peak forward link flows within 0.06 % (while the links run
    # freely; asserted with margins below)
    assert_allclose(ours.peak_stage_ft, depth.max(axis=1), rtol=2e-3)
    ours_h = np.array([np.interp(ts, ours.time_hr, h) for h in ours.stage_ft])
    assert np.abs(ours_h - depth).max() < 0.03
    assert_allclose(ours.peak_outflow_cfs[2], flow[2].max(), rtol=5e-3)
    for i in range(3):
        assert_allclose(np.trapezoid(ours.outflow_cfs[i], ours.time_hr),
                        np.trapezoid(flow[i], ts), rtol=5e-3)
    if inflows[2] is not None:
        assert ours.reverse_flow.all() and (-flow[:2].min(axis=1) > 5.0).all()
        assert_allclose(ours.peak_reverse_link_cfs, -flow[:2].min(axis=1), rtol=5e-3)
        # the first link peaks before the reversal; the second link's forward flow after
        # the reversal runs on millimetre level differences (ill-conditioned: not compared)
        assert_allclose(ours.peak_link_cfs[0], flow[0].max(), rtol=5e-3)
    else:
        assert not ours.reverse_flow.any()
        assert_allclose(ours.peak_link_cfs, flow[:2].max(axis=1), rtol=5e-3)
    assert (np.abs(ours.mass_balance_error_pct) < 1e-6).all()


@pytest.mark.slow
def test_tree_of_two_ponds_into_one_agrees_with_swmm_dynamic_wave(tmp_path):
    # ponds 0 and 1 both discharge into pond 2; storms on all three
    inflows = [_gamma(20.0, 1.0, 0.1), _gamma(15.0, 1.5, 0.1), _gamma(30.0, 3.0)]
    ours = route_interconnected_chain(inflows, PONDS, OUTLETS, to=[2, 2, None])
    depth, flow = _swmm(inflows, tmp_path / "tree.inp", to=[2, 2, None])
    ts = np.arange(1, depth.shape[1] + 1) / 3600.0
    # measured (docs/hydraulics.md): peak levels within 0.14 %, levels within 0.013 ft at
    # every SWMM step, pond 0's peak link flow 0.01 %, peak outflow 0.06 %, link volumes
    # 0.02 %. Pond 1's link runs with all three levels within millimetres of each other
    # for hours (its flow is ill-conditioned there: not compared beyond its volume)
    assert_allclose(ours.peak_stage_ft, depth.max(axis=1), rtol=3e-3)
    ours_h = np.array([np.interp(ts, ours.time_hr, h) for h in ours.stage_ft])
    assert np.abs(ours_h - depth).max() < 0.03
    assert_allclose(ours.peak_link_cfs[0], flow[0].max(), rtol=5e-3)
    assert_allclose(ours.peak_outflow_cfs[2], flow[2].max(), rtol=5e-3)
    for i in range(3):
        assert_allclose(np.trapezoid(ours.outflow_cfs[i], ours.time_hr),
                        np.trapezoid(flow[i], ts), rtol=5e-3)
    assert (np.abs(ours.mass_balance_error_pct) < 1e-6).all()


def test_two_ponds_equal_route_interconnected():
    up = P1
    link = OUTLETS[1]
    cases = [(_gamma(30.0, 1.0, 0.1), None), (_gamma(8.0, 1.0, 0.1), _gamma(35.0, 3.0))]
    for q_up, q_down in cases:
        pair = route_interconnected(q_up, up, link, P2, OUTLETS[2], inflow_down=q_down)
        chain = route_interconnected_chain([q_up, q_down], [up, P2], [link, OUTLETS[2]])
        # two independent solvers of the same equations on the same tables (the pair's
        # tolerance is 1e-10 of the flows): levels to 1e-8 ft, flows to 1e-7 of the peak
        assert np.abs(chain.stage_ft[0] - pair.stage_up_ft).max() < 1e-8
        assert np.abs(chain.stage_ft[1] - pair.stage_down_ft).max() < 1e-8
        assert np.abs(chain.link_cfs[0] - pair.link_cfs).max() < 1e-7 * pair.peak_link_cfs
        assert_allclose(chain.outflow_cfs[1], pair.outflow_down_cfs, rtol=0,
                        atol=1e-7 * pair.peak_outflow_down_cfs)


def test_a_far_lower_last_pond_leaves_the_chain_above_it_free():
    # the last pond 50 ft lower: the middle pond discharges freely, so the first two ponds
    # route as route_interconnected with a free outfall downstream of the middle pond
    low = StageStorage.from_areas([50, 51, 52, 53, 54, 55, 56, 57],
                                  [12000, 13000, 14000, 15000, 16000, 17000, 18000, 19000],
                                  method="average_end_area", elevation=True)
    out = [CircularOrifice(6.0, 50.0), RectangularWeir(3.0, 54.5)]
    inflows = CASES["storm on the first pond, backwater along the chain"]
    chain = route_interconnected_chain(inflows, [P0, P1, low], OUTLETS[:2] + [out],
                                       table_points=400)
    pair = route_interconnected(inflows[0], P0, OUTLETS[0], P1, OUTLETS[1], table_points=400)
    assert_allclose(chain.peak_stage_ft[:2], [pair.peak_stage_up_ft, pair.peak_stage_down_ft],
                    rtol=1e-7)
    single = route_reservoir(Hydrograph(T, chain.outflow_cfs[1]), low, out, table_points=400)
    assert_allclose(chain.peak_stage_ft[2], single.peak_stage_ft, rtol=1e-6)


def test_a_tree_of_two_ponds_backing_into_one():
    # ponds 0 and 1 both discharge into pond 2: mass balances close, each link feels pond 2
    q0, q1 = _gamma(20.0, 1.0, 0.1), _gamma(15.0, 1.5, 0.1)
    res = route_interconnected_chain([q0, q1, None], [P0, P1, P2], OUTLETS, to=[2, 2, None])
    assert res.links == ((0, 2), (1, 2))
    assert (np.abs(res.mass_balance_error_pct) < 1e-6).all()
    alone = route_interconnected_chain([q0, None], [P0, P2], [OUTLETS[0], OUTLETS[2]])
    # the second pond's water raises the common pond, which backs up the first pond's link
    assert res.peak_stage_ft[2] > alone.peak_stage_ft[1]
    assert res.peak_stage_ft[0] >= alone.peak_stage_ft[0]
    assert_allclose(res.total_inflow_cfs[2], res.outflow_cfs[0] + res.outflow_cfs[1],
                    rtol=0, atol=1e-12)


def test_exfiltration_leaves_the_system_from_any_pond():
    outlets = [OUTLETS[0], OUTLETS[1] + [Exfiltration(2.0)], OUTLETS[2]]
    res = route_interconnected_chain(CASES["storm on the first pond, backwater along the "
                                           "chain"], PONDS, outlets)
    assert res.discarded_cfs[1].max() > 0 and res.discarded_cfs[[0, 2]].max() == 0
    assert (np.abs(res.mass_balance_error_pct) < 1e-6).all()


@pytest.mark.parametrize("kwargs, pattern", [
    ({"to": [1, 0, None]}, "must not form a loop"),
    ({"to": [1, None, None]}, "exactly one pond must discharge to the outfall"),
    ({"to": [1, 5, None]}, r"to\[1\] must be None or the index of another pond"),
    ({"initial_stages_ft": [0.0, 0.0]}, "initial_stages_ft must have one level per pond"),
])
def test_bad_topology_and_levels_are_refused(kwargs, pattern):
    with pytest.raises(InputError, match=pattern):
        route_interconnected_chain(CASES["storm on the first pond, backwater along the "
                                         "chain"], PONDS, OUTLETS, **kwargs)


def test_mixed_frames_and_missing_inflows_are_refused():
    stages = StageStorage.from_areas([0, 1, 2], [100, 200, 300])
    with pytest.raises(InputError, match="must share one vertical frame"):
        route_interconnected_chain([_gamma(1.0, 1.0), None, None], [P0, P1, stages],
                                   [OUTLETS[0], OUTLETS[1], [CircularOrifice(6.0, 0.0)]])
    with pytest.raises(InputError, match="at least one Hydrograph"):
        route_interconnected_chain([None, None, None], PONDS, OUTLETS)
    with pytest.raises(InputError, match="at least 2 ponds"):
        route_interconnected_chain([_gamma(1.0, 1.0)], [P0], [OUTLETS[0]])


def test_a_level_leaving_the_tables_is_an_error_not_a_number():
    tiny = StageStorage.from_areas([99, 100], [10, 10], method="average_end_area",
                                   elevation=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InputError, match="could not be solved"):
            route_interconnected_chain([_gamma(400.0, 1.0), None, None], [P0, P1, tiny],
                                       [OUTLETS[0], OUTLETS[1],
                                        [CircularOrifice(1.0, 99.0)]])
