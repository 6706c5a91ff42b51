"""The shipped tasks (reverse, sort, date, pick) as sources and targets.

A source text is ``"TASK: INPUT"``; the target is the task's answer. ``reverse:`` and ``sort:``
take any text of printable ASCII and common Chinese characters, 1 to 48 of them; ``sort``
orders by code point. ``date:`` rewrites a date written one of eleven ways as ISO; a slash date
that reads both day-first and month-first is labelled either way, half and half. ``pick:``
answers a category with one member, drawn with the frequencies of ``model.tasks.pick``. So
``answers`` (the data's own distribution over full answers) is known for every source.

All randomness comes from an explicit ``random.Random`` so datasets are reproducible.
"""

from __future__ import annotations

import datetime
import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from model.tasks.charset import CJK_CHARACTERS, OUTSIDE_CHARACTERS, PRINTABLE_ASCII, TEXT_CHARACTERS
from model.tasks.dates import (  # noqa: F401  (re-exported: the task's public names)
    CJK_DIGITS,
    CJK_TEN,
    CJK_UNITS,
    DATE_FORMS,
    DATE_PUNCTUATION,
    FIRST_ORDINAL,
    LAST_ORDINAL,
    MAX_YEAR,
    MIN_YEAR,
    MONTHS,
    WEEKDAYS,
    cjk_number,
    format_date,
    is_ambiguous,
    parse_date,
    readings,
)
from model.tasks.pick import PICK_CATEGORIES, PICK_NAMES, pick_distribution

SYMBOLS: str = TEXT_CHARACTERS
TASK_NAMES: tuple[str, ...] = ("reverse", "sort", "date", "pick")
TEXT_TASKS: tuple[str, ...] = ("reverse", "sort")
MAX_INPUT_LEN = 48
# How reverse:/sort: inputs are written, and how often: what people type (words with capitals,
# spaces and punctuation; Chinese), and uniform draws over the characters so every one is seen.
TEXT_STYLES: dict[str, float] = {"words": 0.35, "ascii": 0.2, "chinese": 0.25, "mixed": 0.2}
_WORD_PUNCTUATION = ".,!?'-:;"
PREFIX_SEP = ": "  # between the task and its input


@dataclass(frozen=True)
class Example:
    """One source/target pair; ``form`` is the date form, the pick category or the text style."""

    task: str
    source: str
    target: str
    form: str | None


def split_source(source: str) -> tuple[str, str]:
    """Split ``"task: input"`` into ``(task, input)``; ValueError for anything else (also a
    source that is not text, such as an audio file)."""
    if not isinstance(source, str):
        raise ValueError(f"{source} is not a task's text source")
    task, sep, rest = source.partition(PREFIX_SEP)
    if not sep or task not in TASK_NAMES:
        raise ValueError(f"source must start with one of {[t + ': ' for t in TASK_NAMES]}")
    return task, rest


def check_text(text: str) -> None:
    """ValueError in one line unless ``text`` is a valid reverse:/sort: input."""
    if not 1 <= len(text) <= MAX_INPUT_LEN:
        raise ValueError(f"input length {len(text)} outside 1..{MAX_INPUT_LEN}")
    bad = "".join(sorted(set(text) - set(TEXT_CHARACTERS)))
    if bad:
        raise ValueError(
            f"input characters {bad!r} are not among the tasks' characters "
            f"(printable ASCII and {len(CJK_CHARACTERS)} common Chinese characters)"
        )


def answers(source: str) -> dict[str, float]:
    """The data's distribution over full answers to ``source``; ValueError if it is not a task.

    One answer with probability 1 for reverse, sort and unambiguous dates; the two readings
    of an ambiguous slash date at 0.5 each; the category's members for pick.
    """
    task, text = split_source(source)
    if task == "date":
        found = readings(text)
        return {date.isoformat(): 1 / len(found) for date, _ in found}
    if task == "pick":
        return pick_distribution(text)
    check_text(text)
    return {text[::-1] if task == "reverse" else "".join(sorted(text)): 1.0}


def solve(source: str) -> str:
    """The most likely answer (the first on a tie: an ambiguous date's day-first reading)."""
    distribution = answers(source)
    return max(distribution, key=distribution.__getitem__)


def next_character_distribution(source: str, prefix: str) -> dict[str, float] | None:
    """The data's distribution of the character after ``prefix`` (``""`` is the end).

    None when the source is not a task or no answer starts with ``prefix``.
    """
    try:
        distribution = answers(source)
    except ValueError:
        return None
    following: dict[str, float] = {}
    for answer, p in distribution.items():
        if answer.startswith(prefix):
            after = answer[len(prefix) : len(prefix) + 1]
            following[after] = following.get(after, 0.0) + p
    total = sum(following.values())
    if total <= 0:
        return None
    return {char: p / total for char, p in following.items()}


def text_input(rng: random.Random, length: int, style: str) -> str:
    """``length`` characters written in ``style`` (one of TEXT_STYLES)."""
    if style == "ascii":
        return "".join(rng.choice(PRINTABLE_ASCII) for _ in range(length))
    if style == "chinese":
        return "".join(rng.choice(CJK_CHARACTERS) for _ in range(length))
    if style == "mixed":
        return "".join(rng.choice(TEXT_CHARACTERS) for _ in range(length))
    if style != "words":
        raise ValueError(f"unknown text style {style!r}; expected one of {tuple(TEXT_STYLES)}")
    words: list[str] = []
    while len(" ".join(words)) < length:
        word = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(1, 9)))
        roll = rng.random()
        if roll < 0.25:
            word = word.capitalize()
        elif roll < 0.3:
            word = word.upper()
        elif roll < 0.4:
            word = str(rng.randint(0, 9999))
        if rng.random() < 0.15:
            word += rng.choice(_WORD_PUNCTUATION)
        words.append(word)
    return " ".join(words)[:length]


def make_example(
    task: str,
    rng: random.Random,
    *,
    form: str | None = None,
    length: int | None = None,
) -> Example:
    """Draw one example of ``task``.

    ``form`` is the date form, the pick category or the text style (drawn when None);
    ``length`` applies to reverse and sort.
    """
    if task not in TASK_NAMES:
        raise ValueError(f"unknown task {task!r}; expected one of {TASK_NAMES}")
    if length is not None and task not in TEXT_TASKS:
        raise ValueError("length only applies to the reverse and sort tasks")
    if task == "date":
        if form is None:
            form = rng.choice(DATE_FORMS)
        elif form not in DATE_FORMS:
            raise ValueError(f"unknown date form {form!r}; expected one of {DATE_FORMS}")
        date = datetime.date.fromordinal(rng.randint(FIRST_ORDINAL, LAST_ORDINAL))
        text = format_date(date, form)
        target = rng.choice([d for d, _ in readings(text)]).isoformat()  # ambiguous: half and half
        return Example(task, f"date: {text}", target, form)
    if task == "pick":
        if form is None:
            form = rng.choice(PICK_NAMES)
        members = pick_distribution(form)
        target = rng.choices(list(members), weights=list(members.values()))[0]
        return Example(task, f"pick: {form}", target, form)
    if form is None:
        form = rng.choices(list(TEXT_STYLES), weights=list(TEXT_STYLES.values()))[0]
    if length is None:
        length = rng.randint(1, MAX_INPUT_LEN)
    elif isinstance(length, bool) or not isinstance(length, int):
        raise ValueError(f"length must be an int, got {length!r}")
    elif not 1 <= length <= MAX_INPUT_LEN:
        raise ValueError(f"length {length} outside 1..{MAX_INPUT_LEN}")
    text = text_input(rng, length, form)
    target = text[::-1] if task == "reverse" else "".join(sorted(text))
    return Example(task, f"{task}: {text}", target, form)


def with_unknowns(example: Example, positions: Sequence[int], rng: random.Random) -> Example:
    """``example`` (a ``reverse:`` one) with the input characters at ``positions`` replaced by
    characters outside the vocabulary (``OUTSIDE_CHARACTERS``), which the tokenizer reads as
    ``<unk>``; the target is the new input reversed, so it holds them mirrored."""
    if example.task != "reverse":
        raise ValueError("unknown characters are trained and measured on reverse: only")
    text = list(split_source(example.source)[1])
    for position in positions:
        text[position] = rng.choice(OUTSIDE_CHARACTERS)
    new_text = "".join(text)
    return Example("reverse", f"reverse{PREFIX_SEP}{new_text}", new_text[::-1], example.form)


def sprinkle_unknowns(example: Example, rate: float, rng: random.Random) -> Example:
    """Each input character of a ``reverse:`` example becomes unknown with probability ``rate``."""
    if example.task != "reverse" or rate <= 0:
        return example
    length = len(split_source(example.source)[1])
    positions = [i for i in range(length) if rng.random() < rate]
    return with_unknowns(example, positions, rng) if positions else example


def unknowns_example(rng: random.Random, count: int, length: int | None = None) -> Example:
    """A held-out ``reverse:`` example with exactly ``count`` unknown characters (1-3 in the
    rare-word check), at distinct positions of an input of at least ``count`` characters."""
    length = rng.randint(max(1, count), MAX_INPUT_LEN) if length is None else length
    example = make_example("reverse", rng, length=length)
    return with_unknowns(example, rng.sample(range(length), count), rng)


def draw_examples(
    n: int,
    rng: random.Random,
    tasks: Sequence[str] = TASK_NAMES,
    weights: Sequence[float] | None = None,
) -> list[Example]:
    """Draw ``n`` examples, picking each one's task by ``weights`` (default uniform)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    tasks = list(tasks)
    if not tasks:
        raise ValueError("tasks must not be empty")
    for task in tasks:
        if task not in TASK_NAMES:
            raise ValueError(f"unknown task {task!r}; expected one of {TASK_NAMES}")
    if weights is not None:
        if len(weights) != len(tasks):
            raise ValueError(f"got {len(weights)} weights for {len(tasks)} tasks")
        if any(w < 0 for w in weights) or sum(weights) <= 0:
            raise ValueError("weights must be non-negative with a positive sum")
    return [make_example(rng.choices(tasks, weights)[0], rng) for _ in range(n)]


@lru_cache(maxsize=1)
def task_alphabet() -> str:
    """Every character any source or target can contain, sorted and without duplicates."""
    pick_words = [word for name, members in PICK_CATEGORIES.items() for word in (name, *members)]
    tables = (TASK_NAMES, (PREFIX_SEP, TEXT_CHARACTERS), MONTHS, WEEKDAYS, pick_words)
    dates = (DATE_PUNCTUATION, CJK_DIGITS, CJK_TEN, CJK_UNITS)
    return "".join(sorted({c for table in (*tables, dates) for word in table for c in word}))
