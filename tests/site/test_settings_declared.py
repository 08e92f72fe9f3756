"""The site-wide tables and the rational subcatchments, checked by the declared model.

``[storms]``, ``[report]``, ``[checks]``, ``[confirmations]``, ``[rational]``,
``[criteria.redevelopment]`` and ``method = "rational"`` subcatchments: each key's type,
range, choices and unknown keys come from :mod:`hydrocalc.site.schema`; the loader keeps the
rules between keys and files. Each case changes one example and expects its one-line message.
"""

from __future__ import annotations

import pathlib
import tomllib

import pytest

from hydrocalc.site import site_problems

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _problems(example: str, change) -> list[str]:
    path = EXAMPLES / example / "site.toml"
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    change(doc)
    site, problems = site_problems(doc, base_dir=path.parent)
    assert site is None
    return problems


def _sub(doc) -> dict:
    return doc["post"]["subcatchment"][0]


@pytest.mark.parametrize(("example", "change", "expected"), [
    ("pelham", lambda d: d["storms"].update(bogus_key=1),
     "unknown key storms.bogus_key"),
    ("pelham", lambda d: d["storms"].update(rain_dt_hr=0),
     "storms.rain_dt_hr must be > 0; got 0"),
    ("pelham", lambda d: d["storms"].update(depths_in={"x y": 3.0}),
     "storms.depths_in.x y storm name must be letters, digits, '_' or '-'"),
    ("pelham", lambda d: d["storms"].update(depths_in={"10yr": 80}),
     "storms.depths_in.10yr must be <= 72 in, the world-record 24-hour rainfall"),
    ("pelham", lambda d: d["storms"].update(use="1yr"),
     "storms.use must be a non-empty list of storm names; got '1yr'"),
    ("pelham", lambda d: d["storms"].update(use=["1yr", "10yrr"]),
     "storms.use must name storms that have a depth; got '10yrr'; did you mean '10yr'"),
    ("pelham", lambda d: d["storms"].pop("distribution"),
     "storms.distribution is required; got nothing"),
    ("pelham", lambda d: d.update(report={"notebook_timeout_s": 0}),
     "report.notebook_timeout_s must be in (0, 86400]; got 0"),
    ("pelham", lambda d: d.update(report={"extra_sections": ["a.py"]}),
     "report.extra_sections must be a list of at most 50 notebook paths (.ipynb)"),
    ("pelham", lambda d: d.update(report={"extra_sections": ["a.ipynb"]}),
     "report.extra_sections[0] must be an existing notebook"),
    ("pelham", lambda d: d.update(checks={"accept": ["pond_countx"]}),
     "checks.accept lists an unknown warning key 'pond_countx'; did you mean 'pond_count'?"),
    ("pelham", lambda d: d.update(checks={"accept": [3]}),
     "checks.accept must be a list of warning keys; got [3]"),
    ("pelham", lambda d: d.update(checks={"area_tolerance_pct": 101}),
     "checks.area_tolerance_pct must be in [0, 100]; got 101"),
    ("pelham", lambda d: d.update(confirmations={"criterion_qp": " "}),
     "confirmations.criterion_qp must be the source the value was checked against"),
    ("pelham_redevelopment", lambda d: d["criteria"]["redevelopment"].update(fraction=2),
     "criteria.redevelopment.fraction must be in (0, 1]; got 2"),
    ("pelham_redevelopment", lambda d: d["criteria"]["redevelopment"].update(option="x"),
     "criteria.redevelopment.option must be one of impervious_reduction"),
    ("pelham_redevelopment", lambda d: d["criteria"]["redevelopment"].update(fractin=1),
     "unknown key criteria.redevelopment.fractin; did you mean 'fraction'"),
    ("storm_sewer", lambda d: d["rational"]["idf"]["2yr"].update(e=3),
     "rational.idf.2yr.e must be in (0, 2]; got 3"),
    ("storm_sewer", lambda d: d["rational"]["idf"].update({"2yr": 3}),
     "rational.idf.2yr must be a table with b, d, e; got 3"),
    ("storm_sewer", lambda d: d["rational"].pop("idf_source"),
     "rational.idf_source is required; got nothing"),
    ("storm_sewer", lambda d: d["rational"].update(pfds_csv="x.csv"),
     "rational needs exactly one intensity source"),
    ("storm_sewer", lambda d: _sub(d).update(c=1.5),
     "post.subcatchment[CB-1].c must be in (0, 1]; got 1.5"),
    ("storm_sewer", lambda d: _sub(d).update(tc_hr=0.1, bogus=1),
     "unknown key post.subcatchment[CB-1].bogus"),
    ("storm_sewer", lambda d: _sub(d).update(cover=[{"cover": "business_downtown", "c": 0.8,
                                                      "area_ac": 0.1, "x": 1}]),
     "unknown key post.subcatchment[CB-1].cover[0].x"),
    ("storm_sewer", lambda d: (_sub(d).pop("c"), _sub(d).update(
        cover=[{"cover": "business_downtown", "c": 0.5, "area_ac": 0.1}])),
     "post.subcatchment[CB-1].cover[0].c must be within the range of 'business_downtown'"),
])
def test_one_message_per_bad_key(example, change, expected):
    problems = _problems(example, change)
    assert any(expected in line for line in problems), problems


def test_a_bad_key_is_reported_once():
    problems = _problems("pelham", lambda d: d["storms"].update(wqv_precip_in=-1))
    assert [p for p in problems if "wqv_precip_in" in p] == [
        "site.toml: storms.wqv_precip_in must be > 0; got -1"]


def test_every_unknown_warning_key_is_named():
    problems = _problems("pelham", lambda d: d.update(checks={"accept": ["a", "wqv_precip",
                                                                         "b"]}))
    assert sum("unknown warning key" in p for p in problems) == 2, problems
