"""Hugging Face encoder-decoders (Marian, BART, mBART, T5, mT5, M2M100/NLLB) as a model family.

The library's own modules run, with the recorded eager attention of ``model.hf.attention``. Kinds:
``enc_self``, ``dec_self`` and ``cross``, as for our Transformer, so every view and the trace
read the same arrays. The decoder steps with the library's key/value cache, kept here as plain
tensors (``HFCache``) and handed to the library as a fresh cache object each step: stepping back
is a slice, and no step changes a cache an earlier state still holds. Each step's logits go
through the model's generation settings (``GenerationRules``) as ``generate`` would apply them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from model.core.gradients import no_grad_unless_differentiating
from model.hf.architectures import ARCHITECTURES, encoder_inputs
from model.hf.attention import Recording, attention_modules, recording
from model.hf.description import DECODER_SUBLAYERS, ENCODER_SUBLAYERS, describe, language_codes
from model.hf.generation_rules import GenerationRules
from model.hf.norms import install_norm_hooks, norm_modules
from model.hf.tokenizer import HFTokenizer
from model.interface import (
    EncodeOutput,
    Interventions,
    ModelFamily,
    StepOutput,
    TeacherForcedOutput,
)
from model.source import PreparedSource, Source


@dataclass
class HFCache:
    """The decoder's state after the tokens it has read: every row's keys and values."""

    self_kv: tuple[
        tuple[Tensor, Tensor], ...
    ] = ()  # per decoder layer, (B, H, t, d); () before the first token
    cross_kv: tuple[tuple[Tensor, Tensor], ...] = ()  # per decoder layer, (1, H, S, d): the source, once
    ids: tuple[tuple[int, ...], ...] = ((),)  # per row, the tokens read so far (the start token first)

    @property
    def rows(self) -> int:
        return len(self.ids)


@dataclass(eq=False)
class HFFamily(ModelFamily):
    """A loaded Hugging Face encoder-decoder: the library's module and its tokenizer."""

    model: Any  # a transformers *ForConditionalGeneration in eval mode, attention "attnviz"
    tokenizer: HFTokenizer
    model_type: str  # config.json's, naming its entry in ARCHITECTURES
    rules: GenerationRules
    path: Path | None = None
    notice: str | None = None
    metadata: dict = field(default_factory=dict)
    features: Any = None  # a speech model's feature extractor (the library's), else None

    def __post_init__(self) -> None:
        config = self.model.config
        self.architecture = ARCHITECTURES[self.model_type]
        self.shape = self.architecture.shape(config)
        self.names = attention_modules(self.model, self.architecture.modules)
        self.norm_names = norm_modules(self.model, self.architecture.modules)
        norm_stats = set(self.norm_names.values()) == set(self.norm_places())
        if norm_stats:
            install_norm_hooks(self.model, self.norm_names)
        self.languages = language_codes(self.tokenizer.hf)
        parameters = sum(p.numel() for p in self.model.parameters())
        name = self.path.name if self.path is not None else "model"
        self.info = describe(
            self.architecture, config, self.rules, parameters, name, self.languages, norm_stats
        )
        # what Q·Kᵀ is multiplied by: 1/√d_k, with d_k of each side's heads (1 where not scaled)
        scaled = self.architecture.scaled
        self.scale = (self.shape.d_model // self.shape.encoder_heads) ** -0.5 if scaled else 1.0
        self.decoder_scale = (self.shape.d_model // self.shape.decoder_heads) ** -0.5 if scaled else 1.0
        self.target_language: str | None = None
        forced = self.rules.forced_bos_token_id
        if forced is not None:
            self.target_language = self.tokenizer.hf.convert_ids_to_tokens(forced)
            self.tokenizer.target_prefix = [forced]
        named = getattr(self.model.generation_config, "alignment_heads", None) or ()
        self.info = replace(
            self.info,
            alignment_heads=tuple((int(layer), int(head)) for layer, head in named),
            prompt_length=len(self.rules.prompt),
        )
        if self.rules.prompt:  # Whisper: a target is written after its prompt (language, task, …)
            self.tokenizer.target_prefix = [choices[0] for choices in self.rules.prompt]

    # -- languages (mBART, NLLB, M2M100) ------------------------------------------------------
    @property
    def source_language(self) -> str | None:
        return getattr(self.tokenizer.hf, "src_lang", None) if self.languages else None

    def set_languages(self, source: str | None = None, target: str | None = None) -> None:
        """Read the source as ``source`` and force ``target`` as the first output token."""
        if not self.languages and (source or target):
            super().set_languages(source, target)  # says the model has no language codes
        for code in (source, target):
            if code is not None and code not in self.languages:
                shown = ", ".join(self.languages[:8]) + (", …" if len(self.languages) > 8 else "")
                raise ValueError(f"unknown language code {code!r}; this model has {shown or 'none'}")
        if source is not None:
            self.tokenizer.hf.src_lang = source
        if target is not None:
            forced = self.tokenizer.hf.convert_tokens_to_ids(target)
            self.rules = replace(self.rules, forced_bos_token_id=forced)
            self.tokenizer.target_prefix = [forced]
            self.target_language = target

    # -- the interface -------------------------------------------------------------------------
    @property
    def device(self) -> torch.device:
        return next(self.model.parameters()).device

    def to(self, device: torch.device) -> None:
        self.model.to(device)

    def new_recording(self, interventions: Interventions, capture: bool) -> Recording:
        return Recording(
            self.names,
            capture=capture,
            zeroed=frozenset(interventions.zeroed_heads),
            norm_names=self.norm_names if self.info.capabilities.norm_stats else {},
        )

    # -- the source: text, or audio for a speech model ------------------------------------------
    def prepare_source(self, source: Source) -> PreparedSource:
        if self.architecture.medium != "audio":
            return super().prepare_source(source)
        from model.hf.audio import prepare_audio

        return prepare_audio(source, self.features, self.info.max_source_len, self.info.display_name)

    def source_batch(self, prepared: Sequence[PreparedSource], device) -> tuple[Tensor, Tensor] | None:
        if self.architecture.medium != "audio":
            return None
        # (B, mel bins, frames): every source is one whole window, so nothing is padding
        features = torch.stack([torch.as_tensor(p.features) for p in prepared]).to(device)
        positions = max(len(p.axis) for p in prepared)
        return features, torch.zeros(len(prepared), positions, dtype=torch.bool, device=device)

    def prompt_token(self, position: int) -> tuple[int, ...] | None:
        return self.rules.prompt[position] if position < len(self.rules.prompt) else None

    @no_grad_unless_differentiating
    def encode(self, src: Tensor, src_pad: Tensor, interventions: Interventions, capture: bool = True):
        with recording(self.new_recording(interventions, capture)) as record:
            hidden = self.model.get_encoder()(
                **encoder_inputs(self.architecture, src, src_pad)
            ).last_hidden_state
        encoded = EncodeOutput(hidden, src_pad, scale=self.scale)  # hidden: (B, S, D)
        if capture:
            layers = self.shape.encoder_layers
            encoded.attention["enc_self"] = record.stacked("enc_self", layers)  # (B, L, H, S, S)
            encoded.scores["enc_self"] = record.stacked("enc_self", layers, "scores")
            if record.norm_names:
                norms = record.stacked_norms("encoder", layers, ENCODER_SUBLAYERS)  # (B, L, 2, 4, S)
                encoded.extras["norms"] = norms
        return encoded

    def start(self, encoded: EncodeOutput) -> HFCache:
        return HFCache()

    def source_mask(self, encoded: EncodeOutput, rows: int) -> Tensor | None:
        """(rows, S) 1 where a source position is real, as the library's attention mask; None for
        a speech model, whose window has no padding (and whose library call takes no such mask)."""
        if self.architecture.medium == "audio":
            return None
        mask = (~encoded.pad_mask).long()
        return mask.expand(rows, -1) if mask.shape[0] == 1 else mask

    def run_decoder(
        self,
        cache: HFCache,
        tokens: Tensor,
        encoded: EncodeOutput,
        interventions: Interventions,
        capture: bool,
    ) -> tuple[Tensor, HFCache, Recording]:
        """Read ``tokens`` (N,), one per row of ``cache``: (N, V) logits and the new cache."""
        from transformers.cache_utils import DynamicCache, EncoderDecoderCache

        rows = tokens.shape[0]
        hidden = encoded.state.expand(rows, -1, -1)  # (N, S, D): one source for every row
        source_mask = self.source_mask(encoded, rows)
        cross = [(k.expand(rows, -1, -1, -1), v.expand(rows, -1, -1, -1)) for k, v in cache.cross_kv]
        library_cache = EncoderDecoderCache(
            DynamicCache(list(cache.self_kv)) if cache.self_kv else DynamicCache(),
            DynamicCache(cross) if cross else DynamicCache(),
        )
        with recording(self.new_recording(interventions, capture)) as record:
            out = self.model(
                encoder_outputs=(hidden,),
                attention_mask=source_mask,
                decoder_input_ids=tokens[:, None],
                cache=library_cache,
                use_cache=True,
            )
        new_cache = out.cache
        self_kv = tuple((layer.keys, layer.values) for layer in new_cache.self_attention_cache.layers)
        cross_kv = cache.cross_kv or tuple(
            (layer.keys[:1], layer.values[:1]) for layer in new_cache.cross_attention_cache.layers
        )
        ids = tuple((*row, int(token)) for row, token in zip(cache.ids, tokens.tolist(), strict=True))
        return out.logits[:, -1], HFCache(self_kv, cross_kv, ids), record

    @no_grad_unless_differentiating
    def step(self, token_id, encoded, cache: HFCache, interventions, capture) -> StepOutput:
        tokens = torch.tensor([token_id], device=self.device)
        logits, new_cache, record = self.run_decoder(cache, tokens, encoded, interventions, capture)
        result = StepOutput(self.rules.apply(new_cache.ids[0], logits[0].float()), new_cache)
        if capture:
            for kind in ("dec_self", "cross"):
                result.attention[kind] = record.stacked(kind, self.shape.decoder_layers)[
                    0, :, :, 0
                ]  # (L, H, K)
            if record.norm_names:
                norms = record.stacked_norms("decoder", self.shape.decoder_layers, DECODER_SUBLAYERS)
                result.extras["norms"] = norms[0, :, :, :, 0]  # (B, L, 3, 4, 1) → (L, 3, 4)
        return result

    def truncate(self, cache: HFCache, length: int) -> HFCache:
        if length <= 0:
            return HFCache((), cache.cross_kv, tuple(() for _ in cache.ids))
        self_kv = tuple((k[:, :, :length], v[:, :, :length]) for k, v in cache.self_kv)
        return HFCache(self_kv, cache.cross_kv, tuple(row[:length] for row in cache.ids))

    @no_grad_unless_differentiating
    def step_batch(self, parents: Sequence[int], token_ids, encoded, cache: HFCache, interventions):
        index = torch.tensor(list(parents), device=self.device)
        chosen = HFCache(
            tuple((k.index_select(0, index), v.index_select(0, index)) for k, v in cache.self_kv),
            cache.cross_kv,
            tuple(cache.ids[parent] for parent in parents),
        )
        tokens = torch.tensor(list(token_ids), device=self.device)
        logits, new_cache, _ = self.run_decoder(chosen, tokens, encoded, interventions, capture=False)
        # as the library's beam search: the settings act on the log-probabilities (a banned
        # token is −∞, the rest are not renormalised; a forced one gets 0)
        logprobs = torch.log_softmax(logits.float(), dim=-1)
        ruled = [self.rules.apply(ids, row) for ids, row in zip(new_cache.ids, logprobs, strict=True)]
        return torch.stack(ruled), new_cache

    @no_grad_unless_differentiating
    def teacher_force(self, encoded, tgt_in: Tensor, tgt_pad: Tensor, interventions) -> TeacherForcedOutput:
        tgt_pad = tgt_pad.clone()
        tgt_pad[:, 0] = False  # the start token is real even where it is the pad id (T5)
        record = self.new_recording(interventions, True)
        batch, length = tgt_in.shape
        future = torch.ones(length, length, dtype=torch.bool, device=tgt_in.device).triu(1)  # (T, T)
        if interventions.no_causal_mask:  # the decoder sees every target position but padding
            future = torch.zeros_like(future)
            padding = torch.zeros(batch, 1, 1, length, device=tgt_in.device)  # (B, 1, 1, T) additive
            record.masks["dec_self"] = padding.masked_fill(
                tgt_pad[:, None, None, :], torch.finfo(padding.dtype).min
            )
        with recording(record):
            out = self.model(
                encoder_outputs=(encoded.state,),
                attention_mask=self.source_mask(encoded, batch),
                decoder_input_ids=tgt_in,
                decoder_attention_mask=(~tgt_pad).long(),
                use_cache=False,
            )
        layers = self.shape.decoder_layers
        return TeacherForcedOutput(
            out.logits.float(),
            attention={
                kind: record.stacked(kind, layers) for kind in ("dec_self", "cross")
            },  # (B, L, H, T, K)
            scores={kind: record.stacked(kind, layers, "scores") for kind in ("dec_self", "cross")},
            masks={
                "dec_self": future[None] | tgt_pad[:, None, :],  # (B, T, T)
                "cross": encoded.pad_mask[:, None, :].expand(batch, length, -1),  # (B, T, S)
            },
            scale=self.decoder_scale,
            extras=(
                {"norms": record.stacked_norms("decoder", layers, DECODER_SUBLAYERS)}  # (B, L, 3, 4, T)
                if record.norm_names
                else {}
            ),
        )

    # -- attribution and the logit lens -----------------------------------------------------------
    def embedding_modules(self) -> tuple[torch.nn.Module, torch.nn.Module]:
        return self.model.get_encoder().embed_tokens, self.model.get_decoder().embed_tokens

    def decoder_layers(self) -> list[torch.nn.Module]:
        return list(getattr(self.model.get_decoder(), self.architecture.modules.layers))

    def lens_head(self, hidden: Tensor) -> Tensor:
        """Logits of a decoder layer's output ``hidden`` (..., D), as the model computes them
        from its last layer's: the decoder's final norm (pre-LN models), T5's rescaling of a
        tied output layer's input, the output layer, and Marian's and BART's logit bias."""
        norm = getattr(self.model.get_decoder(), self.architecture.modules.final_norm, None)
        if norm is not None:
            hidden = norm(hidden)
        scale = self.architecture.decoder_output_scale(self.model.config, self.shape.d_model)
        if scale is not None:
            hidden = hidden * scale
        logits = self.model.get_output_embeddings()(hidden)  # lm_head (Whisper's proj_out)
        bias = getattr(self.model, "final_logits_bias", None)
        return logits + bias if bias is not None else logits

    @no_grad_unless_differentiating
    def logit_lens(self, encoded: EncodeOutput, tgt_in: Tensor) -> Tensor:
        outputs: list[Tensor] = []

        def keep(_module, _args, out) -> None:
            outputs.append(out[0] if isinstance(out, tuple) else out)  # (B, T, D)

        handles = [layer.register_forward_hook(keep) for layer in self.decoder_layers()]
        try:
            tgt_pad = torch.zeros_like(tgt_in, dtype=torch.bool)
            self.teacher_force(encoded, tgt_in, tgt_pad, Interventions())
        finally:
            for handle in handles:
                handle.remove()
        return self.lens_head(torch.stack(outputs, dim=1)).float()  # (B, L, T, V)

    # -- norms ---------------------------------------------------------------------------------
    def norm_places(self) -> list[tuple[str, int, int]]:
        """(side, layer, sublayer) of every sublayer's norm, the encoder's first."""
        return [
            (side, layer, sublayer)
            for side, layers, sublayers in (
                ("encoder", self.shape.encoder_layers, ENCODER_SUBLAYERS),
                ("decoder", self.shape.decoder_layers, DECODER_SUBLAYERS),
            )
            for layer in range(layers)
            for sublayer in range(sublayers)
        ]

    def norm_layers(self) -> tuple[list[list[torch.nn.Module]], list[list[torch.nn.Module]]]:
        """Each encoder and decoder layer's norms, in sublayer order (T5's have no ``bias``)."""
        if not self.info.capabilities.norm_stats:
            return super().norm_layers()
        by_place = {self.norm_names[id(m)]: m for m in self.model.modules() if id(m) in self.norm_names}
        encoder = [
            [by_place[("encoder", layer, sub)] for sub in range(ENCODER_SUBLAYERS)]
            for layer in range(self.shape.encoder_layers)
        ]
        decoder = [
            [by_place[("decoder", layer, sub)] for sub in range(DECODER_SUBLAYERS)]
            for layer in range(self.shape.decoder_layers)
        ]
        return encoder, decoder

    @no_grad_unless_differentiating
    def norm_input_probe(self, src: Tensor, src_pad: Tensor, interventions: Interventions) -> Tensor:
        """(B, S, D) what the encoder's first norm normalises: post-LN (Marian, BART) the sum of
        the embeddings and the first self-attention's output; pre-LN (mBART, NLLB, T5) the
        embeddings the first layer reads."""
        first = self.norm_layers()[0][0][0]
        inputs: list[Tensor] = []
        handle = first.register_forward_pre_hook(lambda _module, args: inputs.append(args[0].detach()))
        try:
            with recording(self.new_recording(interventions, capture=False)):
                self.model.get_encoder()(**encoder_inputs(self.architecture, src, src_pad))
        finally:
            handle.remove()
        return inputs[0].float()

    def positional_table(self) -> Tensor | None:
        """(positions, d_model) the position vectors the encoder adds, read from the model."""
        table = self.architecture.position_table(self.model.get_encoder())
        if table is None:  # a bias on the scores instead (relative_bias_curve)
            return None
        return table[: self.info.max_source_len].detach()

    def bias_attention(self, side: str):
        """The attention module that owns a side's relative position bias."""
        owner = self.architecture.relative_bias
        if owner is None:
            raise NotImplementedError(f"{self.info.display_name} has no relative position bias")
        return owner(self.model.encoder if side == "source" else self.model.decoder)

    @no_grad_unless_differentiating
    def relative_bias_curve(self, side, distances):
        attention = self.bias_attention(side)
        relative = torch.as_tensor(distances, dtype=torch.long, device=self.device)
        buckets = attention._relative_position_bucket(
            relative,
            bidirectional=not attention.is_decoder,
            num_buckets=attention.relative_attention_num_buckets,
            max_distance=attention.relative_attention_max_distance,
        )
        bias = attention.relative_attention_bias(buckets)  # (n, H)
        return buckets.cpu().numpy(), bias.T.float().cpu().numpy()

    @no_grad_unless_differentiating
    def relative_bias_matrix(self, side, length: int):
        attention = self.bias_attention(side)
        return (
            attention.compute_bias(length, length, device=self.device)[0].float().cpu().numpy()
        )  # (H, L, L)

    def relative_bias_settings(self) -> tuple[int, int]:
        attention = self.bias_attention("source")
        return attention.relative_attention_num_buckets, attention.relative_attention_max_distance

    def positional_layout(self) -> str:
        return self.architecture.sinusoid_layout
