"""Shared fixtures: published reference tables, the container matrix, shared-data paths."""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pandas as pd
import pytest

REFERENCE_DIR = pathlib.Path(__file__).parent / "reference"
REPO_ROOT = pathlib.Path(__file__).resolve().parents[1]
# Real downloaded rainfall files and the seed laws live outside the project (never copied in):
# in ../shared beside the checkout, or where HYDROCALC_SHARED points (a fresh clone elsewhere,
# as CI makes, still finds the workplace copy at /work/shared). Tests that read them skip
# when no copy is present.
def _find_shared() -> pathlib.Path:
    import os

    candidates = [os.environ.get("HYDROCALC_SHARED", ""), REPO_ROOT.parent / "shared",
                  "/work/shared"]
    for cand in candidates:
        if cand and pathlib.Path(cand).is_dir():
            return pathlib.Path(cand)
    return REPO_ROOT.parent / "shared"


SHARED = _find_shared()
SHARED_RAINFALL = SHARED / "rainfall"
SHARED_SEEDS = SHARED / "seeds"


def load_reference(name: str) -> pd.DataFrame:
    """Read a transcribed published example from ``tests/reference`` (``#`` comments)."""
    return pd.read_csv(REFERENCE_DIR / name, comment="#")


CONTAINERS = {
    "float": lambda v: v[0],
    "list": list,
    "ndarray": np.asarray,
    "series": lambda v: pd.Series(v, index=pd.RangeIndex(10, 10 + len(v))),
}


@pytest.fixture(params=sorted(CONTAINERS))
def container(request):
    """(kind, converter) over float, list, ndarray and Series inputs."""
    return request.param, CONTAINERS[request.param]


def check_container(result, kind, n):
    """Assert ``result`` has the container the input kind implies."""
    if kind == "float":
        assert isinstance(result, float)
    elif kind == "series":
        assert isinstance(result, pd.Series)
        assert list(result.index) == list(range(10, 10 + n))
    else:
        assert isinstance(result, np.ndarray)
        assert result.shape == (n,)


#: The batch tests' base sites (tests/fixtures/batch).
BATCH_FIX = pathlib.Path(__file__).parent / "fixtures" / "batch"


@pytest.fixture(scope="module")
def lot_a():
    """tests/fixtures/batch/lot_a.toml: one lot, an underground pond with an orifice and a weir."""
    from hydrocalc.site import load_site

    return load_site(BATCH_FIX / "lot_a.toml")


@pytest.fixture(scope="module")
def lot_b():
    """tests/fixtures/batch/lot_b.toml: leaching pools with exfiltration, a lag reach."""
    from hydrocalc.site import load_site

    return load_site(BATCH_FIX / "lot_b.toml")


@pytest.fixture
def shared_rainfall():
    """Path of ``../shared/rainfall`` or skip the test when it is not present."""
    if not SHARED_RAINFALL.is_dir():
        pytest.skip("../shared/rainfall is not present on this machine")
    return SHARED_RAINFALL


# Property tests are derandomized so every run (and CI) explores the same examples: the suite
# gives the same result every run. HYPOTHESIS_PROFILE=explore searches fresh examples locally.
from hypothesis import settings as _hyp_settings  # noqa: E402

_hyp_settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
_hyp_settings.register_profile("explore", deadline=None)
_hyp_settings.load_profile(__import__("os").environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_terminal_summary(terminalreporter):
    """Say plainly, at the end of every run, whether the browser tests could run."""
    chromium = os.environ.get("HYDROCALC_CHROMIUM", "/usr/bin/chromium")
    if not (os.path.isfile(chromium) and os.access(chromium, os.X_OK)):
        terminalreporter.write_line(
            f"browser tests (tests/report/test_browser.py) SKIPPED: no Chromium at {chromium}; "
            "install it with .ci/install-browser (or set HYDROCALC_CHROMIUM)")


def pytest_collection_modifyitems(config, items):
    """A test that executes notebooks (``notebooks`` marker: a Jupyter kernel) is also ``slow``,
    so that ``pytest -m "not slow"`` (``make test-fast``) leaves every kernel out."""
    for item in items:
        if item.get_closest_marker("notebooks") and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(autouse=True)
def _no_allow_outside_paths_leak(monkeypatch):
    """``hydrocalc --allow-outside-paths`` run in-process sets an environment variable for the
    kernels it starts; restored after every test, so no test depends on the order of others."""
    monkeypatch.delenv("HYDROCALC_ALLOW_OUTSIDE_PATHS", raising=False)
    yield
