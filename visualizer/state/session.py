"""The app's single source of truth, free of Qt: what is loaded, shown and selected.

Widgets read the session and subscribe to its signals; user input calls its methods. Model
work is never done here: the session emits ``request`` with a plain request object, a worker
runs it off the GUI thread, and the result comes back through ``apply``. Results of a
generation the user has since replaced are dropped (the latest request wins).
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from model.generation.decoding_settings import DecodingSettings
from model.interface import NO_INTERVENTIONS, Interventions

# Only torch-free modules here: the window is built and painted before torch is imported.
from model.source import AudioSource, Source
from model.tasks.coverage import TRAINED_ON, Finding, outside_training
from visualizer.i18n import tr, trf
from visualizer.state.events import Signal
from visualizer.state.jobs import Job, JobRunner, no_worker
from visualizer.state.protocol import (  # noqa: F401  (the session's vocabulary, imported from here too)
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
from visualizer.state.session_results import MAX_COMPUTED, SessionResults  # noqa: F401 (read from here too)

if TYPE_CHECKING:
    from model.generation.records import GenerationSnapshot

LANGUAGES = ("en", "zh")
COLORMAPS = ("viridis", "inferno", "magma", "plasma", "cividis", "CET-L1")
MAX_QUEUED_STEPS = 8  # → presses kept while a step computes (more are a held-down key)


class Session(SessionResults):
    def __init__(self) -> None:
        self.model_changed = Signal()  # (ModelInfo)
        self.snapshot_changed = Signal()  # (GenerationSnapshot | None)
        self.cursor_changed = Signal()  # (int)
        self.view_changed = Signal()  # () kind or colormap
        self.selection_changed = Signal()  # () selected layer/head
        self.settings_changed = Signal()  # (DecodingSettings)
        self.message = Signal()  # (level: "info" | "warning" | "error", text)
        self.busy_changed = Signal()  # (bool)
        self.load_progress = Signal()  # (fraction 0..1, stage) while a model opens
        self.playing_changed = Signal()  # (bool)
        self.request = Signal()  # (Request) for the worker
        self.computed_changed = Signal()  # (key) a panel's computation arrived
        self.compute_progress = Signal()  # (key, fraction 0..1, stage) a long computation goes on
        self.language_changed = Signal()  # (language) "en" or "zh"
        self.acted = Signal()  # () the user asked for something: earlier messages are stale
        self.compare_requested = Signal()  # (Path) a panel asks the window to step this model beside
        self.page_requested = Signal()  # (key) a panel asks the window to bring a page to the front
        self.explanations_changed = Signal()  # () the pages' explanations shown or hidden

        self.model: ModelInfo | None = None
        self.snapshot: GenerationSnapshot | None = None
        self.cursor = -1  # the step shown; -1 = before the first step
        self.kind = "cross"  # the kind shown: a kind's name or a word FamilyInfo.resolve_kind reads
        self.known_kinds: set[str] = set()  # kinds of the models loaded so far
        self.layer, self.head = 0, 0  # head None = the mean over heads
        self.colormap = COLORMAPS[0]
        self.settings = DecodingSettings()
        self.interventions = NO_INTERVENTIONS
        self.source = "reverse: attention"
        self.device = "auto"
        self.language = "en"  # explanations in "en" or "zh"; the window follows the system
        # the pages' explanations: shown (True) or hidden (False) as the user chose, or (None)
        # shown where the page has room for them (a small window hides them)
        self.explanations: bool | None = None
        self.sources_run: list[str] = []  # sources run on this model, oldest first (head importance)
        self.computed: dict[tuple, Any] = {}  # answers to compute requests, by key
        self.failed: dict[tuple, str] = {}  # compute keys whose job raised, and why
        self.playing = False
        self._play_when_started = False  # Enter ran a source: play it once it is encoded
        self._queued_steps = 0  # → pressed while a step was computing: taken when it arrives
        self.initial_steps = 0  # steps to run after the first model loads (attnviz --steps)
        self.words = False  # attention over words, pieces merged (subword models)
        # the heads whose cross-attention times a speech model's words: None, the model's own
        # (its alignment heads); Shift+click on the grid adds or removes one
        self.alignment_heads: tuple[tuple[int, int], ...] | None = None
        # languages for the first model, if multilingual (attnviz --src-lang/--tgt-lang)
        self.initial_languages: tuple[str | None, str | None] = (None, None)
        self.generation = 0  # the generation asked for last
        self.shown_generation = 0  # the generation the shown snapshot belongs to
        self._ids = itertools.count(1)
        self._view_key: tuple | None = None
        self._computing: dict[int, tuple] = {}  # request id -> key of compute requests in flight
        self._view = None
        self._pending: set[int] = set()
        self._start_id = 0  # the id of the last StartRequest sent
        # does a job's work here and now (visualizer.state.jobs): set by the worker serving this session
        self.run_job: JobRunner = no_worker

    # -- derived state --------------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """Some model work is pending (the progress bar shows)."""
        return bool(self._pending)

    @property
    def generating(self) -> bool:
        """A step, start or branch is pending: the next step must wait for it (a panel's
        computation need not)."""
        return any(request_id not in self._computing for request_id in self._pending)

    @property
    def step_count(self) -> int:
        return len(self.snapshot.steps) if self.snapshot else 0

    @property
    def at_end(self) -> bool:
        """True when the shown step is the last one and generation has stopped."""
        snapshot = self.snapshot
        return (
            snapshot is not None and snapshot.stop_reason is not None and self.cursor == self.step_count - 1
        )

    def word_timing(self):
        """Where the words written up to the shown step lie in a speech model's audio (the
        alignment heads' cross-attention, ``model.probes.word_timing``); None for other sources.
        Computed once per step shown, shared by the views."""
        from dataclasses import replace as replaced

        from model.probes.word_timing import generation_timing

        snapshot = self.snapshot
        if snapshot is None or snapshot.encoder.source_axis.kind != "frames":
            return None
        key = (snapshot, self.cursor, self.alignment_heads)  # the snapshot itself: an id can be reused
        cached = getattr(self, "_timing_key", None)
        if cached is None or cached[0] is not snapshot or cached[1:] != key[1:]:
            shown = replaced(snapshot, steps=snapshot.steps[: self.cursor + 1])
            self._timing = generation_timing(shown, self.alignment_heads)
            self._timing_key = key
        return self._timing

    def toggle_alignment_head(self, layer: int, head: int) -> None:
        """Add a head to the heads that time a speech model's words, or take it out; the words
        are placed again at once. The last head cannot be taken out (nothing would time them)."""
        from model.probes.word_timing import alignment_heads_of

        snapshot = self.snapshot
        if snapshot is None or snapshot.encoder.source_axis.kind != "frames":
            return
        current = (
            self.alignment_heads
            if self.alignment_heads is not None
            else tuple(alignment_heads_of(snapshot.info))
        )
        chosen = tuple(sorted(set(current) ^ {(layer, head)}))
        if not chosen:
            self.message.emit("warning", tr("at least one head must time the words", self.language))
            return
        self.alignment_heads = chosen
        heads = ", ".join(f"L{layer_ + 1}H{head_ + 1}" for layer_, head_ in chosen)
        self.message.emit("info", trf("the words are timed by {heads}", self.language, heads=heads))
        self.selection_changed.emit()

    def attention(self):
        """What the attention views show now; computed once per change, shared by the views."""
        from visualizer.state.views import attention_view, words_view

        if self.snapshot is None or not self.snapshot.info.has_attention:
            return None  # loading, or a model without attention (the views say so)
        kind = self.shown_kind
        key = (id(self.snapshot), kind, self.cursor, self.words)
        if self._view_key != key:
            self._view = attention_view(self.snapshot, kind, self.cursor)
            if self.words:
                self._view = words_view(self.snapshot, self._view, self.cursor) or self._view
            self._view_key = key
        return self._view

    @property
    def words_available(self) -> bool:
        """The loaded model's tokens are pieces with word starts (a subword tokenizer)."""
        return self.model is not None and hasattr(self.model.tokenizer, "is_word_start")

    def set_words(self, on: bool) -> None:
        """Show attention over words (pieces merged: keys summed, queries averaged)."""
        on = bool(on) and self.words_available
        if on != self.words:
            self.words = on
            self.view_changed.emit()

    @property
    def shown_kind(self) -> str:
        """The chosen kind; before the first step, when that kind has no row yet (the decoder's),
        the first kind computed once per source (the encoder's self-attention), so that the
        first screen shows what the model has already computed."""
        if self.snapshot is None or self.cursor >= 0 or not self.snapshot.info.has_attention:
            return self.kind
        info = self.snapshot.info
        if not info.kind(self.kind).per_step:
            return self.kind
        return next((kind.name for kind in info.kinds if not kind.per_step), self.kind)

    # -- user intents ---------------------------------------------------------------------
    def open_checkpoint(self, path: str | Path, device: str | None = None) -> None:
        self.acted.emit()
        self._send(LoadRequest(next(self._ids), Path(path), device or self.device))

    def set_device(self, device: str) -> None:
        self.acted.emit()
        self.device = device
        self._send(DeviceRequest(next(self._ids), device))

    def set_languages(self, source: str | None = None, target: str | None = None) -> None:
        """A multilingual model reads ``source`` and writes ``target`` (codes from its list)."""
        self.acted.emit()
        self._send(LanguageRequest(next(self._ids), source, target))

    def asked_languages(self, model: ModelInfo) -> bool:
        """Ask for the languages given on the command line, once; True if asked."""
        wanted, self.initial_languages = self.initial_languages, (None, None)
        if wanted == (None, None):
            return False
        unknown = [code for code in wanted if code is not None and code not in model.languages]
        if unknown:
            self.message.emit(
                "warning",
                trf("this model has no language code {code}", self.language, code=", ".join(unknown)),
            )
            return False
        self._send(LanguageRequest(next(self._ids), *wanted))
        return True

    def outside_training(self, source: Source) -> list[Finding]:
        """How ``source`` lies outside what the loaded model was trained on (from the metadata
        ``attnviz train`` writes; none for a model without it, nor for a file source)."""
        if self.model is None:
            return []
        return outside_training(source, self.model.metadata.get(TRAINED_ON))

    def set_source(self, text: Source, play: bool = False) -> None:
        """Run ``text`` (or a file source, e.g. ``AudioSource``) from its first step; ``play``:
        and play it once it is encoded (Enter)."""
        self.acted.emit()
        self.source = text
        self.restart(steps=0)
        self._play_when_started = play and self.model is not None

    def set_audio(self, path: str | Path, play: bool = False) -> None:
        """Hear an audio file (a speech model's source) from its first step; a model that reads
        text says why it cannot, in the window's message line, and keeps what it showed."""
        self.set_source(AudioSource(str(path)), play)

    def set_settings(self, settings: DecodingSettings) -> None:
        """New decoding settings: regenerate up to the step the user was looking at."""
        self.acted.emit()
        if settings == self.settings:
            return
        self.settings = settings
        self.settings_changed.emit(settings)
        self.restart(steps=self.cursor + 1)

    def set_interventions(self, interventions: Interventions) -> None:
        """Regenerate the shown steps with these what-ifs (those the model applies)."""
        self.acted.emit()
        self.interventions = interventions
        self.restart(steps=self.cursor + 1)

    def toggle_zeroed_head(self, kind: str, layer: int, head: int) -> None:
        """Zero one head in the live model, or give it back if it was zeroed (a what-if)."""
        if self.model is None or not self.model.family.capabilities.supports("zeroed_heads"):
            return
        zeroed = set(self.interventions.zeroed_heads) ^ {(kind, layer, head)}
        self.set_interventions(replace(self.interventions, zeroed_heads=frozenset(zeroed)))

    def request_compare(self, path: Path) -> None:
        """Ask the window to open ``path`` on the Compare page, stepped beside this model."""
        self.acted.emit()
        self.compare_requested.emit(Path(path))

    def restart(self, steps: int = 0, forced: tuple[int | None, ...] = ()) -> None:
        self._queued_steps = 0
        if self.model is None:
            return
        self.stop()
        self.generation += 1
        self._start_id = next(self._ids)
        self._send(
            StartRequest(
                self._start_id, self.generation, self.source, self.settings, self.interventions, steps, forced
            )
        )

    def step_forward(self) -> None:
        """Show the next step: already computed ones are shown again, never recomputed."""
        self.acted.emit()
        self._advance()

    def _advance(self) -> None:
        """``step_forward`` for the play timer and for presses taken later: not a new action."""
        if self.snapshot is None:
            return
        if self.cursor < self.step_count - 1:
            self._set_cursor(self.cursor + 1)
        elif self.snapshot.stop_reason is None and not self.generating:
            self._send(StepRequest(next(self._ids), self.generation))
        elif self.snapshot.stop_reason is None and not self.playing:
            # a key pressed while the last step computes is not lost: it is taken when that arrives
            self._queued_steps = min(self._queued_steps + 1, MAX_QUEUED_STEPS)
        elif self.snapshot.stop_reason is not None:
            self.stop()

    def step_back(self) -> None:
        self.acted.emit()
        self._queued_steps = 0
        if self.snapshot is not None and self.cursor > -1:
            self._set_cursor(self.cursor - 1)

    def go_to_step(self, step: int) -> None:
        self.acted.emit()
        self._queued_steps = 0
        if self.snapshot is not None and -1 <= step < self.step_count:
            self._set_cursor(step)

    def run_to_end(self) -> None:
        self.acted.emit()
        if self.snapshot is None:
            return
        if self.snapshot.stop_reason is not None:
            self._set_cursor(self.step_count - 1)
        elif not self.generating:
            self._send(StepRequest(next(self._ids), self.generation, None))

    def extend_to(self, steps: int) -> None:
        """Compute steps until there are ``steps`` (or generation stops); the shown step stays."""
        if self.snapshot is not None and self.snapshot.stop_reason is None and not self.generating:
            missing = steps - self.step_count
            if missing > 0:
                self._send(StepRequest(next(self._ids), self.generation, missing))

    def reset(self) -> None:
        self.acted.emit()
        self._queued_steps = 0
        self.stop()
        if self.snapshot is not None:
            self._send(BranchRequest(next(self._ids), self.generation, 0, None))

    def force_token(self, token_id: int) -> None:
        """Replace the shown step's choice with ``token_id`` and continue from there."""
        self.acted.emit()
        if self.snapshot is None:
            return
        self.stop()
        keep = max(self.cursor, 0)
        self._send(BranchRequest(next(self._ids), self.generation, keep, token_id))

    def toggle_play(self) -> None:
        self.acted.emit()
        self._toggle_play()

    def _toggle_play(self) -> None:
        if self.playing:
            self.stop()
        elif self.snapshot is not None:
            if self.at_end:
                self._set_cursor(-1)  # play again from the start, as a media player does
            self.playing = True
            self.playing_changed.emit(True)

    def stop(self) -> None:
        if self.playing:
            self.playing = False
            self.playing_changed.emit(False)

    def play_tick(self) -> None:
        """Called by the GUI's play timer: one step, unless the last one is still running."""
        if self.playing and not self.generating:
            self._advance()

    @property
    def kinds(self) -> tuple[str, ...]:
        """The loaded model's kinds of attention (none before a model is loaded)."""
        return self.model.kinds if self.model is not None else ()

    def set_kind(self, kind: str) -> None:
        if self.model is not None and kind not in self.model.kinds:
            raise ValueError(
                f"this model has no attention kind {kind!r}; it has {', '.join(self.model.kinds)}"
            )
        if kind != self.kind:
            self.kind = kind
            self.view_changed.emit()

    def set_colormap(self, name: str) -> None:
        if name != self.colormap:
            self.colormap = name
            self.view_changed.emit()

    def set_language(self, language: str) -> None:
        if language not in LANGUAGES:
            raise ValueError(f"unknown language {language!r}: choose {', '.join(LANGUAGES)}")
        if language != self.language:
            self.language = language
            self.language_changed.emit(language)

    def set_explanations(self, shown: bool | None) -> None:
        """Show (True) or hide (False) every page's explanation; None: as the room allows."""
        if shown != self.explanations:
            self.explanations = shown
            self.explanations_changed.emit()

    def compute(self, key: tuple, job: Job) -> None:
        """Ask the worker to do the work ``job`` names; the answer lands in ``computed[key]``.

        A key already answered, or asked for and not yet answered, is not asked again.
        """
        if (
            self.model is None
            or key in self.computed
            or key in self.failed
            or key in self._computing.values()
        ):
            return
        request = ComputeRequest(next(self._ids), self.generation, key, job)
        self._computing[request.id] = key
        self._send(request)

    def is_computing(self, key: tuple) -> bool:
        """``key`` was asked for and its answer has not arrived yet."""
        return key in self._computing.values()

    def select_head(self, layer: int, head: int | None) -> None:
        if (layer, head) != (self.layer, self.head):
            self.layer, self.head = layer, head
            self.selection_changed.emit()

    def _set_cursor(self, step: int, force: bool = False) -> None:
        if step != self.cursor or force:
            self.cursor = step
            self.cursor_changed.emit(step)

    def _send(self, request: Request) -> None:
        was_busy = self.busy
        self._pending.add(request.id)
        if not was_busy:
            self.busy_changed.emit(True)
        self.request.emit(request)

    def with_settings(self, **changes) -> DecodingSettings:
        """The current settings with some fields changed (validated)."""
        return replace(self.settings, **changes)
