"""Session logic without a window or a thread: the real runner, run in line (tests/fake_worker.py).

Kept with the model tests (no Qt is imported here: the session, the runner and the
comparison are Qt-free), so these run in milliseconds.
"""

from __future__ import annotations

import numpy as np
import pytest

from model.generation.engine import GenerationEngine
from model.interface import Interventions
from model.registry import open_model, register_family, unregister_family
from tests.factories import small_model
from tests.fake_worker import FakeWorker, drain_all
from tests.families.toy import ENTRY, write_toy
from visualizer.state.compare import Comparison
from visualizer.state.session import Session, SnapshotReady

SOURCE = "reverse: abcdef"


def loaded(path, source: str = SOURCE) -> tuple[Session, FakeWorker]:
    session = Session()
    session.source = source
    worker = FakeWorker(session)
    session.open_checkpoint(path, "cpu")
    worker.drain()
    assert session.model is not None and session.snapshot is not None
    return session, worker


def test_step_back_forward_and_run_to_end(tiny_checkpoint_path):
    session, worker = loaded(tiny_checkpoint_path)
    for _ in range(3):
        session.step_forward()
        worker.drain()
    assert session.cursor == 2 and session.step_count == 3
    session.step_back()
    assert session.cursor == 1 and not worker.queue  # back shows a recorded step: no request
    session.step_forward()
    assert session.cursor == 2 and not worker.queue
    session.run_to_end()
    worker.drain()
    assert session.snapshot.stop_reason is not None and session.cursor == session.step_count - 1
    expected = GenerationEngine(open_model(tiny_checkpoint_path, "cpu"), SOURCE)
    expected.run_to_end()
    assert session.snapshot.output_ids == expected.output_ids


def test_forcing_branches_and_a_stale_result_is_dropped(tiny_checkpoint_path):
    session, worker = loaded(tiny_checkpoint_path)
    session.step_forward()
    session.step_forward()  # the first step is still queued: the second waits for it
    worker.drain()
    session.step_forward()
    worker.drain()
    token = session.model.tokenizer.encode("z").ids[0]
    session.force_token(token)
    worker.drain()
    assert session.snapshot.steps[session.cursor].forced
    assert session.snapshot.steps[session.cursor].token_id == token
    old_generation = session.generation
    session.set_source("sort: 4312")  # a new generation; a late result of the old one is ignored
    late = SnapshotReady(999, old_generation, session.snapshot)
    shown = session.snapshot
    session.apply(late)
    assert session.snapshot is shown
    worker.drain()
    assert session.snapshot.source == "sort: 4312"


def test_a_failed_start_keeps_the_generation_shown(tiny_checkpoint_path):
    session, worker = loaded(tiny_checkpoint_path)
    session.step_forward()
    worker.drain()
    messages = []
    session.message.connect(lambda level, text: messages.append((level, text)))
    session.set_source("")  # empty: the runner refuses it
    worker.drain()
    assert messages and messages[-1][0] == "error" and "empty" in messages[-1][1]
    assert session.snapshot.source == SOURCE and session.step_count == 1
    session.step_forward()
    worker.drain()
    assert session.step_count == 2  # the shown generation goes on


def test_the_session_builds_its_kinds_from_the_model(tmp_path, tiny_checkpoint_path):
    register_family(ENTRY)
    try:
        session, worker = loaded(write_toy(tmp_path))
        assert session.kinds == ("enc_mix", "alignment") and session.kind == "alignment"
        with pytest.raises(ValueError, match="no attention kind 'cross'"):
            session.set_kind("cross")
        session.set_kind("enc_mix")
        session.select_head(1, None)
        session.open_checkpoint(tiny_checkpoint_path, "cpu")
        worker.drain()
        assert session.kinds == ("enc_self", "dec_self", "cross") and session.kind == "cross"
    finally:
        unregister_family("toy")


@pytest.fixture
def other_checkpoint_path(tmp_path):
    from model.transformer.checkpoint import save_checkpoint

    model, tokenizer = small_model(seed=7)
    path = tmp_path / "other.safetensors"
    save_checkpoint(path, model, tokenizer)
    return path


def comparing(a_path, b_path) -> tuple[Session, Session, Comparison, list[FakeWorker]]:
    a, worker_a = loaded(a_path)
    b = Session()
    worker_b = FakeWorker(b)
    comparison = Comparison(a, b)
    comparison.open(b_path)
    drain_all(worker_a, worker_b)
    return a, b, comparison, [worker_a, worker_b]


def test_side_b_follows_every_step_back_and_forced_token(tiny_checkpoint_path, other_checkpoint_path):
    a, b, comparison, workers = comparing(tiny_checkpoint_path, other_checkpoint_path)
    for _ in range(4):
        a.step_forward()
        drain_all(*workers)
    assert b.step_count == 4 and b.cursor == a.cursor == 3
    a.step_back()
    a.step_back()
    drain_all(*workers)
    assert b.cursor == a.cursor == 1
    token = a.model.tokenizer.encode("q").ids[0]
    a.force_token(token)
    drain_all(*workers)
    assert b.snapshot.steps[1].forced and b.snapshot.output_ids[1] == token
    assert b.cursor == a.cursor == 1
    a.set_source("sort: 4312")
    drain_all(*workers)
    a.step_forward()
    drain_all(*workers)
    assert b.snapshot.source == "sort: 4312" and b.cursor == a.cursor == 0
    # B is the other model's own generation, step for step
    expected = GenerationEngine(open_model(other_checkpoint_path, "cpu"), "sort: 4312")
    expected.step()
    np.testing.assert_array_equal(
        b.snapshot.steps[0].attention["cross"], expected.steps[0].attention["cross"]
    )


def test_the_difference_is_a_minus_b_where_shapes_agree(tiny_checkpoint_path, other_checkpoint_path):
    a, b, comparison, workers = comparing(tiny_checkpoint_path, other_checkpoint_path)
    a.set_settings(a.with_settings())  # unchanged settings: nothing happens
    for _ in range(2):
        a.step_forward()
        drain_all(*workers)
    a.set_kind("enc_self")
    a.select_head(1, 2)
    difference = comparison.difference()
    expected = a.snapshot.encoder.attention["enc_self"][1, 2] - b.snapshot.encoder.attention["enc_self"][1, 2]
    np.testing.assert_allclose(difference.matrix, expected, atol=1e-7)
    assert difference.bound == pytest.approx(np.abs(expected).max())
    assert b.kind == "enc_self" and (b.layer, b.head) == (1, 2)


def test_the_same_model_with_a_what_if_on_b(tiny_checkpoint_path):
    a, b, comparison, workers = comparing(tiny_checkpoint_path, tiny_checkpoint_path)
    a.step_forward()
    drain_all(*workers)
    a.set_kind("cross")
    assert np.abs(comparison.difference().matrix).max() == 0.0  # the same model, the same run
    comparison.set_b_what_if(Interventions(no_scaling=True))
    drain_all(*workers)
    assert b.snapshot.interventions.no_scaling and not a.snapshot.interventions.no_scaling
    assert np.abs(comparison.difference().matrix).max() > 1e-3
    assert b.cursor == a.cursor == 0


def test_b_without_the_kind_shown_has_no_difference(tmp_path, tiny_checkpoint_path):
    register_family(ENTRY)
    try:
        a, b, comparison, workers = comparing(tiny_checkpoint_path, write_toy(tmp_path))
        a.step_forward()
        drain_all(*workers)
        a.set_kind("dec_self")
        assert b.kind == "alignment"  # the toy has no decoder self-attention
        assert comparison.difference() is None
        assert b.step_count == 1 and b.cursor == 0
    finally:
        unregister_family("toy")


def drain_bounded(workers, limit: int = 200) -> int:
    """Like drain_all, but gives up after ``limit`` requests (a restart loop must not hang the test)."""
    ran = 0
    while any(w.queue for w in workers) and ran < limit:
        for worker in workers:
            ran += worker.drain(limit=1)
    return ran


def test_b_is_not_restarted_forever_when_a_forces_past_b_s_end(tmp_path, tiny_checkpoint_path):
    register_family(ENTRY)
    try:
        a, b, comparison, workers = comparing(tiny_checkpoint_path, write_toy(tmp_path))
        a.run_to_end()
        drain_bounded(workers)
        assert b.snapshot.stop_reason is not None and b.step_count < a.step_count  # B stops earlier
        a.go_to_step(a.step_count - 2)
        a.force_token(a.model.tokenizer.encode("q").ids[0])  # a step B never reaches
        ran = drain_bounded(workers)
        assert ran < 20 and not any(w.queue for w in workers)
        assert b.cursor == b.step_count - 1
    finally:
        unregister_family("toy")


def test_b_shows_a_s_step_after_its_own_restart(tiny_checkpoint_path):
    a, b, comparison, workers = comparing(tiny_checkpoint_path, tiny_checkpoint_path)
    for _ in range(4):
        a.step_forward()
        drain_all(*workers)
    a.go_to_step(1)
    comparison.set_b_what_if(Interventions(no_positional=True))  # B starts again, 4 steps
    drain_all(*workers)
    assert b.step_count == 4 and b.cursor == a.cursor == 1


def test_a_source_b_cannot_run_is_said_once(tmp_path, tiny_checkpoint_path):
    register_family(ENTRY)
    try:
        a, b, comparison, workers = comparing(tiny_checkpoint_path, write_toy(tmp_path))
        errors = []
        a.message.connect(lambda level, text: errors.append(text) if level == "error" else None)
        long_source = "reverse: " + "a" * 36  # 45 characters: the Transformer reads it, the toy does not
        a.set_source(long_source)
        drain_all(*workers)
        for _ in range(3):
            a.step_forward()
            drain_all(*workers)
        b_errors = [e for e in errors if e.startswith("B: ")]
        assert len(b_errors) == 1 and "at most" in b_errors[0]
        assert comparison.problem is not None and a.step_count == 3
        a.set_source("reverse: abc")  # a run B can do: it follows again
        drain_all(*workers)
        assert comparison.problem is None and b.snapshot.source == "reverse: abc"
    finally:
        unregister_family("toy")


def test_steps_asked_for_while_one_computes_are_taken_not_dropped(tiny_checkpoint_path):
    session, worker = loaded(tiny_checkpoint_path)
    for _ in range(3):  # three quick presses of →: only the first can go to the worker at once
        session.step_forward()
    assert len(worker.queue) == 1
    worker.drain()
    assert session.cursor == 2 and session.step_count == 3
    for _ in range(3):
        session.step_forward()
    session.step_back()  # going back drops the presses still waiting
    worker.drain()
    assert session.step_count == 4  # the one already asked for, not the two waiting
    for _ in range(20):  # a held-down key queues a bounded number of steps
        session.step_forward()
    worker.drain()
    assert session.step_count == 5 + 8
