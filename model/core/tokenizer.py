"""Character-level tokenizer: one token per Unicode code point, plus four special tokens.

Any text encodes: a character outside the vocabulary becomes ``<unk>`` and is reported back
to the caller (lone surrogates too, e.g. undecodable bytes of a command line; a vocabulary
may not hold them). Special tokens are never produced from text, so typing the literal
``<pad>`` gives five ordinary characters.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

PAD, BOS, EOS, UNK = "<pad>", "<bos>", "<eos>", "<unk>"
SPECIAL_TOKENS = (PAD, BOS, EOS, UNK)


@dataclass(frozen=True)
class Encoded:
    ids: list[int]
    unknown: list[tuple[int, str]]  # (position in the text, character) of each <unk>


class CharTokenizer:
    def __init__(self, tokens: Sequence[str]) -> None:
        tokens = list(tokens)
        if tokens[: len(SPECIAL_TOKENS)] != list(SPECIAL_TOKENS):
            raise ValueError(f"vocabulary must start with {', '.join(SPECIAL_TOKENS)}")
        for token in tokens[len(SPECIAL_TOKENS) :]:
            if not isinstance(token, str) or len(token) != 1:
                raise ValueError(f"vocabulary entry {token!r} is not a single character")
            if "\ud800" <= token <= "\udfff":  # cannot be encoded as UTF-8, printed or saved
                raise ValueError(f"vocabulary entry {token!r} is a lone surrogate, not a character")
        if len(set(tokens)) != len(tokens):
            raise ValueError("vocabulary has duplicate entries")
        self.tokens = tokens
        self.index = {token: i for i, token in enumerate(tokens)}
        self.pad_id, self.bos_id, self.eos_id, self.unk_id = range(4)

    @classmethod
    def from_characters(cls, characters: Iterable[str]) -> CharTokenizer:
        return cls([*SPECIAL_TOKENS, *sorted(set(characters))])

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, text: str) -> Encoded:
        ids, unknown = [], []
        for position, char in enumerate(text):
            token_id = self.index.get(char, self.unk_id) if len(char) == 1 else self.unk_id
            if token_id == self.unk_id or token_id < len(SPECIAL_TOKENS):
                token_id = self.unk_id
                unknown.append((position, char))
            ids.append(token_id)
        return Encoded(ids, unknown)

    def encode_source(self, text: str) -> Encoded:
        """A source as the encoder reads it: its characters, then ``<eos>`` to mark the end."""
        encoded = self.encode(text)
        return Encoded([*encoded.ids, self.eos_id], encoded.unknown)

    def decode(self, ids: Iterable[int], *, stop_at_eos: bool = True) -> str:
        """Text of ``ids``; special tokens are dropped, ``<unk>`` is shown as U+FFFD."""
        chars = []
        for token_id in ids:
            token_id = int(token_id)
            if token_id == self.eos_id and stop_at_eos:
                break
            if token_id == self.unk_id:
                chars.append("\ufffd")
            elif len(SPECIAL_TOKENS) <= token_id < len(self.tokens):
                chars.append(self.tokens[token_id])
        return "".join(chars)

    def token_text(self, token_id: int) -> str:
        """How one token is labelled in views and traces (special tokens by name)."""
        if 0 <= token_id < len(self.tokens):
            return self.tokens[token_id]
        return UNK
