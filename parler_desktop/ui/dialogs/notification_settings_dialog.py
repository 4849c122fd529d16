"""Notification settings: the keep/drop rules (edited as JSON, checked before they are kept), when
an agent silent on the human's work needs them, when two agents seem to loop, and the
close-to-tray choice. An invalid rule
list keeps the dialog open with a sentence saying which rule is wrong and why; nothing the human
typed is thrown away."""

from __future__ import annotations

import dataclasses
import json

from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from parler_desktop.app.attention.attention_rules import CONDITIONS, DEFAULT_RULES, RuleError, parse_rules
from parler_desktop.app.attention.attention_settings import AttentionSettings
from parler_desktop.ui.appearance.theme import follow_style

HELP = (
    "Rules are tried in order; the first whose conditions all hold decides (keep = notify, "
    "drop = stay quiet); a message no rule matches is dropped. Conditions: " + ", ".join(CONDITIONS) + ". "
    "Texts ignore case and may use * wildcards; a list means any of them."
)


def rules_text(rules: tuple) -> str:
    return json.dumps([rule.to_json() for rule in rules], indent=2)


class NotificationSettingsDialog(QDialog):
    def __init__(self, settings: AttentionSettings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Notification settings")
        self.setObjectName("notificationSettings")
        self.result_settings = settings
        self._settings = settings
        help_label = QLabel(HELP, wordWrap=True)
        self.rules = QPlainTextEdit(objectName="rulesEditor", accessibleName="Notification rules (JSON)")
        self.rules.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.rules.setPlainText(rules_text(settings.rules))
        defaults = QPushButton("Restore the default rules")
        defaults.clicked.connect(lambda: self.rules.setPlainText(rules_text(DEFAULT_RULES)))
        self.silent_minutes = QDoubleSpinBox(
            objectName="silentMinutes", minimum=1, maximum=24 * 60, decimals=0, suffix=" min", accessibleName="Needs you when silent for"
        )
        self.silent_minutes.setValue(settings.silent_minutes)
        self.loop_messages = QSpinBox(
            objectName="loopMessages", minimum=2, maximum=10_000, suffix=" messages", accessibleName="Messages that seem a loop"
        )
        self.loop_messages.setValue(settings.loop_messages)
        self.loop_minutes = QDoubleSpinBox(
            objectName="loopMinutes", minimum=0.5, maximum=24 * 60, decimals=1, suffix=" min", accessibleName="Within minutes"
        )
        self.loop_minutes.setValue(settings.loop_minutes)
        agents = QFormLayout()
        agents.addRow("An agent working on your request needs you when silent for", self.silent_minutes)
        loop = QHBoxLayout()
        loop.addWidget(self.loop_messages)
        loop.addWidget(QLabel("within"))
        loop.addWidget(self.loop_minutes)
        agents.addRow("Two agents alone seem to loop after more than", loop)
        self.close_to_tray = QCheckBox("Closing the window keeps Parler running in the tray", objectName="closeToTray")
        self.close_to_tray.setChecked(settings.close_to_tray)
        self.error = QLabel(objectName="rulesError", wordWrap=True)
        follow_style(self.error, lambda colours: f"color: {colours.failed};")
        self.error.hide()
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        for widget in (help_label, self.rules, defaults):
            layout.addWidget(widget)
        layout.addLayout(agents)
        for widget in (self.close_to_tray, self.error, buttons):
            layout.addWidget(widget)
        self.resize(620, 520)

    def accept(self) -> None:
        try:
            rules = parse_rules(json.loads(self.rules.toPlainText()))
        except json.JSONDecodeError as error:
            self._show_error(f"The rules are not valid JSON: {error.msg} (line {error.lineno}, column {error.colno}).")
            return
        except RuleError as error:
            self._show_error(str(error))
            return
        self.result_settings = dataclasses.replace(
            self._settings,
            rules=rules,
            close_to_tray=self.close_to_tray.isChecked(),
            silent_minutes=self.silent_minutes.value(),
            loop_messages=self.loop_messages.value(),
            loop_minutes=self.loop_minutes.value(),
        )
        super().accept()

    def _show_error(self, text: str) -> None:
        self.error.setText(text)
        self.error.show()
