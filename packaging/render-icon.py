"""Render the app's SVG icon to a PNG (default 256 px) with Qt's own SVG renderer.

Run from the project root after editing the SVG:
    python packaging/render-icon.py [SIZE]
"""

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

RESOURCES = Path(__file__).resolve().parent.parent / "parler_desktop" / "resources"


def main() -> int:
    size = int(sys.argv[1]) if len(sys.argv) > 1 else 256
    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # QPainter needs one
    renderer = QSvgRenderer(str(RESOURCES / "parler-desktop.svg"))
    if not renderer.isValid():
        print("parler-desktop.svg is not a valid SVG", file=sys.stderr)
        return 1
    image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    target = RESOURCES / f"parler-desktop-{size}.png"
    if not image.save(str(target)):
        print(f"could not write {target}", file=sys.stderr)
        return 1
    print(target)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
