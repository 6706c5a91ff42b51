"""What the window opens: a checkpoint or a Hugging Face folder (File menu, recent list), and a
second model beside the first (View > Compare)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QFileDialog

from visualizer.i18n import tr
from visualizer.state.training_run import REPLAY_FILTER
from visualizer.window.compare_page import ComparePage

CHECKPOINT_FILTER = "Checkpoints (*.safetensors *.pt *.pth);;All files (*)"
# what File > Open audio offers and a dropped file is heard as (model/audio reads them all; the
# list is fixed here so that the window needs neither soundfile nor torch to build its menus)
AUDIO_SUFFIXES = (".wav", ".flac", ".ogg", ".oga", ".opus", ".mp3", ".aif", ".aiff")
AUDIO_FILTER = f"Audio ({' '.join('*' + s for s in AUDIO_SUFFIXES)});;All files (*)"


class OpeningMixin:
    """File > Open, Open folder, Open recent and the replays; View > Compare and Stop comparing."""

    def open_checkpoint(self, path: str | Path) -> None:
        """Open a model; a replay file opens its last snapshot here and all of it on the Train page."""
        from model.core.header import is_replay  # torch-free: this runs on the GUI thread

        if is_replay(Path(path)):
            self.open_replay(path)
        self.session.open_checkpoint(Path(path))

    def train_panel(self):
        """The Train page's panel (built now if it was not yet), or None if it cannot be built."""
        page = next(page for page in self.panel_pages if page.entry.key == "train")
        return page.panel

    def open_replay(self, path: str | Path) -> bool:
        """Show a replay's snapshots and curves on the Train page (brought to the front)."""
        self.show_panel("train")
        panel = self.train_panel()
        return panel is not None and panel.open_replay(Path(path))

    def open_replay_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Open replay", self.session.language), "", REPLAY_FILTER
        )
        if path:
            self.open_replay(path)

    def open_shipped_replay(self) -> None:
        """The shipped replay: attention forming as the tiny Transformer learns reverse:."""
        from model.shipped import shipped_replay_path

        self.open_replay(shipped_replay_path())

    def compare_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Compare with", self.session.language), "", CHECKPOINT_FILTER
        )
        if path:
            self.compare_with(path)

    def compare_with(self, path: str | Path, what_if: str | None = None) -> None:
        """Open ``path`` as side B and show the Compare page (stepped with this window's model);
        ``what_if`` (a name of ``compare.B_WHAT_IFS``) is applied to side B alone."""
        if self.compare is None:
            self.compare = ComparePage(self.session, self.pages, self)
        if what_if is not None:
            self.compare.view.choose_b_what_if(what_if)
        self.compare.open(path)
        self.actions_by_name["stop_compare"].setEnabled(True)

    def stop_compare(self) -> None:
        if self.compare is not None:
            self.compare.close()
            self.compare = None
        self.actions_by_name["stop_compare"].setEnabled(False)

    def open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Open checkpoint", self.session.language), "", CHECKPOINT_FILTER
        )
        if path:
            self.open_checkpoint(path)

    def open_audio_dialog(self) -> None:
        """An audio file as the source, for a speech model (Whisper)."""
        path, _ = QFileDialog.getOpenFileName(self, tr("Open audio", self.session.language), "", AUDIO_FILTER)
        if path:
            self.session.set_audio(path)

    def open_folder_dialog(self) -> None:
        """A folder saved with save_pretrained (config.json, safetensors, tokenizer files)."""
        path = QFileDialog.getExistingDirectory(
            self, tr("Open a Hugging Face model folder", self.session.language)
        )
        if path:
            self.open_checkpoint(path)

    def on_recent_action(self) -> None:
        self.open_checkpoint(self.sender().data())
