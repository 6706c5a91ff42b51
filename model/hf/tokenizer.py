"""A Hugging Face tokenizer as the app's ``Tokenizer``: ids as the library gives them.

Sources are encoded as the model reads them (``tokenizer(text)``, with its special tokens:
``</s>``, NLLB's source-language token). Targets are the target side's pieces (Marian has a
separate target vocabulary), after the token the model's settings force first (the target
language of mBART and NLLB), so that teacher forcing reads what generation would write. Labels
are the tokenizer's pieces with the word-start marker (SentencePiece's ``▁``, byte-level BPE's
``Ġ``) shown as ``▁`` and bytes decoded, so ``Ġcaf`` + ``Ã©`` reads ``▁caf`` + ``é``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

WORD_START = "▁"
WORD_MARKERS = ("▁", "Ġ")


@dataclass(frozen=True)
class Encoded:
    ids: list[int]
    unknown: list[tuple[int, str]]  # (position in the text, text) of each unknown piece


class HFTokenizer:
    def __init__(
        self, tokenizer: Any, *, vocab_size: int, decoder_start_id: int, eos_id: int, pad_id: int
    ) -> None:
        self.hf = tokenizer
        self.vocab_size = vocab_size  # the model's output size (T5's is larger than its tokenizer)
        self.bos_id = decoder_start_id  # what the decoder reads first
        self.eos_id = eos_id
        self.pad_id = pad_id
        self.unk_id = tokenizer.unk_token_id
        self.special_ids = frozenset(tokenizer.all_special_ids)
        self.target_prefix: list[int] = []  # the forced first token, when the settings force one
        self.labels: dict[int, str] = {}

    def __len__(self) -> int:
        return self.vocab_size

    def encode(self, text: str) -> Encoded:
        """A target as the decoder must write it (without the final ``</s>``)."""
        ids = list(self.hf(text_target=text, add_special_tokens=False)["input_ids"])
        return Encoded([*self.target_prefix, *ids], self.unknown_pieces(text, ids, target=True))

    def encode_source(self, text: str) -> Encoded:
        ids = list(self.hf(text)["input_ids"])
        return Encoded(ids, self.unknown_pieces(text, ids, target=False))

    def unknown_pieces(self, text: str, ids: list[int], *, target: bool) -> list[tuple[int, str]]:
        if self.unk_id is None or self.unk_id not in ids:
            return []
        if getattr(self.hf, "is_fast", False):  # offsets say where in the text each piece came from
            keyword = "text_target" if target else "text"
            encoding = self.hf(**{keyword: text}, add_special_tokens=not target, return_offsets_mapping=True)
            return [
                (start, text[start:end])
                for token, (start, end) in zip(
                    encoding["input_ids"], encoding["offset_mapping"], strict=False
                )
                if token == self.unk_id
            ]
        return [(-1, "?") for token in ids if token == self.unk_id]

    def decode(self, ids: Iterable[int], *, stop_at_eos: bool = True) -> str:
        kept = []
        for token_id in ids:
            token_id = int(token_id)
            if token_id == self.eos_id and stop_at_eos:
                break
            kept.append(token_id)
        return self.hf.decode(kept, skip_special_tokens=True, clean_up_tokenization_spaces=False)

    def piece_text(self, token_id: int) -> str:
        """A token's own text as it joins the others (" cat" with its space; special tokens by
        name): what word timing groups into words."""
        return self.hf.decode([int(token_id)], skip_special_tokens=False, clean_up_tokenization_spaces=False)

    def token_text(self, token_id: int) -> str:
        label = self.labels.get(token_id)
        if label is None:
            label = self.labels[token_id] = self.label(token_id)
        return label

    def label(self, token_id: int) -> str:
        if not 0 <= token_id < self.vocab_size:
            return "<unk>"
        piece = self.hf.convert_ids_to_tokens(token_id)
        if piece is None:  # an id the model has and the tokenizer does not (T5's spare rows)
            return f"<unused {token_id}>"
        if token_id in self.special_ids:
            return piece
        text = self.hf.decode([token_id], clean_up_tokenization_spaces=False)
        starts_word = piece.startswith(WORD_MARKERS) or text.startswith(" ")
        text = text.lstrip(" ")
        return f"{WORD_START}{text}" if starts_word else text or piece

    def is_word_start(self, token_id: int) -> bool:
        return self.token_text(token_id).startswith(WORD_START) or token_id in self.special_ids
