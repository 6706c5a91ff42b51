"""How well a model does the shipped tasks, on fresh, seeded held-out examples.

* reverse and sort: exact match, overall and per input length (1-8, 9-16, ..., 41-48);
* date: exact match on unambiguous inputs, overall and per form; on ambiguous slash dates,
  the share of outputs that are one of the two readings (and which one greedy decoding takes);
* pick: the total variation distance between the model's distribution over answers (every
  member's sequence probability, and what is left for answers that are not members) and the
  data's.

``TARGETS`` holds the shipped model's targets, so the report says which are met.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial

import torch
import torch.nn.functional as F

from model.core.batching import training_batch
from model.core.progress import report
from model.core.tokenizer import CharTokenizer
from model.generation.engine import greedy_texts
from model.interface import ModelFamily
from model.tasks.synthetic import (
    DATE_FORMS,
    MAX_INPUT_LEN,
    PICK_NAMES,
    TASK_NAMES,
    TEXT_TASKS,
    Example,
    answers,
    is_ambiguous,
    make_example,
    pick_distribution,
    split_source,
    unknowns_example,
)
from model.transformer.greedy import greedy_decode_batch
from model.transformer.model import Transformer

LENGTH_BUCKETS: tuple[tuple[int, int], ...] = tuple((lo, lo + 7) for lo in range(1, MAX_INPUT_LEN, 8))
AMBIGUOUS = "date ambiguous"
# reverse: of inputs with 1-3 characters outside the vocabulary, exact after each output <unk>
# is filled with the source character cross-attention points at (model.generation.unknown_copy)
UNKNOWNS = "reverse unknown"
UNKNOWN_COUNTS = (1, 2, 3)
SLASH_FORMS = ("dd/mm/yyyy", "mm/dd/yyyy")
# key -> (lowest accuracy, or highest distance for "pick/…"); "/*" applies to every such key
TARGETS: dict[str, float] = {
    "reverse": 0.99,
    "sort": 0.99,
    "reverse/41-48": 0.97,
    "sort/41-48": 0.97,
    "date": 0.99,
    "date/*": 0.97,
    AMBIGUOUS: 0.99,
    UNKNOWNS: 0.95,
    "pick/*": 0.05,
}

Decode = Callable[[list[str]], list[str]]
Score = Callable[[list[str], list[str]], list[float]]  # log p(target + <eos> | source)


@torch.no_grad()
def sequence_logprobs(
    model: Transformer, tokenizer: CharTokenizer, sources: Sequence[str], targets: Sequence[str]
) -> list[float]:
    """log p(target, then <eos> | source) of each pair, teacher-forced in one batch."""
    device = next(model.parameters()).device
    batch = training_batch(tokenizer, sources, targets, device)
    logits = model(batch.src, batch.tgt_in, batch.src_pad, batch.tgt_pad)  # (B, T, V)
    token_loss = F.cross_entropy(
        logits.transpose(1, 2), batch.tgt_out, ignore_index=tokenizer.pad_id, reduction="none"
    )  # (B, T), 0 at padding
    return (-token_loss.sum(1)).tolist()


def family_logprobs(model: ModelFamily, sources: Sequence[str], targets: Sequence[str]) -> list[float]:
    """``sequence_logprobs`` for any family, through its teacher-forced pass."""
    import numpy as np

    from model.probes.teacher_forcing import teacher_force_batch

    if not model.info.capabilities.teacher_forcing:
        raise ValueError(f"{model.info.display_name} cannot score a given answer")
    result = []
    for source, target in zip(sources, targets, strict=True):
        item = teacher_force_batch(model, [source], [target])[0]
        result.append(-float(np.nansum(item.loss)))
    return result


@dataclass
class EvalReport:
    n_per_task: int
    seed: int
    correct: dict[str, int] = field(default_factory=dict)  # keyed by task, "task/length", "date/<form>"
    total: dict[str, int] = field(default_factory=dict)
    distances: dict[str, float] = field(default_factory=dict)  # "pick/<category>": total variation
    model_distributions: dict[str, dict[str, float]] = field(default_factory=dict)  # pick category ->
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (source, expected, got)

    def count(self, key: str, ok: bool) -> None:
        self.total[key] = self.total.get(key, 0) + 1
        self.correct[key] = self.correct.get(key, 0) + bool(ok)

    def accuracy(self, key: str) -> float:
        return self.correct.get(key, 0) / max(self.total.get(key, 0), 1)

    def rows(self) -> list[tuple[str, float, int]]:
        """Each task, then its lengths (shortest first) or forms (in DATE_FORMS order)."""
        return [(key, self.accuracy(key), self.total[key]) for key in sorted(self.total, key=row_order)]

    def target_of(self, key: str) -> float | None:
        if key in TARGETS:
            return TARGETS[key]
        head, _, rest = key.partition("/")
        if head in ("date", "pick") and rest:  # every date form, every pick category
            return TARGETS[f"{head}/*"]
        return None

    def met(self, key: str) -> bool | None:
        """Whether ``key`` meets its target (None when it has none)."""
        target = self.target_of(key)
        if target is None:
            return None
        if key in self.distances:
            return self.distances[key] <= target
        return self.accuracy(key) >= target

    def all_met(self) -> bool:
        keys = [*self.total, *self.distances]
        return all(self.met(key) is not False for key in keys)

    def table(self) -> str:
        def mark(key: str) -> str:
            return {None: "", True: "  ok", False: "  BELOW TARGET"}[self.met(key)]

        lines = [f"{'task':<32} {'exact match':>11} {'n':>6}"]
        for key, accuracy, total in self.rows():
            lines.append(f"{key:<32} {accuracy * 100:>10.1f}% {total:>6}{mark(key)}")
        if self.distances:
            lines.append("")
            lines.append(f"{'pick: category':<32} {'TV distance':>11}  model p / data p")
            for key, distance in self.distances.items():
                category = key.split("/", 1)[1]
                truth = pick_distribution(category)
                model_p = self.model_distributions.get(category, {})
                pairs = " ".join(f"{m} {model_p.get(m, 0):.2f}/{p:.2f}" for m, p in truth.items())
                lines.append(f"{key:<32} {distance:>11.3f}{mark(key)}  {pairs}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        result: dict = {key: {"accuracy": acc, "n": n} for key, acc, n in self.rows()}
        for key, distance in self.distances.items():
            category = key.split("/", 1)[1]
            result[key] = {
                "total_variation": distance,
                "model": self.model_distributions.get(category, {}),
                "data": pick_distribution(category),
            }
        return result


def row_order(key: str) -> tuple:
    task, _, rest = key.partition("/")
    place = TASK_NAMES.index(task) if task in TASK_NAMES else len(TASK_NAMES)
    if task == UNKNOWNS:
        place = TASK_NAMES.index("reverse") + 0.5  # after reverse's lengths
    if not rest:
        return (place, task, -1, "")
    if rest in DATE_FORMS:
        return (place, task, DATE_FORMS.index(rest), rest)
    first = rest.split("-", 1)[0]
    return (place, task, int(first) if first.isdigit() else len(DATE_FORMS), rest)


def length_key(task: str, length: int) -> str:
    for lo, hi in LENGTH_BUCKETS:
        if lo <= length <= hi:
            return f"{task}/{lo}-{hi}"
    return f"{task}/{length}"


def held_out_examples(
    n_per_task: int, seed: int, tasks: Sequence[str] = TASK_NAMES, per_form: bool = False
) -> list[Example]:
    """Examples from a stream the training never draws from (string-seeded, not step-seeded).

    reverse and sort: ``n_per_task`` each. date: ``n_per_task`` unambiguous inputs cycling
    through the forms (``per_form``: that many of every form), then ``n_per_task`` ambiguous
    slash dates (form ``"ambiguous"``). pick is scored by probabilities, not drawn.
    """
    rng = random.Random(f"held-out-{seed}")
    examples = []
    for task in tasks:
        if task in TEXT_TASKS:
            examples += [make_example(task, rng) for _ in range(n_per_task)]
        elif task == "date":
            count = n_per_task * len(DATE_FORMS) if per_form else n_per_task
            for i in range(count):
                form = DATE_FORMS[i % len(DATE_FORMS)]
                example = make_example("date", rng, form=form)
                while is_ambiguous(split_source(example.source)[1]):
                    example = make_example("date", rng, form=form)
                examples.append(example)
            for i in range(n_per_task):
                example = make_example("date", rng, form=SLASH_FORMS[i % 2])
                while not is_ambiguous(split_source(example.source)[1]):
                    example = make_example("date", rng, form=SLASH_FORMS[i % 2])
                examples.append(Example("date", example.source, example.target, "ambiguous"))
    return examples


def pick_distances(score: Score) -> tuple[dict[str, float], dict[str, dict[str, float]]]:
    """Per category: the total variation distance between the model's answers and the data's."""
    import math

    sources, targets = [], []
    for category in PICK_NAMES:
        for member in pick_distribution(category):
            sources.append(f"pick: {category}")
            targets.append(member)
    logprobs = dict(zip(zip(sources, targets, strict=True), score(sources, targets), strict=True))
    distances, model_distributions = {}, {}
    for category in PICK_NAMES:
        truth = pick_distribution(category)
        model_p = {m: math.exp(logprobs[(f"pick: {category}", m)]) for m in truth}
        elsewhere = max(0.0, 1.0 - sum(model_p.values()))  # mass on answers that are no member
        distances[f"pick/{category}"] = 0.5 * (sum(abs(model_p[m] - p) for m, p in truth.items()) + elsewhere)
        model_distributions[category] = model_p
    return distances, model_distributions


def evaluate(
    model: Transformer,
    tokenizer: CharTokenizer,
    n_per_task: int = 1000,
    seed: int = 0,
    batch_size: int = 250,
    tasks: Sequence[str] = TASK_NAMES,
    per_form: bool = False,
) -> EvalReport:
    """A module being trained (``model/tasks/train.py``): a Transformer or an RNN, batched."""
    from model.rnn.model import RNNSeq2Seq
    from model.rnn.model import greedy_decode_batch as rnn_greedy_decode_batch

    greedy = rnn_greedy_decode_batch if isinstance(model, RNNSeq2Seq) else greedy_decode_batch
    was_training = model.training
    model.eval()
    report = evaluate_with(
        fitting(lambda sources: greedy(model, tokenizer, sources), tokenizer, model.config.max_len),
        lambda sources, targets: sequence_logprobs(model, tokenizer, sources, targets),
        n_per_task,
        seed,
        batch_size,
        tasks,
        per_form,
    )
    model.train(was_training)
    return report


def evaluate_pairs(
    model: torch.nn.Module,
    tokenizer: CharTokenizer,
    pairs: Sequence[tuple[str, str]],
    task: str = "data",
    batch_size: int = 250,
) -> EvalReport:
    """Greedy exact match on given (source, target) pairs (``attnviz train --data``'s held-out
    pairs), under one row, ``task``."""
    from model.rnn.model import RNNSeq2Seq
    from model.rnn.model import greedy_decode_batch as rnn_greedy_decode_batch

    greedy = rnn_greedy_decode_batch if isinstance(model, RNNSeq2Seq) else greedy_decode_batch
    was_training = model.training
    model.eval()
    report = EvalReport(len(pairs), 0)
    for start in range(0, len(pairs), batch_size):
        chunk = pairs[start : start + batch_size]
        outputs = greedy(model, tokenizer, [source for source, _ in chunk])
        for (source, target), output in zip(chunk, outputs, strict=True):
            report.count(task, output == target)
            if output != target and len(report.failures) < 20:
                report.failures.append((source, target, output))
    model.train(was_training)
    return report


def evaluate_model(
    model: ModelFamily,
    n_per_task: int = 1000,
    seed: int = 0,
    batch_size: int = 250,
    tasks: Sequence[str] = TASK_NAMES,
    per_form: bool = True,
) -> EvalReport:
    """Any loaded model (``attnviz eval``), through ``greedy_texts``: its family's batched
    decoder, or the engine."""

    def score(sources: list[str], targets: list[str]) -> list[float]:
        return family_logprobs(model, sources, targets)

    decode = fitting(partial(greedy_texts, model), model.tokenizer, model.info.max_source_len)
    result = evaluate_with(decode, score, n_per_task, seed, batch_size, tasks, per_form)
    if "reverse" in tasks and model.info.alignment_kind is not None:
        evaluate_unknowns(model, n_per_task, seed, result)
    return result


def unknowns_examples(n: int, seed: int) -> list[tuple[int, Example]]:
    """``n`` held-out ``reverse:`` examples with 1, 2 or 3 unknown characters (a third each),
    each with its count; a stream of its own, so the other tasks' examples stay as they were."""
    rng = random.Random(f"held-out-unknowns-{seed}")
    counts = [UNKNOWN_COUNTS[i % len(UNKNOWN_COUNTS)] for i in range(n)]
    return [(count, unknowns_example(rng, count)) for count in counts]


def evaluate_unknowns(model: ModelFamily, n: int, seed: int, result: EvalReport) -> None:
    """Count, into ``result``, exact match of greedy ``reverse:`` with unknown characters after
    copying by attention: each example is stepped with its attention captured, and its output
    read with every ``<unk>`` filled (``GenerationSnapshot.output_text``)."""
    from model.generation.engine import GenerationEngine

    examples = unknowns_examples(n, seed)
    for index, (count, example) in enumerate(examples):
        if index % 25 == 0:
            report(index / len(examples), "decoding reverse: with unknown characters")
        if len(model.tokenizer.encode_source(example.source).ids) > model.info.max_source_len:
            output = TOO_LONG
        else:
            engine = GenerationEngine(model, example.source)
            engine.run_to_end()
            output = engine.snapshot().output_text()
        ok = output == example.target
        result.count(UNKNOWNS, ok)
        result.count(f"{UNKNOWNS}/{count}", ok)
        if not ok:
            result.failures.append((example.source, example.target, output))
    report(1.0, "done")


TOO_LONG = "(longer than the model's maximum length)"


def fitting(decode: Decode, tokenizer, max_source_len: int) -> Decode:
    """``decode`` for the sources the model can read; the others fail with ``TOO_LONG``."""

    def decode_fitting(sources: list[str]) -> list[str]:
        fits = [len(tokenizer.encode_source(source).ids) <= max_source_len for source in sources]
        decoded = iter(decode([s for s, ok in zip(sources, fits, strict=True) if ok]) if any(fits) else [])
        return [next(decoded) if ok else TOO_LONG for ok in fits]

    return decode_fitting


def evaluate_with(
    decode: Decode,
    score: Score | None,
    n_per_task: int,
    seed: int,
    batch_size: int,
    tasks: Sequence[str],
    per_form: bool = False,
) -> EvalReport:
    """Exact match of ``decode``'s greedy outputs on the held-out examples; pick by ``score``."""
    examples = held_out_examples(n_per_task, seed, tasks, per_form)
    result = EvalReport(n_per_task, seed)
    scored = "pick" in tasks and score is not None
    # the work, for whoever shows progress: each example decoded, then pick:'s answers scored
    work = len(examples) + (sum(len(pick_distribution(c)) for c in PICK_NAMES) if scored else 0)
    for start in range(0, len(examples), batch_size):
        report(start / work, "decoding held-out examples")
        chunk = examples[start : start + batch_size]
        outputs = decode([ex.source for ex in chunk])
        for example, output in zip(chunk, outputs, strict=True):
            if example.form == "ambiguous":
                result.count(AMBIGUOUS, output in answers(example.source))
                result.count(f"{AMBIGUOUS}/day first", output == next(iter(answers(example.source))))
                continue
            ok = output == example.target
            result.count(example.task, ok)
            if example.task in TEXT_TASKS:
                result.count(length_key(example.task, len(example.target)), ok)
            elif example.form:
                result.count(f"{example.task}/{example.form}", ok)
            if not ok:
                result.failures.append((example.source, example.target, output))
    if scored:
        report(len(examples) / work, "scoring pick:'s answers")
        result.distances, result.model_distributions = pick_distances(score)
    report(1.0, "done")
    return result
