"""The Qt-free session: compute requests are asked once, answered into ``computed``."""

from __future__ import annotations

from visualizer.state.session import Computed, ComputeRequest, RequestFailed, Session


def loaded_session() -> tuple[Session, list]:
    session = Session()
    sent = []
    session.request.connect(sent.append)
    session.model = object()  # any loaded model will do: compute only checks that one is there
    return session, sent


def test_a_key_is_asked_once_while_in_flight_and_once_answered():
    session, sent = loaded_session()
    job = lambda model_family, snapshot: 42  # noqa: E731
    session.compute(("k",), job)
    session.compute(("k",), job)
    assert len(sent) == 1 and isinstance(sent[0], ComputeRequest)
    changed = []
    session.computed_changed.connect(changed.append)
    session.apply(Computed(sent[0].id, 0, ("k",), 42))
    assert session.computed[("k",)] == 42 and changed == [("k",)]
    session.compute(("k",), job)
    assert len(sent) == 1 and not session.busy


def test_a_failed_computation_is_reported_and_not_asked_again_until_a_model_loads():
    session, sent = loaded_session()
    changed, messages = [], []
    session.computed_changed.connect(changed.append)
    session.message.connect(lambda level, text: messages.append((level, text)))
    session.playing = True
    session.compute(("k",), lambda c, s: 1)
    session.apply(RequestFailed(sent[0].id, "compute", "boom"))
    assert session.failed[("k",)] == "boom" and changed == [("k",)]
    assert messages == [("warning", "boom")] and session.playing  # playing goes on
    session.compute(("k",), lambda c, s: 1)
    assert len(sent) == 1 and not session.busy
    session.failed.clear()  # what a model load does
    session.compute(("k",), lambda c, s: 1)
    assert len(sent) == 2


def test_nothing_is_computed_without_a_model():
    session = Session()
    sent = []
    session.request.connect(sent.append)
    session.compute(("k",), lambda c, s: 1)
    assert sent == []


def test_a_panel_computation_in_flight_does_not_hold_up_stepping():
    from model.generation.decoding import DecodingSettings
    from visualizer.state.session import StepRequest

    session, sent = loaded_session()
    session.snapshot = type("Snapshot", (), {"steps": (), "stop_reason": None})()
    session.compute(("k",), lambda c, s: 1)
    assert session.busy and not session.generating
    session.step_forward()
    assert isinstance(sent[-1], StepRequest)
    assert session.generating
    session.step_forward()  # the step is still running: no second one piles up
    assert sum(isinstance(r, StepRequest) for r in sent) == 1
    assert DecodingSettings()  # the session's settings type is importable without Qt
