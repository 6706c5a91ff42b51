"""Our Transformer as a model family: the interface of ``model.interface`` over ``Transformer``.

Kinds: ``enc_self`` (encoder self-attention, computed once per source), ``dec_self`` (masked
decoder self-attention) and ``cross`` (decoder to source), each ``config`` layers × heads.
Extras: ``norms``, the per-token mean and std before and after every Add & Norm, recorded
as ``[L, sublayers, 4, positions]`` (in_mean, in_std, out_mean, out_std).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import torch
from torch import Tensor

from model.core.tokenizer import CharTokenizer
from model.interface import (
    AttentionKind,
    Capabilities,
    EncodeOutput,
    FamilyInfo,
    ModelFamily,
    StepOutput,
    TeacherForcedOutput,
)
from model.score_functions import SCALED_DOT_PRODUCT
from model.transformer.config import Interventions, TransformerConfig
from model.transformer.greedy import greedy_decode_batch
from model.transformer.model import EncoderOutput, KVCache, LayerCapture, Transformer
from model.transformer.one_token import decode_one

FAMILY = "transformer"
SCORES = SCALED_DOT_PRODUCT  # every kind: softmax(QKᵀ / √d_k), the paper's attention
NORM_STATS = ("in_mean", "in_std", "out_mean", "out_std")  # as model.probes.norm_stats reads them


def describe(config: TransformerConfig) -> FamilyInfo:
    """The description of a Transformer of ``config``."""
    layers_enc, layers_dec, heads = config.n_encoder_layers, config.n_decoder_layers, config.n_heads
    return FamilyInfo(
        family=FAMILY,
        display_name="Transformer (Vaswani et al. 2017)",
        kinds=(
            AttentionKind(
                "enc_self", "Encoder self-attention", layers_enc, heads, "source", "source", score=SCORES
            ),
            AttentionKind(
                "dec_self",
                "Masked decoder self-attention",
                layers_dec,
                heads,
                "target",
                "target",
                causal=True,
                score=SCORES,
            ),
            AttentionKind("cross", "Cross-attention", layers_dec, heads, "target", "source", score=SCORES),
        ),
        max_source_len=config.max_len,
        max_target_len=config.max_len,
        capabilities=Capabilities(
            scores=True,
            scaling=True,
            positional=config.positional,
            norm="layernorm",
            norm_placement=config.norm_placement,
            norm_stats=True,
            what_ifs=frozenset({"no_positional", "no_scaling", "no_causal_mask", "zeroed_heads"}),
            gradients=True,
            logit_lens=True,
            teacher_forcing=True,
            padded_batch=True,
        ),
        config=config.to_dict(),
        parameters=config.parameter_count(),
        d_model=config.d_model,
        extras={"norms": "mean and std before and after each Add & Norm: [layers, sublayers, 4, positions]"},
    )


@dataclass(eq=False)
class TransformerFamily(ModelFamily):
    """A loaded Transformer: the module, its tokenizer and where it came from."""

    model: Transformer  # in eval mode
    tokenizer: CharTokenizer
    metadata: dict = field(default_factory=dict)  # free-form training facts, shown to the user
    path: Path | None = None
    notice: str | None = None  # e.g. "CUDA is not available; using CPU"

    def __post_init__(self) -> None:
        self.info = describe(self.model.config)

    @property
    def config(self) -> TransformerConfig:
        return self.model.config

    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def to(self, device: torch.device) -> None:
        self.model.to(device)

    # -- the work --------------------------------------------------------------------------
    def encode(
        self, src: Tensor, src_pad: Tensor, interventions: Interventions, capture: bool = True
    ) -> EncodeOutput:
        encoded = self.model.encode(src, src_pad, capture=capture, interventions=interventions)
        scale = 1.0 if interventions.no_scaling else 1.0 / math.sqrt(self.config.d_head)
        out = EncodeOutput(encoded, src_pad, scale)
        if capture:
            layers = encoded.layers or []
            out.attention["enc_self"] = by_layer(layers, "self", "weights")  # (B, L, H, S, S)
            out.scores["enc_self"] = by_layer(layers, "self", "scores")
            out.extras["norms"] = norm_stats_of(layers)  # (B, L, 2, 4, S)
        return out

    def start(self, encoded: EncodeOutput) -> KVCache:
        return self.model.start_cache(encoded.state)

    def step(
        self,
        token_id: int,
        encoded: EncodeOutput,
        cache: KVCache,
        interventions: Interventions,
        capture: bool,
    ) -> StepOutput:
        out = decode_one(
            self.model, token_id, encoded.state, cache, capture=capture, interventions=interventions
        )
        step = StepOutput(out.logits, out.cache)
        rows = out.rows
        if rows is not None:
            step.attention = {"dec_self": rows.dec_self, "cross": rows.cross}  # (L, H, t+1), (L, H, S)
            step.extras = {"norms": rows.norms}  # (L, 3, 4)
        return step

    def truncate(self, cache: KVCache, length: int) -> KVCache:
        return cache.truncated(length)

    def step_batch(
        self,
        parents: Sequence[int],
        token_ids: Sequence[int],
        encoded: EncodeOutput,
        cache: KVCache,
        interventions: Interventions,
    ) -> tuple[Tensor, KVCache]:
        device = self.device
        n = len(parents)
        memory = encoded.state.memory
        batched = EncoderOutput(memory.expand(n, *memory.shape[1:]), encoded.pad_mask.expand(n, -1), None)
        cache = cache.select(torch.tensor(list(parents), device=device))
        tokens = torch.tensor(list(token_ids), device=device).unsqueeze(1)  # (N, 1)
        out = self.model.decode(tokens, batched, cache, interventions=interventions)
        return torch.log_softmax(out.logits[:, -1].float(), dim=-1), out.cache  # (N, V)

    def teacher_force(
        self, encoded: EncodeOutput, tgt_in: Tensor, tgt_pad: Tensor, interventions: Interventions
    ) -> TeacherForcedOutput:
        out = self.model.decode(
            tgt_in, encoded.state, tgt_pad_mask=tgt_pad, capture=True, interventions=interventions
        )
        layers = out.layers or []
        first = layers[0].attention
        n_targets, n_sources = tgt_in.shape[1], encoded.pad_mask.shape[1]
        batch = tgt_in.shape[0]
        return TeacherForcedOutput(
            logits=out.logits,
            attention={
                "dec_self": by_layer(layers, "self", "weights"),  # (B, L, H, T, T)
                "cross": by_layer(layers, "cross", "weights"),  # (B, L, H, T, S)
            },
            scores={
                "dec_self": by_layer(layers, "self", "scores"),
                "cross": by_layer(layers, "cross", "scores"),
            },
            masks={
                "dec_self": first["self"].mask[:, 0].expand(batch, n_targets, n_targets),  # (B, T, T)
                "cross": first["cross"].mask[:, 0].expand(batch, n_targets, n_sources),  # (B, T, S)
            },
            scale=first["self"].scale,
            extras={"norms": norm_stats_of(layers)},  # (B, L, 3, 4, T)
        )

    def batched_greedy_texts(self, sources: Sequence[str]) -> list[str]:
        """Many sources at once, batched with the KV cache (as training evaluates)."""
        return greedy_decode_batch(self.model, self.tokenizer, list(sources))

    # -- what some panels ask beyond the interface's core ----------------------------------
    def positional_table(self) -> Tensor:
        """(max_len, D) the encoding added at each position (zeros for ``positional="none"``)."""
        return self.model.positional_encoding(self.config.max_len)

    def norm_input_probe(self, src: Tensor, src_pad: Tensor, interventions: Interventions) -> Tensor:
        """(B, S, D) what the encoder's first LayerNorm normalises.

        Post-LN: embeddings + positions + self-attention (the first "Add & Norm");
        pre-LN: embeddings + positions (the norm in front of the first self-attention).
        """
        inputs: list[Tensor] = []
        norm = self.model.encoder_layers[0].attn_sublayer.norm
        handle = norm.register_forward_pre_hook(lambda _module, args: inputs.append(args[0].detach()))
        try:
            self.model.encode(src, src_pad, interventions=interventions)
        finally:
            handle.remove()
        return inputs[0].float()

    def norm_layers(self) -> tuple[list[list[torch.nn.LayerNorm]], list[list[torch.nn.LayerNorm]]]:
        """Each encoder and decoder layer's LayerNorms, in sublayer order."""
        encoder = [[layer.attn_sublayer.norm, layer.ffn_sublayer.norm] for layer in self.model.encoder_layers]
        decoder = [
            [layer.self_sublayer.norm, layer.cross_sublayer.norm, layer.ffn_sublayer.norm]
            for layer in self.model.decoder_layers
        ]
        return encoder, decoder

    def embedding_modules(self) -> tuple[torch.nn.Embedding, torch.nn.Embedding]:
        return self.model.src_embed, self.model.tgt_embed

    def logit_lens(self, encoded: EncodeOutput, tgt_in: Tensor) -> Tensor:
        outputs: list[Tensor] = []
        handles = [
            layer.register_forward_hook(lambda _module, _args, out: outputs.append(out[0]))  # (B, T, D)
            for layer in self.model.decoder_layers
        ]
        try:
            self.model.decode(tgt_in, encoded.state)
        finally:
            for handle in handles:
                handle.remove()
        hidden = torch.stack(outputs, dim=1)  # (B, L, T, D)
        if self.config.norm_placement == "pre":  # a pre-LN decoder normalises its last output
            hidden = self.model.decoder_norm(hidden)
        return self.model.generator(hidden).float()  # (B, L, T, V)


def by_layer(layers: list[LayerCapture], attention: str, name: str) -> Tensor:
    """(B, L, H, Q, K) one captured field of one attention sublayer, every layer stacked."""
    return torch.stack([getattr(layer.attention[attention], name) for layer in layers], dim=1)


def norm_stats_of(layers: list[LayerCapture]) -> Tensor:
    """(B, L, sublayers, 4, positions): in_mean, in_std, out_mean, out_std around each norm."""
    per_layer = [
        torch.stack(
            [torch.stack([getattr(norm, name) for name in NORM_STATS], dim=1) for norm in layer.norms], 1
        )
        for layer in layers
    ]  # each (B, sublayers, 4, positions)
    return torch.stack(per_layer, dim=1)
