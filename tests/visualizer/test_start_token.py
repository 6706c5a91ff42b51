"""Each model's own start token is named wherever the app names what the decoder reads first:
Marian's decoder starts from <pad>, and no page may say <bos> for it."""

from __future__ import annotations

import html

import pytest

from tests.visualizer.conftest import window_on

pytest.importorskip("transformers")


@pytest.fixture(scope="module")
def marian(tmp_path_factory):
    from tests.hf_factories import write_hf_model

    return write_hf_model("marian", tmp_path_factory.mktemp("hf") / "marian-tiny")


@pytest.fixture
def marian_window(qtbot, settings, marian):
    yield from window_on(qtbot, settings, marian)


def page(harness, key: str):
    harness.window.show_panel(key)
    harness.wait_idle()
    return next(p for p in harness.window.panels if p.key == key)


def test_every_place_names_marians_start_token(marian_window):
    harness, session, window = marian_window, marian_window.session, marian_window.window
    tokenizer = session.model.tokenizer
    start = tokenizer.token_text(tokenizer.bos_id)
    assert start == "<pad>"  # Marian's decoder_start_token_id is its pad token
    for _ in range(2):
        session.step_forward()
        harness.wait_idle()
    # the Masks page's menu, in both languages
    masks = page(harness, "masks")
    assert masks.mode.itemText(0) == "decoder reads <pad> + what it generated"
    session.set_language("zh")
    assert masks.mode.itemText(0) == "解码器读入 <pad> + 已生成的内容"
    session.set_language("en")
    # the timeline's first chip, with what the decoder read first in the step records
    assert window.timeline.start.text() == "<pad>"
    assert session.snapshot.steps[0].input_id == tokenizer.bos_id
    # the grid's first query of the decoder's self-attention
    session.set_kind("dec_self")
    harness.wait_idle()
    assert window.grid.view.query_labels[0] == "<pad>"
    # the beam search tree's root, its tooltip, and what a click on it says
    beam = page(harness, "beam")
    session.set_settings(session.with_settings(strategy="beam", beam_width=2))
    harness.wait_idle()
    harness.qtbot.waitUntil(lambda: session.snapshot.beam is not None and bool(beam.tree.items))
    root = beam.tree.items[0]
    assert root.node.parent is None and root.label.startswith("<pad>")
    assert root.toolTip() == "<p>&lt;pad&gt;</p>"
    beam.select_node(0)
    assert beam.heat_title.text == (
        f"The start ({html.escape('<pad>')}): no token written yet. Click a later box."
    )
    texts = [masks.mode.itemText(0), window.timeline.start.text(), root.label, beam.heat_title.text]
    assert not any("bos" in text for text in texts)
