import pytest
from hypothesis import given
from hypothesis import strategies as st

from model.core.tokenizer import SPECIAL_TOKENS, CharTokenizer
from model.tasks.train import default_tokenizer

TOKENIZER = default_tokenizer()


def test_special_tokens_come_first_and_task_characters_follow():
    assert TOKENIZER.tokens[:4] == list(SPECIAL_TOKENS)
    assert (TOKENIZER.pad_id, TOKENIZER.bos_id, TOKENIZER.eos_id, TOKENIZER.unk_id) == (0, 1, 2, 3)
    for char in "reverse: az09年月日〇十":
        assert char in TOKENIZER.index


def test_cjk_text_round_trips():
    text = "date: 二〇二六年十一月二十九日"
    encoded = TOKENIZER.encode(text)
    assert encoded.unknown == []
    assert TOKENIZER.decode(encoded.ids) == text


def test_unknown_characters_become_unk_and_are_reported():
    encoded = TOKENIZER.encode("aé😀\u202eb")
    assert encoded.ids[1:4] == [TOKENIZER.unk_id] * 3
    assert encoded.unknown == [(1, "é"), (2, "😀"), (3, "\u202e")]


def test_literal_special_token_text_is_plain_characters():
    encoded = TOKENIZER.encode("<pad>")
    assert TOKENIZER.pad_id not in encoded.ids and len(encoded.ids) == 5


def test_source_ends_with_eos_and_decode_stops_there():
    ids = TOKENIZER.encode_source("ab").ids
    assert ids[-1] == TOKENIZER.eos_id
    assert TOKENIZER.decode([*ids, TOKENIZER.index["c"]]) == "ab"


def test_bad_vocabularies_are_refused():
    with pytest.raises(ValueError, match="must start"):
        CharTokenizer(["a", "b"])
    with pytest.raises(ValueError, match="duplicate"):
        CharTokenizer([*SPECIAL_TOKENS, "a", "a"])
    with pytest.raises(ValueError, match="single character"):
        CharTokenizer([*SPECIAL_TOKENS, "ab"])


@given(st.text())
def test_any_text_encodes_and_known_characters_round_trip(text):
    encoded = TOKENIZER.encode(text)
    assert len(encoded.ids) == len(text)
    unknown_positions = {p for p, _ in encoded.unknown}
    decoded = TOKENIZER.decode(encoded.ids, stop_at_eos=False)
    expected = "".join("\ufffd" if i in unknown_positions else c for i, c in enumerate(text))
    assert decoded == expected
