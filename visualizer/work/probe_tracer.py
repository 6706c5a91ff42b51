"""The Train page's probe, run on snapshots in a thread of its own (never the GUI thread).

Only the newest request matters: one asked for earlier and not wanted by the time its turn
comes is skipped. Answers come back as a Qt signal, delivered on the GUI thread. The probe is a
job (``visualizer.state.jobs.ProbeJob``) done by the runner the page hands over (its session's
``run_job``): this module imports no model code, so the page imports no torch.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from PySide6.QtCore import QObject, Signal

from visualizer.state.jobs import JobRunner, ProbeJob
from visualizer.state.training_run import TrainingRun


class ProbeTracer(QObject):
    """Runs the probe on snapshots in one thread of its own; answers come back as a signal."""

    traced = Signal(object, object)  # (key, ProbeTrace or the exception that stopped it)

    def __init__(self, run_job: JobRunner, parent=None) -> None:
        super().__init__(parent)
        self.run_job = run_job
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="probe")
        self.wanted: tuple | None = None  # a job asked for earlier and not wanted now is skipped

    def trace(self, key: tuple, run: TrainingRun, index: int, text: str) -> None:
        self.wanted = key
        self.pool.submit(self.work, key, run, index, text)

    def work(self, key: tuple, run: TrainingRun, index: int, text: str) -> None:
        if key != self.wanted:
            return
        try:
            result = self.run_job(ProbeJob(text), run.snapshot_model(index))
        except Exception as error:  # shown in the page, in one line
            result = error
        self.traced.emit(key, result)

    def close(self) -> None:
        self.wanted = None
        self.pool.shutdown(wait=True, cancel_futures=True)
