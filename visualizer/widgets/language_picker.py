"""The source and target language of a multilingual model (NLLB, mBART-50, M2M100).

Shown only for a model whose tokenizer has language codes. The target is forced as the first
output token, as the library's ``forced_bos_token_id`` does; changing either runs the source
again. Each box filters its long list as one types (NLLB has 200 codes).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QComboBox, QCompleter, QHBoxLayout, QLabel, QWidget

from visualizer.i18n import Translator, tr
from visualizer.state.protocol import ModelInfo
from visualizer.state.session import Session

NOT_FORCED = "(the model's choice)"


class LanguagePicker(QWidget):
    def __init__(self, session: Session, translator: Translator, parent=None) -> None:
        super().__init__(parent)
        self.session = session
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 0, 0, 0)
        self.source = self.language_box("the language of the source (its first token for NLLB)", translator)
        self.target = self.language_box("the language to write: forced as the first output token", translator)
        for text, box in (("From:", self.source), ("To:", self.target)):
            label = QLabel(text)
            translator.add(label.setText, text)
            layout.addWidget(label)
            layout.addWidget(box)
        self.hide()
        session.model_changed.connect(self.show_model)
        session.language_changed.connect(self.on_language_changed)

    def on_language_changed(self, _language: str) -> None:
        if self.session.model is not None:
            self.show_model(self.session.model)  # "(the model's choice)" in the new language

    def language_box(self, tooltip: str, translator: Translator) -> QComboBox:
        box = QComboBox()
        box.setEditable(True)  # type to filter
        box.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
        box.completer().setFilterMode(Qt.MatchFlag.MatchContains)
        box.completer().setCompletionMode(QCompleter.CompletionMode.PopupCompletion)
        box.setMinimumContentsLength(9)
        translator.add(box.setToolTip, tooltip)
        box.activated.connect(self.on_chosen)
        return box

    def show_model(self, model: ModelInfo) -> None:
        self.setVisible(bool(model.languages))
        if not model.languages:
            return
        for box, current, extra in (
            (self.source, model.source_language, ()),
            (
                self.target,
                model.target_language,
                () if model.target_language else (tr(NOT_FORCED, self.session.language),),
            ),
        ):
            box.blockSignals(True)
            items = [*extra, *model.languages]
            if [box.itemText(i) for i in range(box.count())] != items:
                box.clear()
                box.addItems(items)
            box.setCurrentIndex(max(0, box.findText(current)) if current else 0)
            box.blockSignals(False)

    def chosen(self, box: QComboBox) -> str | None:
        text = box.currentText()
        return text if text in (self.session.model.languages if self.session.model else ()) else None

    def on_chosen(self, _index: int = 0) -> None:
        model = self.session.model
        if model is None:
            return
        source, target = self.chosen(self.source), self.chosen(self.target)
        source = source if source != model.source_language else None  # None: keep it
        target = target if target != model.target_language else None
        if source is not None or target is not None:
            self.session.set_languages(source, target)
