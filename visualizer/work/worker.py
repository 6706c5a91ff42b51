"""Runs the session's requests on a worker thread; results cross back as immutable objects.

The work itself is ``visualizer.work.runner.ModelRunner``'s (Qt-free); this module gives it a
thread. Requests queue in order on that thread; results come back through a queued signal.

torch and the model code are imported on the worker thread, by its first request: the
window is painted and responsive while that import (over a second) runs.
"""

from __future__ import annotations

import traceback
import weakref

from PySide6.QtCore import QObject, QThread, Signal, Slot

from visualizer.state.session import Request, Session
from visualizer.work.runner import ModelRunner, run_job


class ModelWorker(QObject, ModelRunner):
    """Lives on its own thread; ``handle`` is called there through a queued signal."""

    finished = Signal(object)  # a Result
    warmed = Signal()  # torch and the model code are imported

    def __init__(self) -> None:
        QObject.__init__(self)
        ModelRunner.__init__(self)

    @Slot()
    def warm_up(self) -> None:
        """Import torch and the model code here, off the GUI thread. Said done even when the
        import fails: the window then tries itself and shows why."""
        try:
            import model.generation.engine  # noqa: F401
            import visualizer.work.jobs  # noqa: F401  (the pages' jobs: the decoding page runs some on the GUI thread)
            from model.registry import import_families

            import_families()
        except Exception:  # reported by the GUI thread's own attempt (install_panels)
            traceback.print_exc()
        self.warmed.emit()

    def progress_report(self, progress) -> None:
        self.finished.emit(progress)  # queued to the GUI thread, as every result

    @Slot(object)
    def handle(self, request: Request) -> None:
        result = self.process(request)
        if result is not None:
            self.finished.emit(result)


class WorkerBridge(QObject):
    """Connects a session to a worker thread: requests out, results back on the GUI thread."""

    submit = Signal(object)
    warm = Signal()
    warmed = Signal()  # the worker has imported torch: modules that need it load fast now
    instances: weakref.WeakSet[WorkerBridge] = weakref.WeakSet()  # tests check none outlives them

    def __init__(
        self, session: Session, parent: QObject | None = None, *, warm_up: bool = False, start: bool = True
    ) -> None:
        """With ``start`` False the thread waits for ``start()``; what is sent before then
        (the warm-up, requests) queues in order and runs once it starts."""
        super().__init__(parent)
        self.session = session
        self.closed = False
        self.thread = QThread()
        self.thread.setObjectName("model-worker")
        self.worker = ModelWorker()
        self.worker.moveToThread(self.thread)
        self.submit.connect(self.worker.handle)
        self.worker.finished.connect(self.on_finished)
        self.worker.warmed.connect(self.warmed)
        self.warm.connect(self.worker.warm_up)
        if warm_up:  # queued first, so it runs before any request
            self.warm.emit()
        if start:
            self.start()
        session.request.connect(self.send)
        session.run_job = run_job  # the work layer's table, for the pages' jobs run here and now
        WorkerBridge.instances.add(self)

    def start(self) -> None:
        """Start the worker thread (once; never after ``shutdown``)."""
        if not self.closed and not self.thread.isRunning():
            self.thread.start()

    def send(self, request: Request) -> None:
        generation = getattr(request, "generation", None)
        if generation is not None:
            # the generation the session wants now; lower than the last start's after that
            # start failed and the session went back to the generation it shows
            self.worker.latest_generation = generation
        self.submit.emit(request)

    @Slot(object)
    def on_finished(self, result) -> None:
        if not self.closed:  # a result that finished after the window closed changes nothing
            self.session.apply(result)

    def shutdown(self) -> None:
        """Stop the thread: a running generation stops at its next step, queued work is dropped."""
        self.closed = True
        self.session.request.disconnect(self.send)
        self.worker.cancelled = True
        self.thread.quit()
        self.thread.wait()
        self.worker.checkpoint = self.worker.engine = None  # a closed window keeps no model
