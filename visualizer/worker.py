"""Runs the session's requests on a worker thread; results cross back as immutable objects.

The worker owns the model and the generation engine: nothing else touches them. Requests
queue in order; a request for a generation the user has since replaced is skipped, so the
latest request wins. Every exception becomes a ``RequestFailed`` shown in the window, and the
previous model and generation stay as they were.

torch and the model code are imported on the worker thread, by its first request: the
window is painted and responsive while that import (over a second) runs.
"""

from __future__ import annotations

import traceback
import weakref
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QThread, Signal, Slot

from visualizer.session import (
    BranchRequest,
    Computed,
    ComputeRequest,
    DeviceRequest,
    LoadRequest,
    ModelInfo,
    ModelLoaded,
    Request,
    RequestFailed,
    Session,
    SnapshotReady,
    StartRequest,
    StepRequest,
)

if TYPE_CHECKING:
    from model.checkpoint import Checkpoint
    from model.engine import GenerationEngine


def model_info(checkpoint: Checkpoint) -> ModelInfo:
    import torch

    return ModelInfo(
        checkpoint.path,
        checkpoint.config,
        checkpoint.tokenizer,
        str(checkpoint.device),
        checkpoint.info,
        checkpoint.notice,
        cuda_available=torch.cuda.is_available(),
    )


class ModelWorker(QObject):
    """Lives on its own thread; ``handle`` is called there through a queued signal."""

    finished = Signal(object)  # a Result
    warmed = Signal()  # torch and the model code are imported

    @Slot()
    def warm_up(self) -> None:
        """Import torch and the model code here, off the GUI thread."""
        import model.checkpoint  # noqa: F401
        import model.engine  # noqa: F401

        self.warmed.emit()

    def __init__(self) -> None:
        super().__init__()
        self.checkpoint: Checkpoint | None = None
        self.engine: GenerationEngine | None = None
        self.engine_generation = -1
        self.latest_generation = 0  # written by the GUI thread before it queues a request
        self.cancelled = False  # set by the GUI thread on close: long loops stop between steps

    @Slot(object)
    def handle(self, request: Request) -> None:
        if self.cancelled:
            return
        try:
            result = self.run(request)
        except Exception as error:  # shown to the user; the worker and its state live on
            what = {
                LoadRequest: "load",
                StartRequest: "start",
                DeviceRequest: "device",
                ComputeRequest: "compute",
            }.get(type(request), "generate")
            message = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            if not isinstance(error, ValueError):
                message = f"{type(error).__name__}: {message}"
                traceback.print_exc()
            result = RequestFailed(request.id, what, message)
        self.finished.emit(result)

    def run(self, request: Request):
        from model.checkpoint import load_checkpoint
        from model.engine import GenerationEngine

        if isinstance(request, LoadRequest):
            checkpoint = load_checkpoint(request.path, request.device)
            self.checkpoint, self.engine = checkpoint, None
            return ModelLoaded(request.id, model_info(checkpoint))
        if isinstance(request, DeviceRequest):
            return self.move(request)
        if self.checkpoint is None:
            raise ValueError("no model is loaded: open a checkpoint first")
        if isinstance(request, ComputeRequest):
            snapshot = self.engine.snapshot() if self.engine is not None else None
            value = request.job(self.checkpoint, snapshot)
            return Computed(request.id, request.generation, request.key, value)
        if request.generation < self.latest_generation:
            return RequestFailed(request.id, "stale", "")  # replaced by a newer request
        if isinstance(request, StartRequest):
            engine = GenerationEngine(
                self.checkpoint.model,
                self.checkpoint.tokenizer,
                request.source,
                request.settings,
                request.interventions,
            )
            for _ in range(request.steps):
                if self.cancelled or engine.step() is None:
                    break
            self.engine, self.engine_generation = engine, request.generation
        elif self.engine is None or self.engine_generation != request.generation:
            return RequestFailed(request.id, "stale", "")
        elif isinstance(request, StepRequest):
            count = self.engine.max_steps if request.count is None else request.count
            for _ in range(count):
                if self.cancelled or self.engine.step() is None:
                    break
        elif isinstance(request, BranchRequest):
            while len(self.engine.steps) > request.keep:
                self.engine.back()
            if request.force is not None:
                self.engine.step(force=request.force)
        return SnapshotReady(request.id, request.generation, self.engine.snapshot())

    def move(self, request: DeviceRequest):
        import torch

        from model.checkpoint import one_line, resolve_device

        if self.checkpoint is None:
            raise ValueError("no model is loaded")
        device, notice = resolve_device(request.device)
        try:
            self.checkpoint.model.to(device)
        except (RuntimeError, torch.cuda.OutOfMemoryError) as error:
            self.checkpoint.model.to("cpu")  # never leave the model half-moved
            device = torch.device("cpu")
            notice = f"could not move the model to {request.device} ({one_line(error)}); using CPU instead"
        self.checkpoint.device, self.checkpoint.notice = device, notice
        self.engine = None
        return ModelLoaded(request.id, model_info(self.checkpoint))


class WorkerBridge(QObject):
    """Connects a session to a worker thread: requests out, results back on the GUI thread."""

    submit = Signal(object)
    warm = Signal()
    warmed = Signal()  # the worker has imported torch: modules that need it load fast now
    instances: weakref.WeakSet[WorkerBridge] = weakref.WeakSet()  # tests check none outlives them

    def __init__(self, session: Session, parent: QObject | None = None, *, warm_up: bool = False) -> None:
        super().__init__(parent)
        self.session = session
        self.thread = QThread()
        self.thread.setObjectName("model-worker")
        self.worker = ModelWorker()
        self.worker.moveToThread(self.thread)
        self.submit.connect(self.worker.handle)
        self.worker.finished.connect(self.on_finished)
        self.worker.warmed.connect(self.warmed)
        self.warm.connect(self.worker.warm_up)
        self.thread.start()
        if warm_up:  # queued first, so it runs before any request
            self.warm.emit()
        session.request.connect(self.send)
        WorkerBridge.instances.add(self)

    def send(self, request: Request) -> None:
        generation = getattr(request, "generation", None)
        if isinstance(request, StartRequest) and generation is not None:
            self.worker.latest_generation = generation
        self.submit.emit(request)

    @Slot(object)
    def on_finished(self, result) -> None:
        self.session.apply(result)

    def shutdown(self) -> None:
        """Stop the thread: a running generation stops at its next step, queued work is dropped."""
        self.session.request.disconnect(self.send)
        self.worker.cancelled = True
        self.thread.quit()
        self.thread.wait()
        self.worker.checkpoint = self.worker.engine = None  # a closed window keeps no model
