"""The par sheet as the PDF a regulator files: A4, a title page (the game, its rule changes, the
rules hash, the software's version, the date), then :func:`report.document`'s sections with
their tables (headers repeated where a table runs onto the next page), plots and the method,
every page numbered "page N of M".

Laid out with ReportLab's Platypus (flowing paragraphs, tables split across pages with their
headers, kept-together captions). The text is DejaVu Sans, the font matplotlib draws the plots
with (its own copy, embedded in the PDF): one face throughout, every character the sheet uses.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from matplotlib import get_data_path
from reportlab.lib import colors
from reportlab.lib.enums import TA_CENTER
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas
from reportlab.platypus import (
    Flowable,
    Image,
    KeepTogether,
    PageBreak,
    Paragraph,
    SimpleDocTemplate,
    Spacer,
)
from reportlab.platypus import Table as RLTable

from controller import __version__
from controller.analysis.report import Bullets, Document, Note, Part, Plot, Table, png

FONT = "ParSans"
BOLD = "ParSans-Bold"
ITALIC = "ParSans-Oblique"
MONO = "ParSansMono"
_FACES = {
    FONT: "DejaVuSans.ttf",
    BOLD: "DejaVuSans-Bold.ttf",
    ITALIC: "DejaVuSans-Oblique.ttf",
    f"{FONT}-BoldOblique": "DejaVuSans-BoldOblique.ttf",
    MONO: "DejaVuSansMono.ttf",
}
MARGIN = 20 * mm
FRAME_WIDTH = A4[0] - 2 * MARGIN
INK = colors.HexColor("#222222")
GREY = colors.HexColor("#666666")
RULE = colors.HexColor("#b8b8b8")
HEAD = colors.HexColor("#e8e8e8")
STRIPE = colors.HexColor("#f6f6f6")
CELL = 8.5  # pt, table text
PAD = 4.0  # pt, each side of a cell


def _fonts() -> None:
    """DejaVu Sans from matplotlib's data (registered once)."""
    if FONT in pdfmetrics.getRegisteredFontNames():
        return
    folder = Path(get_data_path()) / "fonts" / "ttf"
    for name, file in _FACES.items():
        pdfmetrics.registerFont(TTFont(name, str(folder / file)))
    pdfmetrics.registerFontFamily(
        FONT, normal=FONT, bold=BOLD, italic=ITALIC, boldItalic=f"{FONT}-BoldOblique"
    )


def _styles() -> dict[str, ParagraphStyle]:
    base = ParagraphStyle("body", fontName=FONT, fontSize=9.5, leading=13, textColor=INK)
    return {
        "body": base,
        "note": ParagraphStyle("note", base, textColor=GREY, spaceBefore=3, spaceAfter=5),
        "bullet": ParagraphStyle("bullet", base, leftIndent=12, bulletIndent=2, spaceAfter=4),
        "title": ParagraphStyle("title", base, fontName=BOLD, fontSize=30, leading=36),
        "subtitle": ParagraphStyle("subtitle", base, fontSize=17, leading=22, spaceBefore=6),
        "h1": ParagraphStyle(
            "h1",
            base,
            fontName=BOLD,
            fontSize=14,
            leading=18,
            spaceBefore=14,
            spaceAfter=5,
            keepWithNext=1,
        ),
        "h2": ParagraphStyle(
            "h2",
            base,
            fontName=BOLD,
            fontSize=10.5,
            leading=14,
            spaceBefore=9,
            spaceAfter=3,
        ),
        "cell": ParagraphStyle("cell", base, fontSize=CELL, leading=11),
        "headcell": ParagraphStyle(
            "headcell", base, fontName=BOLD, fontSize=CELL, leading=CELL + 2
        ),
        "mono": ParagraphStyle("mono", base, fontName=MONO, fontSize=8.8, leading=12),
        "caption": ParagraphStyle(
            "caption",
            base,
            fontName=ITALIC,
            fontSize=8.5,
            leading=11,
            textColor=GREY,
            alignment=TA_CENTER,
            spaceBefore=2,
            spaceAfter=8,
        ),
    }


def _width(text: str, font: str) -> float:
    return pdfmetrics.stringWidth(text, font, CELL) + 2 * PAD


def _table(t: Table, st: dict[str, ParagraphStyle]) -> Flowable:
    """A table with its header row(s) repeated on every page it runs onto; figures right-aligned,
    strategy codes centred on their colours; the full width of the page but for code grids."""
    heads = [list(t.head)]
    if t.group:
        heads.insert(0, ["", t.group, *[""] * (len(t.head) - 2)])
    n = len(t.head)
    natural = [
        max([_width(h, BOLD) for h in (t.head[j],)] + [_width(r[j], FONT) for r in t.rows])
        for j in range(n)
    ]
    if t.align == "codes":
        widths = [max(natural[0], 62.0)] + [max(natural[j], 27.0) for j in range(1, n)]
        short = _width(t.group, BOLD) - sum(widths[1:]) if t.group else 0.0
        if short > 0:  # the columns are as wide as their heading together
            widths[1:] = [w + short / (n - 1) for w in widths[1:]]
    else:
        widths = list(natural)
        spare = FRAME_WIDTH - sum(widths)
        grow = t.wrap if t.wrap is not None else 0
        widths[grow] = max(widths[grow] + spare, 90.0)
    wrap_style, head_style = st["cell"], st["headcell"]

    def cell(text: str, j: int) -> Any:
        if t.wrap == j:  # long text: wrapped to the column
            return Paragraph(escape(text), wrap_style)
        return text

    data: list[list[Any]] = [
        [Paragraph(escape(h), head_style) if t.wrap == j else h for j, h in enumerate(row)]
        for row in heads
    ]
    data += [[cell(c, j) for j, c in enumerate(r)] for r in t.rows]
    top = len(heads)
    style: list[tuple[Any, ...]] = [
        ("FONT", (0, 0), (-1, -1), FONT, CELL),
        ("FONT", (0, 0), (-1, top - 1), BOLD, CELL),
        ("TEXTCOLOR", (0, 0), (-1, -1), INK),
        ("BACKGROUND", (0, 0), (-1, top - 1), HEAD),
        ("GRID", (0, 0), (-1, -1), 0.4, RULE),
        ("VALIGN", (0, 0), (-1, -1), "MIDDLE"),
        ("LEFTPADDING", (0, 0), (-1, -1), PAD),
        ("RIGHTPADDING", (0, 0), (-1, -1), PAD),
        ("TOPPADDING", (0, 0), (-1, -1), 1.6),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.4),
    ]
    if t.group:
        style += [("SPAN", (1, 0), (-1, 0)), ("ALIGN", (1, 0), (-1, 0), "CENTER")]
    if t.align == "figures":
        style.append(("ALIGN", (1, top - 1), (-1, -1), "RIGHT"))
    elif t.align == "codes":
        style += [
            ("ALIGN", (1, top - 1), (-1, -1), "CENTER"),
            ("FONT", (0, top), (0, -1), BOLD, CELL),
        ]
    if t.fills:
        offset = 0 if t.align == "text" else 1  # a legend colours its code, a grid its cells
        for i, fills in enumerate(t.fills):
            for j, fill in enumerate(fills):
                at = (j + offset, top + i)
                style.append(("BACKGROUND", at, at, colors.HexColor(fill)))
    else:
        style.append(("ROWBACKGROUNDS", (0, top), (-1, -1), [colors.white, STRIPE]))
    return RLTable(data, colWidths=widths, repeatRows=top, style=style, hAlign="LEFT")


def _plot(plot: Plot, picture: bytes, st: dict[str, ParagraphStyle]) -> list[Flowable]:
    w_in, h_in = plot.figure.get_size_inches()
    image = Image(io.BytesIO(picture), width=FRAME_WIDTH, height=FRAME_WIDTH * h_in / w_in)
    return [image, Paragraph(escape(plot.caption), st["caption"])]


def _part(part: Part, pictures: dict[int, bytes], st: dict[str, ParagraphStyle]) -> list[Flowable]:
    """The flowables of one part, to be kept on one page (where they fit on one)."""
    if isinstance(part, Note):
        return [Paragraph(escape(part.text), st["note"])]
    if isinstance(part, Bullets):
        return [Paragraph(escape(i), st["bullet"], bulletText="•") for i in part.items]
    if isinstance(part, Plot):
        return _plot(part, pictures[id(part)], st)
    caption = [Paragraph(escape(part.caption), st["h2"])] if part.caption else []
    return [*caption, _table(part, st)]


def _title_page(doc: Document, st: dict[str, ParagraphStyle]) -> list[Flowable]:
    name = doc.title.removeprefix("Par sheet: ")
    rows = []
    for label, value in doc.fields:
        style = st["mono"] if "hash" in label else st["cell"]
        rows.append([Paragraph(escape(label), st["headcell"]), Paragraph(escape(value), style)])
    label_width = max(_width(label, BOLD) for label, _ in doc.fields) + 6  # never wrapped
    fields = RLTable(
        rows,
        colWidths=[label_width, FRAME_WIDTH - label_width],
        hAlign="LEFT",
        style=[
            ("VALIGN", (0, 0), (-1, -1), "TOP"),
            ("LINEBELOW", (0, 0), (-1, -1), 0.4, RULE),
            ("LINEABOVE", (0, 0), (-1, 0), 0.8, INK),
            ("LEFTPADDING", (0, 0), (-1, -1), PAD),
            ("TOPPADDING", (0, 0), (-1, -1), 3),
            ("BOTTOMPADDING", (0, 0), (-1, -1), 4),
        ],
    )
    return [
        Spacer(1, 18 * mm),
        Paragraph("Par sheet", st["title"]),
        Paragraph(escape(name), st["subtitle"]),
        Spacer(1, 10 * mm),
        fields,
        Paragraph(escape(doc.hash_note), st["note"]),
        Paragraph("Key figures", st["h1"]),
        _table(doc.key_figures, st),
        PageBreak(),
    ]


def _story(doc: Document, pictures: dict[int, bytes]) -> list[Flowable]:
    st = _styles()
    story = _title_page(doc, st)
    for section in doc.sections:
        # a heading and the notes that introduce a part go onto the part's page; a plot with
        # its caption, a table with its own heading. (KeepTogether is never nested: an inner
        # one would make the outer one a page long.)
        lead: list[Flowable] = [Paragraph(escape(section.heading), st["h1"])]
        for part in section.parts:
            flowables = _part(part, pictures, st)
            if isinstance(part, Note):
                lead += flowables
            elif isinstance(part, Bullets):
                story += [*lead, *flowables]
                lead = []
            else:
                story.append(KeepTogether([*lead, *flowables]))
                lead = []
        story += lead
    return story


def _build(doc: Document, pictures: dict[int, bytes], total: int | None) -> tuple[bytes, int]:
    buf = io.BytesIO()
    template = SimpleDocTemplate(
        buf,
        pagesize=A4,
        leftMargin=MARGIN,
        rightMargin=MARGIN,
        topMargin=MARGIN,
        bottomMargin=MARGIN + 6 * mm,
        title=doc.title,
        author=f"croupier {__version__}",
        subject=doc.footer,
        creator="croupier analyze",
        lang="en",
    )

    def page(canvas: Canvas, d: Any) -> None:
        canvas.saveState()
        y = MARGIN - 4 * mm
        canvas.setStrokeColor(RULE)
        canvas.setLineWidth(0.5)
        canvas.line(MARGIN, y + 4 * mm, A4[0] - MARGIN, y + 4 * mm)
        canvas.setFont(FONT, 8)
        canvas.setFillColor(GREY)
        number = f"page {d.page}" + (f" of {total}" if total else "")
        canvas.drawRightString(A4[0] - MARGIN, y, number)
        room = FRAME_WIDTH - pdfmetrics.stringWidth(f"{number}    ", FONT, 8)
        footer = doc.footer
        while footer and pdfmetrics.stringWidth(footer, FONT, 8) > room:  # a long variant id
            footer = footer[:-2] + "…"
        canvas.drawString(MARGIN, y, footer)
        canvas.restoreState()

    template.build(_story(doc, pictures), onFirstPage=page, onLaterPages=page)
    return buf.getvalue(), template.page


def render_pdf(doc: Document) -> bytes:
    """The PDF of ``doc``, pages numbered "page N of M" (laid out twice: the first time counts
    the pages)."""
    _fonts()
    pictures = {
        id(part): png(part.figure)
        for section in doc.sections
        for part in section.parts
        if isinstance(part, Plot)
    }
    _draft, pages = _build(doc, pictures, None)
    pdf, _pages = _build(doc, pictures, pages)
    return pdf
