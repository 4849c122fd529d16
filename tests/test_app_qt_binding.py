"""Guard for the pinned Qt binding: PySide6 6.12.0 dropped references to None/True on ordinary
calls and the interpreter aborted under load. If a new binding does that again, this fails
loudly here instead of crashing the app after a few thousand messages."""

from __future__ import annotations

import sys

from PySide6.QtCore import QAbstractListModel, QModelIndex, QObject, Qt, QTimer, Signal

CALLS = 1000


class _Model(QAbstractListModel):
    def rowCount(self, parent=QModelIndex()) -> int:  # noqa: N802 - Qt's name
        return 1

    def data(self, index, role=Qt.ItemDataRole.DisplayRole):
        return None if role == Qt.ItemDataRole.UserRole else True


class _Emitter(QObject):
    changed = Signal(bool)


def _refcount_drift(obj: object, call) -> int:
    before = sys.getrefcount(obj)
    for _ in range(CALLS):
        call()
    return sys.getrefcount(obj) - before


def test_model_data_and_signals_keep_refcounts(qapp):
    model = _Model()
    index = model.index(0)
    emitter = _Emitter()
    emitter.changed.connect(lambda value: None)
    timer = QTimer()
    assert _refcount_drift(None, lambda: index.data(Qt.ItemDataRole.UserRole)) > -CALLS // 10
    assert _refcount_drift(True, lambda: index.data(Qt.ItemDataRole.DisplayRole)) > -CALLS // 10
    assert _refcount_drift(True, lambda: emitter.changed.emit(True)) > -CALLS // 10
    assert _refcount_drift(None, lambda: (timer.start(1000), timer.stop())) > -CALLS // 10
