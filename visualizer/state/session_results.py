"""What the session does with the worker's answers: a model loaded, a generation's snapshot, a
panel's computation, progress, a failure. Mixed into ``Session`` (session.py keeps its state and
the user's intents); Qt-free like it. An answer to a request the user has since replaced is
dropped: the latest request wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from visualizer.i18n import trf
from visualizer.state.protocol import (
    Computed,
    ComputeProgress,
    LoadProgress,
    ModelInfo,
    ModelLoaded,
    RequestFailed,
    Result,
    SnapshotReady,
)

if TYPE_CHECKING:
    from model.generation.records import GenerationSnapshot

# Panels' answers kept at once: keys name the source and the shown step, so without a bound
# ``computed`` would grow with every step of a long session. An evicted answer is asked again.
MAX_COMPUTED = 32
MAX_SOURCES_RUN = 200  # the sources head importance may measure on, for a model without a task


class SessionResults:
    """``Session.apply`` and what it calls; the attributes and signals are the session's."""

    def apply(self, result: Result) -> None:
        if isinstance(result, LoadProgress):  # the load goes on: still pending
            if result.request_id in self._pending:
                self.load_progress.emit(result.fraction, result.stage)
            return
        if isinstance(result, ComputeProgress):  # a long computation goes on
            if self._computing.get(result.request_id) == result.key:
                self.compute_progress.emit(result.key, result.fraction, result.stage)
            return
        self._pending.discard(result.request_id)
        computing = self._computing.pop(result.request_id, None)
        if computing is None and (
            isinstance(result, Computed) or (isinstance(result, RequestFailed) and result.what == "compute")
        ):
            # asked for before a model load cleared ``_computing``: the panel asks again if needed
            if not self._pending:
                self.busy_changed.emit(False)
            return
        if isinstance(result, RequestFailed) and computing is not None:
            # a panel's computation failed: say so there, keep playing, do not ask again
            remember(self.failed, computing, result.message)
            self.message.emit("warning", result.message)
            self.computed_changed.emit(computing)
            if not self._pending:
                self.busy_changed.emit(False)
            return
        if isinstance(result, ModelLoaded):
            self._model_loaded(result.model)
        elif isinstance(result, Computed):
            remember(self.computed, result.key, result.value)
            self.computed_changed.emit(result.key)
        elif isinstance(result, SnapshotReady):
            if result.generation == self.generation:
                self.shown_generation = result.generation
                self._snapshot_ready(result.snapshot)
                if self._play_when_started and result.request_id == self._start_id:
                    self._play_when_started = False
                    self._toggle_play()
                if self._queued_steps and not self.generating:
                    self._queued_steps -= 1
                    self._advance()
        elif isinstance(result, RequestFailed) and result.what != "stale":
            self.stop()
            self._play_when_started = False
            if result.what == "start" and result.request_id == self._start_id:
                # the worker kept the generation it had: go on stepping that one (unless a newer
                # start is on its way: then that one is the generation to wait for)
                self.generation = self.shown_generation
                if self.snapshot is not None:
                    self.source = self.snapshot.source
            self.message.emit("error", result.message)
        if not self._pending:
            self.busy_changed.emit(False)

    def _model_loaded(self, model: ModelInfo) -> None:
        if self.asked_languages(model):
            return  # the model comes back with its languages set, and generation starts then
        previous = self.model
        same_model = previous is not None and (model.path, model.family) == (previous.path, previous.family)
        keep_steps = self.cursor + 1 if same_model else 0  # a device switch keeps the user's place
        keep_steps, self.initial_steps = max(keep_steps, self.initial_steps), 0
        # the same model (on another device): take the tokens the user forced again
        kept = self.snapshot.steps[:keep_steps] if same_model and self.snapshot is not None else ()
        forced = tuple(step.token_id if step.forced else None for step in kept)
        self.model = model
        if not same_model:
            self.alignment_heads = None  # a new model times its words with its own heads
            self.sources_run = []
        self.words = self.words and self.words_available
        # what-ifs the new model cannot apply would only mislabel its pictures
        self.interventions = self.interventions.limited_to(model.family.capabilities.what_ifs)
        self.computed.clear()
        self.failed.clear()
        self._computing.clear()  # requests run in order: none for the old model is still coming
        self.snapshot = None
        self.snapshot_changed.emit(None)
        self._set_cursor(-1, force=True)
        self.layer = max(0, min(self.layer, model.family.max_layers - 1))
        if self.head is not None:
            self.head = max(0, min(self.head, model.family.max_heads - 1))
        # without attention there is nothing to choose: the kind is kept for the next model
        kind = model.family.resolve_kind(self.kind) if model.family.has_attention else self.kind
        if kind is None:  # "cross" resolved to its attention over the source, or a kind it lacks
            fallback = model.family.resolve_kind("cross") or model.kinds[0]
            if self.kind not in self.known_kinds:  # asked for by name (--view), not left by a model
                self.message.emit(
                    "warning",
                    trf(
                        "this model has no attention kind {kind}; showing {fallback}",
                        self.language,
                        kind=repr(self.kind),
                        fallback=fallback,
                    ),
                )
            kind = fallback
        self.known_kinds.update(model.kinds)
        if kind != self.kind:
            self.kind = kind
            self.view_changed.emit()
        self.model_changed.emit(model)
        self.message.emit(
            "info", trf("loaded {name} on {device}", self.language, name=model.name, device=model.device)
        )
        if model.notice:  # last, so the status bar shows it rather than the line above
            self.message.emit("warning", model.notice)
        self.restart(steps=keep_steps, forced=forced)

    def _snapshot_ready(self, snapshot: GenerationSnapshot) -> None:
        previous = self.snapshot
        self.snapshot = snapshot
        if snapshot.source not in self.sources_run:
            self.sources_run = [*self.sources_run, snapshot.source][-MAX_SOURCES_RUN:]
        new_source = (
            previous is None or previous.source != snapshot.source or previous.encoder is not snapshot.encoder
        )
        if new_source and snapshot.encoder.unknown:
            chars = ", ".join(repr(c) for _, c in snapshot.encoder.unknown[:5])
            self.message.emit(
                "warning", trf("not in the vocabulary, read as <unk>: {chars}", self.language, chars=chars)
            )
        self.snapshot_changed.emit(snapshot)
        self._set_cursor(len(snapshot.steps) - 1, force=True)  # views redraw once, on the cursor
        if snapshot.stop_reason == "max_length" and (previous is None or previous.stop_reason is None):
            self.message.emit(
                "warning",
                trf(
                    "stopped at the maximum length of {n} tokens",
                    self.language,
                    n=snapshot.info.max_target_len,
                ),
            )
        if snapshot.stop_reason is not None and self.playing and self.cursor == len(snapshot.steps) - 1:
            self.stop()


def remember(answers: dict, key: tuple, value: Any) -> None:
    """Store ``value`` under ``key``, forgetting the oldest answers beyond ``MAX_COMPUTED``."""
    answers.pop(key, None)  # a key answered again moves to the newest place
    answers[key] = value
    while len(answers) > MAX_COMPUTED:
        del answers[next(iter(answers))]
