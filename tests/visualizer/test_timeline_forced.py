"""The timeline marks exactly the forced tokens, at once (issue: the border came late or stayed)."""

from __future__ import annotations

from PySide6.QtGui import QColor

from model.generation.decoding_settings import DecodingSettings

FORCED_BORDER = QColor("#4fc3f7")


def has_forced_border(button) -> bool:
    """Whether the button is drawn with the forced border: its left edge's middle pixel."""
    image = button.grab().toImage()
    y = image.height() // 2
    return any(QColor(image.pixel(x, y)) == FORCED_BORDER for x in range(3))


def timeline_buttons(harness):
    timeline = harness.window.timeline
    harness.qtbot.waitUntil(lambda: len(timeline.buttons) >= len(harness.session.snapshot.steps))
    return timeline.buttons


def test_a_forced_token_is_bordered_at_once_and_only_it(harness):
    session = harness.session
    for _ in range(3):
        session.step_forward()
        harness.wait_idle()
    step = session.cursor
    record = session.snapshot.steps[step]
    other = int((record.token_id + 1) % len(session.snapshot.tokenizer))
    session.force_token(other)
    harness.wait_idle()
    assert session.cursor == step and session.snapshot.steps[step].forced
    buttons = timeline_buttons(harness)
    assert buttons[step].property("forced") is True
    assert has_forced_border(buttons[step])  # without stepping back first
    assert not any(has_forced_border(b) for i, b in enumerate(buttons) if i != step)
    # a new generation (beam search) has no forced tokens: no button keeps the border
    session.set_settings(DecodingSettings(strategy="beam", beam_width=2))
    harness.wait_idle()
    harness.qtbot.waitUntil(lambda: not any(s.forced for s in session.snapshot.steps))
    buttons = timeline_buttons(harness)
    assert not any(has_forced_border(b) for b in buttons[: len(session.snapshot.steps)])
