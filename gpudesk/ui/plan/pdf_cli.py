"""``python -m gpudesk.ui.plan.pdf_cli SHEET.md OUT.pdf [--title T] [--page-size A4|Letter]``: the configuration
sheet as a PDF without the window, for ``gpudesk plan --format pdf --output F``.

The PDF layout is Qt's (QTextDocument + QPdfWriter, :mod:`gpudesk.ui.plan.sheet_pdf`); the CLI may not import
Qt (import-linter: the core does not import Qt), so it runs this module in a child process on Qt's offscreen
platform. Exit status 0 on success, 1 with the reason on stderr otherwise.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from gpudesk.ui.error_text import error_text


def _use_language(app: Any, language: str | None) -> None:
    """The charts speak the sheet's language: Qt's catalog for their titles, the core's for their legends."""
    from PySide6.QtCore import QLocale, QTranslator

    from gpudesk import i18n, paths

    if language not in i18n.LANGUAGES:
        return
    i18n.set_language(language)
    translator = QTranslator(app)
    if translator.load(QLocale(language), "gpudesk", "_", str(paths.resources_dir() / "translations")):
        app.installTranslator(translator)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="gpudesk-sheet-pdf")
    parser.add_argument("markdown", type=Path)
    parser.add_argument("output", type=Path)
    parser.add_argument("--title", default="")
    parser.add_argument("--page-size", default="A4", choices=("A4", "Letter"))
    parser.add_argument("--plan", type=Path, help="the plan document's JSON (docs/plan-document.md), for the charts")
    parser.add_argument("--candidate", type=int, default=0, help="the option the sheet describes (0 = the top one)")
    parser.add_argument("--lang", default=None, help="the language of the charts' titles and legends (zh_CN, en)")
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    from gpudesk.planner.document import PlanDocument, PlanDocumentError
    from gpudesk.planner.sheet import SheetError
    from gpudesk.ui.plan.sheet_charts import sheet_chart_images
    from gpudesk.ui.plan.sheet_pdf import markdown_to_pdf

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])
    # Without --lang the charts follow the language the core's text is in (the environment's: LANGUAGE=zh_CN gave a
    # Chinese sheet with English chart titles).
    from gpudesk.i18n import effective_language

    _use_language(app, args.lang or effective_language())
    try:
        text = args.markdown.read_text(encoding="utf-8")
        plan = PlanDocument.from_json(args.plan.read_text(encoding="utf-8")) if args.plan else None
        charts = sheet_chart_images(plan, args.candidate) if plan is not None else []
        markdown_to_pdf(text, args.output, args.title, page_size=args.page_size, charts=charts)
    except (OSError, UnicodeDecodeError, ValueError, SheetError, PlanDocumentError) as exc:
        print(error_text(exc), file=sys.stderr)
        return 1
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main())
