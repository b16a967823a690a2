"""PDF configuration sheet: the Markdown sheet laid out by QTextDocument and printed through QPdfWriter.

No extra dependency: Qt's own Markdown reader (CommonMark + GitHub tables) and PDF writer. The function is
safe to call from a worker thread (QTextDocument and QPdfWriter are reentrant; QPainter on a PDF device is
allowed outside the GUI thread), so the UI runs it through ``run_task``.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QCoreApplication, QMarginsF, QSizeF, QUrl
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontInfo,
    QImage,
    QPageLayout,
    QPageSize,
    QPainter,
    QPdfWriter,
    QTextCursor,
    QTextDocument,
    QTextFormat,
    QTextLength,
    QTextTable,
)

from gpudesk.planner.sheet import SheetError
from gpudesk.ui.cjk_font import cjk_font_family, has_cjk, missing_cjk_font_text

PDF_RESOLUTION_DPI = 300
#: Width of the charts' row in the sheet's layout units (96 per inch, as QTextDocument lays out before printing):
#: the charts are drawn side by side into one picture about the text width of a landscape page.
CHART_WIDTH_PX = 980
#: A table with this many columns or more turns the page to landscape.
WIDE_TABLE_COLUMNS = 7


def _tables(document: QTextDocument) -> list[QTextTable]:
    """Every table of the document, in order."""
    found: list[QTextTable] = []
    seen: set[int] = set()
    block = document.begin()
    while block.isValid():
        table = QTextCursor(block).currentTable()
        if table is not None and id(table) not in seen and table.firstPosition() not in seen:
            seen.add(table.firstPosition())
            found.append(table)
        block = block.next()
    return found


#: A heading closer than this many of its own heights to the bottom of a page starts the next page instead, so a
#: section title is never left alone at the foot of a page ("Bill of materials" over an empty line).
HEADING_KEEP_LINES = 4


def _keep_headings_with_text(document: QTextDocument) -> None:
    """Move every heading that would sit in the last lines of a page to the top of the next page (after the
    page size is set: the layout decides where pages end)."""
    page_height = document.pageSize().height()
    if page_height <= 0:
        return
    layout = document.documentLayout()
    block = document.begin()
    while block.isValid():
        if block.blockFormat().headingLevel() > 0 and block.position() > 0:
            rect = layout.blockBoundingRect(block)
            left = page_height - rect.top() % page_height
            if left < HEADING_KEEP_LINES * rect.height():
                fmt = block.blockFormat()
                fmt.setPageBreakPolicy(QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore)
                QTextCursor(block).setBlockFormat(fmt)
        block = block.next()


def with_charts(markdown_text: str, charts: list[tuple[str, QImage]]) -> str:
    """The sheet with its charts after the recommended configuration (before the second section)."""
    if not charts:
        return markdown_text
    images = "\n\n".join(f"![{title}](chart://{i})" for i, (title, _image) in enumerate(charts)) + "\n\n"
    first = markdown_text.find("\n## ")
    second = markdown_text.find("\n## ", first + 1) if first >= 0 else -1
    if second < 0:
        return markdown_text + "\n\n" + images
    return markdown_text[:second + 1] + images + markdown_text[second + 1:]


def side_by_side(charts: list[tuple[str, QImage]]) -> list[tuple[str, QImage]]:
    """The charts drawn next to each other in one picture (one row of the page instead of one page each)."""
    if len(charts) < 2:
        return charts
    width = sum(image.width() for _title, image in charts)
    height = max(image.height() for _title, image in charts)
    row = QImage(width, height, QImage.Format.Format_RGB32)
    row.fill(QColor("white"))
    painter = QPainter(row)
    x = 0
    for _title, image in charts:
        painter.drawImage(x, 0, image)
        x += image.width()
    painter.end()
    return [(" / ".join(title for title, _image in charts), row)]


def markdown_to_pdf(markdown_text: str, path: str | Path, title: str = "", *, page_size: str = "A4",
                    charts: list[tuple[str, QImage]] | None = None) -> Path:
    """Write ``markdown_text`` as a paginated PDF at ``path`` and return the path.

    Args:
        markdown_text: the sheet (``gpudesk.planner.sheet_markdown.plan_to_markdown`` output).
        path: file to write (its folder must exist).
        title: PDF document title (metadata).
        page_size: "A4" or "Letter".
        charts: (title, image) pairs (gpudesk.ui.plan.sheet_charts) placed after the recommended configuration.

    Raises:
        SheetError: the file could not be written (folder missing, no permission), the text is empty, or it has
            Chinese text and no font with Chinese glyphs is installed (the PDF would show empty boxes).
    """
    target = Path(path)
    if not markdown_text.strip():
        raise SheetError(QCoreApplication.translate("PlanSheet", "The configuration sheet is empty; run the plan before exporting."))
    if not target.parent.is_dir():
        raise SheetError(QCoreApplication.translate("PlanSheet", "Cannot write {0}: the folder {1} does not exist.").format(
            target, target.parent))
    cjk_family = cjk_font_family() if has_cjk(markdown_text + title) else None
    if has_cjk(markdown_text + title) and cjk_family is None:
        raise SheetError(missing_cjk_font_text())
    writer = QPdfWriter(str(target))
    writer.setTitle(title or QCoreApplication.translate("PlanSheet", "gpudesk configuration sheet"))
    writer.setCreator("gpudesk")
    writer.setResolution(PDF_RESOLUTION_DPI)
    size = QPageSize(QPageSize.PageSizeId.Letter if page_size.lower() == "letter" else QPageSize.PageSizeId.A4)
    document = QTextDocument()
    font = QFont()
    if cjk_family is not None:  # Latin text keeps the default face; the CJK family takes every Chinese glyph
        font.setFamilies([QFontInfo(font).family(), cjk_family])
    font.setPointSizeF(8.5)
    document.setDefaultFont(font)
    # No raw HTML: names and notes typed by the user stay text even if they look like tags.
    features = QTextDocument.MarkdownFeature.MarkdownDialectGitHub | QTextDocument.MarkdownFeature.MarkdownNoHTML
    charts = side_by_side(list(charts or []))
    document.setMarkdown(with_charts(markdown_text, charts), features)
    for number, (_title, image) in enumerate(charts):  # after setMarkdown: it clears the document's resources
        # Drawn large for a sharp print; laid out at CHART_WIDTH_PX document pixels (the 96-dpi layout units that
        # QTextDocument.print_ scales to the page): about the text width of a landscape page.
        sized = QImage(image)
        sized.setDevicePixelRatio(max(1.0, image.width() / CHART_WIDTH_PX))
        document.addResource(QTextDocument.ResourceType.ImageResource, QUrl(f"chart://{number}"), sized)
    # Landscape when a table is wide (the alternatives: 9 to 11 columns), so long names and sources keep their
    # words whole; every table spans the text width instead of leaving the right of the page empty.
    tables = _tables(document)
    wide = any(table.columns() >= WIDE_TABLE_COLUMNS for table in tables)
    orientation = QPageLayout.Orientation.Landscape if wide else QPageLayout.Orientation.Portrait
    writer.setPageLayout(QPageLayout(size, orientation, QMarginsF(12, 12, 12, 12), QPageLayout.Unit.Millimeter))
    # The page size in layout units (96 per inch): without one QTextDocument.print_ adds its own 2 cm margins and
    # the tables fill only three quarters of the line.
    paint = writer.pageLayout().paintRect(QPageLayout.Unit.Point)
    document.setPageSize(QSizeF(paint.width() * 96 / 72, paint.height() * 96 / 72))
    for table in tables:
        table_format = table.format()
        table_format.setWidth(QTextLength(QTextLength.Type.PercentageLength, 100))
        table_format.setCellPadding(3)
        table.setFormat(table_format)
    _keep_headings_with_text(document)
    document.print_(writer)
    del writer  # finishes the file
    if not target.exists() or target.stat().st_size == 0:
        raise SheetError(QCoreApplication.translate(
            "PlanSheet", "Qt could not write the PDF {0}; check that the folder is writable.").format(target))
    return target
