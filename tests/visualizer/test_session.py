"""The Qt-free session: compute requests are asked once, answered into ``computed``."""

from __future__ import annotations

from visualizer.session import Computed, ComputeRequest, RequestFailed, Session


def loaded_session() -> tuple[Session, list]:
    session = Session()
    sent = []
    session.request.connect(sent.append)
    session.model = object()  # any loaded model will do: compute only checks that one is there
    return session, sent


def test_a_key_is_asked_once_while_in_flight_and_once_answered():
    session, sent = loaded_session()
    job = lambda checkpoint, snapshot: 42  # noqa: E731
    session.compute(("k",), job)
    session.compute(("k",), job)
    assert len(sent) == 1 and isinstance(sent[0], ComputeRequest)
    changed = []
    session.computed_changed.connect(changed.append)
    session.apply(Computed(sent[0].id, 0, ("k",), 42))
    assert session.computed[("k",)] == 42 and changed == [("k",)]
    session.compute(("k",), job)
    assert len(sent) == 1 and not session.busy


def test_a_failed_computation_may_be_asked_again():
    session, sent = loaded_session()
    session.compute(("k",), lambda c, s: 1)
    session.apply(RequestFailed(sent[0].id, "generate", "boom"))
    session.compute(("k",), lambda c, s: 1)
    assert len(sent) == 2


def test_nothing_is_computed_without_a_model():
    session = Session()
    sent = []
    session.request.connect(sent.append)
    session.compute(("k",), lambda c, s: 1)
    assert sent == []
