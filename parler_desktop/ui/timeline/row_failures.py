"""A row that cannot be laid out or painted is shown as a one-line notice; the rows around it are
shown as usual.

Laying out and painting a row run our code on text from the wire, and a bug there must cost that
row, not the conversation. An exception in one row's paint used to end the paint pass: every row
below it stayed blank for as long as it was on screen, the newest messages of a followed room
included. An exception in its layout left the view with fewer row heights than the model has rows.

Each failure is logged with its trace, and so reported to the user (``error_report``), once per
place in the code that raised it: a row is painted again on every scroll, and a message that trips
a bug usually has others like it.
"""

from __future__ import annotations

import logging
import sys

from PySide6.QtCore import Qt
from PySide6.QtGui import QFontMetrics, QPainter, QPalette
from PySide6.QtWidgets import QStyleOptionViewItem

log = logging.getLogger(__name__)

NOTICE = "⚠ This message could not be shown: an error in Parler (the log has the details)."
MARGIN = 8


class RowFailures:
    def __init__(self) -> None:
        self._logged: set[tuple[str, str]] = set()  # (exception type, where it was raised)

    def note(self, doing: str, row: int) -> None:
        """Log the exception being handled (``doing``: what the row could not be), unless one of
        the same type raised on the same line was logged already (a row whose layout fails fails
        again when it is painted)."""
        error = sys.exc_info()[1]
        if error is None:
            return
        trace = error.__traceback__
        while trace is not None and trace.tb_next is not None:
            trace = trace.tb_next  # (to the line that raised: walked, as a row may fail on every paint)
        where = f"{trace.tb_frame.f_code.co_filename}:{trace.tb_lineno}" if trace is not None else ""
        key = (type(error).__qualname__, where)
        if key in self._logged:
            return
        self._logged.add(key)
        log.exception("row %d could not be %s; it shows a notice instead", row, doing)


def notice_height(metrics: QFontMetrics) -> int:
    """The height of a row that could not be laid out: the notice's line."""
    return metrics.lineSpacing() + 2 * MARGIN


def paint_notice(painter: QPainter, option: QStyleOptionViewItem) -> None:
    """The notice over the row (covering whatever its failed paint had drawn); the painter is left
    as it was, for the rows below."""
    painter.save()
    painter.fillRect(option.rect, option.palette.color(QPalette.ColorRole.Base))
    painter.setPen(option.palette.color(QPalette.ColorRole.PlaceholderText))
    painter.setFont(option.font)
    flags = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
    text = option.fontMetrics.elidedText(NOTICE, Qt.TextElideMode.ElideRight, option.rect.width() - 2 * MARGIN)
    painter.drawText(option.rect.adjusted(MARGIN, 0, -MARGIN, 0), flags, text)
    painter.restore()
