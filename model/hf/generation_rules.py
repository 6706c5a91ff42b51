"""The model's own generation settings (``generation_config.json``), applied to each step's logits.

The library's ``generate`` runs the logits through processors that the model's settings switch
on: Marian bans its pad token, mBART and NLLB force the target language as the first token, BART
may forbid repeated trigrams. Stepping must choose what ``generate`` would, so the same rules
apply here, written out (a test checks them against ``generate(do_sample=False, num_beams=1)``).
``ids`` is what the decoder has read so far, the decoder start token first, as the library's
``input_ids`` are. Settings that change only sampling (temperature, top-k, top-p) are the user's
to choose in the app and are not taken from the file; settings not written out here are listed
in ``unsupported`` and said to the user.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import torch

DEFAULT_NEW_TOKENS = 20
NOT_WRITTEN_OUT = (
    "encoder_no_repeat_ngram_size",
    "encoder_repetition_penalty",
    "exponential_decay_length_penalty",
    "sequence_bias",
    "forced_decoder_ids",
)


@dataclass(frozen=True)
class GenerationRules:
    max_length: int = DEFAULT_NEW_TOKENS + 1  # decoder length with the start token, as the library counts it
    forced_bos_token_id: int | None = None
    forced_eos_token_ids: tuple[int, ...] = ()
    eos_token_ids: tuple[int, ...] = ()
    min_length: int = 0
    min_new_tokens: int = 0
    bad_words_ids: tuple[tuple[int, ...], ...] = ()
    suppress_tokens: tuple[int, ...] = ()
    begin_suppress_tokens: tuple[int, ...] = ()
    no_repeat_ngram_size: int = 0
    repetition_penalty: float = 1.0
    unsupported: tuple[str, ...] = field(default=())
    # Whisper's prompt after its start token, one entry per output position: the token it is
    # forced to (language, task, no-timestamps), or the tokens one is chosen among (a language
    # left to be detected, as ``generate`` detects it: the likeliest language token)
    prompt: tuple[tuple[int, ...], ...] = ()

    @classmethod
    def from_generation_config(cls, config, max_positions: int | None = None) -> GenerationRules:
        """The rules of a ``transformers.GenerationConfig``. Without a ``max_length`` of its own,
        ``generate`` writes 20 new tokens, as far as the model has positions."""

        def ids(value) -> tuple[int, ...]:
            if value is None:
                return ()
            return (int(value),) if isinstance(value, int) else tuple(int(v) for v in value)

        unsupported = tuple(
            name for name in NOT_WRITTEN_OUT if getattr(config, name, None) not in (None, 0, 1.0)
        )
        return cls(
            max_length=int(config.max_length)
            if config.max_length
            else min(DEFAULT_NEW_TOKENS + 1, max_positions or 10**9),
            forced_bos_token_id=config.forced_bos_token_id,
            forced_eos_token_ids=ids(config.forced_eos_token_id),
            eos_token_ids=ids(config.eos_token_id),
            min_length=int(config.min_length or 0),
            min_new_tokens=int(getattr(config, "min_new_tokens", None) or 0),
            bad_words_ids=tuple(tuple(int(t) for t in words) for words in (config.bad_words_ids or ())),
            suppress_tokens=ids(config.suppress_tokens),
            begin_suppress_tokens=ids(config.begin_suppress_tokens),
            no_repeat_ngram_size=int(config.no_repeat_ngram_size or 0),
            repetition_penalty=float(config.repetition_penalty or 1.0),
            unsupported=unsupported,
        )

    def describe(self) -> list[str]:
        """The active rules, in words, for the model's description."""
        said = []
        if self.forced_bos_token_id is not None:
            said.append(f"first token forced to id {self.forced_bos_token_id}")
        if self.forced_eos_token_ids:
            said.append(f"end forced at length {self.max_length}")
        if self.bad_words_ids:
            said.append(f"{len(self.bad_words_ids)} banned token sequence(s)")
        if self.min_length or self.min_new_tokens:
            said.append(f"no end before length {max(self.min_length, self.min_new_tokens + 1)}")
        if self.no_repeat_ngram_size:
            said.append(f"no repeated {self.no_repeat_ngram_size}-grams")
        if self.repetition_penalty != 1.0:
            said.append(f"repetition penalty {self.repetition_penalty:g}")
        if self.suppress_tokens or self.begin_suppress_tokens:
            said.append("suppressed tokens")
        if self.prompt:
            said.append(f"a prompt of {len(self.prompt) + 1} tokens")
        return said

    def apply(self, ids: Sequence[int], logits: torch.Tensor) -> torch.Tensor:
        """``logits`` (V,) for the next token after ``ids``, with the rules applied (a copy)."""
        logits = logits.clone()
        length = len(ids)
        if 1 <= length <= len(self.prompt):  # the prompt is given, not generated: no rule acts on it
            choices = self.prompt[length - 1]
            if len(choices) > 1:  # detected as generate detects it: the likeliest, then forced
                choices = (max(choices, key=lambda token: float(logits[token])),)
            return only(logits, choices)
        banned: set[int] = set()
        if self.repetition_penalty != 1.0 and ids:
            seen = torch.tensor(sorted(set(ids)), device=logits.device)
            values = logits[seen]
            logits[seen] = torch.where(
                values < 0, values * self.repetition_penalty, values / self.repetition_penalty
            )
        if self.no_repeat_ngram_size and length + 1 >= self.no_repeat_ngram_size:
            banned |= repeated_ngram_tokens(ids, self.no_repeat_ngram_size)
        for words in self.bad_words_ids:
            if len(words) == 1 or tuple(ids[len(ids) - len(words) + 1 :]) == words[:-1]:
                banned.add(words[-1])
        if length < self.min_length or length - 1 < self.min_new_tokens:
            banned |= set(self.eos_token_ids)
        logits = without(logits, banned)
        if length == 1 and self.forced_bos_token_id is not None:
            logits = only(logits, (self.forced_bos_token_id,))
        elif length == self.max_length - 1 and self.forced_eos_token_ids:
            logits = only(logits, self.forced_eos_token_ids)
        # after the forcing, as the library orders its processors; the first free position is
        # after the forced first token when there is one
        late = set(self.suppress_tokens)
        if length == 1 + len(self.prompt) + (self.forced_bos_token_id is not None):
            late |= set(self.begin_suppress_tokens)
        return without(logits, late)


def without(logits: torch.Tensor, banned: set[int]) -> torch.Tensor:
    """``logits`` with the ``banned`` tokens at −∞ (in place; ids outside the vocabulary ignored)."""
    inside = [token for token in banned if 0 <= token < logits.shape[-1]]
    if inside:
        logits[inside] = float("-inf")
    return logits


def only(logits: torch.Tensor, allowed: Sequence[int]) -> torch.Tensor:
    """Every token −∞ but ``allowed``, which get 0: the library's forcing."""
    forced = torch.full_like(logits, float("-inf"))
    forced[list(allowed)] = 0
    return forced


def repeated_ngram_tokens(ids: Sequence[int], n: int) -> set[int]:
    """Tokens that would complete an ``n``-gram already in ``ids``."""
    ids = list(ids)
    prefix = tuple(ids[len(ids) - n + 1 :]) if n > 1 else ()
    banned = set()
    for start in range(len(ids) - n + 1):
        if tuple(ids[start : start + n - 1]) == prefix:
            banned.add(ids[start + n - 1])
    return banned
