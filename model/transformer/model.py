"""The encoder-decoder Transformer of "Attention Is All You Need", written to be inspected.

Read top to bottom: config, positional encoding, multi-head attention, the encoder and
decoder layers, then the model. Attention is written out step by step (Q, K, V, QKᵀ, ÷√d_k,
mask, softmax, ·V) so that a forward pass asked to ``capture`` returns every intermediate the
visualizer draws. Captured tensors are return values; nothing is stored on the modules.

Shapes: B batch, S source length, T target length, H heads, D d_model, Dk = D / H.

Mask convention, everywhere in this package: a boolean mask is True where attention is
BLOCKED (the key is hidden from the query), as in ``torch.nn.MultiheadAttention``. Masked
scores are −∞ exactly where the mask is True.

Without capture (and so during training) attention runs through
``F.scaled_dot_product_attention``, a fused kernel that cannot return weights. The two paths
are kept equal by a test (tests/model/test_transformer.py).
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

# What a forward pass returns beyond logits (captures, the KV cache, outputs): plain
# containers, in their own module so that this one reads as the model.
from model.transformer.captures import (  # noqa: F401 (re-exported: where callers look)
    AttentionCapture,
    DecoderOutput,
    EncoderOutput,
    KVCache,
    LayerCapture,
    NextToken,
    NormCapture,
    StepRows,
)

# The config and the what-ifs live in a torch-free module so that the window can read them
# before torch is imported; they are re-exported here, where a reader of the model looks.
from model.transformer.config import (  # noqa: F401
    NO_INTERVENTIONS,
    Interventions,
    NormPlacement,
    PositionalKind,
    TransformerConfig,
)


def sinusoidal_encoding(max_len: int, d_model: int) -> Tensor:
    """PE[pos, 2i] = sin(pos / 10000^(2i/d)), PE[pos, 2i+1] = cos(pos / 10000^(2i/d))."""
    position = torch.arange(max_len, dtype=torch.float32).unsqueeze(1)  # (max_len, 1)
    two_i = torch.arange(0, d_model, 2, dtype=torch.float32)  # (d_model/2,)
    inverse_wavelength = torch.exp(-math.log(10000.0) * two_i / d_model)
    pe = torch.zeros(max_len, d_model)
    pe[:, 0::2] = torch.sin(position * inverse_wavelength)
    pe[:, 1::2] = torch.cos(position * inverse_wavelength)
    return pe


def causal_mask(n_queries: int, n_keys: int, device: torch.device | None = None) -> Tensor:
    """(Q, K) bool, True where key k lies in the future of query q.

    Queries are the last ``n_queries`` of ``n_keys`` positions, so with a KV cache the one
    new query (at position n_keys - 1) sees every key.
    """
    query_pos = torch.arange(n_keys - n_queries, n_keys, device=device).unsqueeze(1)
    key_pos = torch.arange(n_keys, device=device).unsqueeze(0)
    return key_pos > query_pos


def norm_stats(before: Tensor, after: Tensor) -> NormCapture:
    return NormCapture(
        before.mean(-1),
        before.std(-1, unbiased=False),
        after.mean(-1),
        after.std(-1, unbiased=False),
    )


def zero_heads(heads: Tensor, zeroed: tuple[int, ...]) -> Tensor:
    """``heads`` (B, H, Q, Dk) with the listed heads' outputs set to zero (a what-if)."""
    if not zeroed:
        return heads
    keep = torch.ones(heads.shape[1], 1, 1, device=heads.device, dtype=heads.dtype)
    keep[list(zeroed)] = 0.0
    return heads * keep


class MultiHeadAttention(nn.Module):
    def __init__(self, d_model: int, n_heads: int, dropout: float) -> None:
        super().__init__()
        self.n_heads = n_heads
        self.d_head = d_model // n_heads
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)
        self.dropout = dropout

    def split_heads(self, x: Tensor) -> Tensor:
        batch, length, _ = x.shape
        return x.view(batch, length, self.n_heads, self.d_head).transpose(1, 2)  # (B, H, L, Dk)

    def project_kv(self, x: Tensor) -> tuple[Tensor, Tensor]:
        """Keys and values of ``x`` (B, L, D), each (B, H, L, Dk)."""
        return self.split_heads(self.k_proj(x)), self.split_heads(self.v_proj(x))

    def forward(
        self,
        x: Tensor,
        k: Tensor,
        v: Tensor,
        mask: Tensor,
        *,
        capture: bool = False,
        no_scaling: bool = False,
        zeroed_heads: tuple[int, ...] = (),
    ) -> tuple[Tensor, AttentionCapture | None]:
        """Attend from queries ``x`` (B, Q, D) to keys/values (B, H, K, Dk).

        ``mask`` broadcasts to (B, 1, Q, K), True where blocked.
        """
        q = self.split_heads(self.q_proj(x))  # (B, H, Q, Dk)
        scale = 1.0 if no_scaling else 1.0 / math.sqrt(self.d_head)
        dropout = self.dropout if self.training else 0.0
        captured = None
        if capture:
            scores = q @ k.transpose(-2, -1)  # (B, H, Q, K)
            masked = (scores * scale).masked_fill(mask, float("-inf"))
            weights = torch.softmax(masked, dim=-1)
            heads = F.dropout(weights, dropout, self.training) @ v  # (B, H, Q, Dk)
            full_mask = mask.expand(q.shape[0], 1, q.shape[2], k.shape[2])
            captured = AttentionCapture(scores, scale, full_mask, weights)
        else:
            heads = F.scaled_dot_product_attention(q, k, v, attn_mask=~mask, dropout_p=dropout, scale=scale)
        heads = zero_heads(heads, zeroed_heads)
        batch, _, n_queries, _ = heads.shape
        concat = heads.transpose(1, 2).reshape(batch, n_queries, -1)  # (B, Q, D)
        return self.out_proj(concat), captured


class FeedForward(nn.Module):
    def __init__(self, d_model: int, d_ff: int, dropout: float) -> None:
        super().__init__()
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: Tensor) -> Tensor:
        return self.linear2(self.dropout(F.relu(self.linear1(x))))


class SublayerConnection(nn.Module):
    """Residual connection and LayerNorm around one sublayer, post-LN or pre-LN."""

    def __init__(self, d_model: int, dropout: float, placement: NormPlacement) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(d_model)
        self.dropout = nn.Dropout(dropout)
        self.placement = placement

    def forward(self, x: Tensor, sublayer, capture: bool):
        """Returns (output, sublayer's extra return value, NormCapture or None)."""
        if self.placement == "post":  # LayerNorm(x + Sublayer(x)), the paper's "Add & Norm"
            out, extra = sublayer(x)
            summed = x + self.dropout(out)
            normed = self.norm(summed)
            stats = norm_stats(summed, normed) if capture else None
            return normed, extra, stats
        normed = self.norm(x)  # pre-LN: x + Sublayer(LayerNorm(x))
        out, extra = sublayer(normed)
        stats = norm_stats(x, normed) if capture else None
        return x + self.dropout(out), extra, stats


class EncoderLayer(nn.Module):
    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        d, p = config.d_model, config.dropout
        self.self_attn = MultiHeadAttention(d, config.n_heads, p)
        self.ffn = FeedForward(d, config.d_ff, p)
        self.attn_sublayer = SublayerConnection(d, p, config.norm_placement)
        self.ffn_sublayer = SublayerConnection(d, p, config.norm_placement)

    def forward(
        self, x: Tensor, mask: Tensor, capture: bool, no_scaling: bool, zeroed: tuple[int, ...]
    ) -> tuple[Tensor, LayerCapture | None]:
        def attend(h: Tensor):
            k, v = self.self_attn.project_kv(h)
            return self.self_attn(h, k, v, mask, capture=capture, no_scaling=no_scaling, zeroed_heads=zeroed)

        x, attn, norm1 = self.attn_sublayer(x, attend, capture)
        x, _, norm2 = self.ffn_sublayer(x, lambda h: (self.ffn(h), None), capture)
        return x, (LayerCapture({"self": attn}, [norm1, norm2]) if capture else None)


class DecoderLayer(nn.Module):
    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        d, p = config.d_model, config.dropout
        self.self_attn = MultiHeadAttention(d, config.n_heads, p)
        self.src_attn = MultiHeadAttention(d, config.n_heads, p)
        self.ffn = FeedForward(d, config.d_ff, p)
        self.self_sublayer = SublayerConnection(d, p, config.norm_placement)
        self.cross_sublayer = SublayerConnection(d, p, config.norm_placement)
        self.ffn_sublayer = SublayerConnection(d, p, config.norm_placement)

    def forward(
        self,
        x: Tensor,
        past: tuple[Tensor, Tensor] | None,
        cross_kv: tuple[Tensor, Tensor],
        self_mask: Tensor,
        cross_mask: Tensor,
        capture: bool,
        no_scaling: bool,
        zeroed_self: tuple[int, ...],
        zeroed_cross: tuple[int, ...],
    ) -> tuple[Tensor, tuple[Tensor, Tensor], LayerCapture | None]:
        """``x`` holds only the new positions; ``past`` the keys/values before them."""
        new_kv: list[tuple[Tensor, Tensor]] = []

        def attend_self(h: Tensor):
            k, v = self.self_attn.project_kv(h)
            if past is not None:
                k = torch.cat([past[0], k], dim=2)  # (B, H, t_past + t_new, Dk)
                v = torch.cat([past[1], v], dim=2)
            new_kv.append((k, v))
            return self.self_attn(
                h, k, v, self_mask, capture=capture, no_scaling=no_scaling, zeroed_heads=zeroed_self
            )

        def attend_source(h: Tensor):
            return self.src_attn(
                h,
                *cross_kv,
                cross_mask,
                capture=capture,
                no_scaling=no_scaling,
                zeroed_heads=zeroed_cross,
            )

        x, self_capture, norm1 = self.self_sublayer(x, attend_self, capture)
        x, cross_capture, norm2 = self.cross_sublayer(x, attend_source, capture)
        x, _, norm3 = self.ffn_sublayer(x, lambda h: (self.ffn(h), None), capture)
        layer_capture = None
        if capture:
            layer_capture = LayerCapture(
                {"self": self_capture, "cross": cross_capture}, [norm1, norm2, norm3]
            )
        return x, new_kv[0], layer_capture


class Transformer(nn.Module):
    def __init__(self, config: TransformerConfig) -> None:
        super().__init__()
        config.validate()
        self.config = config
        d = config.d_model
        self.src_embed = nn.Embedding(config.vocab_size, d)
        self.tgt_embed = self.src_embed if config.tie_embeddings else nn.Embedding(config.vocab_size, d)
        if config.positional == "learned":
            self.pos_embed = nn.Embedding(config.max_len, d)
        self.register_buffer("sinusoid", sinusoidal_encoding(config.max_len, d), persistent=False)
        self.encoder_layers = nn.ModuleList(EncoderLayer(config) for _ in range(config.n_encoder_layers))
        self.decoder_layers = nn.ModuleList(DecoderLayer(config) for _ in range(config.n_decoder_layers))
        # pre-LN leaves the residual stream un-normalised, so it needs one norm at each end
        if config.norm_placement == "pre":
            self.encoder_norm = nn.LayerNorm(d)
            self.decoder_norm = nn.LayerNorm(d)
        self.generator = nn.Linear(d, config.vocab_size, bias=False)
        if config.tie_embeddings:
            self.generator.weight = self.src_embed.weight
        self.embed_dropout = nn.Dropout(config.dropout)
        self._init_weights()

    def _init_weights(self) -> None:
        for name, param in self.named_parameters():
            if param.dim() > 1:
                nn.init.xavier_uniform_(param)
            elif name.endswith("bias"):
                nn.init.zeros_(param)
        # embeddings are multiplied by √d_model, so start them small as the paper's tied setup does
        nn.init.normal_(self.src_embed.weight, std=self.config.d_model**-0.5)
        if not self.config.tie_embeddings:
            nn.init.normal_(self.tgt_embed.weight, std=self.config.d_model**-0.5)

    def positional_encoding(self, length: int, start: int = 0) -> Tensor:
        """(length, D) the encoding added at positions start..start+length-1."""
        if start + length > self.config.max_len:
            raise ValueError(
                f"sequence of {start + length} tokens exceeds the model's maximum length "
                f"{self.config.max_len}"
            )
        if self.config.positional == "sinusoidal":
            return self.sinusoid[start : start + length]
        if self.config.positional == "learned":
            positions = torch.arange(start, start + length, device=self.sinusoid.device)
            return self.pos_embed(positions)
        return self.sinusoid.new_zeros(length, self.config.d_model)

    def embed(self, table: nn.Embedding, ids: Tensor, start: int, no_positional: bool) -> Tensor:
        x = table(ids) * math.sqrt(self.config.d_model)  # (B, L, D)
        if not no_positional:
            x = x + self.positional_encoding(ids.shape[1], start)
        return self.embed_dropout(x)

    def encode(
        self,
        src: Tensor,
        src_pad_mask: Tensor,
        *,
        capture: bool = False,
        interventions: Interventions = NO_INTERVENTIONS,
    ) -> EncoderOutput:
        """Run the encoder once over ``src`` (B, S); ``src_pad_mask`` (B, S) is True at padding."""
        x = self.embed(self.src_embed, src, 0, interventions.no_positional)
        mask = src_pad_mask[:, None, None, :]  # (B, 1, 1, S): padding keys are hidden
        layers = [] if capture else None
        for index, layer in enumerate(self.encoder_layers):
            zeroed = self._zeroed(interventions, "enc_self", index)
            x, layer_capture = layer(x, mask, capture, interventions.no_scaling, zeroed)
            if layers is not None:
                layers.append(layer_capture)
        if self.config.norm_placement == "pre":
            x = self.encoder_norm(x)
        return EncoderOutput(x, src_pad_mask, layers)

    def start_cache(self, encoded: EncoderOutput) -> KVCache:
        """An empty decoder cache with each layer's cross-attention keys/values projected."""
        cross = [layer.src_attn.project_kv(encoded.memory) for layer in self.decoder_layers]
        # contiguous once here, so that no step's attention copies them again
        return KVCache([], [], [k.contiguous() for k, _ in cross], [v.contiguous() for _, v in cross])

    def decode(
        self,
        tgt: Tensor,
        encoded: EncoderOutput,
        cache: KVCache | None = None,
        *,
        tgt_pad_mask: Tensor | None = None,
        capture: bool = False,
        interventions: Interventions = NO_INTERVENTIONS,
    ) -> DecoderOutput:
        """Decode the new target tokens ``tgt`` (B, T_new) after the ``cache``'s positions.

        Without a cache this is the whole target at once (teacher forcing, as in training).
        ``tgt_pad_mask`` (B, t_past + T_new) is True at target padding.
        """
        if cache is None:
            cache = self.start_cache(encoded)
        start = cache.length
        n_new = tgt.shape[1]
        x = self.embed(self.tgt_embed, tgt, start, interventions.no_positional)
        if interventions.no_causal_mask:
            self_mask = torch.zeros(n_new, start + n_new, dtype=torch.bool, device=tgt.device)
        else:
            self_mask = causal_mask(n_new, start + n_new, tgt.device)
        self_mask = self_mask[None, None]  # (1, 1, T_new, T_all)
        if tgt_pad_mask is not None:
            self_mask = self_mask | tgt_pad_mask[:, None, None, :]  # (B, 1, T_new, T_all)
        cross_mask = encoded.pad_mask[:, None, None, :]  # (B, 1, 1, S)
        layers = [] if capture else None
        self_k, self_v = [], []
        for index, layer in enumerate(self.decoder_layers):
            past = (cache.self_k[index], cache.self_v[index]) if start else None
            x, (k, v), layer_capture = layer(
                x,
                past,
                (cache.cross_k[index], cache.cross_v[index]),
                self_mask,
                cross_mask,
                capture,
                interventions.no_scaling,
                self._zeroed(interventions, "dec_self", index),
                self._zeroed(interventions, "cross", index),
            )
            self_k.append(k)
            self_v.append(v)
            if layers is not None:
                layers.append(layer_capture)
        final_norm = None
        if self.config.norm_placement == "pre":
            normed = self.decoder_norm(x)
            final_norm = norm_stats(x, normed) if capture else None
            x = normed
        logits = self.generator(x)  # (B, T_new, V)
        new_cache = KVCache(self_k, self_v, cache.cross_k, cache.cross_v)
        return DecoderOutput(logits, new_cache, layers, final_norm)

    def forward(self, src: Tensor, tgt: Tensor, src_pad_mask: Tensor, tgt_pad_mask: Tensor) -> Tensor:
        """Training pass: logits (B, T, V) for every target position at once."""
        encoded = self.encode(src, src_pad_mask)
        return self.decode(tgt, encoded, tgt_pad_mask=tgt_pad_mask).logits

    def _zeroed(self, interventions: Interventions, kind: str, layer: int) -> tuple[int, ...]:
        if not interventions.zeroed_heads:
            return ()
        return tuple(
            head for head in range(self.config.n_heads) if interventions.is_zeroed(kind, layer, head)
        )
