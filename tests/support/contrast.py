"""WCAG 2 contrast: of two colours, and of text as painted (its ink against its ground)."""

from __future__ import annotations

from collections import Counter

from PySide6.QtCore import QRect
from PySide6.QtGui import QColor, QImage


def luminance(colour: QColor) -> float:
    """Relative luminance (WCAG 2.x) of an opaque colour."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.04045 else ((value + 0.055) / 1.055) ** 2.4

    red, green, blue = (channel(c) for c in colour.getRgbF()[:3])
    return 0.2126 * red + 0.7152 * green + 0.0722 * blue


def ratio(first: QColor, second: QColor) -> float:
    lighter, darker = sorted((luminance(first), luminance(second)), reverse=True)
    return (lighter + 0.05) / (darker + 0.05)


def over(top: QColor, ground: QColor) -> QColor:
    """``top`` (maybe translucent) as it shows painted on the opaque ``ground``."""
    alpha = top.alphaF()
    return QColor.fromRgbF(*(t * alpha + g * (1 - alpha) for t, g in zip(top.getRgbF()[:3], ground.getRgbF()[:3])))


def painted(image: QImage, area: QRect) -> tuple[QColor, QColor]:
    """The ground of ``area`` (its commonest colour) and its ink (the pixel that differs from
    the ground the most: the core of a glyph's stem, painted in the pen's colour)."""
    counts = Counter(image.pixel(x, y) for x in range(area.left(), area.right() + 1) for y in range(area.top(), area.bottom() + 1))
    ground = QColor.fromRgb(counts.most_common(1)[0][0])
    ink = max((QColor.fromRgb(pixel) for pixel in counts), key=lambda colour: ratio(colour, ground))
    return ground, ink
