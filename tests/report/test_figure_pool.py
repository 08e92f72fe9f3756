"""Figures drawn in the report's process pool are the figures drawn in this process."""

from __future__ import annotations

import pathlib

import pytest

from hydrocalc.report import build
from hydrocalc.report import figures as F
from hydrocalc.report import sections as S

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"
KEYS = ["storms", "ponds"]


@pytest.mark.slow
def test_pool_figures_equal_in_process_figures():
    here = {k: build.compute_section(k, EXAMPLE, KEYS) for k in KEYS}
    with build.figure_pool(2) as pool:
        if pool is None:
            pytest.skip("no fork start method here: figures are drawn in-process")
        assert F._POOL is pool
        pending = {k: build.compute_section(k, EXAMPLE, KEYS, wait=False) for k in KEYS}
        assert any(f.png == b"" for r in pending.values() for f in r.figures.values())
        done = {k: build.finish_section(r) for k, r in pending.items()}
    assert F._POOL is None
    assert not S.PENDING_FIGURES
    for k in KEYS:
        assert list(done[k].figures) == list(here[k].figures)
        for name, fig in here[k].figures.items():
            assert fig.png, name
            assert done[k].figures[name] == fig, name
        assert [kind for kind, _ in done[k].blocks] == [kind for kind, _ in here[k].blocks]


@pytest.mark.slow
def test_drawing_error_in_a_worker_is_raised_when_the_section_is_finished():
    with build.figure_pool(1) as pool:
        if pool is None:
            pytest.skip("no fork start method here")
        fut = F.line_figure("bad", "Bad", [("x", [0.0, 1.0], [0.0])], xlabel="x", ylabel="y")
        with pytest.raises(ValueError):
            fut.result()


@pytest.mark.slow
def test_warnings_raised_while_drawing_in_a_worker_come_back_with_the_figure():
    args = ("w", "W", [("x", [0.0, 1.0], [0.0, 1.0])])
    kw = {"xlabel": "x", "ylabel": "y", "xlim": (1.0, 1.0)}  # identical limits: warns
    with pytest.warns(UserWarning, match="xlim") as here:
        F.line_figure(*args, **kw)
    with build.figure_pool(1) as pool:
        if pool is None:
            pytest.skip("no fork start method here")
        drawn = F.line_figure(*args, **kw).result()
    fig, raised = drawn
    assert isinstance(fig, F.Figure) and fig.png
    assert ("UserWarning", str(here[0].message)) in raised


def test_finishing_a_section_adds_the_warnings_its_pooled_figures_raised():
    from concurrent.futures import Future

    res = build.compute_section("storms", EXAMPLE, KEYS)
    placeholder = next(v for kind, v in res.blocks if kind == "figure")
    before = list(res.warnings)
    fut = Future()
    fut.set_result((placeholder, (("UserWarning", "drawing went wrong"),)))
    S.PENDING_FIGURES[id(res)] = [(placeholder, fut)]
    build.finish_section(res)
    assert res.warnings == [*before, "UserWarning: drawing went wrong"]
    assert res.__dict__.get("_figure_warned") is True
    assert not S.PENDING_FIGURES


@pytest.mark.slow
def test_figures_still_queued_are_drawn_here_and_equal_the_pool_ones():
    keys = ["hydrology_pre", "hydrology_post", "ponds"]
    here = {k: build.compute_section(k, EXAMPLE, keys) for k in keys}
    with build.figure_pool(1) as pool:
        if pool is None:
            pytest.skip("no fork start method here")
        pending = {k: build.compute_section(k, EXAMPLE, keys, wait=False) for k in keys}
        drawn_here = 0
        while build.draw_queued_figure():
            drawn_here += 1
        assert not build.draw_queued_figure()
        done = {k: build.finish_section(r) for k, r in pending.items()}
    # the worker takes the first figures; at least the last one queued is drawn here
    assert drawn_here >= 1
    assert not S.PENDING_FIGURES
    for k in keys:
        assert done[k].figures == here[k].figures
        assert done[k].warnings == here[k].warnings


@pytest.mark.filterwarnings("ignore:from another thread")
def test_a_figure_drawn_here_records_only_its_own_thread_warnings():
    import threading
    import warnings

    args = ("w", "W", [("x", [0.0, 1.0], [0.0, 1.0])])
    stop = threading.Event()

    def noisy():
        while not stop.is_set():
            warnings.warn("from another thread", UserWarning, stacklevel=1)

    other = threading.Thread(target=noisy)
    other.start()
    try:
        drawn = F._draw_in_worker("line_figure", args, {"xlabel": "x", "ylabel": "y"})
    finally:
        stop.set()
        other.join()
    assert isinstance(drawn, F.Figure)  # no warnings of its own: no (figure, warnings) pair
