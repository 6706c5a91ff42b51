"""A speech model in the window: an audio file heard (--audio, File > Open audio, a dropped
file), its attention drawn over time frames labelled in seconds, the source box naming the file."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt

from model.source import AudioSource
from tests.visualizer.conftest import window_on
from tests.waits import EVENT_MS
from visualizer.state.views import attention_view


@pytest.fixture(scope="module")
def tone(tmp_path_factory):
    from tests.hf_factories import write_tone

    return write_tone(tmp_path_factory.mktemp("audio") / "tone.wav", seconds=1.2)


@pytest.fixture
def speech(qtbot, settings, whisper_folder, tone):
    yield from window_on(qtbot, settings, whisper_folder, AudioSource(str(tone)))


def test_an_audio_file_is_heard_and_its_attention_drawn_over_time(speech, tone):
    session, window = speech.session, speech.window
    assert window.actions_by_name["open_audio"].text().startswith("Open &audio")
    session.set_audio(tone)
    speech.wait_idle()
    for _ in range(3):
        session.step_forward()
        speech.wait_idle()
    speech.qtbot.waitUntil(
        lambda: session.snapshot is not None and len(session.snapshot.steps) >= 3, timeout=EVENT_MS
    )
    snapshot = session.snapshot
    assert snapshot.source == AudioSource(str(tone))
    axis = snapshot.encoder.source_axis
    assert axis.kind == "frames" and axis.labels[50] == "1.00 s"
    # the first steps are Whisper's prompt, given by the model, not the user
    assert [s.prompted for s in snapshot.steps[:2]] == [True, True]
    session.set_kind("cross")
    speech.wait_idle()
    detail = window.detail.matrix
    assert detail.plot.getAxis("bottom").tokens == list(axis.labels)  # the keys are time frames
    speech.qtbot.waitUntil(lambda: detail.image.image is not None, timeout=EVENT_MS)
    expected = attention_view(snapshot, "cross", session.cursor).weights[session.layer, session.head]
    shown = np.asarray(detail.image.image)  # the heatmap's data is the engine's array
    assert shown.shape in (expected.shape, expected.T.shape)
    np.testing.assert_allclose(shown if shown.shape == expected.shape else shown.T, expected, atol=1e-6)
    # under it, the spectrogram the encoder read and the words where the alignment heads put them
    strip = window.detail.spectrogram
    assert strip.plot.isVisible()
    np.testing.assert_array_equal(strip.image.image, axis.picture)
    timing = session.word_timing()
    assert timing is not None and timing.words  # the random model's pieces still make words
    assert strip.words == [(w.word, w.start, w.end) for w in timing.words]
    lines = [m for m in strip.marks if hasattr(m, "value")]
    assert [line.value() for line in lines] == pytest.approx([w.start / 0.02 for w in timing.words])
    # attention over the source's own tokens shows no spectrogram
    session.set_kind("dec_self")
    speech.wait_idle()
    assert not strip.plot.isVisible()
    assert "hearing tone.wav" in window.source_bar.edit.placeholderText()
    assert window.source_bar.edit.text() == ""


def test_a_text_model_says_it_cannot_hear_and_keeps_its_generation(harness, tone):
    session = harness.session
    harness.qtbot.waitUntil(lambda: session.snapshot is not None, timeout=EVENT_MS)
    before = session.snapshot
    messages = []
    session.message.connect(lambda level, text: messages.append((level, text)))
    session.set_audio(tone)
    harness.qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=EVENT_MS)
    assert any("reads text; it cannot read tone.wav" in text for _, text in messages)
    assert session.snapshot is before or session.snapshot.source == before.source


def test_shift_click_adds_or_removes_a_head_from_the_word_alignment(speech):
    from model.probes.word_timing import alignment_heads_of

    session, window = speech.session, speech.window
    for _ in range(4):
        session.step_forward()
        speech.wait_idle()
    session.set_kind("cross")
    speech.wait_idle()
    own = tuple(alignment_heads_of(session.snapshot.info))
    assert own == ((1, 0), (1, 2))  # the tiny model's generation_config.alignment_heads
    before = session.word_timing()
    assert before.heads == own
    messages = []
    session.message.connect(lambda level, text: messages.append(text))
    grid = window.grid
    spot = grid.scene_position(0, 3, 0, 0)  # layer 1, head 4, Shift held
    shift = type(
        "Click",
        (),
        {"scenePos": lambda self: spot, "modifiers": lambda self: Qt.KeyboardModifier.ShiftModifier},
    )
    grid.on_mouse_clicked(shift())
    speech.wait_idle()
    after = session.word_timing()
    assert after.heads == ((0, 3), (1, 0), (1, 2)) and "L1H4, L2H1, L2H3" in messages[-1]
    assert window.detail.spectrogram.words == [(w.word, w.start, w.end) for w in after.words]
    for head in ((0, 3), (1, 0)):
        session.toggle_alignment_head(*head)
    assert session.word_timing().heads == ((1, 2),)
    session.toggle_alignment_head(1, 2)  # the last one stays: something must time the words
    assert session.word_timing().heads == ((1, 2),) and "at least one head" in messages[-1]


def test_every_page_opens_on_a_speech_model_without_an_error(speech):
    """Pages made for text (a padded batch of sources, the tasks' answers) say why they cannot
    show an audio file, and none raises (pytest-qt fails a test on any exception in a Qt call)."""
    from visualizer.panels.registry import PANELS

    session, window = speech.session, speech.window
    for _ in range(3):
        session.step_forward()
        speech.wait_idle()
    for entry in PANELS:
        window.show_panel(entry.key)
        speech.wait_idle()
        window.grab()  # painted, as on screen
    assert session.snapshot.encoder.source_axis.kind == "frames"


def test_a_file_that_is_not_audio_is_refused_in_one_line_and_the_generation_stays(speech, tmp_path):
    session = speech.session
    session.step_forward()
    speech.wait_idle()
    before = session.snapshot
    messages = []
    session.message.connect(lambda level, text: messages.append((level, text)))
    fake = tmp_path / "notes.wav"
    fake.write_text("these are not sounds\n")
    session.set_audio(fake)
    speech.qtbot.waitUntil(lambda: any(level == "error" for level, _ in messages), timeout=EVENT_MS)
    error = next(text for level, text in messages if level == "error")
    assert error.startswith("notes.wav: ") and "\n" not in error
    speech.wait_idle()
    assert session.snapshot.source == before.source  # what was shown stays
