"""The model-family interface: what every encoder-decoder the app can run describes and does.

A family (our Transformer, later an RNN with attention, Hugging Face models) is one class
that subclasses ``ModelFamily`` and one recogniser registered in ``model.registry``. Nothing
outside the family's package names it: the engine, the probes, the session, the views and
the panels work from the description (``FamilyInfo``) and the methods below.

This module imports no torch (only for type hints), so that the window can hold a model's
description before torch is loaded.

What a family describes (``FamilyInfo``):

- ``kinds``: its kinds of attention, each with layers × heads and which side its queries
  and keys come from. A kind whose queries are source positions is computed once per source
  by ``encode``; a kind whose queries are decoder positions is computed one query row per
  ``step``. The name of a kind is the key of its arrays in records and traces. Each kind
  says how its scores are made (``ScoreFunction``: QKᵀ ÷ √d_k, vᵀ tanh(W s + U h), s · h ...),
  stage by stage, in its own words; the Masks page draws those stages from its own tensors.
- ``capabilities``: what it can show beyond attention weights (``Capabilities``); each
  concept panel declares the capabilities it needs and says why when a model lacks them.

What a family does: ``encode`` a source, ``start`` a decoder cache, ``step`` one token from
the cache (with or without capture), ``step_batch`` a batch of hypotheses (beam search),
``teacher_force`` a padded batch of targets in one pass, and apply what-ifs
(``Interventions``) in all of them.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal, Protocol

from model.source import PreparedSource, Source, prepare_text

if TYPE_CHECKING:
    import torch

Side = Literal["source", "target"]
StageAxis = Literal["query", "key", "dim"]  # a query position, a key position, a feature of a vector
PositionalScheme = Literal["sinusoidal", "learned", "relative_bias", "none"]
NormKind = Literal["layernorm", "rmsnorm", "none"]
# the what-ifs a family may support, by the name of their field in ``Interventions``
WHAT_IFS = (
    "no_positional",
    "no_scaling",
    "no_causal_mask",
    "zeroed_heads",
    "uniform_attention",
    "attend_only",
    "no_attention",
)


@dataclass(frozen=True)
class Interventions:
    """What-ifs applied live to the same weights. The default changes nothing.

    A family applies those its ``Capabilities.what_ifs`` names and ignores the rest (the
    session never asks a model for one it lacks).
    """

    no_positional: bool = False  # add no positional encoding: attention becomes order-blind
    no_scaling: bool = False  # skip ÷√d_k: softmax saturates
    no_causal_mask: bool = False  # decoder may see the future (only meaningful teacher-forced)
    zeroed_heads: frozenset[tuple[str, int, int]] = field(default_factory=frozenset)
    # each entry (kind, layer, head), kind a name of the family's kinds: that head's output is zeroed
    # attention that weighs the source without looking at it (the RNN's, issue 14):
    uniform_attention: bool = False  # every source position weighted 1/S
    attend_only: int | None = None  # all the weight on this source position (0-based)
    no_attention: bool = False  # the context is zero: the decoder sees no source through attention

    def is_zeroed(self, kind: str, layer: int, head: int) -> bool:
        return (kind, layer, head) in self.zeroed_heads

    @property
    def active(self) -> bool:
        return self != Interventions()

    def limited_to(self, what_ifs: frozenset[str]) -> Interventions:
        """These what-ifs without those not named in ``what_ifs`` (a model that lacks them)."""
        return replace(
            self, **{name: getattr(NO_INTERVENTIONS, name) for name in WHAT_IFS if name not in what_ifs}
        )


NO_INTERVENTIONS = Interventions()


# the stages every score function has under these names: the scores the mask applies to,
# and those scores multiplied by the scale (a family that scales them)
RAW_STAGE, SCALED_STAGE = "raw", "scaled"


@dataclass(frozen=True)
class ScoreStage:
    """One step of how a kind of attention makes its scores, before the mask and the softmax.

    ``"raw"`` is the scores the family records (``AttentionMatrices.scores``), ``"scaled"``
    those times the scale; any other name is an array the family records beside them
    (``AttentionMatrices.parts``), [layer, head, *axes]."""

    name: str
    symbol: str  # the stage in a formula, and in the line that follows a cell: "QKᵀ", "W s"
    # above its plot, in English, two lines: "QKᵀ<br>(raw scores)"; a stage with one query's
    # array (three axes) says where with "{query}", which the page fills in ("query 4 'o'")
    title: str
    axes: tuple[StageAxis, ...] = ("query", "key")  # its array's axes after [layer, head]


@dataclass(frozen=True)
class ScoreFunction:
    """How a kind of attention scores every key for a query, in the family's own words.

    The Masks page shows these stages, then the mask, the masked scores and the softmax;
    its explanation starts with ``explanation`` and its scale line names ``scale``."""

    name: str  # "scaled dot product"
    explanation: str  # rich text, in English: the formula and what each stage does
    stages: tuple[ScoreStage, ...]  # in order; "raw" among them, "scaled" after it if scaled
    scale: str = ""  # the scale's name where the scores are multiplied by one ("1/√d_k"); "" if not

    def __post_init__(self) -> None:
        names = [stage.name for stage in self.stages]
        if RAW_STAGE not in names or len(set(names)) != len(names):
            raise ValueError(f"{self.name}: the stages need one {RAW_STAGE!r} and distinct names")
        if (SCALED_STAGE in names) != self.scaled:
            raise ValueError(f"{self.name}: a {SCALED_STAGE!r} stage goes with a scale, and only with one")
        for stage in self.stages:
            if stage.name in (RAW_STAGE, SCALED_STAGE) and stage.axes != ("query", "key"):
                raise ValueError(f"{self.name}: the scores are [query, key]")
            if len(stage.axes) not in (2, 3) or (len(stage.axes) == 3 and stage.axes[0] != "query"):
                raise ValueError(f"{self.name}: {stage.name} must be two axes, or a query's two")

    @property
    def scaled(self) -> bool:
        return bool(self.scale)

    def stage(self, name: str) -> ScoreStage:
        return next(stage for stage in self.stages if stage.name == name)

    @property
    def parts(self) -> tuple[str, ...]:
        """The names of the arrays recorded beside the scores."""
        return tuple(s.name for s in self.stages if s.name not in (RAW_STAGE, SCALED_STAGE))


@dataclass(frozen=True)
class AttentionKind:
    """One kind of attention: a stack of layers × heads from one side to another."""

    name: str  # key of its arrays: "enc_self", "dec_self", "cross", "alignment", ...
    title: str  # shown on its tab: "Cross-attention"
    layers: int
    heads: int
    queries: Side  # "source": computed by encode; "target": one row per decoding step
    keys: Side
    causal: bool = False  # keys after the query are hidden (a decoder's self-attention)
    score: ScoreFunction | None = None  # how its scores are made (required with ``Capabilities.scores``)

    @property
    def per_step(self) -> bool:
        """Its query rows are computed one decoding step at a time."""
        return self.queries == "target"


@dataclass(frozen=True)
class Capabilities:
    """What a family can show beyond attention weights. The default is "nothing more"."""

    scores: bool = False  # raw pre-softmax scores and the masks applied to them (each kind's
    # ``score`` says how they are made: Q·Kᵀ, vᵀ tanh(W s + U h), ...)
    scaling: bool = False  # the scores are divided by √d_k (or √d)
    positional: PositionalScheme = "none"  # how order enters the model
    norm: NormKind = "none"  # the normalisation around its sublayers
    norm_placement: Literal["post", "pre"] = "post"  # LN(x + F(x)) as in the paper, or x + F(LN(x))
    norm_stats: bool = False  # per-token statistics before and after each norm are recorded
    what_ifs: frozenset[str] = frozenset()  # names of ``WHAT_IFS`` it applies
    gradients: bool = False  # its forward pass can be differentiated (attribution)
    logit_lens: bool = False  # the decoder's layers can be read off through its output layer
    teacher_forcing: bool = True  # ``teacher_force`` runs a target in one pass
    padded_batch: bool = False  # ``teacher_force`` takes a padded batch of several sources

    def supports(self, what_if: str) -> bool:
        return what_if in self.what_ifs


# the trace's own arrays (model/generation/trace.py); no kind may take one of these names
TRACE_NAMES = frozenset(
    ("probs", "model_probs", "src_ids", "input_ids", "out_ids", "forced", "step_seconds")
    + ("target_ids", "predictions", "loss")
)


@dataclass(frozen=True)
class FamilyInfo:
    """A loaded model's description: plain data, safe to hand to the GUI thread."""

    family: str  # the family's registry name: "transformer"
    display_name: str  # "Transformer (Vaswani et al. 2017)"
    kinds: tuple[AttentionKind, ...]  # empty for a model without attention (then ``without_attention``)
    max_source_len: int  # tokens the encoder reads, special tokens included
    max_target_len: int  # tokens the decoder writes, <eos> included
    capabilities: Capabilities = field(default_factory=Capabilities)
    config: dict = field(default_factory=dict)  # the family's own settings, JSON-able, for traces
    parameters: int = 0  # number of parameters
    d_model: int = 0  # width of the token vectors (what a positional table's rows hold)
    extras: dict[str, str] = field(default_factory=dict)  # recorded extras → what they hold
    # what the views say instead of a heatmap, for a model with no kind of attention
    without_attention: str = ""
    # a speech model's heads whose attention over the source times the words ((layer, head),
    # 0-based: its ``generation_config.alignment_heads``); () where it names none
    alignment_heads: tuple[tuple[int, int], ...] = ()
    prompt_length: int = 0  # output positions the model's own prompt fills (Whisper: language, task, …)

    def kind(self, name: str) -> AttentionKind:
        for kind in self.kinds:
            if kind.name == name:
                return kind
        known = ", ".join(k.name for k in self.kinds)
        raise ValueError(f"this model has no attention kind {name!r}; it has {known}")

    def __post_init__(self) -> None:
        """Kinds and extras name arrays in records and traces: they must not collide."""
        names = [kind.name for kind in self.kinds]
        if not names and not self.without_attention:
            raise ValueError(f"{self.display_name}: a model without attention must say what it has instead")
        if len(set(names)) != len(names):
            raise ValueError(f"{self.display_name}: kinds of attention must have distinct names")
        if self.capabilities.scores and any(kind.score is None for kind in self.kinds):
            raise ValueError(f"{self.display_name}: a model that records scores says how each kind made them")
        extras = {f"{side}_{name}" for name in self.extras for side in ("enc", "dec")}
        for name in names:
            if not name.isidentifier() or name in TRACE_NAMES or name in extras:
                raise ValueError(f"{self.display_name}: {name!r} cannot name a kind (a trace array has it)")

    def resolve_kind(self, name: str) -> str | None:
        """The kind ``name`` means for this model: a kind's own name, or one of the words
        ``encoder`` (its first kind over source positions), ``decoder`` (its first causal
        kind) and ``cross`` (its attention over the source); None if it has no such kind."""
        if self.has_kind(name):
            return name
        if name == "encoder":
            found = next((k for k in self.kinds if k.queries == "source"), None)
        elif name == "decoder":
            found = next((k for k in self.kinds if k.causal), None)
        elif name == "cross":
            found = self.alignment_kind
        else:
            found = None
        return found.name if found is not None else None

    @property
    def kind_names(self) -> tuple[str, ...]:
        return tuple(kind.name for kind in self.kinds)

    def has_kind(self, name: str) -> bool:
        return name in self.kind_names

    @property
    def alignment_kind(self) -> AttentionKind | None:
        """The decoder's attention over the source (the Transformer's cross-attention), which
        aligns output to input; the first such kind, or None."""
        return next((k for k in self.kinds if k.queries == "target" and k.keys == "source"), None)

    def layers_of(self, side: Side) -> int:
        """Layers of the encoder ("source") or the decoder ("target"): its kinds' most."""
        return max((k.layers for k in self.kinds if k.queries == side), default=0)

    @property
    def has_attention(self) -> bool:
        return bool(self.kinds)

    @property
    def max_layers(self) -> int:
        """The most layers of any kind; 0 without attention."""
        return max((kind.layers for kind in self.kinds), default=0)

    @property
    def max_heads(self) -> int:
        """The most heads of any kind; 0 without attention."""
        return max((kind.heads for kind in self.kinds), default=0)


class Encoded(Protocol):
    ids: list[int]
    unknown: list[tuple[int, str]]  # (position in the text, character) of each unknown piece


class Tokenizer(Protocol):
    """What the engine and the views need of a tokenizer."""

    pad_id: int
    bos_id: int  # what the decoder reads first
    eos_id: int

    def __len__(self) -> int: ...
    def encode(self, text: str) -> Encoded: ...
    def encode_source(self, text: str) -> Encoded: ...  # as the encoder reads it (with <eos>)
    def decode(self, ids: Sequence[int], *, stop_at_eos: bool = True) -> str: ...
    def token_text(self, token_id: int) -> str: ...  # a token's label in views and traces


# -- what the work returns: tensors, turned into numpy records by the engine ------------
@dataclass
class EncodeOutput:
    """``encode`` of one or more sources."""

    state: Any  # the family's own encoder output, handed back to start/step/teacher_force
    pad_mask: torch.Tensor  # (B, S) bool, True at padding
    scale: float = 1.0  # what the scores were multiplied by before the mask and softmax
    attention: dict[str, torch.Tensor] = field(default_factory=dict)  # kind → (B, L, H, S, S)
    scores: dict[str, torch.Tensor] = field(default_factory=dict)  # kind → (B, L, H, S, S) raw
    # kind → its score function's other stages (``ScoreFunction.parts``) → (B, L, H, *axes)
    parts: dict[str, dict[str, torch.Tensor]] = field(default_factory=dict)
    extras: dict[str, torch.Tensor] = field(default_factory=dict)  # name → (B, ..., S)


@dataclass
class StepOutput:
    """One decoding step for one source: the new query's rows."""

    logits: torch.Tensor  # (V,)
    cache: Any  # the family's cache after this token
    attention: dict[str, torch.Tensor] = field(default_factory=dict)  # kind → (L, H, K)
    extras: dict[str, torch.Tensor] = field(default_factory=dict)  # name → (...) for this step


@dataclass
class TeacherForcedOutput:
    """A padded batch of targets decoded in one pass, as in training."""

    logits: torch.Tensor  # (B, T, V)
    attention: dict[str, torch.Tensor] = field(default_factory=dict)  # target-query kinds, (B, L, H, T, K)
    scores: dict[str, torch.Tensor] = field(default_factory=dict)  # raw scores where the family has them
    masks: dict[str, torch.Tensor] = field(default_factory=dict)  # kind → (B, T, K) bool, True = blocked
    scale: float = 1.0  # what the scores were multiplied by before the mask and softmax
    # kind → its score function's other stages (``ScoreFunction.parts``) → (B, L, H, *axes)
    parts: dict[str, dict[str, torch.Tensor]] = field(default_factory=dict)
    extras: dict[str, torch.Tensor] = field(default_factory=dict)  # name → (B, ..., T)


class ModelFamily(ABC):
    """A loaded model of one family, in eval mode on ``device``. See the module docstring."""

    info: FamilyInfo
    tokenizer: Tokenizer
    path: Any  # where it was opened from, or None
    notice: str | None = None  # e.g. "CUDA is not available; using CPU"
    metadata: dict  # free-form facts shown to the user (training recipe, accuracy)

    @property
    @abstractmethod
    def device(self) -> torch.device: ...

    @abstractmethod
    def to(self, device: torch.device) -> None:
        """Move the weights (the caller falls back to CPU if this raises)."""

    def prepare_source(self, source: Source) -> PreparedSource:
        """``source`` as this family's encoder reads it, with the axis of its positions; a
        ``SourceError`` says, in the family's words, why it cannot. The default, for text
        families: the tokenizer's ids, at most ``info.max_source_len`` of them."""
        return prepare_text(source, self.tokenizer, self.info.max_source_len, self.info.display_name)

    def source_batch(
        self, prepared: Sequence[PreparedSource], device: torch.device | str
    ) -> tuple[torch.Tensor, torch.Tensor] | None:
        """The encoder's input for prepared sources of another medium than text, and (B, S)
        True where a position is padding. None, the default (text families): their ids, padded
        to the longest (``model.core.batching.source_tensors`` does it)."""
        return None

    def prompt_token(self, position: int) -> tuple[int, ...] | None:
        """The tokens output position ``position`` is given by the model's own prompt (Whisper's
        language, task and no-timestamps; several where the model chooses among them, as for a
        language it detects), or None where the model generates freely (the default)."""
        return None

    @abstractmethod
    def encode(
        self, src: torch.Tensor, src_pad: torch.Tensor, interventions: Interventions, capture: bool = True
    ) -> EncodeOutput:
        """Run the encoder over ``src``, what ``source_batch`` made: (B, S) ids for text, the
        family's own features for other media; ``src_pad`` (B, S) True at padding."""

    @abstractmethod
    def start(self, encoded: EncodeOutput) -> Any:
        """An empty decoder cache for one source."""

    @abstractmethod
    def step(
        self, token_id: int, encoded: EncodeOutput, cache: Any, interventions: Interventions, capture: bool
    ) -> StepOutput:
        """Read ``token_id`` at the next position of one source (B = 1); one new query row."""

    @abstractmethod
    def truncate(self, cache: Any, length: int) -> Any:
        """The cache as it was after ``length`` tokens (used to step back); never in place."""

    @abstractmethod
    def step_batch(
        self,
        parents: Sequence[int],
        token_ids: Sequence[int],
        encoded: EncodeOutput,
        cache: Any,
        interventions: Interventions,
    ) -> tuple[torch.Tensor, Any]:
        """Beam search: hypothesis i continues ``cache`` row ``parents[i]`` with ``token_ids[i]``.

        ``cache`` is the one-source cache or a previous ``step_batch``'s; returns the
        (N, V) log-probabilities and the new batch cache.
        """

    @abstractmethod
    def teacher_force(
        self, encoded: EncodeOutput, tgt_in: torch.Tensor, tgt_pad: torch.Tensor, interventions: Interventions
    ) -> TeacherForcedOutput:
        """Decode the padded targets ``tgt_in`` (B, T) (``<bos>`` + target) in one pass."""

    def batched_greedy_texts(self, sources: Sequence[str]) -> list[str] | None:
        """Greedy outputs for many sources decoded together, for a family with a batched
        decoder (``attnviz eval`` decodes thousands). None, the default: the caller
        (``model.generation.engine.greedy_texts``) steps each source through the engine."""
        return None

    # multilingual models (NLLB, mBART-50, M2M100): the language codes their tokenizer knows
    languages: Sequence[str] = ()
    source_language: str | None = None
    target_language: str | None = None

    def set_languages(self, source: str | None = None, target: str | None = None) -> None:
        """Read the source as language ``source`` and write ``target`` (forced as the first
        token); a model with one language has none to set."""
        raise ValueError(f"{self.info.display_name} has no language codes to choose from")

    def positional_table(self) -> Any:
        """(positions, dims) what is added at each position, for families with absolute
        positions; None otherwise."""
        return None

    def relative_bias_curve(self, side: Side, distances: Any) -> tuple[Any, Any]:
        """Families with a learned relative position bias (T5): for each relative distance
        (key position − query position) in ``distances`` (n,), its bucket (n,) and each head's
        bias (H, n), for the encoder ("source") or the decoder ("target")."""
        raise NotImplementedError(f"{self.info.display_name} has no relative position bias")

    def relative_bias_matrix(self, side: Side, length: int) -> Any:
        """(H, length, length) the bias added to the scores of ``length`` positions."""
        raise NotImplementedError(f"{self.info.display_name} has no relative position bias")

    def relative_bias_settings(self) -> tuple[int, int]:
        """(number of buckets, max distance) of the relative position bias."""
        raise NotImplementedError(f"{self.info.display_name} has no relative position bias")

    def positional_layout(self) -> str:
        """How ``positional_table`` stores a sinusoid's sin and cos: "interleaved" (dims 2i and
        2i+1, as the paper writes it) or "halves" (all sines, then all cosines)."""
        return "interleaved"

    def norm_input_probe(self, src: torch.Tensor, src_pad: torch.Tensor, interventions: Interventions) -> Any:
        """(B, S, D) what the encoder's first norm normalises, for families with norms."""
        raise NotImplementedError(f"{self.info.display_name} has no norm to probe")

    def norm_layers(self) -> tuple[list[list[Any]], list[list[Any]]]:
        """Each encoder and decoder layer's norms (modules with ``weight`` and ``bias``), in
        sublayer order, for families with norms."""
        raise NotImplementedError(f"{self.info.display_name} has no norm")

    def embedding_modules(self) -> tuple[Any, Any]:
        """Families with ``Capabilities.gradients``: the modules whose outputs are the token
        vectors the encoder and the decoder read, (source, target), before positions are added
        (they may be one module, tied). Attribution replaces their outputs through hooks, one
        ``encode`` or ``teacher_force`` call at a time."""
        raise NotImplementedError(f"{self.info.display_name} cannot be differentiated")

    def logit_lens(self, encoded: EncodeOutput, tgt_in: torch.Tensor) -> torch.Tensor:
        """(B, L, T, V) the next-token logits read off after each decoder layer: the model's
        final norm (where it has one) and output projection applied to that layer's output;
        the last layer's equal ``teacher_force``'s. Families with ``Capabilities.logit_lens``."""
        raise NotImplementedError(f"{self.info.display_name} has no decoder layers to read")
