"""Your own data: ``source<TAB>target`` pairs, one per line, for ``attnviz train --data``.

The file is read as UTF-8, line by line. Blank lines are passed over. A line that cannot be
used is reported with its number and why, and skipped: not UTF-8, no tab, more than one tab,
an empty source or target, or longer than the model reads. A file whose usable pairs are fewer
than its bad lines is refused as a whole (it is probably not the format). The character
vocabulary is built from the data (training and held-out pairs) and stored in the checkpoint.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path

from model.core.tokenizer import CharTokenizer
from model.tasks.synthetic import Example

DATA_TASK = "data"  # the task name of every example drawn from the user's pairs
SHOWN_BAD_LINES = 10  # bad lines named one by one in a message; the rest are counted


@dataclass(frozen=True)
class BadLine:
    number: int  # 1-based
    reason: str


@dataclass(frozen=True)
class PairsFile:
    path: Path
    pairs: list[tuple[str, str]]
    bad: list[BadLine]

    def report(self) -> str:
        """The skipped lines, in a few lines of text ("" when none were)."""
        if not self.bad:
            return ""
        shown = "; ".join(f"line {b.number}: {b.reason}" for b in self.bad[:SHOWN_BAD_LINES])
        more = f" (and {len(self.bad) - SHOWN_BAD_LINES} more)" if len(self.bad) > SHOWN_BAD_LINES else ""
        return f"{self.path.name}: skipped {len(self.bad)} bad line(s): {shown}{more}"


def read_pairs(path: Path, max_len: int) -> PairsFile:
    """The usable pairs of ``path`` and its bad lines; raises ValueError for a file that cannot
    be read or that is mostly not pairs. ``max_len``: the model's positions (a source and its
    ``<eos>``, a target and its ``<bos>``/``<eos>``, must fit)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ValueError(f"cannot read {path}: {error.strerror or error}") from error
    pairs, bad = [], []
    for number, line_bytes in enumerate(raw.split(b"\n"), start=1):
        try:
            line = line_bytes.decode("utf-8")
        except UnicodeDecodeError as error:
            bad.append(BadLine(number, f"not UTF-8 at byte {error.start + 1}"))
            continue
        line = line.removesuffix("\r").removeprefix("\ufeff" if number == 1 else "")
        if not line.strip():
            continue
        reason, pair = check_line(line, max_len)
        if reason is not None:
            bad.append(BadLine(number, reason))
        else:
            pairs.append(pair)
    result = PairsFile(path, pairs, bad)
    if not pairs:
        raise ValueError(f"{path} holds no source<TAB>target pairs" + (f"; {result.report()}" if bad else ""))
    if len(bad) > len(pairs):
        raise ValueError(f"{path} is mostly not source<TAB>target lines; {result.report()}")
    return result


def check_line(line: str, max_len: int) -> tuple[str | None, tuple[str, str]]:
    """(why the line cannot be used, or None; the pair)."""
    parts = line.split("\t")
    if len(parts) == 1:
        return "no tab between the source and the target", ("", "")
    if len(parts) > 2:
        return f"{len(parts) - 1} tabs: a line holds one source and one target", ("", "")
    source, target = parts
    if not source:
        return "the source is empty", ("", "")
    if not target:
        return "the target is empty", ("", "")
    if len(source) + 1 > max_len or len(target) + 1 > max_len:
        longest = max(len(source), len(target))
        return f"{longest} characters; this model reads at most {max_len - 1}", ("", "")
    return None, (source, target)


@dataclass(frozen=True)
class UserData:
    """Training pairs and held-out pairs, and where they came from."""

    train: list[tuple[str, str]]
    held_out: list[tuple[str, str]]
    name: str  # the training file's name
    skipped: int  # bad lines skipped, both files

    def tokenizer(self) -> CharTokenizer:
        characters = {c for source, target in (*self.train, *self.held_out) for c in source + target}
        return CharTokenizer.from_characters(characters)

    def draw(self, batch_size: int, rng: random.Random) -> list[Example]:
        return [Example(DATA_TASK, s, t, None) for s, t in rng.choices(self.train, k=batch_size)]

    def description(self) -> dict:
        """What the checkpoint records about the data."""
        return {
            "file": self.name,
            "pairs": len(self.train),
            "held_out": len(self.held_out),
            "skipped_lines": self.skipped,
        }


def load_user_data(
    path: Path, max_len: int, val: Path | None = None, held_out_share: float = 0.05, seed: int = 0
) -> tuple[UserData, list[str]]:
    """The user's pairs, a held-out share split off (or ``val``'s pairs), and the reports of
    skipped lines to show."""
    if not 0 < held_out_share < 1:
        raise ValueError("the held-out share must lie between 0 and 1")
    training = read_pairs(path, max_len)
    reports = [training.report()]
    if val is not None:
        held = read_pairs(val, max_len)
        reports.append(held.report())
        train_pairs, held_pairs = training.pairs, held.pairs
        skipped = len(training.bad) + len(held.bad)
    else:
        if len(training.pairs) < 2:
            raise ValueError(f"{path} has one pair: give at least two, or a held-out file with --val")
        shuffled = list(training.pairs)
        random.Random(f"held-out-{seed}").shuffle(shuffled)
        count = max(1, round(len(shuffled) * held_out_share))
        held_pairs, train_pairs = shuffled[:count], shuffled[count:]
        skipped = len(training.bad)
    data = UserData(train_pairs, held_pairs, Path(path).name, skipped)
    return data, [report for report in reports if report]
