"""The Train page's files and the rest of the app: replays opened, snapshots saved, opened in
the main view or compared. Mixed into ``TrainPanel`` (which has ``run``, ``slider``, ``folders``,
``failure`` and ``session``)."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QMenu

from model.core.errors import CheckpointError
from model.shipped import default_checkpoint_path
from visualizer.i18n import tr, trf
from visualizer.state.jobs import ReadReplayJob
from visualizer.state.training_run import REPLAY_FILTER, TrainingRun


class TrainFilesMixin:
    # -- replays -------------------------------------------------------------------------------------
    def open_replay_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, tr("Open replay…", self.session.language), "", REPLAY_FILTER
        )
        if path:
            self.open_replay(Path(path))

    def open_replay(self, path: Path) -> bool:
        """Show a replay file's snapshots and curves; False (and why, in the page) if it cannot."""
        if self.process.alive:
            self.failure.setText(tr("A run is going: stop it first.", self.session.language))
            self.failure.show()
            return False
        try:
            replay = self.session.run_job(ReadReplayJob(path))
        except (CheckpointError, OSError, ValueError) as error:
            self.failure.setText(
                trf(
                    "The training run failed: {message}",
                    self.session.language,
                    message=str(error).splitlines()[0],
                )
            )
            self.failure.show()
            return False
        self.failure.hide()
        self.run = TrainingRun.from_replay(replay)
        self.traces.clear()
        self.diagonal_head = None
        self.slider.setRange(0, len(self.run.snapshots) - 1)
        self.slider.setValue(0)  # from the untrained model on: Play (or the slider) goes forward
        self.refresh()
        return True

    # -- the snapshot elsewhere in the app ------------------------------------------------------------------
    def shown_checkpoint(self) -> Path | None:
        index = self.shown_index()
        if index is None:
            return None
        if self.run.replay is not None and not self.folders:
            self.folders.append(Path(tempfile.mkdtemp(prefix="attnviz-replay-")))
        return self.run.checkpoint_of(
            index, self.folders[-1] if self.folders else Path(tempfile.gettempdir())
        )

    def open_in_main_view(self) -> None:
        path = self.shown_checkpoint()
        if path is not None:
            self.session.open_checkpoint(path)
            self.session.page_requested.emit("attention")

    def compare_menu(self) -> None:
        menu = QMenu(self)
        menu.addAction(tr("the shipped model", self.session.language)).setData(str(default_checkpoint_path()))
        shown = self.shown_index()
        for index, entry in enumerate(self.run.snapshots if self.run is not None else []):
            if index != shown:
                menu.addAction(
                    trf("the snapshot at step {step}", self.session.language, step=entry.step)
                ).setData(index)
        chosen = menu.exec(self.buttons["compare"].mapToGlobal(self.buttons["compare"].rect().bottomLeft()))
        if chosen is not None:
            self.compare_with(chosen.data())

    def compare_with(self, other: str | int) -> None:
        """Open the shown snapshot in the main view and step ``other`` (a checkpoint path, or the
        index of another snapshot) beside it on the Compare page."""
        path = self.shown_checkpoint()
        if path is None:
            return
        if isinstance(other, int):
            other = self.run.checkpoint_of(other, self.folders[-1])
        self.session.open_checkpoint(path)
        self.session.request_compare(Path(other))

    def save_checkpoint_dialog(self) -> None:
        index = self.shown_index()
        if index is None:
            return
        suggested = f"trained-step-{self.run.snapshots[index].step}.safetensors"
        path, _ = QFileDialog.getSaveFileName(
            self, tr("Save snapshot as checkpoint…", self.session.language), suggested, "*.safetensors"
        )
        if path:
            self.save_checkpoint(Path(path))

    def save_checkpoint(self, path: Path) -> None:
        """Write the shown snapshot as a checkpoint file that the app (and attnviz) opens."""
        source = self.shown_checkpoint()
        if source is not None:
            self.copy(source, path)

    def save_replay_dialog(self) -> None:
        if self.run is None or self.run.replay_path is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self, tr("Save replay…", self.session.language), "training.replay.safetensors", REPLAY_FILTER
        )
        if path:
            self.save_replay(Path(path))

    def save_replay(self, path: Path) -> None:
        if self.run is not None and self.run.replay_path is not None:
            self.copy(self.run.replay_path, path)

    def copy(self, source: Path, path: Path) -> None:
        try:
            shutil.copyfile(source, path)
        except OSError as error:
            self.failure.setText(
                trf(
                    "The training run failed: {message}",
                    self.session.language,
                    message=f"{path}: {error.strerror or error}",
                )
            )
            self.failure.show()
            return
        self.notice = trf("Saved {path}.", self.session.language, path=path)
        self.show_status()
