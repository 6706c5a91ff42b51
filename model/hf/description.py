"""A Hugging Face encoder-decoder's description for the model-family interface (``describe``),
from its config and the facts of its architecture (``model.hf.architectures``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from model.hf.architectures import DEFAULT_POSITIONS, Architecture
from model.hf.generation_rules import GenerationRules
from model.interface import AttentionKind, Capabilities, FamilyInfo

FAMILY = "huggingface"
MAX_SOURCE = 1024  # tokens; beyond this a visualiser's grids say nothing readable
MAX_TARGET = 256  # decoding steps, below the model's own max_length when that is larger
NORMS_EXTRA = "mean and std before and after each sublayer's norm: [layers, sublayers, 4, positions]"
ENCODER_SUBLAYERS, DECODER_SUBLAYERS = 2, 3  # self-attention, (cross-attention,) feed-forward
# language codes as tokenizers spell them: NLLB eng_Latn, mBART-50 en_XX, M2M100 __en__
LANGUAGE_CODE = re.compile(r"^(__[a-z]{2,3}__|[a-z]{2,3}_[A-Z][A-Za-z]{1,3})$")


def source_limit(architecture: Architecture, config: Any) -> int:
    positions = architecture.source_positions(config)
    return min(int(positions or DEFAULT_POSITIONS), MAX_SOURCE)


def describe(
    architecture: Architecture,
    config: Any,
    rules: GenerationRules,
    parameters: int,
    name: str,
    languages: Sequence[str],
    norm_stats: bool = True,
) -> FamilyInfo:
    """What the app knows of the model; ``norm_stats``: every sublayer's norm was found, so the
    statistics around them are recorded (the ``norms`` extra)."""
    shape = architecture.shape(config)
    return FamilyInfo(
        family=FAMILY,
        display_name=f"{architecture.display_name}: {name}",
        kinds=(
            AttentionKind(
                "enc_self",
                "Encoder self-attention",
                shape.encoder_layers,
                shape.encoder_heads,
                "source",
                "source",
                score=architecture.self_scores,
            ),
            AttentionKind(
                "dec_self",
                "Masked decoder self-attention",
                shape.decoder_layers,
                shape.decoder_heads,
                "target",
                "target",
                causal=True,
                score=architecture.self_scores,
            ),
            AttentionKind(
                "cross",
                "Cross-attention",
                shape.decoder_layers,
                shape.decoder_heads,
                "target",
                "source",
                score=architecture.cross_scores,
            ),
        ),
        max_source_len=source_limit(architecture, config),
        max_target_len=max(1, min(rules.max_length - 1, MAX_TARGET)),
        capabilities=Capabilities(
            scores=True,
            scaling=architecture.scaled,
            positional=architecture.positional,
            norm=architecture.norm,
            norm_placement=architecture.norm_placement,
            norm_stats=norm_stats,
            what_ifs=frozenset({"zeroed_heads", "no_causal_mask"}),
            gradients=True,
            logit_lens=True,
            teacher_forcing=True,
            padded_batch=True,
        ),
        config={
            "model_type": architecture.model_type,
            "name": name,
            "vocab_size": int(config.vocab_size),
            "d_model": shape.d_model,
            "encoder_layers": shape.encoder_layers,
            "decoder_layers": shape.decoder_layers,
            "encoder_heads": shape.encoder_heads,
            "decoder_heads": shape.decoder_heads,
            "generation_rules": rules.describe(),
            "languages": list(languages),
        },
        parameters=parameters,
        d_model=shape.d_model,
        extras={"norms": NORMS_EXTRA} if norm_stats else {},
    )


def language_codes(tokenizer: Any) -> list[str]:
    """The language tokens of a multilingual tokenizer (NLLB, mBART-50, M2M100), sorted."""
    special = getattr(tokenizer, "all_special_tokens", []) or []
    return sorted({token for token in special if isinstance(token, str) and LANGUAGE_CODE.match(token)})
