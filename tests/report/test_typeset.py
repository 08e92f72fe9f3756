"""The typst PDF: user text is displayed verbatim (never markup or code), attachments."""

from __future__ import annotations

import pandas as pd
import pytest

from hydrocalc.report.result import SectionResult
from hydrocalc.report.tables import Table
from hydrocalc.report.typeset import (
    markdown_to_typst,
    pdf_attachments_of,
    table_typst,
    typst_string,
    write_pdf,
)

HOSTILE = ('Lot #7 ]) #set page(width: 1pt) $x^2$ @ref <lbl> *bold* _i_ \\ " '
           '#read("/etc/passwd") = Heading')


def _text(pdf):
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        return "".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    finally:
        doc.close()


def test_hostile_text_is_displayed_verbatim_everywhere(tmp_path):
    res = SectionResult(key="project", title=HOSTILE,
                        narrative_md="**Bold** and " + HOSTILE.replace("\\", "\\\\")
                        .replace("*", "\\*").replace("_", "\\_").replace("#", "\\#"))
    res.add_heading(HOSTILE)
    res.add_table(Table("t", HOSTILE, pd.DataFrame({"name": [HOSTILE, "=1+1"],
                                                    "peak_cfs": [1234.5678, 1e-7]}),
                        caption=HOSTILE))
    res.warnings.append(HOSTILE)
    meta = {"project_name": HOSTILE, "kind": "SWPPP", "cover_rows": [("Owner", HOSTILE)],
            "inputs": [("site.toml", "ab" * 32)], "note": HOSTILE, "footer": HOSTILE,
            "verdict": "does_not_meet", "verdict_text": "DOES NOT MEET: 1 items fail"}
    pages = write_pdf([res], meta, tmp_path / "r.pdf",
                      attachments={"results.json": b"{}", "inputs/site.toml": b"a = 1\n"})
    assert pages >= 3
    text = _text(tmp_path / "r.pdf").replace("\r", "").replace("\n", " ")
    squeezed = " ".join(text.split())
    assert squeezed.count(" ".join(HOSTILE.split())) >= 5
    assert "DOES NOT MEET: 1 items fail" in squeezed
    assert "1,234.57" in squeezed and "0.00" in squeezed, squeezed[-1500:]
    assert "e-07" not in squeezed
    assert "Page 1 of" in squeezed
    assert pdf_attachments_of(tmp_path / "r.pdf") == {"results.json": b"{}",
                                                      "inputs/site.toml": b"a = 1\n"}


@pytest.mark.parametrize("text", ['"', "\\", "\n", "\x00", "\x1b[31m", "]", "#"])
def test_typst_strings_escape_what_could_end_them(text):
    literal = typst_string(text)
    assert literal.startswith('"') and literal.endswith('"')
    inner = literal[1:-1]
    assert '"' not in inner.replace('\\"', "") and "\n" not in inner


def test_markdown_structure_becomes_typst_calls():
    out = markdown_to_typst("A *b* **c** `d`\n\n- one\n- two\n\n| x | y |\n|---|---|\n| 1 | 2 |")
    assert "#emph[" in out and "#strong[" in out and "#raw(" in out
    assert "#list(" in out and "#table(" in out


def test_numbers_in_tables_are_at_reporting_precision():
    table = Table("t", "T", pd.DataFrame({"peak_cfs": [1.23456789, 123456.7]}))
    out = table_typst(table)
    assert '"1.23"' in out and '"123,456.70"' in out and "1.23456789" not in out


def test_a_tables_kept_rows_and_texts_give_the_forms_of_a_fresh_table():
    """A table keeps its row tuples and display texts after the first rendering; a second
    rendering and a pickled copy (which leaves them out) give the same JSON, HTML and typst
    as a table made afresh from the same frame."""
    import pickle

    import pandas as pd

    from hydrocalc.report.tables import Table
    from hydrocalc.report.typeset import table_typst

    def make():
        frame = pd.DataFrame({"pond": ["P-1", "=cmd", None], "peak_cfs": [1.23456, -0.0001, 12.5],
                              "ok": [True, False, True], "storms_n": [1, 2, 3]})
        return Table("t", "Title", frame, caption="c", decimals={"peak_cfs": 2})

    fresh = make()
    forms = (fresh.to_dict(), fresh.to_html(), table_typst(fresh))
    used = make()
    for _ in range(2):
        assert (used.to_dict(), used.to_html(), table_typst(used)) == forms
    assert "_row_tuples" in used.__dict__ and "_display_cells" in used.__dict__
    copy = pickle.loads(pickle.dumps(used))
    assert not set(Table._CACHED) & set(copy.__dict__)
    assert (copy.to_dict(), copy.to_html(), table_typst(copy)) == forms
