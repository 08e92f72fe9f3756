"""The SWPPP hydrology report end to end: one executed report shared by many assertions.

The example site (examples/pelham) is copied under a hostile file name (quotes, a newline
and Python code) and a hostile project name (HTML, CSS-breaking quotes, a backslash), then
reported through the CLI once (module fixture). A second run (no HTML/PDF/Excel) checks that
results.json is reproducible, and a third run with a notebook forced to fail checks that the
previous report is left untouched. Notebook execution is marked ``notebooks`` (it is part of
``make test``).
"""

from __future__ import annotations

import json
import pathlib
import re
import shutil

import nbformat
import numpy as np
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell

from hydrocalc.cli import main
from hydrocalc.errors import InputError, ReportError
from hydrocalc.report import sections as S
from hydrocalc.report.execute import copy_inputs, notebook_dir, run_report
from hydrocalc.report.sections import builder as builder_mod
from hydrocalc.report.tables import sha256_json

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"
HOSTILE_FILE = 'evil"; open("PWNED", "w"); x = "\nsite.toml'
HOSTILE_NAME = r'Lot 7 "Rear" </style><script>alert(1)</script> \ & Co'

pytestmark = pytest.mark.notebooks


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory):
    """The example, copied with its inputs, renamed and retitled hostilely."""
    base = tmp_path_factory.mktemp("site")
    site = S.validate_site(EXAMPLE, [])
    rel, _ = copy_inputs(site, EXAMPLE, base)
    original = base / rel.removeprefix("inputs/")
    text = original.read_text(encoding="utf-8")
    text = re.sub(r'(?m)^name = ".*"$', f"name = '{HOSTILE_NAME}'", text, count=1)
    hostile = original.with_name(HOSTILE_FILE)
    hostile.write_text(text, encoding="utf-8")
    original.unlink()
    return hostile


@pytest.fixture(scope="module")
def report(hostile_site, tmp_path_factory):
    """One full report (HTML, PDF, Excel) produced through the CLI."""
    out = tmp_path_factory.mktemp("reports") / "lot7"
    result = CliRunner().invoke(main, ["report", str(hostile_site), "--out", str(out),
                                       "--quiet"])
    assert result.exit_code == 0, result.output
    return out, result.output


def _results(folder):
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


# -- the folder ------------------------------------------------------------------------
def test_report_folder_holds_every_output(report):
    out, output = report
    assert f"report written to {out}" in output
    for name in ("report.html", "report.pdf", "tables.xlsx", "results.json"):
        assert (out / name).is_file() and (out / name).stat().st_size > 0
        assert str(out / name) in output
    notebooks = sorted(p.name for p in (out / "notebooks").glob("*.ipynb"))
    assert notebooks == [f"{i:02d}_{k}.ipynb" for i, k in enumerate(S.SECTIONS, start=1)]
    assert not list(out.parent.glob(".lot7.*")), "no staging or failed folder is left"


def test_hostile_names_executed_nothing_and_reached_the_kernel_as_data(report, hostile_site):
    out, _ = report
    for folder in (out, hostile_site.parent, pathlib.Path.cwd()):
        assert not list(folder.rglob("PWNED"))
    nb = nbformat.read(out / "notebooks" / "05_ponds.ipynb", as_version=4)
    site_file = nb.metadata.papermill.parameters["site_file"]
    assert site_file.endswith(HOSTILE_FILE) and (out / site_file).is_file()
    assert _results(out)["project"]["name"] == HOSTILE_NAME


def test_results_json_records_provenance(report):
    import hydrocalc
    from hydrocalc import data
    from hydrocalc.report.execute import sha256_file

    out, _ = report
    doc = _results(out)
    assert doc["hydrocalc_version"] == hydrocalc.__version__
    assert doc["data_tables"] == data.table_hashes()
    assert doc["parameters"]["sections"] == list(S.SECTIONS)
    assert doc["parameters"]["formats"] == ["html", "pdf", "xlsx"]
    assert len(doc["inputs"]) == 3  # site file, design-storm file, daily rainfall
    for rel, digest in doc["inputs"].items():
        assert sha256_file(out / "inputs" / rel) == digest
    assert set(doc["timestamps"]) >= {"started_utc", "finished_utc", "sections_seconds"}
    for section in doc["sections"].values():
        for table in section["tables"].values():
            assert table["sha256"] == sha256_json({"columns": table["columns"],
                                                   "rows": table["rows"]})


def test_every_table_is_a_csv_and_a_sheet_and_every_figure_a_png(report):
    from openpyxl import load_workbook

    out, _ = report
    doc = _results(out)
    wb = load_workbook(out / "tables.xlsx", read_only=True)
    listed = {(r[1], r[2]) for r in wb["contents"].iter_rows(values_only=True)
              if r and len(r) > 2 and r[1] in doc["sections"]}
    n_tables = 0
    for key, section in doc["sections"].items():
        for name, table in section["tables"].items():
            n_tables += 1
            csv = (out / "tables" / f"{key}__{name}.csv").read_text(encoding="utf-8")
            lines = csv.splitlines()
            assert lines[0].split(",")[:2] == table["columns"][:2]
            assert (key, name) in listed
        for fig in section["figures"]:
            assert (out / fig).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert n_tables > 40
    assert len(wb.sheetnames) == n_tables + 1


# -- the narrative quotes the computation ----------------------------------------------
def test_narrative_numbers_come_from_the_tables(report):
    doc = _results(report[0])
    comp = doc["sections"]["comparison"]
    table = comp["tables"]["peak_comparison"]
    cols = table["columns"]
    for row in table["rows"]:
        pre, post = row[cols.index("pre_peak_cfs")], row[cols.index("post_peak_cfs")]
        # the narrative's flow format (see its doctest)
        pre, post = builder_mod._q(pre), builder_mod._q(post)
        where = f"{row[0]}, {row[1]}: the peak"
        assert (f"{where} falls from {pre} to {post} cfs" in comp["narrative_md"]
                or f"{where} rises from {pre} to {post} cfs" in comp["narrative_md"]
                or (pre == post and f"{where} is unchanged at {pre} cfs"
                    in comp["narrative_md"]))
    storms = doc["sections"]["storms"]
    for storm, depth in doc["analysis"]["storms"]["depths_in"].items():
        assert f"{storm} ({depth:.2f} in)" in storms["narrative_md"]


def test_illustrative_storms_and_unverified_values_are_warned(report):
    doc = _results(report[0])
    assert any("illustrative" in w for w in doc["sections"]["storms"]["warnings"])
    everything = " ".join(r[0] for r in doc["sections"]["warnings"]["tables"]["warnings"]["rows"])
    assert "illustrative" in everything and "unverified" in everything
    basis = doc["sections"]["criteria"]["tables"]["criteria_sources"]
    assert {"source", "location", "status"} <= set(basis["columns"])


def test_inputs_are_echoed_in_the_units_entered(report):
    doc = _results(report[0])
    rows = doc["sections"]["project"]["tables"]["project_inputs"]["rows"]
    assert ["Project: Disturbed area [ft²]", "11500", "ft²", "project.disturbed_area_ft2"] \
        in rows
    pre = doc["sections"]["hydrology_pre"]["tables"]["inputs"]["rows"]
    assert ["Pre-development subcatchment E-1, cover row 1: Area [ft²]", "15400", "ft²",
            "pre.subcatchment[E-1].cover[0].area_ft2"] in pre


# -- HTML and PDF ------------------------------------------------------------------------
def test_html_is_self_contained_escaped_and_has_no_code(report):
    html = (report[0] / "report.html").read_text(encoding="utf-8")
    assert "<script" not in html and "<link" not in html and "@import" not in html
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|file:|//)""", html)
    assert not re.search(r"url\((?!data:)", html)
    assert all(src.startswith("data:image/png;base64,")
               for src in re.findall(r'<img[^>]*src="([^"]*)"', html))
    assert "&lt;/style&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert r"\3C /style\3E \3C script\3E alert(1)" in html  # the @page running head
    assert "result = sections" not in html and "import" not in html.split("<main>")[1]
    toc = re.findall(r'<a href="#(sec-[^"]+)">', html)
    for key in S.SECTIONS:
        assert f"sec-{key}" in toc and f'id="sec-{key}"' in html


def test_pdf_pages_carry_name_and_numbers_and_text_stays_on_the_page(report, tmp_path):
    import pypdfium2 as pdfium

    from hydrocalc.report.pdf import pdf_pages

    pdf = pdfium.PdfDocument(str(report[0] / "report.pdf"))
    n = len(pdf)
    assert n > 15
    overflow = []
    for i in range(n):
        page = pdf[i]
        width, _ = page.get_size()
        text = page.get_textpage()
        content = text.get_text_range()
        assert f"Page {i + 1} of {n}" in content
        assert "Lot 7 \"Rear\" </style>" in content
        right = max((text.get_charbox(k)[2] for k in range(text.count_chars())), default=0)
        if right > width - 0.4 * 72:  # page margin is 0.65 in; allow 0.25 in of slack
            overflow.append(i + 1)
    assert overflow == [], f"text runs into the right margin on pages {overflow}"
    pngs = pdf_pages(report[0] / "report.pdf", tmp_path, pages=[0, n - 1], scale=1.0)
    assert [p.name for p in pngs] == ["page-001.png", f"page-{n:03d}.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in pngs)


def test_untouched_executed_report_verifies(report):
    result = CliRunner().invoke(main, ["verify", str(report[0])])
    assert result.exit_code == 0, result.output
    assert "all agree" in result.output


# -- reproducibility and atomicity -----------------------------------------------------
def _strip(doc):
    out = {k: v for k, v in doc.items() if k != "timestamps"}
    # the second run writes no HTML/PDF/Excel; every other artefact hash must be equal
    out["artifacts"] = {k: v for k, v in out["artifacts"].items()
                        if k not in ("report.html", "report.pdf", "tables.xlsx")}
    return out


def test_two_runs_give_identical_results_apart_from_timestamps(report, hostile_site,
                                                                tmp_path):
    again = run_report(hostile_site, tmp_path / "again", formats="", progress=False)
    first, second = _results(report[0]), _results(again.out_dir)
    assert second["parameters"]["formats"] == []
    second["parameters"]["formats"] = first["parameters"]["formats"]
    assert json.dumps(_strip(first), sort_keys=True) == json.dumps(_strip(second),
                                                                    sort_keys=True)


def test_a_failing_section_leaves_the_previous_report_untouched(report, hostile_site,
                                                                tmp_path):
    out = tmp_path / "lot7"
    shutil.copytree(report[0], out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    books = tmp_path / "books"
    shutil.copytree(notebook_dir(), books)
    nb = nbformat.read(books / "05_comparison.ipynb", as_version=4)
    nb.cells.insert(4, new_code_cell("section.no_such_table()"))
    nbformat.write(nb, books / "05_comparison.ipynb")
    with pytest.raises(ReportError) as info:
        run_report(hostile_site, out, notebooks=books, sections=["comparison"],
                   progress=False)
    message = str(info.value)
    failed = tmp_path / ".lot7.failed" / "notebooks" / "01_comparison.ipynb"
    # cell 5 of the executed notebook: papermill's injected parameters cell comes first
    assert ("section 'comparison' failed in cell 5 (In [5]: 'section.no_such_table()')"
            in message)
    assert "AttributeError" in message and str(failed) in message
    assert "left untouched" in message
    assert failed.is_file()
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert not list(tmp_path.glob(".lot7.partial-*"))


def test_input_errors_refuse_to_run_before_any_kernel(tmp_path):
    bad = tmp_path / "site.toml"
    text = EXAMPLE.read_text(encoding="utf-8").replace("area_ft2 = 15400", "area_ft2 = -15400")
    text = text.replace("../../design_storms/pelham.toml",
                        (ROOT / "design_storms" / "pelham.toml").as_posix())
    text = text.replace('"rain/synthetic_daily_2027.csv"',
                        f'"{(EXAMPLE.parent / "rain" / "synthetic_daily_2027.csv").as_posix()}"')
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(InputError, match=r"pre\.subcatchment\[E-1\]\.cover\[0\]\.area_ft2 must "
                                         r"be > 0; got -15400"):
        run_report(bad, tmp_path / "out", progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site.toml"]


def test_section_functions_present_the_same_numbers_in_process():
    res = S.comparison(str(EXAMPLE), "")
    table = res.table("peak_comparison").frame
    from hydrocalc.analysis import analyze
    from hydrocalc.site import load_site

    direct = analyze(load_site(EXAMPLE)).comparison
    np.testing.assert_allclose(table["post_peak_cfs"], direct["post_peak_cfs"], rtol=0,
                               atol=0)
    assert res.figures and all(f.png[:4] == b"\x89PNG" for f in res.figures.values())
    with pytest.raises(InputError, match="scenario must be 'pre' or 'post'; got 'mid'"):
        S.hydrology(str(EXAMPLE), "mid", "")


# -- nothing internal --------------------------------------------------------------------
#: Text that speaks of how hydrocalc was developed rather than of the project.
FORBIDDEN = re.compile(
    r"\bissues?\s*#?\d|\bissues show\b|\bbrief\b|\bsessions?\b|shared/|\.\./shared"
    r"|\btag \[?[UVSD]\]?(?![a-z])|number inferred|/work/|ny_criteria\.md", re.IGNORECASE)


def forbidden_hits(name: str, text: str) -> list[str]:
    return [f"{name}: ...{text[max(m.start() - 40, 0):m.end() + 40]!r}..."
            for m in FORBIDDEN.finditer(text)]


def test_no_internal_text_in_any_generated_file(report):
    hits = []
    out = report[0]
    for path in sorted(out.rglob("*")):
        if path.suffix.lower() in (".html", ".csv", ".json", ".md", ".txt", ".ipynb", ".toml"):
            hits += forbidden_hits(str(path.relative_to(out)),
                                   path.read_text(encoding="utf-8", errors="replace"))
    try:
        import pypdfium2 as pdfium
    except ImportError:  # pragma: no cover - the report extra installs it
        pdfium = None
    if pdfium is not None and (out / "report.pdf").is_file():
        pdf = pdfium.PdfDocument(str(out / "report.pdf"))
        text = "\n".join(pdf[i].get_textpage().get_text_range() for i in range(len(pdf)))
        hits += forbidden_hits("report.pdf", text)
    assert hits == [], "\n".join(hits[:20])
    doc = _results(out)
    assert doc["summary"]["verdict"] in ("meets", "does_not_meet")
    assert isinstance(doc["summary"]["failures"], list)


def _workbook_values(path) -> dict:
    from openpyxl import load_workbook

    wb = load_workbook(path, read_only=True)
    return {name: [list(r) for r in wb[name].iter_rows(values_only=True)]
            for name in wb.sheetnames}


