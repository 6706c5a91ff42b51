"""The Train page's training process: started, heard, paused, resumed, stopped and never left behind.

The run is ``python -m model.tasks.live`` in a process of its own (``QProcess``): it may use
every core, while the window's thread only reads its lines (one JSON event each, see
``model.tasks.live``) as they arrive. Commands go to its stdin. ``kill()`` ends it at once and
waits for it, which the page does when it closes; the process also stops by itself when its
stdin closes, should the window die without asking.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from PySide6.QtCore import QObject, QProcess, QProcessEnvironment, QTimer, Signal

import model

PROJECT_ROOT = Path(model.__file__).resolve().parent.parent
STOP_GRACE_MS = 10_000  # a stopped run saves its model; after this it is killed
ERROR_TAIL = 4000  # characters of stderr kept to explain a crash


class TrainingProcess(QObject):
    """One run at a time. ``state``: idle, running, paused, stopping, finished, failed."""

    event = Signal(dict)  # every event line the run writes
    state_changed = Signal(str)
    failed = Signal(str)  # why the run ended badly, in one line

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.process: QProcess | None = None
        self.state = "idle"
        self.buffer = b""
        self.stderr_tail = ""
        self.error: str | None = None  # the run's own "error" event, if it sent one

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.state() != QProcess.ProcessState.NotRunning

    def start(self, arguments: list[str]) -> None:
        """Start ``python -m model.tasks.live ARGUMENTS`` (a run still going is killed first)."""
        self.kill()
        process = QProcess(self)
        environment = QProcessEnvironment.systemEnvironment()
        paths = [str(PROJECT_ROOT), environment.value("PYTHONPATH", "")]
        environment.insert("PYTHONPATH", os.pathsep.join(p for p in paths if p))
        environment.insert("PYTHONUNBUFFERED", "1")
        process.setProcessEnvironment(environment)
        process.readyReadStandardOutput.connect(self.on_output)
        process.readyReadStandardError.connect(self.on_error_output)
        process.finished.connect(self.on_finished)
        process.errorOccurred.connect(self.on_process_error)
        self.process, self.buffer, self.stderr_tail, self.error = process, b"", "", None
        self.set_state("running")
        process.start(sys.executable, ["-m", "model.tasks.live", *arguments])

    def pause(self) -> None:
        if self.state == "running":
            self.send("pause")

    def resume(self) -> None:
        if self.state == "paused":
            self.send("resume")

    def stop(self) -> None:
        """Ask the run to stop after its step and save what it has; killed if it does not."""
        if self.alive and self.state != "stopping":
            self.send("stop")
            self.set_state("stopping")
            process = self.process
            # a run that does not answer (stuck, or still importing torch) is ended anyway
            # (this object as the context: no call once it is gone)
            QTimer.singleShot(STOP_GRACE_MS, self, lambda: self.kill() if self.process is process else None)

    def kill(self) -> None:
        """End the process now and wait for it (the page closing, the window closing)."""
        process = self.process
        if process is None:
            return
        process.finished.disconnect(self.on_finished)
        process.errorOccurred.disconnect(self.on_process_error)
        if process.state() != QProcess.ProcessState.NotRunning:
            process.kill()
            process.waitForFinished(5000)
        self.process = None
        if self.state in ("running", "paused", "stopping"):
            self.set_state("idle")

    def send(self, command: str) -> None:
        if self.alive:
            self.process.write(f"{command}\n".encode())

    def set_state(self, state: str) -> None:
        if state != self.state:
            self.state = state
            self.state_changed.emit(state)

    # -- what the process says ---------------------------------------------------------------
    def on_output(self) -> None:
        self.buffer += bytes(self.process.readAllStandardOutput())
        *lines, self.buffer = self.buffer.split(b"\n")
        for line in lines:
            try:
                event = json.loads(line)
            except ValueError:
                continue  # not ours (a library printing): ignore
            if not isinstance(event, dict) or "event" not in event:
                continue
            if event["event"] == "paused":
                self.set_state("paused")
            elif event["event"] == "resumed" and self.state == "paused":
                self.set_state("running")
            elif event["event"] == "error":
                self.error = str(event.get("message", "the training run failed"))
            self.event.emit(event)

    def on_error_output(self) -> None:
        text = bytes(self.process.readAllStandardError()).decode("utf-8", "replace")
        self.stderr_tail = (self.stderr_tail + text)[-ERROR_TAIL:]

    def on_finished(self, exit_code: int, exit_status: QProcess.ExitStatus) -> None:
        self.on_output()
        self.process = None
        if exit_code == 0 and exit_status == QProcess.ExitStatus.NormalExit:
            self.set_state("finished")
            return
        self.set_state("failed")
        self.failed.emit(self.error or self.crash_message(exit_code, exit_status))

    def crash_message(self, exit_code: int, exit_status: QProcess.ExitStatus) -> str:
        lines = [line for line in self.stderr_tail.splitlines() if line.strip()]
        last = f": {lines[-1].strip()}" if lines else ""
        if exit_status == QProcess.ExitStatus.CrashExit:
            return f"the training process ended unexpectedly{last}"
        return f"the training process ended with status {exit_code}{last}"

    def on_process_error(self, error: QProcess.ProcessError) -> None:
        if error == QProcess.ProcessError.FailedToStart:
            self.process = None
            self.set_state("failed")
            self.failed.emit(f"the training process could not be started ({sys.executable})")
