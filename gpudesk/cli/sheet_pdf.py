"""``gpudesk plan --format pdf --output F``: the configuration sheet as a PDF from the command line.

The PDF is laid out by Qt (gpudesk.ui.plan.sheet_pdf, the same writer as the window's Export menu). The CLI may
not import Qt (import-linter contract "The core does not import Qt"), so it hands the Markdown sheet to
``python -m gpudesk.ui.plan.pdf_cli`` in a child process on Qt's offscreen platform (no display needed).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from gpudesk.cli.json_text import dumps_json
from gpudesk.cli import CliError
from gpudesk.i18n import _, current_language

#: Seconds the PDF child may take (a 10-page sheet takes about 2 s).
PDF_TIMEOUT_S = 120


def write_pdf(markdown_text: str, output: str, title: str, plan: dict | None = None, index: int = 0) -> Path:
    """Write ``markdown_text`` as a PDF at ``output``; returns the path.

    Raises:
        CliError: the folder is missing, Qt is not installed, or the writer failed (its reason included).
    """
    target = Path(output)
    if not target.parent.resolve().is_dir():
        raise CliError(_("cannot write {path}: the folder {folder} does not exist").format(path=target, folder=target.parent))
    env = dict(os.environ)
    env.setdefault("QT_QPA_PLATFORM", "offscreen")
    with tempfile.TemporaryDirectory(prefix="gpudesk-sheet-") as folder:
        source = Path(folder) / "sheet.md"
        source.write_text(markdown_text, encoding="utf-8")
        command = [sys.executable, "-m", "gpudesk.ui.plan.pdf_cli", str(source), str(target), "--title", title,
                   "--candidate", str(index)]
        language = current_language()
        if language:  # the charts in the CLI's language (``--lang`` as well as GPUDESK_LANG)
            command += ["--lang", language]
        if plan is not None:  # the charts (memory against the safe line, TCO) are drawn from the plan
            plan_file = Path(folder) / "plan.json"
            plan_file.write_text(dumps_json(plan), encoding="utf-8")
            command += ["--plan", str(plan_file)]
        try:
            done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=PDF_TIMEOUT_S, check=False)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise CliError(_("the PDF could not be written: {error}").format(error=exc), status=1) from exc
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or [_("no reason given")])[-1]
        raise CliError(_("the PDF could not be written: {error}").format(error=reason), status=1)
    return target
