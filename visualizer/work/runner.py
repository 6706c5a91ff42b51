"""Runs the session's requests on the model: the worker's work, without Qt or a thread.

``ModelRunner`` owns the model and the generation engine: nothing else touches them. A
request for a generation the user has since replaced is skipped, so the latest request
wins. Every exception becomes a ``RequestFailed`` shown in the window, and the previous
model and generation stay as they were. The Qt worker (``visualizer.work.worker``) runs it on a
thread; tests run it in line (tests/fake_worker.py), so session logic is tested in
milliseconds without a window or a thread. What each request does is the method its type
names in ``HANDLERS``; a page's job is done by ``run_job``, through the work layer's table.

torch and the model code are imported by the first request, not by this module.
"""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from model.core.errors import first_line, one_line
from visualizer.state.protocol import (
    BranchRequest,
    Computed,
    ComputeProgress,
    ComputeRequest,
    DeviceRequest,
    LanguageRequest,
    LoadProgress,
    LoadRequest,
    ModelInfo,
    ModelLoaded,
    Request,
    RequestFailed,
    Result,
    SnapshotReady,
    StartRequest,
    StepRequest,
)

if TYPE_CHECKING:
    from model.generation.engine import GenerationEngine
    from model.generation.records import GenerationSnapshot
    from model.interface import ModelFamily
    from visualizer.state.jobs import Job


# what a request was doing, for the message when it fails
WHAT = {
    LoadRequest: "load",
    StartRequest: "start",
    DeviceRequest: "device",
    LanguageRequest: "language",
    ComputeRequest: "compute",
}
DOING = {
    LoadRequest: "loading the checkpoint",
    StartRequest: "encoding the source",
    StepRequest: "stepping",
    BranchRequest: "forcing a token",
    DeviceRequest: "moving the model",
    LanguageRequest: "choosing the languages",
    ComputeRequest: "computing a panel's view",
}
# they put a model on a device: their work grows with the model, not the source, and runs on
# the device they ask for (not the loaded model's)
DEVICE_REQUESTS = frozenset((LoadRequest, DeviceRequest))


def is_out_of_memory(error: BaseException) -> bool:
    """torch's OutOfMemoryError (any device), a CPU allocator failure, or numpy's MemoryError."""
    if isinstance(error, MemoryError):
        return True
    torch = sys.modules.get("torch")
    out_of_memory = getattr(torch, "OutOfMemoryError", None) if torch else None
    if out_of_memory is not None and isinstance(error, out_of_memory):
        return True
    text = str(error).lower()  # MPS and the CPU allocator raise a plain RuntimeError
    return isinstance(error, RuntimeError) and ("out of memory" in text or "can't allocate memory" in text)


def out_of_memory_message(device: str, doing: str, error: BaseException, source_sized: bool = True) -> str:
    """One line for the user: where, doing what, what torch said, and what to try.

    ``source_sized``: the work grows with the source (a step, a panel's run), not only with
    the model (a load).
    """
    advice = "a smaller model" if device == "cpu" else "the CPU"
    advice = f"a shorter source or {advice}" if source_sized else advice
    detail = first_line(error)
    detail = f": {detail}" if detail else ""
    return f"out of memory on {device} while {doing}{detail} — try {advice}"


def free_device_memory() -> None:
    """Hand cached blocks back to the device after an out-of-memory error.

    No ``gc.collect()`` here: on this thread the collector could destroy Qt objects, which
    deadlocks; what the failed request allocated is freed by reference counting.
    """
    torch = sys.modules.get("torch")
    if torch is not None and torch.cuda.is_available():
        torch.cuda.empty_cache()


def run_job(job: Job, model: ModelFamily | None = None, snapshot: GenerationSnapshot | None = None) -> Any:
    """Do the work ``job`` names, here and now, through the table ``visualizer.work.jobs.JOBS``.

    The table imports torch and the model code, so it is imported by the first job, not with
    this module: the window shows its pages before torch is loaded.
    """
    from visualizer.work.jobs import JOBS

    return JOBS[type(job)](job, model, snapshot)


def model_info(model: ModelFamily) -> ModelInfo:
    import torch

    return ModelInfo(
        model.path,
        model.info,
        model.tokenizer,
        str(model.device),
        model.metadata,
        model.notice,
        cuda_available=torch.cuda.is_available(),
        languages=tuple(model.languages),
        source_language=model.source_language,
        target_language=model.target_language,
    )


class ModelRunner:
    """The loaded model, its generation engine, and what each request does to them."""

    def __init__(self) -> None:
        self.checkpoint: ModelFamily | None = None  # the loaded model
        self.engine: GenerationEngine | None = None
        self.engine_generation = -1
        self.latest_generation = 0  # written by the GUI thread before it queues a request
        self.cancelled = False  # set by the GUI thread on close: long loops stop between steps

    def progress_report(self, progress: LoadProgress | ComputeProgress) -> None:
        """Where a load's stages, or a long job's progress, go while it runs (the worker sends
        them to the window)."""

    def process(self, request: Request) -> Result | None:
        """The request's result (a failure included); None when cancelled."""
        if self.cancelled:
            return None
        saved = self.saved_state()
        out_of_memory = False
        try:
            result = self.run(request)
        except Exception as error:  # shown to the user; the worker and its state live on
            self.restore(saved)  # a step that failed half-way leaves the generation as shown
            out_of_memory = is_out_of_memory(error)
            what = WHAT.get(type(request), "generate")
            result = RequestFailed(request.id, what, self.describe(request, error))
        if out_of_memory:  # after the except block: the traceback and its tensors are gone
            free_device_memory()
        return result

    def describe(self, request: Request, error: Exception) -> str:
        """The one-line message the window shows for a failed request."""
        doing = DOING.get(type(request), "generating")
        if is_out_of_memory(error):
            source_sized = type(request) not in DEVICE_REQUESTS
            return out_of_memory_message(self.device_name(request), doing, error, source_sized)
        message = first_line(error)
        if isinstance(error, ValueError):  # the user's input was wrong: the message says how
            return message or f"invalid input while {doing}"
        traceback.print_exc()  # unexpected: keep the traceback for a bug report
        name = type(error).__name__
        return f"{name}: {message}" if message else f"{name} while {doing}"

    def device_name(self, request: Request) -> str:
        if self.checkpoint is not None and type(request) not in DEVICE_REQUESTS:
            return str(self.checkpoint.device)
        asked = getattr(request, "device", "auto")
        try:
            from model.core.devices import resolve_device

            return str(resolve_device(asked)[0])
        except ValueError:
            return str(asked)

    def saved_state(self) -> tuple:
        """What a request may change, to put back if it fails: the engine and its steps."""
        engine = self.engine
        if engine is None:
            return (None, self.engine_generation, None)
        return (engine, self.engine_generation, (list(engine.steps), engine.cache, engine.beam))

    def restore(self, saved: tuple) -> None:
        engine, generation, progress = saved
        self.engine, self.engine_generation = engine, generation
        if engine is not None:
            # the key/value cache is never changed in place (a step or a cut makes a new one)
            steps, engine.cache, engine.beam = progress
            engine.steps[:] = steps

    def run(self, request: Request) -> Result:
        """What ``request`` does: the method its type names in ``HANDLERS``."""
        return HANDLERS[type(request)](self, request)

    def loaded(self) -> ModelFamily:
        """The loaded model; a ValueError that says so when there is none."""
        if self.checkpoint is None:
            raise ValueError("no model is loaded: open a checkpoint first")
        return self.checkpoint

    def load(self, request: LoadRequest) -> ModelLoaded:
        import torch

        from model.core.progress import reporting
        from model.core.threads import step_threads
        from model.registry import open_model

        torch.set_num_threads(step_threads(None))  # loading runs the model once

        def stage_reached(fraction: float, stage: str) -> None:
            self.progress_report(LoadProgress(request.id, fraction, stage))

        with reporting(stage_reached):
            checkpoint = open_model(request.path, request.device)
        self.checkpoint, self.engine = checkpoint, None
        torch.set_num_threads(step_threads(checkpoint.info.parameters))
        return ModelLoaded(request.id, model_info(checkpoint))

    def set_languages(self, request: LanguageRequest) -> ModelLoaded:
        if self.checkpoint is None:
            raise ValueError("no model is loaded")
        self.checkpoint.set_languages(request.source, request.target)
        self.engine = None  # the source reads differently now: start again
        return ModelLoaded(request.id, model_info(self.checkpoint))

    def compute(self, request: ComputeRequest) -> Computed:
        from model.core.progress import reporting, stoppable

        model = self.loaded()

        def reached(fraction: float, stage: str) -> None:
            self.progress_report(ComputeProgress(request.id, request.key, fraction, stage))

        snapshot = self.engine.snapshot() if self.engine is not None else None
        with reporting(reached), stoppable(lambda: self.cancelled):
            value = run_job(request.job, model, snapshot)
        return Computed(request.id, request.generation, request.key, value)

    def start(self, request: StartRequest) -> SnapshotReady | RequestFailed:
        from model.generation.engine import GenerationEngine

        model = self.loaded()
        if request.generation < self.latest_generation:
            return RequestFailed(request.id, "stale", "")  # replaced by a newer request
        engine = GenerationEngine(model, request.source, request.settings, request.interventions)
        forced = request.forced + (None,) * (request.steps - len(request.forced))
        for force in forced[: request.steps]:
            if self.cancelled or engine.step(force=force) is None:
                break
        self.engine, self.engine_generation = engine, request.generation
        return SnapshotReady(request.id, request.generation, engine.snapshot())

    def step(self, request: StepRequest) -> SnapshotReady | RequestFailed:
        engine = self.current_engine(request)
        if engine is None:
            return RequestFailed(request.id, "stale", "")
        count = engine.max_steps if request.count is None else request.count
        for _ in range(count):
            if self.cancelled or engine.step() is None:
                break
        return SnapshotReady(request.id, request.generation, engine.snapshot())

    def branch(self, request: BranchRequest) -> SnapshotReady | RequestFailed:
        engine = self.current_engine(request)
        if engine is None:
            return RequestFailed(request.id, "stale", "")
        while len(engine.steps) > request.keep:
            engine.back()
        if request.force is not None:
            engine.step(force=request.force)
        return SnapshotReady(request.id, request.generation, engine.snapshot())

    def current_engine(self, request: StepRequest | BranchRequest) -> GenerationEngine | None:
        """The generation a step or a cut continues; None when the request is stale (a newer
        generation was asked for, or the one it names is gone)."""
        self.loaded()
        stale = request.generation < self.latest_generation or self.engine_generation != request.generation
        return None if stale else self.engine

    def move(self, request: DeviceRequest):
        import torch

        from model.core.devices import resolve_device

        if self.checkpoint is None:
            raise ValueError("no model is loaded")
        device, notice = resolve_device(request.device)
        try:
            self.checkpoint.to(device)
        except (RuntimeError, torch.cuda.OutOfMemoryError) as error:
            self.checkpoint.to(torch.device("cpu"))  # never leave the model half-moved
            if is_out_of_memory(error):
                what = f"out of memory on {device} while moving the model"
            else:
                what = f"could not move the model to {request.device}"
            notice = f"{what} ({one_line(error)}); using CPU instead"
            device = torch.device("cpu")
        if notice is not None and torch.cuda.is_available():
            torch.cuda.empty_cache()  # what a failed move left on the device
        self.checkpoint.notice = notice
        self.engine = None
        return ModelLoaded(request.id, model_info(self.checkpoint))


# what each request does, by its type
HANDLERS: dict[type, Callable[[ModelRunner, Any], Result]] = {
    LoadRequest: ModelRunner.load,
    DeviceRequest: ModelRunner.move,
    LanguageRequest: ModelRunner.set_languages,
    ComputeRequest: ModelRunner.compute,
    StartRequest: ModelRunner.start,
    StepRequest: ModelRunner.step,
    BranchRequest: ModelRunner.branch,
}
