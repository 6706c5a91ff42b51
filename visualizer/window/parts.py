"""The main window's parts that are not its layout: what it remembers, what it exports, and
the attention kinds it offers. Mixed into ``MainWindow``; each uses the window's widgets.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

from PySide6.QtCore import QLocale, QPoint, Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import QFileDialog, QLabel, QMessageBox, QWidget

from model.generation.decoding_settings import DecodingSettings
from model.source import source_label
from visualizer.i18n import tr, trf
from visualizer.panels.registry import PANELS
from visualizer.state.about_model import about_html
from visualizer.state.export_names import export_name, suggested_path
from visualizer.state.session import COLORMAPS
from visualizer.window.opening import AUDIO_SUFFIXES

MAX_RECENT = 8


NO_ATTENTION_HINT = (
    "Step through it as usual: the output, the Decoding and Beam search pages work. "
    "Why attention shows what it cannot do."
)


class SettingsMixin:
    """What the window remembers between runs (QSettings): geometry, view, source, decoding,
    whether the pages' explanations are shown."""

    def restore_settings(self) -> None:
        if not self.remember:
            self.resize(1440, 900)
            self.session.set_language(system_language())
            return
        geometry = self.settings.value("geometry")
        if geometry is not None:
            self.restoreGeometry(geometry)
        else:
            self.resize(1440, 900)
        kind = self.settings.value("kind", self.session.kind)
        if isinstance(kind, str) and kind:  # checked against the model's kinds when one loads
            self.session.kind = kind
        colormap = self.settings.value("colormap", self.session.colormap)
        if colormap in COLORMAPS:
            self.session.set_colormap(colormap)
        source = self.settings.value("source")
        if isinstance(source, str) and source.strip():
            self.session.source = source
            self.source_bar.edit.setText(source)
        decoding = self.settings.value("decoding")
        if isinstance(decoding, str):
            with contextlib.suppress(ValueError, TypeError):  # a stale value is ignored, never fatal
                self.session.settings = DecodingSettings(**json.loads(decoding))
            self.decoding.show_settings(self.session.settings)
        language = self.settings.value("language")
        if language not in ("en", "zh"):
            language = system_language()
        self.session.set_language(language)
        explanations = self.settings.value("explanations")  # "true"/"false" in an INI file
        if str(explanations).lower() in ("true", "false"):
            self.session.set_explanations(str(explanations).lower() == "true")
        speed = self.settings.value("speed")
        if isinstance(speed, (int, str)) and str(speed).isdigit():
            self.step_controls.speed.setValue(int(speed))
        self.refresh_recent_menu()

    def save_settings(self) -> None:
        if not self.remember:
            return
        self.settings.setValue("geometry", self.saveGeometry())
        self.settings.setValue("kind", self.session.kind)
        self.settings.setValue("colormap", self.session.colormap)
        if isinstance(self.session.source, str):  # a file source is opened again by hand
            self.settings.setValue("source", self.session.source)
        self.settings.setValue("decoding", json.dumps(self.session.settings.to_dict()))
        self.settings.setValue("speed", self.step_controls.speed.value())
        self.settings.setValue("language", self.session.language)
        if self.session.explanations is None:  # never chosen: shown where there is room
            self.settings.remove("explanations")
        else:
            self.settings.setValue("explanations", self.session.explanations)
        self.settings.sync()

    def recent_files(self) -> list[str]:
        value = self.settings.value("recent", [])
        if isinstance(value, str):
            value = [value]
        return [v for v in value or [] if isinstance(v, str)]

    def remember_recent(self, path: Path) -> None:
        if not self.remember:
            return
        recent = [str(path)] + [p for p in self.recent_files() if p != str(path)]
        self.settings.setValue("recent", recent[:MAX_RECENT])
        self.refresh_recent_menu()

    def refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        recent = self.recent_files()
        for path in recent:
            action = self.recent_menu.addAction(path)
            action.setData(path)
            action.triggered.connect(self.on_recent_action)
        self.recent_menu.setEnabled(bool(recent))


class ExportMixin:
    """File > Export: the visible view as PNG or SVG, the generation as a trace; drag and drop."""

    def suggested_export(self, extension: str) -> str:
        """The page, step and source as a file name, in the folder of the last export."""
        keys = ["attention", *(entry.key for entry in PANELS), "compare"]
        index = self.pages.currentIndex()
        page = keys[index] if 0 <= index < len(keys) else "view"
        if page == "attention":
            page = self.session.kind
        name = export_name(page, self.session.cursor + 1, source_label(self.session.source), extension)
        return suggested_path(self.settings.value("export_folder"), name)

    def remember_export_folder(self, path: str) -> None:
        self.settings.setValue("export_folder", str(Path(path).resolve().parent))

    def shown_page(self) -> QWidget:
        """The page being shown, whole: a concept panel's full content, not its scrolled window."""
        page = self.pages.currentWidget()
        return page.content() if hasattr(page, "content") else page

    def export_png(self, path: str | None = None) -> bool:
        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self,
                tr("Export view as PNG", self.session.language),
                self.suggested_export("png"),
                "PNG (*.png)",
            )
        if not path:
            return False
        if not self.shown_page().grab().save(path, "PNG"):
            self.on_message("error", trf("could not write {path}", self.session.language, path=path))
            return False
        self.remember_export_folder(path)
        self.on_message("info", trf("wrote {path}", self.session.language, path=path))
        return True

    def export_svg(self, path: str | None = None) -> bool:
        """The visible view as SVG: text and outlines as vectors, heatmaps as embedded images."""
        from PySide6.QtGui import QPainter
        from PySide6.QtSvg import QSvgGenerator

        if not path:
            path, _ = QFileDialog.getSaveFileName(
                self,
                tr("Export view as SVG", self.session.language),
                self.suggested_export("svg"),
                "SVG (*.svg)",
            )
        if not path:
            return False
        generator = QSvgGenerator()
        generator.setFileName(path)
        page = self.shown_page()
        generator.setSize(page.size())
        generator.setViewBox(page.rect())
        generator.setTitle("Attention Visualizer view")
        painter = QPainter()
        if not painter.begin(generator):
            self.on_message("error", trf("could not write {path}", self.session.language, path=path))
            return False
        try:
            page.render(painter, QPoint(0, 0))
        finally:
            painter.end()
        self.remember_export_folder(path)
        self.on_message("info", trf("wrote {path}", self.session.language, path=path))
        return True

    def export_trace(self, path: str | None = None) -> bool:
        from model.generation.trace import (
            generation_arrays,
            generation_summary,
            npz_path_of,
            summary_path,
            write_trace,
        )

        snapshot = self.session.snapshot
        if snapshot is None:
            self.on_message("warning", tr("nothing to export yet: run a source first", self.session.language))
            return False
        if not path:
            name = export_name("trace", self.session.cursor + 1, source_label(snapshot.source), "npz")
            suggested = suggested_path(self.settings.value("export_folder"), name)
            path, _ = QFileDialog.getSaveFileName(
                self, tr("Export trace", self.session.language), suggested, "NumPy archive (*.npz)"
            )
            if not path:
                return False
            # the dialog asked only about the name typed: the .npz written (".npz" is added when
            # missing) and its .json companion may exist on their own
            written = [npz_path_of(path), summary_path(npz_path_of(path))]
            unasked = [p.name for p in written if p.exists() and p != Path(path)]
            if unasked:
                answer = QMessageBox.question(
                    self,
                    tr("Export trace", self.session.language),
                    trf(
                        "{names} already exist(s). Replace?", self.session.language, names=" + ".join(unasked)
                    ),
                )
                if answer != QMessageBox.StandardButton.Yes:
                    return False
        summary = generation_summary(snapshot)
        if self.session.model is not None:
            summary["checkpoint"] = str(self.session.model.path)
        try:
            npz, _json = write_trace(path, generation_arrays(snapshot), summary)
        except OSError as error:
            self.on_message(
                "error",
                trf(
                    "could not write {path}: {reason}",
                    self.session.language,
                    path=path,
                    reason=error.strerror,
                ),
            )
            return False
        self.remember_export_folder(str(npz))
        self.on_message("info", trf("wrote {path} and its .json", self.session.language, path=npz))
        return True

    # -- drag and drop --------------------------------------------------------------------
    def dragEnterEvent(self, event) -> None:  # noqa: N802 (Qt's name)
        if event.mimeData().hasUrls():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:  # noqa: N802
        """A model file or folder opens as a model; an audio file becomes the source."""
        urls = [url for url in event.mimeData().urls() if url.isLocalFile()]
        if urls:
            path = urls[0].toLocalFile()
            if Path(path).suffix.lower() in AUDIO_SUFFIXES:
                self.session.set_audio(path)
            else:
                self.open_checkpoint(path)
            event.acceptProposedAction()


class KindsMixin:
    """The attention tabs, the View menu's kinds and the number keys, built from the model's kinds."""

    def on_kind_action(self) -> None:
        self.session.set_kind(self.sender().data())

    def on_tab_changed(self, index: int) -> None:
        if 0 <= index < len(self.session.kinds):
            self.session.set_kind(self.session.kinds[index])

    def rebuild_kinds(self) -> None:
        """The attention tabs, the View menu's kinds and the number keys, from the model's kinds."""
        model = self.session.model
        kinds = model.family.kinds if model is not None else ()
        shown = tuple(self.kind_tabs.tabData(i) for i in range(self.kind_tabs.count()))
        if shown == tuple(kind.name for kind in kinds):
            return
        language = self.session.language
        self.kind_tabs.blockSignals(True)  # the session's kind is set below, once
        while self.kind_tabs.count():
            self.kind_tabs.removeTab(0)
        for action in self.kind_actions.actions():
            self.kind_actions.removeAction(action)
            self.kind_menu.removeAction(action)
            action.deleteLater()
        for number, kind in enumerate(kinds, start=1):
            index = self.kind_tabs.addTab(tr(kind.title, language))
            self.kind_tabs.setTabData(index, kind.name)
            self.kind_tabs.setTabToolTip(index, f"{kind.title}: {kind.layers} layers × {kind.heads} heads")
            action = self.kind_menu.addAction(tr(kind.title, language))
            action.setCheckable(True)
            if number <= 9:
                action.setShortcut(QKeySequence(str(number)))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.setData(kind.name)
            action.triggered.connect(self.on_kind_action)
            self.kind_actions.addAction(action)
            self.addAction(action)
        self.kind_tabs.blockSignals(False)
        self.on_view_changed()

    def retitle_kinds(self, language: str) -> None:
        model = self.session.model
        if model is None:
            return
        for index, kind in enumerate(model.family.kinds):
            self.kind_tabs.setTabText(index, tr(kind.title, language))
        for action, kind in zip(self.kind_actions.actions(), model.family.kinds, strict=False):
            action.setText(tr(kind.title, language))

    def show_attention_or_reason(self) -> None:
        """The grid and the head, or, for a model without attention, what it has instead."""
        model = self.session.model
        reason = model.family.without_attention if model is not None else ""
        language = self.session.language
        if reason:
            self.no_attention_label.setText(f"{tr(reason, language)}\n\n{tr(NO_ATTENTION_HINT, language)}")
        self.no_attention_label.setVisible(bool(reason))
        self.views.setVisible(not reason)


def no_attention_label() -> QLabel:
    """What the attention page shows, in place of the grid and the head, for a model with no
    attention (the RNN without it): the model's own line, set by ``show_attention_or_reason``."""
    label = QLabel()
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setWordWrap(True)
    label.setStyleSheet("font-size: 15px; color: #444; padding: 24px;")
    label.hide()
    return label


def system_language() -> str:
    """The explanations' language at first start: Chinese on a Chinese system, else English."""
    return "zh" if QLocale.system().language() == QLocale.Language.Chinese else "en"


SHORTCUT_LINES = (
    "Enter (in the Source box) run and play · → step · ← back · Space play/pause",
    "Home reset · End run to end",
    "1, 2, 3 … the model's kinds of attention, in the order of the tabs · M mean of heads",
    "W attention over words (subword models: pieces merged)",
    "Ctrl+O open · Ctrl+Shift+O open a Hugging Face folder",
    "Ctrl+E export PNG · Ctrl+T export trace · Ctrl+Q quit",
    "Ctrl+K compare with another model · Ctrl+Shift+K stop comparing",
    "Click a head to enlarge it; hover a cell to read its weight.",
)


class HelpMixin:
    """Help > Keyboard shortcuts and Help > About this model."""

    def show_shortcuts(self) -> None:
        language = self.session.language
        text = "\n".join(tr(line, language) for line in SHORTCUT_LINES)
        QMessageBox.information(self, tr("Keyboard shortcuts", language), text)

    def show_about_model(self) -> None:
        language = self.session.language
        box = QMessageBox(QMessageBox.Icon.Information, tr("About this model", language), "", parent=self)
        box.setTextFormat(Qt.TextFormat.RichText)
        box.setText(about_html(self.session.model, language))
        box.exec()
        self.setFocus()  # the stepping keys work again at once
