"""Which input tokens mattered for each output token: attention beside attribution.

For one source and the tokens a model wrote (``output_ids``), every method scores, for each
output step t, the tokens on one axis: the S source tokens, then the T target tokens the
decoder read (``<bos>`` and the outputs before; those after step t are NaN, unseen). What is
explained is f_t = log p(y_t | x, y_<t), the model's own log-probability of the token it wrote
at step t (teacher-forced, before any decoding setting such as top-k).

- ``attention_head``: the chosen head's weights, its cross-attention row over the source and its
  masked self-attention row over the read tokens (layer and head in ``AttributionSettings``).
- ``attention_layer``: the same rows averaged over the heads of that layer.
- ``rollout``: attention rolled out through every layer (``model.attribution.rollout``).
- ``gradient_x_input``: Σ_e ∂f_t/∂x_ie · x_ie, signed, where x_i is token i's vector as the
  embedding table gives it (before positions are added: the positions are not the token).
- ``integrated_gradients`` (Sundararajan et al. 2017): (x_i − x'_i) · ∫₀¹ ∂f_t/∂x_i(x' + α(x − x')) dα,
  summed over the vector. The baseline x' puts ``<pad>``'s vector at every token (source and
  read target) and keeps the positions: a text of nothing in particular (``baseline="zero"``:
  all token vectors zero, which a model that normalises its token vectors by their size before
  adding anything, T5 with its RMSNorm, cannot read: its output jumps as the vectors shrink to
  zero, so no quadrature converges there). The integral is Gauss–Legendre quadrature with
  ``ig_steps`` nodes. Completeness: the scores sum to f_t(x) − f_t(x') (``baseline_logprob``);
  where a model's kinks (ReLU) keep them more than 1 % off, the nodes are doubled, up to three
  times (``ig_steps_used``, ``completeness_gap``).
- ``occlusion``: f_t(x) − f_t(x with source token i replaced by ``<unk>``), or with it removed
  (``occlusion="remove"``, and for a tokenizer without ``<unk>``); source tokens only.

``agreement``: for each method, Spearman's rank correlation between each cross-attention
head's row at step t and the method's source scores (their magnitudes, for the signed ones):
which heads agree with which method.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np
import torch

from model.attribution.ranks import spearman
from model.attribution.results import (  # noqa: F401 (METHODS re-exported: where readers look)
    ATTENTION_METHODS,
    COMPLETENESS,
    GRADIENT_METHODS,
    METHODS,
    REFINEMENTS,
    SIGNED,
    Attribution,
    AttributionSettings,
)
from model.attribution.rollout import decoder_rollout, encoder_rollout
from model.core.gradients import differentiable
from model.interface import NO_INTERVENTIONS, EncodeOutput, Interventions, ModelFamily, TeacherForcedOutput

OCCLUSION_CHUNK = 32  # occluded copies of the source per forward pass
Progress = Callable[[int, int, str], None]  # (done, total, what is being done)
DEFAULT_SETTINGS = AttributionSettings()  # frozen: one default shared by every call


class Cancelled(Exception):
    """The caller asked to stop; nothing was returned."""


@dataclass
class Inputs:
    """One source and the output as tensors, batch 1."""

    src: torch.Tensor  # (1, S)
    tgt_in: torch.Tensor  # (1, T) <bos> + outputs[:-1]
    targets: torch.Tensor  # (T,) the outputs

    def expanded(self, rows: int) -> Inputs:
        return Inputs(self.src.expand(rows, -1), self.tgt_in.expand(rows, -1), self.targets)


@contextmanager
def replaced_output(module: torch.nn.Module, vectors: torch.Tensor | None) -> Iterator[None]:
    """``module``'s output is ``vectors`` (the token vectors a pass reads) while inside."""
    if vectors is None:
        yield
        return
    handle = module.register_forward_hook(lambda _module, _args, _out: vectors)
    try:
        yield
    finally:
        handle.remove()


def forward(
    model: ModelFamily,
    inputs: Inputs,
    interventions: Interventions,
    *,
    source_vectors: torch.Tensor | None = None,
    target_vectors: torch.Tensor | None = None,
    capture: bool = False,
) -> tuple[torch.Tensor, EncodeOutput, TeacherForcedOutput]:
    """(B, T) log-probabilities of the outputs, teacher-forced; token vectors replaced where given."""
    source_module, target_module = model.embedding_modules()
    src_pad = torch.zeros_like(inputs.src, dtype=torch.bool)
    tgt_pad = torch.zeros_like(inputs.tgt_in, dtype=torch.bool)
    with replaced_output(source_module, source_vectors):
        encoded = model.encode(inputs.src, src_pad, interventions, capture=capture)
    with replaced_output(target_module, target_vectors):
        out = model.teacher_force(encoded, inputs.tgt_in, tgt_pad, interventions)
    logits = out.logits.to(torch.promote_types(out.logits.dtype, torch.float32))
    logprobs = torch.log_softmax(logits, dim=-1)  # (B, T, V)
    index = inputs.targets.expand(logprobs.shape[0], -1)[..., None]  # (B, T, 1)
    return logprobs.gather(-1, index)[..., 0], encoded, out


def baseline_vectors(
    model: ModelFamily, inputs: Inputs, baseline: str, x_source: torch.Tensor, x_target: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(1, S, E), (1, T, E): integrated gradients' starting point (see the module docstring)."""
    pad = getattr(model.tokenizer, "pad_id", None)
    if baseline == "zero" or pad is None:
        return torch.zeros_like(x_source), torch.zeros_like(x_target)
    source_module, target_module = model.embedding_modules()
    with torch.no_grad():
        return (
            source_module(torch.full_like(inputs.src, pad)).detach(),
            target_module(torch.full_like(inputs.tgt_in, pad)).detach(),
        )


def attribute(
    model: ModelFamily,
    source: str,
    output_ids: Sequence[int],
    steps: Sequence[int] | None = None,
    settings: AttributionSettings = DEFAULT_SETTINGS,
    interventions: Interventions = NO_INTERVENTIONS,
    progress: Progress | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Attribution:
    """Every method of ``settings`` for ``steps`` (default: all) of the output ``output_ids``
    that ``model`` wrote for ``source`` (see the module docstring). Raises ``Cancelled`` when
    ``cancelled()`` turns true between pieces of work."""
    return Work(model, source, output_ids, steps, settings, interventions, progress, cancelled).run()


def as_numpy(tensor: torch.Tensor) -> np.ndarray:
    """float64, so that a float64 model's scores keep their precision."""
    return tensor.detach().double().cpu().numpy()


class Work:
    """One ``attribute`` call: its inputs, the scores filled in method by method, its progress."""

    def __init__(
        self,
        model: ModelFamily,
        source: str,
        output_ids: Sequence[int],
        steps: Sequence[int] | None,
        settings: AttributionSettings,
        interventions: Interventions,
        progress: Progress | None,
        cancelled: Callable[[], bool] | None,
    ) -> None:
        info, tokenizer = model.info, model.tokenizer
        if not info.capabilities.gradients:  # every method runs through the hooked forward pass
            raise ValueError(f"{info.display_name} cannot be differentiated: attribution needs its gradients")
        output_ids = [int(i) for i in output_ids]
        if not output_ids:
            raise ValueError("nothing to attribute: the model has not written a token yet")
        self.src_ids = list(tokenizer.encode_source(source).ids)
        if len(self.src_ids) > info.max_source_len or len(output_ids) > info.max_target_len:
            raise ValueError("the source or the output is longer than this model reads")
        self.n_target, self.n_source = len(output_ids), len(self.src_ids)
        self.chosen = sorted(set(range(self.n_target) if steps is None else (int(t) for t in steps)))
        if not self.chosen or self.chosen[0] < 0 or self.chosen[-1] >= self.n_target:
            raise ValueError(f"steps must lie in 0..{self.n_target - 1}")
        self.alignment = info.alignment_kind
        self.layer = None
        if self.alignment is not None:
            self.layer = self.alignment.layers - 1 if settings.layer is None else settings.layer
            if not 0 <= self.layer < self.alignment.layers or not 0 <= settings.head < self.alignment.heads:
                raise ValueError(
                    f"no head L{self.layer + 1} H{settings.head + 1}: the model has {self.alignment.layers} "
                    f"layers of {self.alignment.heads} heads"
                )
        self.model, self.settings, self.interventions = model, settings, interventions
        self.output_ids = output_ids
        self.inputs = Inputs(
            torch.tensor([self.src_ids], device=model.device),
            torch.tensor([[tokenizer.bos_id, *output_ids[:-1]]], device=model.device),
            torch.tensor(output_ids, device=model.device),
        )
        self.unavailable = (
            {m: info.without_attention for m in ATTENTION_METHODS if m in settings.methods}
            if not info.has_attention
            else {}
        )
        self.methods = [m for m in settings.methods if m not in self.unavailable]
        nan_scores = np.full((self.n_target, self.n_source + self.n_target), np.nan)
        self.scores = {m: nan_scores.copy() for m in self.methods}
        self.progress, self.cancelled = progress, cancelled
        gradient_methods = sum(1 for m in self.methods if m in GRADIENT_METHODS)
        self.done, self.total = 0, 1 + len(self.chosen) * gradient_methods + ("occlusion" in self.methods)

    def advance(self, what: str) -> None:
        self.check_cancelled()
        self.done += 1
        if self.progress is not None:
            self.progress(self.done, self.total, what)

    def check_cancelled(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise Cancelled()

    def run(self) -> Attribution:
        # one differentiable pass: log-probabilities, attention, and gradient × input
        source_module, target_module = self.model.embedding_modules()
        with torch.no_grad():
            self.x_source = source_module(self.inputs.src).detach()  # (1, S, E)
            self.x_target = target_module(self.inputs.tgt_in).detach()  # (1, T, E)
        leaves = (self.x_source.clone().requires_grad_(), self.x_target.clone().requires_grad_())
        with differentiable():
            logprob, encoded, out = forward(
                self.model,
                self.inputs,
                self.interventions,
                source_vectors=leaves[0],
                target_vectors=leaves[1],
                capture=True,
            )
        self.logprob = as_numpy(logprob[0])
        self.advance("the model's pass")
        cross = self.attention_scores(encoded, out)
        if "gradient_x_input" in self.scores:
            for t in self.chosen:
                gradients = torch.autograd.grad(logprob[0, t], leaves, retain_graph=True, allow_unused=True)
                self.store("gradient_x_input", t, gradients, (self.x_source, self.x_target))
                self.advance(f"gradient × input, step {t + 1}")
        del logprob, encoded, out
        baseline_logprob, ig_steps_used, gap = (
            np.full(self.n_target, np.nan),
            0,
            np.full(self.n_target, np.nan),
        )
        if "integrated_gradients" in self.scores:
            ig_steps_used = self.integrated_gradients(baseline_logprob, gap)
        occlusion_mode = self.settings.occlusion
        if "occlusion" in self.scores:
            occlusion_mode = self.occlusion()
        tokenizer = self.model.tokenizer
        return Attribution(
            source_tokens=[tokenizer.token_text(i) for i in self.src_ids],
            read_tokens=[tokenizer.token_text(int(i)) for i in self.inputs.tgt_in[0]],
            output_tokens=[tokenizer.token_text(i) for i in self.output_ids],
            output_ids=np.array(self.output_ids),
            steps=tuple(self.chosen),
            logprob=self.logprob,
            baseline_logprob=baseline_logprob,
            scores=self.scores,
            agreement=self.agreement(cross) if cross is not None else {},
            settings=self.settings,
            layer=self.layer,
            unavailable=self.unavailable,
            occlusion_mode=occlusion_mode,
            ig_steps_used=ig_steps_used,
            completeness_gap=gap,
        )

    def attention_scores(self, encoded: EncodeOutput, out: TeacherForcedOutput) -> np.ndarray | None:
        """The attention methods' scores from the model's pass; the cross-attention [L, H, T, S]
        (None for a model without attention)."""
        if self.alignment is None:
            return None
        info, n_source, head = self.model.info, self.n_source, self.settings.head
        decoder_kind = next((k for k in info.kinds if k.causal), None)
        encoder_kind = next((k for k in info.kinds if k.queries == "source" and k.keys == "source"), None)
        cross = as_numpy(out.attention[self.alignment.name][0])  # (L, H, T, S)
        dec_self = as_numpy(out.attention[decoder_kind.name][0]) if decoder_kind else None  # (L, H, T, T)
        enc_self = as_numpy(encoded.attention[encoder_kind.name][0]) if encoder_kind else None  # (L, H, S, S)
        rolled = decoder_rollout(encoder_rollout(enc_self, n_source), dec_self, cross)  # (T, S + T)
        rows = {
            "attention_head": lambda weights, t: weights[self.layer, head, t],
            "attention_layer": lambda weights, t: weights[self.layer, :, t].mean(0),
        }
        for t in self.chosen:
            for method, row in rows.items():
                if method in self.scores:
                    self.scores[method][t, :n_source] = row(cross, t)
                    if dec_self is not None:
                        self.scores[method][t, n_source : n_source + t + 1] = row(dec_self, t)[: t + 1]
            if "rollout" in self.scores:
                self.scores["rollout"][t, : n_source + t + 1] = rolled[t, : n_source + t + 1]
        return cross

    def store(self, method: str, t: int, gradients: Sequence[torch.Tensor | None], vectors) -> None:
        """Σ over the vector (and over the batch) of gradient · vector, for the source and the
        read target tokens."""
        for part, (gradient, vector) in enumerate(zip(gradients, vectors, strict=True)):
            if gradient is None:  # the output does not depend on these tokens
                values = np.zeros(vector.shape[1])
            else:
                values = as_numpy((gradient * vector).sum(0).sum(-1))  # (n,)
            if part == 0:
                self.scores[method][t, : self.n_source] = values
            else:
                self.scores[method][t, self.n_source : self.n_source + t + 1] = values[: t + 1]

    def integrated_gradients(self, baseline_logprob: np.ndarray, gap: np.ndarray) -> int:
        """Fills the scores, ``baseline_logprob`` and the completeness ``gap`` of the chosen
        steps; the number of points it took."""
        model, inputs, chosen = self.model, self.inputs, self.chosen
        x_source, x_target = self.x_source, self.x_target
        base_source, base_target = baseline_vectors(model, inputs, self.settings.baseline, x_source, x_target)
        with torch.no_grad():
            at_baseline, _, _ = forward(
                model, inputs, self.interventions, source_vectors=base_source, target_vectors=base_target
            )
        baseline_logprob[chosen] = as_numpy(at_baseline[0, chosen])
        difference = self.logprob[chosen] - baseline_logprob[chosen]
        # a model with kinks (ReLU) along the path needs more nodes than a smooth one: double
        # them, up to REFINEMENTS times, until the scores sum to f(x) − f(x') within 1 %
        points = self.settings.ig_steps
        for refinement in range(REFINEMENTS + 1):
            nodes, weights = np.polynomial.legendre.leggauss(points)
            alphas = torch.tensor((nodes + 1) / 2, dtype=x_source.dtype, device=x_source.device)[
                :, None, None
            ]
            node_weights = torch.tensor(weights / 2, dtype=x_source.dtype, device=x_source.device)  # sum to 1
            path = (
                (base_source + alphas * (x_source - base_source)).requires_grad_(),  # (n, S, E) on [x', x]
                (base_target + alphas * (x_target - base_target)).requires_grad_(),  # (n, T, E)
            )
            with differentiable():
                path_logprob, _, _ = forward(
                    model,
                    inputs.expanded(points),
                    self.interventions,
                    source_vectors=path[0],
                    target_vectors=path[1],
                )  # (n, T)
            for t in chosen:
                weighted = (path_logprob[:, t] * node_weights).sum()  # ∫ f_t along the path, as a sum
                gradients = torch.autograd.grad(weighted, path, retain_graph=True, allow_unused=True)
                self.store(
                    "integrated_gradients", t, gradients, (x_source - base_source, x_target - base_target)
                )
                self.advance(f"integrated gradients, step {t + 1} ({points} points)")
            del path_logprob
            sums = np.nansum(self.scores["integrated_gradients"][chosen], axis=1)
            gap[chosen] = np.abs(sums - difference) / np.maximum(np.abs(difference), 1e-6)
            if gap[chosen].max() <= COMPLETENESS or refinement == REFINEMENTS:
                return points
            points *= 2
            self.total += len(chosen)
        return points

    def occlusion(self) -> str:
        """Fills the occlusion scores; what it did to each source token: "unk" or "remove"."""
        unk = getattr(self.model.tokenizer, "unk_id", None)
        mode = self.settings.occlusion if unk is not None else "remove"
        src_ids, n_source = self.src_ids, self.n_source
        if mode == "unk":
            occluded = [[*src_ids[:i], unk, *src_ids[i + 1 :]] for i in range(n_source)]
        else:  # a one-token source has nothing left to read: occlusion says nothing
            occluded = [[*src_ids[:i], *src_ids[i + 1 :]] for i in range(n_source)] if n_source > 1 else []
        changed = np.full((n_source, self.n_target), np.nan)
        with torch.no_grad():
            for start in range(0, len(occluded), OCCLUSION_CHUNK):
                rows = occluded[start : start + OCCLUSION_CHUNK]
                batch = Inputs(
                    torch.tensor(rows, device=self.model.device),
                    self.inputs.tgt_in.expand(len(rows), -1),
                    self.inputs.targets,
                )
                occluded_logprob, _, _ = forward(self.model, batch, self.interventions)  # (rows, T)
                changed[start : start + len(rows)] = as_numpy(occluded_logprob)
                self.check_cancelled()
        for t in self.chosen:
            self.scores["occlusion"][t, :n_source] = self.logprob[t] - changed[:, t]
        self.advance("occlusion")
        return mode

    def agreement(self, cross: np.ndarray) -> dict[str, np.ndarray]:
        """method → [T, L, H] Spearman of each cross-attention head's row with the method's source
        scores (their magnitudes for the signed methods)."""
        layers, heads = cross.shape[:2]
        agreement = {}
        for method in self.methods:
            if method in ("attention_head", "attention_layer"):
                continue
            per_head = np.full((self.n_target, layers, heads), np.nan)
            for t in self.chosen:
                values = self.scores[method][t, : self.n_source]
                values = np.abs(values) if method in SIGNED else values
                for layer, head in np.ndindex(layers, heads):
                    per_head[t, layer, head] = spearman(cross[layer, head, t], values)
            agreement[method] = per_head
        return agreement
