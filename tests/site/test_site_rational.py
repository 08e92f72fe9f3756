"""Rational-method subcatchments in the site file, the analysis and the report."""

from __future__ import annotations

import json
import math
import pathlib
import shutil

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.analysis import analyze
from hydrocalc.design_storms import read_pfds_csv
from hydrocalc.errors import InputError
from hydrocalc.rational import intensity_in_hr, modified_rational_hydrograph, rational_peak_cfs
from hydrocalc.site import load_site
from hydrocalc.site.rational import idf_intensity_in_hr

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "storm_sewer" / "site.toml"
PFDS = ROOT / "tests" / "fixtures" / "rainfall" / "pfds_pds_utf8_mean_only.csv"

SITE = """\
[project]
name = "Rational Test Site"
municipality = "nys_generic"
receiving_water = "Test Brook"
drains_to_impaired_water = false
disturbed_area_ac = 1.0
new_impervious_area_ac = 0.0
project_type = "commercial"

[storms]
distribution = "III"
wqv_precip_in = 1.2
wqv_precip_source = "test"
[storms.depths_in]
"2yr" = 3.0
"10yr" = 4.4

[criteria]
standard = "none"

{rational}

[[pre.subcatchment]]
id = "E-1"
to = "DP-1"
area_ac = 1.0
cn = 65
tc_hr = 0.3

[[pre.design_point]]
id = "DP-1"

[[post.subcatchment]]
id = "R-1"
method = "rational"
to = "DP-1"
{sub}

[[post.design_point]]
id = "DP-1"
"""

PFDS_RATIONAL = '[rational]\npfds_csv = "pfds.csv"'
SUB = "area_ac = 1.0\nc = 0.8\ntc_hr = 0.25"


def _write(tmp_path, rational=PFDS_RATIONAL, sub=SUB, criteria=None) -> pathlib.Path:
    shutil.copy(PFDS, tmp_path / "pfds.csv")
    text = SITE.replace("{rational}", rational).replace("{sub}", sub)
    if criteria is not None:
        text = text.replace('standard = "none"', f'standard = "{criteria}"')
    p = tmp_path / "site.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _problems(tmp_path, **kw) -> list[str]:
    with pytest.raises(InputError) as exc:
        load_site(_write(tmp_path, **kw))
    return str(exc.value).splitlines()


# -- site file ---------------------------------------------------------------------------


def test_example_loads_given_and_composite_c():
    site = load_site(EXAMPLE)
    cb1, cb2 = (site.post.nodes[k] for k in ("CB-1", "CB-2"))
    assert cb1.method == cb2.method == "rational" and cb1.kind == "subcatchment"
    assert cb1.c == 0.90 and cb1.c_method == "given"
    # area-weighted: (0.85 x 0.35 + 0.10 x 0.10) / 0.45
    assert cb2.c == pytest.approx((0.85 * 0.35 + 0.10 * 0.10) / 0.45, rel=1e-12)
    assert cb2.area_ac == pytest.approx(0.45)
    assert [s.id for s in site.post.subcatchments] == ["S-1"]     # TR-55 ones only
    assert site.post.area_ac == pytest.approx(0.5 + 0.9)          # rational area included
    assert site.rational.source == "idf"


def test_hand_checked_peak_from_the_idf_equation():
    # CB-1, 10-yr: i = 60 / (5.0 + 10)^0.8 = 6.8751 in/h; Q = 0.9 x 6.8751 x 0.45 = 2.784 cfs
    i = 60.0 / (0.0833 * 60 + 10.0) ** 0.8
    assert i == pytest.approx(6.8758, abs=5e-4)
    res = analyze(load_site(EXAMPLE), storms=["10yr"])
    row = res.rational[res.rational["subcatchment"] == "CB-1"].iloc[0]
    assert row["intensity_in_hr"] == pytest.approx(i, rel=1e-12)
    assert row["peak_cfs"] == pytest.approx(0.9 * i * 0.45, rel=1e-12)
    assert row["peak_cfs"] == pytest.approx(2.785, abs=5e-4)
    assert idf_intensity_in_hr(60.0, 10.0, 0.8, 0.25) == pytest.approx(60 / 25 ** 0.8)


def test_pfds_intensity_and_hydrograph_equal_the_rational_module(tmp_path):
    site = load_site(_write(tmp_path))
    assert "pfds.csv" in site.input_files
    res = analyze(site)
    table = read_pfds_csv(PFDS)
    for storm, t in (("2yr", 2), ("10yr", 10)):
        i = intensity_in_hr(table, t, 0.25)
        row = res.rational[res.rational["storm"] == storm].iloc[0]
        assert row["intensity_in_hr"] == i
        assert row["peak_cfs"] == float(rational_peak_cfs(0.8, i, 1.0))
        assert "NOAA Atlas 14" in row["intensity_source"]
        # the network hydrograph is the modified rational triangle (Td = Tc), shifted
        q = res.flow_cfs("post", storm, "R-1")
        h = modified_rational_hydrograph(0.8, 1.0, 0.25, 0.25, i, dt_hr=0.01)
        k = int(np.argmax(q))
        assert_allclose(q[k - 25:k + 26], h.flow_cfs, rtol=0, atol=1e-12)
        assert q[:k - 25].max() == 0.0 and q[k + 26:].max() == 0.0
        # peak at the end of the storm's most intense 15 minutes (Type III: near 12 h)
        assert 11.9 <= res.time_hr[k] <= 12.3
    doc = json.loads(res.to_json(hydrographs=False))
    assert {r["subcatchment"] for r in doc["rational"]} == {"R-1"}


def test_mixed_tr55_and_rational_flows_add_up():
    res = analyze(load_site(EXAMPLE), storms=["10yr"])
    qin = res.flow_cfs("post", "10yr", "PIPE-1", which="inflow")
    total = res.flow_cfs("post", "10yr", "CB-1") + res.flow_cfs("post", "10yr", "CB-2")
    assert_allclose(qin, total, rtol=0, atol=1e-12)
    assert qin.max() == pytest.approx(res.rational["peak_cfs"].sum(), rel=1e-12)


def test_rational_needs_the_settings_table(tmp_path):
    lines = _problems(tmp_path, rational="")
    text = (tmp_path / "site.toml").read_text().splitlines()
    line = text.index('method = "rational"') + 1
    assert lines == ['site.toml: post.subcatchment[R-1].method = "rational" needs a [rational] '
                     "table naming the intensity source (pfds_csv, depth_file or idf); got none "
                     f"(line {line})"]


def test_rational_is_refused_with_the_sizing_criteria(tmp_path):
    lines = _problems(tmp_path, criteria="ny_smdm")
    assert len(lines) == 1
    assert "post.subcatchment[R-1].method = \"rational\" cannot be used with the sizing " \
           "criteria (criteria.standard = 'ny_smdm')" in lines[0]


def test_c_is_never_defaulted_and_cover_c_stays_in_its_range(tmp_path):
    lines = _problems(tmp_path, sub="area_ac = 1.0\ntc_hr = 0.25")
    assert len(lines) == 1 and "post.subcatchment[R-1].c (or [[...cover]] rows) is required" \
        in lines[0]
    sub = ('tc_hr = 0.25\n[[post.subcatchment.cover]]\ncover = "business_downtown"\nc = 0.5\n'
           'area_ac = 1.0')
    lines = _problems(tmp_path, sub=sub)
    line = (tmp_path / "site.toml").read_text().splitlines().index("c = 0.5") + 1
    assert lines == ["site.toml: post.subcatchment[R-1].cover[0].c must be within the range of "
                     f"'business_downtown' in HEC-22 Table 3-1 [0.7, 0.95]; got 0.5 (line {line})"]
    sub = ('tc_hr = 0.25\n[[post.subcatchment.cover]]\ncover = "downtown"\nc = 0.8\n'
           'area_ac = 1.0')
    assert "cover[0].cover must be a key of rational_runoff_coefficients" in \
        _problems(tmp_path, sub=sub)[0]


def test_tc_outside_the_table_and_unmapped_storms_are_errors(tmp_path):
    lines = _problems(tmp_path, sub="area_ac = 1.0\nc = 0.8\ntc_hr = 0.05")
    assert len(lines) == 1
    assert lines[0].startswith("site.toml: post.subcatchment[R-1].tc_hr must be within the "
                               "intensity table's durations [5 min, 48 h]")
    text = SITE.replace('"10yr" = 4.4', '"design" = 4.4')
    p = _write(tmp_path)
    p.write_text(text.replace("{rational}", PFDS_RATIONAL).replace("{sub}", SUB))
    with pytest.raises(InputError, match=r"rational.return_periods_yr must give the return "
                                         r"period of storm 'design'"):
        load_site(p)
    p.write_text(text.replace("{rational}", PFDS_RATIONAL + '\nreturn_periods_yr = '
                              '{ design = 10 }').replace("{sub}", SUB))
    assert load_site(p).rational.return_period("design") == 10.0


def test_idf_needs_every_storm_and_a_source(tmp_path):
    rational = '[rational]\n[rational.idf.2yr]\nb = 45.0\nd = 10.0\ne = 0.8'
    text = "\n".join(_problems(tmp_path, rational=rational))
    assert "rational.idf_source is required" in text
    assert "rational.idf needs b, d, e for every storm; got none for '10yr'" in text


def test_unknown_method_is_one_line(tmp_path):
    p = _write(tmp_path)
    p.write_text(p.read_text().replace('method = "rational"', 'method = "scs"'))
    with pytest.raises(InputError) as exc:
        load_site(p)
    assert str(exc.value).splitlines()[0].startswith(
        "site.toml: post.subcatchment[R-1].method must be one of tr55, rational; got 'scs'")


# -- report ------------------------------------------------------------------------------


def test_report_rational_table_and_methods():
    from hydrocalc.report import sections

    hyd = sections.build_section("hydrology_post", EXAMPLE, figures=False)
    rows = hyd.tables["rational"].frame
    assert set(rows["subcatchment"]) == {"CB-1", "CB-2"}
    for col in ("c", "intensity_in_hr", "area_ac", "tc_hr", "peak_cfs", "intensity_source",
                "c_source"):
        assert col in rows
    assert "RATIONAL METHOD" in hyd.tables["rational"].caption
    assert "rational method" in hyd.narrative_md
    methods = sections.build_section("methods", EXAMPLE, figures=False).tables
    assert "Rational method" in set(methods["methods"].frame["step"])
    assert {"HEC-22", "TxDOT HDM"} <= set(methods["references"].frame["key"])
    plain = sections.build_section("methods", ROOT / "examples" / "pelham" / "site.toml",
                                   figures=False).tables
    assert "Rational method" not in set(plain["methods"].frame["step"])
    assert "HEC-22" not in set(plain["references"].frame["key"])
    assert not math.isnan(rows["peak_cfs"].sum())


def test_variants_with_other_intensities_are_not_shared():
    import dataclasses

    from hydrocalc.analysis import analyze_many

    site = load_site(EXAMPLE)
    idf = dict(site.rational.idf)
    idf["10yr"] = (2 * idf["10yr"][0], *idf["10yr"][1:])          # twice the intensity
    other = dataclasses.replace(site, rational=dataclasses.replace(site.rational, idf=idf))
    a, b = analyze_many([site, other], storms=["10yr"])
    assert_allclose(b.rational["peak_cfs"], 2 * a.rational["peak_cfs"], rtol=1e-12)
