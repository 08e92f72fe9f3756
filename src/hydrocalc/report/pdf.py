"""PDF pages to PNG (pypdfium2) for looking at.

The PDF itself is typeset by :mod:`hydrocalc.report.typeset` (typst).

Run ``python -m hydrocalc.report.pdf PATH [PATH ...]`` to render every page of each PDF (or
of every ``report.pdf`` under a folder) to ``pages/page-NNN.png`` beside it.
"""

from __future__ import annotations

import os
import pathlib
import sys
from collections.abc import Sequence

__all__ = ["pdf_pages", "main"]


def pdf_pages(pdf_path: str | os.PathLike, out_dir: str | os.PathLike | None = None, *,
              scale: float = 1.5, pages: Sequence[int] | None = None) -> list[pathlib.Path]:
    """Render pages of a PDF to PNG files so a person can look at them.

    Parameters
    ----------
    pdf_path : path
        The PDF.
    out_dir : path, optional
        Where to write ``page-001.png`` ...; default ``pages/`` beside the PDF.
    scale : float, default 1.5
        Pixels per PDF point (1.5 gives 108 dpi; a Letter page is 918 x 1188 px).
    pages : sequence of int, optional
        Zero-based page numbers to render; default all.

    Returns
    -------
    list of pathlib.Path
        The PNG files written, in page order.
    """
    import pypdfium2 as pdfium

    pdf_path = pathlib.Path(pdf_path)
    out = pathlib.Path(out_dir) if out_dir is not None else pdf_path.parent / "pages"
    out.mkdir(parents=True, exist_ok=True)
    doc = pdfium.PdfDocument(str(pdf_path))
    written = []
    try:
        numbers = range(len(doc)) if pages is None else pages
        for i in numbers:
            page = doc[i]
            image = page.render(scale=scale).to_pil()
            target = out / f"page-{i + 1:03d}.png"
            image.save(target)
            written.append(target)
            page.close()
    finally:
        doc.close()
    return written


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m hydrocalc.report.pdf PATH...``: PDF pages to PNG (folders: every report.pdf)."""
    args = list(sys.argv[1:] if argv is None else argv) or ["reports"]
    pdfs: list[pathlib.Path] = []
    for arg in args:
        p = pathlib.Path(arg)
        pdfs.extend(sorted(p.rglob("report.pdf")) if p.is_dir() else [p])
    if not pdfs:
        print(f"no report.pdf found under {', '.join(args)}; run `hydrocalc report` first",
              file=sys.stderr)
        return 1
    for pdf in pdfs:
        written = pdf_pages(pdf)
        print(f"{pdf}: {len(written)} pages -> {written[0].parent}/")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
