"""Two models side by side: a second session that follows the first one's state. No Qt.

The user drives session A as always (source, decoding settings, stepping, forcing, the kind,
layer and head). ``Comparison`` makes session B, which holds the other model on its own
worker, converge on the same state: the same source, settings and what-ifs (plus B's own
what-if, to compare a model with itself changed), the same tokens forced at the same steps,
as many steps as A has, and the same shown step. It never steps B past what A shows, so the
two timelines read side by side.

``difference`` gives A − B of the chosen kind where the two views' shapes agree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from model.interface import Interventions
from visualizer.state.events import Signal, Subscriptions
from visualizer.state.session import Session
from visualizer.state.views import AttentionView

# what-ifs that can be set on side B alone, by name of their Interventions field
B_WHAT_IFS = ("no_positional", "no_scaling", "no_causal_mask", "uniform_attention", "no_attention")


@dataclass(frozen=True)
class Difference:
    """A − B of one kind, layer and head (None: the mean over heads)."""

    matrix: np.ndarray  # [Q, K], NaN where either side is masked
    bound: float  # the largest |A − B|: the diverging colour scale is symmetric about 0


class Comparison:
    def __init__(self, a: Session, b: Session) -> None:
        self.a, self.b = a, b
        self.b_what_if = Interventions()  # applied to B on top of A's what-ifs
        self.changed = Signal()  # () either side's state changed: the compare view redraws
        self.asked_run: tuple | None = None  # (source, settings, what-ifs, forced) B was last started on
        self.failed_run: tuple | None = None  # one B could not run: not asked again until A changes
        self.problem: str | None = None  # why B does not show A's run, for the page
        self.following_view = False  # B's selection is being set from A's: not sent back
        self.subscriptions = Subscriptions(
            (a.snapshot_changed, self.follow),
            (a.cursor_changed, self.follow),
            (a.view_changed, self.follow_view),
            (a.selection_changed, self.follow_view),
            (a.model_changed, self.on_a_model),
            (a.language_changed, b.set_language),
            (b.snapshot_changed, self.follow),
            (b.model_changed, self.on_b_model),
            (b.cursor_changed, self.on_b_cursor),
            (b.selection_changed, self.on_b_selection),
            (b.message, self.on_b_message),
        )

    def close(self) -> None:
        self.subscriptions.close()

    def open(self, path: str | Path) -> None:
        """Load the model of side B (on B's own worker); it follows A once loaded."""
        self.b.device = self.a.device
        self.b.open_checkpoint(path)

    def set_b_what_if(self, interventions: Interventions) -> None:
        self.b_what_if = interventions
        self.follow()

    # -- following A ------------------------------------------------------------------------
    def wanted_interventions(self) -> Interventions:
        """A's what-ifs, with B's own switched on; only those B's model applies."""
        a = self.a.snapshot.interventions if self.a.snapshot is not None else self.a.interventions
        merged = replace(
            a, **{name: getattr(a, name) or getattr(self.b_what_if, name) for name in B_WHAT_IFS}
        )
        supported = self.b.model.family.capabilities.what_ifs if self.b.model is not None else frozenset()
        return merged.limited_to(supported)

    def wanted_forced(self) -> tuple[int | None, ...]:
        """A's forced tokens as B's token ids (by their text; <unk> where B has no such token)."""
        snapshot, b = self.a.snapshot, self.b.model
        if snapshot is None or b is None:
            return ()
        forced = []
        for step in snapshot.steps:
            if not step.forced:
                forced.append(None)
                continue
            text = snapshot.tokenizer.token_text(step.token_id)
            forced.append(token_id_in(b.tokenizer, text, step.token_id == snapshot.tokenizer.eos_id))
        return trimmed(forced)

    def follow(self, *_args) -> None:
        a, b = self.a, self.b
        if a.snapshot is None or b.model is None or b.busy:
            self.changed.emit()
            return  # B follows once its model or its running request is in
        wanted_steps = len(a.snapshot.steps)
        forced = self.wanted_forced()
        interventions = self.wanted_interventions()
        run = (a.snapshot.source, a.snapshot.settings, interventions, forced)
        snapshot = b.snapshot
        if snapshot is not None and snapshot.stop_reason is not None:
            # B stopped before A's later forced steps: those cannot apply to it
            forced = trimmed(forced, len(snapshot.steps))
        same_run = (
            snapshot is not None
            and snapshot.source == a.snapshot.source
            and snapshot.settings == a.snapshot.settings
            and snapshot.interventions == interventions
            and forced_of(snapshot)[: len(forced)] == forced
            and all(not s.forced for s in snapshot.steps[len(forced) :])
        )
        if not same_run:
            if run == self.failed_run:  # said once; asked again only when A's run changes
                self.changed.emit()
                return
            self.asked_run = run
            b.source, b.settings, b.interventions = a.snapshot.source, a.snapshot.settings, interventions
            b.restart(steps=max(wanted_steps, a.cursor + 1), forced=run[3])
            return
        self.failed_run = self.problem = None
        if len(snapshot.steps) < wanted_steps and snapshot.stop_reason is None:
            b.extend_to(wanted_steps)
            return
        self.show_a_step()
        self.changed.emit()

    def show_a_step(self) -> None:
        """B shows the step A shows (or its last, when it stopped earlier)."""
        a, b = self.a, self.b
        if a.snapshot is not None and b.snapshot is not None and not b.busy:
            b.go_to_step(min(a.cursor, len(b.snapshot.steps) - 1))

    def follow_view(self) -> None:
        a, b = self.a, self.b
        if b.model is not None:
            kind = a.kind if a.kind in b.kinds else b.kind
            if kind != b.kind:
                b.set_kind(kind)
            layer = max(0, min(a.layer, b.model.family.max_layers - 1))
            head = None if a.head is None else max(0, min(a.head, b.model.family.max_heads - 1))
            self.following_view = True
            try:
                b.select_head(layer, head)
            finally:
                self.following_view = False
        b.set_colormap(a.colormap)
        self.changed.emit()

    def on_a_model(self, model) -> None:
        """A moved to another device (or another model): B goes to the same device."""
        b = self.b
        if b.model is not None and b.device != self.a.device:
            b.set_device(self.a.device)

    def on_b_model(self, _model) -> None:
        """B's model is in: its own start (which follows) runs on A's source and settings."""
        a, b = self.a, self.b
        self.failed_run = self.problem = None
        if a.snapshot is not None:
            b.source, b.settings = a.snapshot.source, a.snapshot.settings
            b.interventions = self.wanted_interventions()
        self.follow_view()

    def on_b_cursor(self, *_args) -> None:
        self.show_a_step()  # B's own start or steps move its cursor to its last step
        self.changed.emit()

    def on_b_selection(self) -> None:
        """A head clicked in B's grid selects it on both sides (the difference is of one head)."""
        b = self.b
        if not self.following_view and (b.layer, b.head) != (self.a.layer, self.a.head):
            self.a.select_head(b.layer, b.head)

    def on_b_message(self, level: str, text: str) -> None:
        if level == "error" and self.asked_run is not None:
            self.failed_run, self.problem = self.asked_run, text
        if level in ("warning", "error"):
            self.a.message.emit(level, f"B: {text}")
        self.changed.emit()

    # -- what the view shows ----------------------------------------------------------------
    def difference(self) -> Difference | None:
        """A − B of the shown kind, layer and head, or None where the shapes disagree."""
        view_a, view_b = self.a.attention(), self.b.attention()
        if view_a is None or view_b is None or view_a.kind != view_b.kind:
            return None
        matrix_a, matrix_b = shown_matrix(view_a, self.a), shown_matrix(view_b, self.b)
        if matrix_a.shape != matrix_b.shape:
            return None
        difference = matrix_a - matrix_b
        finite = difference[np.isfinite(difference)]
        return Difference(difference, float(np.abs(finite).max()) if finite.size else 0.0)


def shown_matrix(view: AttentionView, session: Session) -> np.ndarray:
    """[Q, K] the session's selected layer and head (None: the mean) of ``view``."""
    layer = min(session.layer, view.layers - 1)
    if session.head is None:
        return view.mean[layer]
    return view.weights[layer, min(session.head, view.heads - 1)]


def trimmed(forced, length: int | None = None) -> tuple[int | None, ...]:
    """The forced token of each step (None: the model's own), cut to ``length`` steps and
    without trailing Nones, so that two runs forcing the same tokens compare equal."""
    forced = list(forced[:length])
    while forced and forced[-1] is None:
        forced.pop()
    return tuple(forced)


def forced_of(snapshot) -> tuple[int | None, ...]:
    return trimmed([step.token_id if step.forced else None for step in snapshot.steps])


def token_id_in(tokenizer, text: str, is_eos: bool) -> int:
    """The id of the token labelled ``text`` in ``tokenizer`` (the other model's vocabulary)."""
    if is_eos:
        return tokenizer.eos_id
    encoded = tokenizer.encode(text)
    return encoded.ids[0] if len(encoded.ids) == 1 else tokenizer.encode("\ufffd").ids[0]
