"""What attribution, head importance and the logit lens answer: plain data, no torch.

The Attribution, Head importance and Logit lens pages draw these on the GUI thread;
``model.attribution.methods``, ``heads`` and ``logit_lens`` compute them on the worker.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Literal

import numpy as np

from model.tasks.coverage import TRAINED_ON
from model.tasks.synthetic import TASK_NAMES

if TYPE_CHECKING:
    from model.interface import ModelFamily

ATTENTION_METHODS = ("attention_head", "attention_layer", "rollout")
GRADIENT_METHODS = ("gradient_x_input", "integrated_gradients")
METHODS = (*ATTENTION_METHODS, *GRADIENT_METHODS, "occlusion")
SIGNED = frozenset((*GRADIENT_METHODS, "occlusion"))
# integrated gradients' completeness: |Σ scores − (f(x) − f(x'))| / |f(x) − f(x')| to reach, and
# how many times the number of points may double to reach it (32 → 256); here, beside the
# result, so that the page can say why it used more points than it was asked for
COMPLETENESS = 0.01
REFINEMENTS = 3


# -- attribution (model.attribution.methods) -------------------------------------------------
@dataclass(frozen=True)
class AttributionSettings:
    layer: int | None = None  # the chosen head's layer (decoder layer, 0-based); None: the last
    head: int = 0
    ig_steps: int = 32  # quadrature nodes of integrated gradients
    occlusion: Literal["unk", "remove"] = "unk"
    baseline: Literal["pad", "zero"] = "pad"  # integrated gradients' starting point
    methods: tuple[str, ...] = METHODS

    def __post_init__(self) -> None:
        unknown = set(self.methods) - set(METHODS)
        if unknown:
            raise ValueError(f"unknown attribution methods {sorted(unknown)}; known: {', '.join(METHODS)}")
        if not 1 <= self.ig_steps <= 1024:
            raise ValueError("integrated gradients needs 1 to 1024 steps")
        if self.occlusion not in ("unk", "remove"):
            raise ValueError("occlusion is 'unk' or 'remove'")
        if self.baseline not in ("pad", "zero"):
            raise ValueError("the integrated-gradients baseline is 'pad' or 'zero'")


@dataclass(frozen=True)
class Attribution:
    source_tokens: list[str]  # [S]
    read_tokens: list[str]  # [T] what the decoder read at each step: <bos>, then the outputs before
    output_tokens: list[str]  # [T] what it wrote
    output_ids: np.ndarray  # [T]
    steps: tuple[int, ...]  # the steps computed; other rows are NaN
    logprob: np.ndarray  # [T] f_t
    baseline_logprob: np.ndarray  # [T] f_t at the integrated-gradients baseline (NaN if not computed)
    scores: dict[str, np.ndarray]  # method → [T, S + T]
    agreement: dict[str, np.ndarray]  # method → [T, L, H] (cross-attention heads)
    settings: AttributionSettings
    layer: int | None  # the chosen head's layer, resolved (None without attention)
    unavailable: dict[str, str] = field(default_factory=dict)  # method → why this model has none
    occlusion_mode: str = "unk"  # what occlusion did: "unk" or "remove"
    ig_steps_used: int = 0  # integrated gradients' points after refinement (0: not computed)
    completeness_gap: np.ndarray | None = None  # [T] |Σ IG − (f(x) − f(x'))| / |f(x) − f(x')|

    @property
    def n_source(self) -> int:
        return len(self.source_tokens)

    def source_scores(self, method: str, step: int) -> np.ndarray:
        """[S] a method's scores of the source tokens at ``step``."""
        return self.scores[method][step, : self.n_source]

    def target_scores(self, method: str, step: int) -> np.ndarray:
        """[step + 1] a method's scores of the tokens read up to ``step``."""
        return self.scores[method][step, self.n_source : self.n_source + step + 1]

    def to_json(self) -> dict:
        """Plain data: every computed step, NaN written as null."""

        def plain(values: np.ndarray) -> list:
            return [None if not np.isfinite(v) else float(v) for v in np.asarray(values, dtype=float)]

        steps = []
        for t in self.steps:
            steps.append(
                {
                    "step": t,
                    "token": self.output_tokens[t],
                    "token_id": int(self.output_ids[t]),
                    "logprob": float(self.logprob[t]),
                    "baseline_logprob": plain([self.baseline_logprob[t]])[0],
                    "completeness_gap": (
                        plain([self.completeness_gap[t]])[0] if self.completeness_gap is not None else None
                    ),
                    "source": {m: plain(self.source_scores(m, t)) for m in self.scores},
                    "target": {m: plain(self.target_scores(m, t)) for m in self.scores},
                    "agreement": {m: [plain(row) for row in self.agreement[m][t]] for m in self.agreement},
                }
            )
        return {
            "source_tokens": self.source_tokens,
            "read_tokens": self.read_tokens,
            "output_tokens": self.output_tokens,
            "settings": asdict(self.settings)
            | {"layer": self.layer, "occlusion": self.occlusion_mode, "ig_steps_used": self.ig_steps_used},
            "unavailable": self.unavailable,
            "steps": steps,
        }


# -- head importance (model.attribution.heads) ------------------------------------------------
Head = tuple[str, int, int]  # (kind, layer, head), as ``Interventions.zeroed_heads`` names one


@dataclass(frozen=True)
class Sample:
    """The pairs importance is measured on.

    ``target_ids``: each reference as the token ids the decoder should write, ``<eos>`` included
    where the reference ends (an output the model cut off at its length limit has none).
    """

    sources: list[str]
    references: list[str]
    reference_kind: str  # "task": the tasks' answers; "model": the model's own greedy outputs
    target_ids: tuple[tuple[int, ...], ...]

    @classmethod
    def of_texts(
        cls, model: ModelFamily, sources: Sequence[str], references: Sequence[str], kind: str
    ) -> Sample:
        """References given as text: each ends with ``<eos>``."""
        tokenizer = model.tokenizer
        ids = tuple((*tokenizer.encode(text).ids, tokenizer.eos_id) for text in references)
        return cls(list(sources), list(references), kind, ids)

    def __post_init__(self) -> None:
        if not self.sources or not len(self.sources) == len(self.references) == len(self.target_ids):
            raise ValueError("give as many references as sources, at least one")
        if any(not ids for ids in self.target_ids):
            raise ValueError("a reference has no tokens")


@dataclass(frozen=True)
class HeadImportance:
    kinds: tuple[str, ...]  # the kinds measured, in the family's order
    titles: dict[str, str]  # kind → its title
    ll_drop: dict[str, np.ndarray]  # kind → [L, H] nats per sequence
    exact_match: dict[str, np.ndarray]  # kind → [L, H] share with that head zeroed
    base_ll: float  # mean log-likelihood per sequence, nothing zeroed
    base_exact_match: float
    sample: Sample
    prune_order: tuple[Head, ...]  # least important first
    prune_exact_match: np.ndarray  # [N + 1] with the k least important heads zeroed
    prune_ll: np.ndarray  # [N + 1]

    @property
    def n(self) -> int:
        return len(self.sample.sources)

    def pruned(self, k: int) -> frozenset[Head]:
        """The k least important heads."""
        return frozenset(self.prune_order[:k])

    def most_important(self, count: int = 3) -> list[tuple[Head, float]]:
        """The heads whose removal costs most log-likelihood, with that cost."""
        ranked = [(head, self.drop(head)) for head in reversed(self.prune_order)]
        return ranked[:count]

    def drop(self, head: Head) -> float:
        kind, layer, index = head
        return float(self.ll_drop[kind][layer, index])

    def to_json(self) -> dict:
        return {
            "n": self.n,
            "reference_kind": self.sample.reference_kind,
            "base_log_likelihood": self.base_ll,
            "base_exact_match": self.base_exact_match,
            "kinds": {
                kind: {
                    "title": self.titles[kind],
                    "log_likelihood_drop": self.ll_drop[kind].tolist(),
                    "exact_match": self.exact_match[kind].tolist(),
                }
                for kind in self.kinds
            },
            "prune": {
                "order": [list(head) for head in self.prune_order],
                "exact_match": self.prune_exact_match.tolist(),
                "log_likelihood": self.prune_ll.tolist(),
            },
            "sources": self.sample.sources,
            "references": self.sample.references,
        }


def tasks_of(metadata: object) -> list[str]:
    """``model_tasks`` from a model's metadata (what the window knows of a model)."""
    description = metadata.get(TRAINED_ON) if isinstance(metadata, dict) else None
    tasks = description.get("tasks") if isinstance(description, dict) else None
    if not isinstance(tasks, list):
        return []
    return [task for task in tasks if task in TASK_NAMES and task != "pick"]


# -- the logit lens (model.attribution.logit_lens) --------------------------------------------
@dataclass(frozen=True)
class LogitLens:
    step: int  # 0-based output step
    read_tokens: list[str]  # what the decoder read up to this step: <bos>, then the outputs before
    written: str  # the token the model wrote at this step
    written_id: int
    top_ids: np.ndarray  # [L, k] the k most likely tokens after each layer, most likely first
    top_tokens: list[list[str]]  # [L][k]
    top_probs: np.ndarray  # [L, k]
    written_probs: np.ndarray  # [L] the written token's probability after each layer
    written_ranks: np.ndarray  # [L] its rank (1 = the most likely)

    @property
    def layers(self) -> int:
        return len(self.top_tokens)

    def first_layer_with_answer(self) -> int | None:
        """The first layer (0-based) from which on the written token stays the most likely."""
        first = None
        for layer in range(self.layers):
            if self.written_ranks[layer] == 1:
                first = layer if first is None else first
            else:
                first = None
        return first


@dataclass(frozen=True)
class LogitLensGrid:
    """The lens at every step of an output at once (``model.attribution.logit_lens.logit_lens_grid``):
    for decoder layer l and step t, what the model would have written at t had it stopped
    after layer l."""

    read_tokens: list[str]  # [T] what the decoder read at each step: <bos>, then the outputs before
    written: list[str]  # [T] the token the model wrote at each step
    written_ids: np.ndarray  # [T]
    top_ids: np.ndarray  # [L, T, k] the k most likely tokens after each layer, most likely first
    top_tokens: list[list[list[str]]]  # [L][T][k]
    top_probs: np.ndarray  # [L, T, k]
    written_probs: np.ndarray  # [L, T] the written token's probability after each layer
    written_ranks: np.ndarray  # [L, T] its rank (1 = the most likely)

    @property
    def layers(self) -> int:
        return self.written_probs.shape[0]

    @property
    def steps(self) -> int:
        return self.written_probs.shape[1]

    def at(self, step: int) -> LogitLens:
        """The lens at one step, as ``logit_lens`` gives it."""
        return LogitLens(
            step=step,
            read_tokens=self.read_tokens[: step + 1],
            written=self.written[step],
            written_id=int(self.written_ids[step]),
            top_ids=self.top_ids[:, step],
            top_tokens=[layer[step] for layer in self.top_tokens],
            top_probs=self.top_probs[:, step],
            written_probs=self.written_probs[:, step],
            written_ranks=self.written_ranks[:, step],
        )
