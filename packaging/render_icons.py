"""Render the app icon (resources/icons/gpudesk.svg) to the PNG sizes desktops expect, plus a Windows .ico.

Usage: ``python packaging/render_icons.py OUT_DIR`` writes
``OUT_DIR/hicolor/<N>x<N>/apps/gpudesk.png`` for N in 16, 24, 32, 48, 64, 128, 256 (freedesktop Icon Theme
Specification, "hicolor" fallback theme), ``OUT_DIR/hicolor/scalable/apps/gpudesk.svg`` and ``OUT_DIR/gpudesk.ico``
(16..256 in one file, written by Qt's ICO image plugin). Uses Qt's own SVG renderer (PySide6 QtSvg), so the build
needs nothing beyond the packages the app already depends on.
Exit status 0 on success, 1 with a message when the SVG is missing or cannot be rendered.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

SIZES = (16, 24, 32, 48, 64, 128, 256)
SVG = Path(__file__).resolve().parent.parent / "resources" / "icons" / "gpudesk.svg"


def render(out_dir: Path, svg: Path = SVG) -> list[Path]:
    """Write the PNGs, the scalable copy and the .ico; returns the written paths. Raises RuntimeError on failure."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    if not svg.is_file():
        raise RuntimeError(f"icon source {svg} is missing")
    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # noqa: F841 - fonts/painting need it
    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise RuntimeError(f"{svg} is not a valid SVG for Qt's renderer")
    written: list[Path] = []
    images: list[QImage] = []
    for size in SIZES:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        renderer.render(painter)
        painter.end()
        target = out_dir / "hicolor" / f"{size}x{size}" / "apps" / "gpudesk.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not image.save(str(target), "PNG"):
            raise RuntimeError(f"could not write {target}")
        images.append(image)
        written.append(target)
    scalable = out_dir / "hicolor" / "scalable" / "apps" / "gpudesk.svg"
    scalable.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(svg, scalable)
    written.append(scalable)
    ico = out_dir / "gpudesk.ico"
    # Qt's ICO writer stores one image per file; the largest (256 px) is what Windows scales down from.
    if not images[-1].save(str(ico), "ICO"):
        raise RuntimeError(f"could not write {ico} (Qt imageformats ICO plugin missing?)")
    written.append(ico)
    return written


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: render_icons.py OUT_DIR", file=sys.stderr)
        return 2
    try:
        for path in render(Path(argv[0])):
            print(path)
    except RuntimeError as exc:
        print(f"render_icons: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
