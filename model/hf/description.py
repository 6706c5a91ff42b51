"""What a Hugging Face encoder-decoder is, read from its config: its layers and heads
(``Shape``), and its description for the model-family interface (``describe``)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from model.hf.folder import ARCHITECTURES
from model.hf.generation_rules import GenerationRules
from model.interface import AttentionKind, Capabilities, FamilyInfo

FAMILY = "huggingface"
MAX_SOURCE = 1024  # tokens; beyond this a visualiser's grids say nothing readable
MAX_TARGET = 256  # decoding steps, below the model's own max_length when that is larger
T5_TYPES = ("t5", "mt5")
POSITIONAL = {"marian": "sinusoidal", "m2m_100": "sinusoidal", "bart": "learned", "mbart": "learned"}
PRE_NORM = ("mbart", "m2m_100", "t5", "mt5")  # x + F(LN(x)); Marian and BART are post-LN as the paper
NORMS_EXTRA = "mean and std before and after each sublayer's norm: [layers, sublayers, 4, positions]"
ENCODER_SUBLAYERS, DECODER_SUBLAYERS = 2, 3  # self-attention, (cross-attention,) feed-forward
# language codes as tokenizers spell them: NLLB eng_Latn, mBART-50 en_XX, M2M100 __en__
LANGUAGE_CODE = re.compile(r"^(__[a-z]{2,3}__|[a-z]{2,3}_[A-Z][A-Za-z]{1,3})$")


@dataclass(frozen=True)
class Shape:
    """Layers and heads of each side, whatever the config calls them."""

    encoder_layers: int
    decoder_layers: int
    encoder_heads: int
    decoder_heads: int
    d_model: int

    @classmethod
    def of(cls, model_type: str, config: Any) -> Shape:
        if model_type in T5_TYPES:
            decoder_layers = config.num_decoder_layers or config.num_layers
            return cls(config.num_layers, decoder_layers, config.num_heads, config.num_heads, config.d_model)
        return cls(
            config.encoder_layers,
            config.decoder_layers,
            config.encoder_attention_heads,
            config.decoder_attention_heads,
            config.d_model,
        )


def source_limit(model_type: str, config: Any) -> int:
    positions = getattr(config, "max_position_embeddings", None) if model_type not in T5_TYPES else 512
    return min(int(positions or 512), MAX_SOURCE)


def describe(
    model_type: str,
    config: Any,
    rules: GenerationRules,
    parameters: int,
    name: str,
    languages: Sequence[str],
    norm_stats: bool = True,
) -> FamilyInfo:
    """What the app knows of the model; ``norm_stats``: every sublayer's norm was found, so the
    statistics around them are recorded (the ``norms`` extra)."""
    shape = Shape.of(model_type, config)
    t5 = model_type in T5_TYPES
    return FamilyInfo(
        family=FAMILY,
        display_name=f"{ARCHITECTURES[model_type]}: {name}",
        kinds=(
            AttentionKind(
                "enc_self",
                "Encoder self-attention",
                shape.encoder_layers,
                shape.encoder_heads,
                "source",
                "source",
            ),
            AttentionKind(
                "dec_self",
                "Masked decoder self-attention",
                shape.decoder_layers,
                shape.decoder_heads,
                "target",
                "target",
                causal=True,
            ),
            AttentionKind(
                "cross", "Cross-attention", shape.decoder_layers, shape.decoder_heads, "target", "source"
            ),
        ),
        max_source_len=source_limit(model_type, config),
        max_target_len=max(1, min(rules.max_length - 1, MAX_TARGET)),
        capabilities=Capabilities(
            scores=True,
            scaling=not t5,  # T5 folds the scale into its initialisation and adds a position bias instead
            positional="relative_bias" if t5 else POSITIONAL[model_type],  # type: ignore[arg-type]
            norm="rmsnorm" if t5 else "layernorm",
            norm_placement="pre" if model_type in PRE_NORM else "post",
            norm_stats=norm_stats,
            what_ifs=frozenset({"zeroed_heads", "no_causal_mask"}),
            gradients=True,
            logit_lens=True,
            teacher_forcing=True,
            padded_batch=True,
        ),
        config={
            "model_type": model_type,
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
