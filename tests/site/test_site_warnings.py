"""Loader warnings that reach the user through the site's plausibility channel (``Site.notes``:
printed once by ``hydrocalc check`` / ``run`` and on the report's input checks), never as raw
Python warnings: unknown ``[confirmations]`` keys and a small impervious share."""

from __future__ import annotations

import pathlib
import shutil
import warnings

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.site import (
    CONFIRMABLE_CRITERIA,
    CONFIRMATION_ITEMS,
    confirmation_items,
    load_site,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
SMALL = ROOT / "tests" / "fixtures" / "sites" / "small"
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"


def _small(tmp_path, edit=None) -> pathlib.Path:
    target = tmp_path / "small"
    shutil.copytree(SMALL, target)
    path = target / "site.toml"
    if edit is not None:
        path.write_text(edit(path.read_text()))
    return path


def _with_confirmations(text: str, **items: str) -> str:
    lines = "\n".join(f'{k} = "{v}"' for k, v in items.items())
    return text + f"\n[confirmations]\n{lines}\n"


def _small_impervious(text: str) -> str:
    # pre E-2: 1.0 ac of meadow plus 0.005 ac of roof = 0.4975 % impervious
    return text.replace('id = "E-2"\nto = "R-1"\n', 'id = "E-2"\nto = "R-1"\n'
                        "impervious_connected_ac = 0.005\n", 1)


def test_unknown_confirmation_key_is_a_warning_naming_file_key_and_known_items(tmp_path):
    path = _small(tmp_path, lambda t: _with_confirmations(
        t, storm_depth="NOAA Atlas 14", rrv_factors="SMDM 2015 Table 4.3"))
    site = load_site(path)
    notes = [n for n in site.notes if n.startswith("confirmations:")]
    assert len(notes) == 1, site.notes  # the known key rrv_factors is not reported
    note = notes[0]
    assert "site.toml" in note and "'storm_depth'" in note
    assert "did you mean 'storm_depths'?" in note
    known = note.split("Known items: ", 1)[1].split(", ")
    assert known == list(confirmation_items())
    assert site.confirmations["storm_depth"] == "NOAA Atlas 14"  # still kept, nothing refused

    res = CliRunner().invoke(main, ["check", str(path)])
    assert res.exit_code == 0, res.output
    lines = [ln for ln in res.output.splitlines() if "storm_depth'" in ln]
    assert len(lines) == 1 and lines[0].startswith("warning: confirmations: site.toml:")


def test_known_confirmation_keys_give_no_warning(tmp_path):
    items = {k: "checked" for k in ("storm_depths", "criterion_rrv", "sediment_traps",
                                     "trap_criteria_ny_bluebook_2016_sediment_trap")}
    site = load_site(_small(tmp_path, lambda t: _with_confirmations(t, **items)))
    assert not [n for n in site.notes if n.startswith("confirmations:")]


def test_confirmation_vocabulary_covers_every_item_the_report_lists():
    """The loader's vocabulary must not drift from the report's "Values to confirm" table and
    the criteria table (a real key must never be reported as unknown)."""
    from hydrocalc.analysis import analyze
    from hydrocalc.report import sections as S

    site = load_site(EXAMPLE)
    assert set(analyze(site).criteria["criterion"]) <= set(CONFIRMABLE_CRITERIA)
    items = set(S.values_to_confirm(S.context(EXAMPLE))["item"])
    assert items and items <= set(confirmation_items())
    assert set(CONFIRMATION_ITEMS) <= set(confirmation_items())


def test_small_impervious_share_is_a_plausibility_warning_not_a_python_warning(tmp_path):
    path = _small(tmp_path, _small_impervious)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        site = load_site(path)
    assert not [w for w in caught if "looks like a fraction" in str(w.message)]
    notes = [n for n in site.notes if n.startswith("small_impervious_share:")]
    assert len(notes) == 1, site.notes
    assert "pre.subcatchment[E-2]" in notes[0] and "0.5 %" in notes[0]
    assert 'add "small_impervious_share" to [checks] accept' in notes[0]
    # the composite CN itself is unchanged by routing the warning (TR-55 Fig. 2-3)
    e2 = next(s for s in site.pre.subcatchments if s.id == "E-2")
    imp_pct = 100.0 * 0.005 / 1.005
    assert e2.cn == pytest.approx(e2.pervious_cn + imp_pct / 100.0 * (98.0 - e2.pervious_cn),
                                  rel=1e-12)

    res = CliRunner().invoke(main, ["check", str(path)])
    assert res.exit_code == 0, res.output
    assert "UserWarning" not in res.output
    assert sum(ln.startswith("warning: small_impervious_share:")
               for ln in res.output.splitlines()) == 1


def test_small_impervious_share_can_be_accepted(tmp_path):
    def edit(text):
        return _small_impervious(text) + '\n[checks]\naccept = ["small_impervious_share"]\n'

    site = load_site(_small(tmp_path, edit))
    assert not [n for n in site.notes if n.startswith("small_impervious_share:")]


def test_one_percent_or_more_impervious_gives_no_warning(tmp_path):
    site = load_site(_small(tmp_path, lambda t: t.replace(
        'id = "E-2"\nto = "R-1"\n', 'id = "E-2"\nto = "R-1"\nimpervious_connected_ac = 0.02\n',
        1)))
    assert not [n for n in site.notes if n.startswith("small_impervious_share:")]
