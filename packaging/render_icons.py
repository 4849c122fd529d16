"""Render the app icon from its SVG into every size and format the platforms ask for.

Run from the project root after editing ``resources/icons/parler-desktop.svg``:

    QT_QPA_PLATFORM=offscreen python packaging/render_icons.py

It writes ``resources/icons/hicolor/NxN/apps/parler-desktop.png`` at the freedesktop icon theme
sizes (``parler_desktop.assets.ICON_SIZES``, 48 px included), ``parler-desktop.ico`` (Windows: PNG
entries up to 256 px) and ``parler-desktop.icns`` (macOS: PNG entries up to 512@2x) with Qt's own
SVG renderer, so nothing is drawn by hand and the outputs are committed (``git add -f``).
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a checkout without an install

from parler_desktop.assets import APP_ID, ICON_SIZES  # noqa: E402

ICONS = ROOT / "resources" / "icons"
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # 256 is the largest an .ico entry can declare
# .icns element types holding PNG data, by pixel size (Apple's "icns" format; 1024 is 512@2x).
ICNS_TYPES = ((b"icp4", 16), (b"icp5", 32), (b"icp6", 64), (b"ic07", 128), (b"ic08", 256), (b"ic09", 512), (b"ic10", 1024))


def render_png(svg: Path, size: int) -> bytes:
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(svg))
    if not renderer.isValid():
        raise SystemExit(f"{svg} is not a valid SVG")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    renderer.render(painter)
    painter.end()
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return bytes(data.data())


def ico_bytes(pngs: dict[int, bytes]) -> bytes:
    """An .ico whose entries are PNGs (Windows Vista and later read them); 256 is written as 0."""
    header = struct.pack("<HHH", 0, 1, len(pngs))
    directory, images = b"", b""
    offset = len(header) + 16 * len(pngs)
    for size, png in pngs.items():
        side = 0 if size >= 256 else size
        directory += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(png), offset + len(images))
        images += png
    return header + directory + images


def icns_bytes(pngs: dict[int, bytes]) -> bytes:
    body = b"".join(kind + struct.pack(">I", 8 + len(pngs[size])) + pngs[size] for kind, size in ICNS_TYPES)
    return b"icns" + struct.pack(">I", 8 + len(body)) + body


def main() -> int:
    from PySide6.QtGui import QGuiApplication

    _app = QGuiApplication.instance() or QGuiApplication(sys.argv[:1])  # QPainter needs one
    svg = ICONS / f"{APP_ID}.svg"
    sizes = sorted({*ICON_SIZES, *ICO_SIZES, *(size for _, size in ICNS_TYPES)})
    pngs = {size: render_png(svg, size) for size in sizes}
    for size in ICON_SIZES:
        target = ICONS / "hicolor" / f"{size}x{size}" / "apps" / f"{APP_ID}.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pngs[size])
    (ICONS / f"{APP_ID}.ico").write_bytes(ico_bytes({size: pngs[size] for size in ICO_SIZES}))
    (ICONS / f"{APP_ID}.icns").write_bytes(icns_bytes(pngs))
    print(f"rendered {len(ICON_SIZES)} PNG sizes, .ico and .icns into {ICONS}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
