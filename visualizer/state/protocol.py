"""What the session and the worker say to each other: the loaded model's description, the
requests the session sends and the results that come back. Plain data, no Qt, no torch."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from model.generation.decoding_settings import DecodingSettings
from model.interface import FamilyInfo, Interventions, Tokenizer
from visualizer.state.jobs import Job

if TYPE_CHECKING:
    from model.generation.records import GenerationSnapshot


@dataclass(frozen=True)
class ModelInfo:
    """What the GUI may know of the loaded model (the model itself stays on the worker)."""

    path: Path | None
    family: FamilyInfo  # its kinds of attention, capabilities and config
    tokenizer: Tokenizer
    device: str
    metadata: dict  # free-form facts the checkpoint carries (training recipe, accuracy)
    notice: str | None = None
    cuda_available: bool = False  # whether the worker's torch sees a CUDA device
    # multilingual models: the language codes, and those read and written now
    languages: tuple[str, ...] = ()
    source_language: str | None = None
    target_language: str | None = None

    @property
    def name(self) -> str:
        return self.path.name if self.path else "untitled model"

    @property
    def kinds(self) -> tuple[str, ...]:
        return self.family.kind_names


# -- requests, to the worker --------------------------------------------------------------
@dataclass(frozen=True)
class LoadRequest:
    id: int
    path: Path
    device: str


@dataclass(frozen=True)
class StartRequest:
    id: int
    generation: int
    source: str
    settings: DecodingSettings
    interventions: Interventions
    steps: int = 0  # steps to take right away (to keep the user's place after a change)
    forced: tuple[int | None, ...] = ()  # the token to force at each of those steps, or None


@dataclass(frozen=True)
class StepRequest:
    id: int
    generation: int
    count: int | None = 1  # None: run to the end


@dataclass(frozen=True)
class BranchRequest:
    id: int
    generation: int
    keep: int  # steps to keep
    force: int | None  # token to force at step ``keep``, or None to only cut back


@dataclass(frozen=True)
class DeviceRequest:
    id: int
    device: str


@dataclass(frozen=True)
class LanguageRequest:
    """A multilingual model's source and target languages (None: keep that one)."""

    id: int
    source: str | None
    target: str | None


@dataclass(frozen=True)
class ComputeRequest:
    """Any other model work a panel needs (a what-if, a teacher-forced run), off the GUI thread.

    ``job`` names the work as plain data (``visualizer.state.jobs``); the worker does it with
    the loaded ``ModelFamily`` and the current ``GenerationSnapshot`` (or None), through the
    work layer's table, and answers plain data.
    """

    id: int
    generation: int
    key: tuple  # what was asked, so a panel can tell its answer from a stale one
    job: Job


Request = (
    LoadRequest
    | StartRequest
    | StepRequest
    | BranchRequest
    | DeviceRequest
    | LanguageRequest
    | ComputeRequest
)


# -- results, from the worker -------------------------------------------------------------
@dataclass(frozen=True)
class ModelLoaded:
    request_id: int
    model: ModelInfo


@dataclass(frozen=True)
class SnapshotReady:
    request_id: int
    generation: int
    snapshot: GenerationSnapshot


@dataclass(frozen=True)
class Computed:
    request_id: int
    generation: int
    key: tuple
    value: Any


@dataclass(frozen=True)
class LoadProgress:
    """Sent while a model opens (only by openers that report stages): the load goes on."""

    request_id: int
    fraction: float  # 0..1 of the whole load
    stage: str  # a fixed English phrase of model.core.progress; the window translates it


@dataclass(frozen=True)
class ComputeProgress:
    """Sent while a long compute job runs (those that report progress): the job goes on."""

    request_id: int
    key: tuple
    fraction: float  # 0..1
    stage: str  # what is being done, in English


@dataclass(frozen=True)
class RequestFailed:
    request_id: int
    what: str  # "load", "start", "generate", "device" or "stale"
    message: str


Result = ModelLoaded | SnapshotReady | Computed | LoadProgress | ComputeProgress | RequestFailed
