"""Synthetic seq2seq tasks (reverse, sort, date) for the character-level Transformer.

A source text is ``"TASK: INPUT"``; the target is the task's answer. All randomness
comes from an explicit ``random.Random`` so datasets are reproducible.
"""

from __future__ import annotations

import datetime
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

SYMBOLS: str = "abcdefghijklmnopqrstuvwxyz0123456789"
TASK_NAMES: tuple[str, ...] = ("reverse", "sort", "date")
DATE_FORMS: tuple[str, ...] = (
    "day_month_year",
    "month_day_year",
    "mon_day_year",
    "day_mon_year",
    "dd/mm/yyyy",
    "yyyy.mm.dd",
    "weekday_day_month_year",
    "cjk_digits",
    "cjk_numerals",
)
MAX_INPUT_LEN = 24
MIN_YEAR, MAX_YEAR = 1900, 2099

MONTHS: tuple[str, ...] = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
MONTH_ABBRS: tuple[str, ...] = tuple(m[:3] for m in MONTHS)
# Same order as datetime.date.weekday() (Monday == 0).
WEEKDAYS: tuple[str, ...] = (
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
)
CJK_DIGITS = "〇一二三四五六七八九"
CJK_TEN = "十"
CJK_UNITS = "年月日"
# Every punctuation/space character used by the written date forms and the ISO target.
DATE_PUNCTUATION = " ,/.-"
_PREFIX_SEP = ": "

_FIRST_ORDINAL = datetime.date(MIN_YEAR, 1, 1).toordinal()
_LAST_ORDINAL = datetime.date(MAX_YEAR, 12, 31).toordinal()


@dataclass(frozen=True)
class Example:
    """One source/target pair; ``form`` is the date form id for date examples."""

    task: str
    source: str
    target: str
    form: str | None


def cjk_number(n: int) -> str:
    """Chinese numeral for 1..99 as used for months and days (e.g. 21 -> 二十一)."""
    if not 1 <= n <= 99:
        raise ValueError(f"cjk_number supports 1..99, got {n}")
    tens, ones = divmod(n, 10)
    if tens == 0:
        return CJK_DIGITS[ones]
    head = "" if tens == 1 else CJK_DIGITS[tens]  # 十一, not 一十一
    return head + CJK_TEN + (CJK_DIGITS[ones] if ones else "")


def format_date(d: datetime.date, form: str) -> str:
    """Write ``d`` in the given date form (one of DATE_FORMS)."""
    y, m, day = d.year, d.month, d.day
    month, mon = MONTHS[m - 1], MONTH_ABBRS[m - 1]
    formats = {
        "day_month_year": f"{day} {month} {y}",
        "month_day_year": f"{month} {day}, {y}",
        "mon_day_year": f"{mon} {day} {y}",
        "day_mon_year": f"{day} {mon} {y}",
        "dd/mm/yyyy": f"{day:02d}/{m:02d}/{y:04d}",
        "yyyy.mm.dd": f"{y:04d}.{m:02d}.{day:02d}",
        "weekday_day_month_year": f"{WEEKDAYS[d.weekday()]}, {day} {month} {y}",
        "cjk_digits": f"{y}年{m}月{day}日",
        "cjk_numerals": "".join(CJK_DIGITS[int(c)] for c in f"{y:04d}")
        + f"年{cjk_number(m)}月{cjk_number(day)}日",
    }
    if form not in formats:
        raise ValueError(f"unknown date form {form!r}; expected one of {DATE_FORMS}")
    return formats[form]


# Patterns are mutually exclusive (full names vs abbreviations vs digits), so at most one
# form matches; the exact spelling (padding, weekday) is then checked by re-formatting.
_MONTH_RE = "|".join(MONTHS)
_MON_RE = "|".join(MONTH_ABBRS)
_CJK_NUM_RE = f"[{CJK_DIGITS[1:]}{CJK_TEN}]{{1,3}}"
_DATE_PATTERNS: dict[str, re.Pattern[str]] = {
    form: re.compile(pattern)
    for form, pattern in {
        "day_month_year": rf"(?P<d>[0-9]{{1,2}}) (?P<m>{_MONTH_RE}) (?P<y>[0-9]{{4}})",
        "month_day_year": rf"(?P<m>{_MONTH_RE}) (?P<d>[0-9]{{1,2}}), (?P<y>[0-9]{{4}})",
        "mon_day_year": rf"(?P<m>{_MON_RE}) (?P<d>[0-9]{{1,2}}) (?P<y>[0-9]{{4}})",
        "day_mon_year": rf"(?P<d>[0-9]{{1,2}}) (?P<m>{_MON_RE}) (?P<y>[0-9]{{4}})",
        "dd/mm/yyyy": r"(?P<d>[0-9]{2})/(?P<m>[0-9]{2})/(?P<y>[0-9]{4})",
        "yyyy.mm.dd": r"(?P<y>[0-9]{4})\.(?P<m>[0-9]{2})\.(?P<d>[0-9]{2})",
        "weekday_day_month_year": rf"(?P<w>{'|'.join(WEEKDAYS)}), (?P<d>[0-9]{{1,2}}) "
        rf"(?P<m>{_MONTH_RE}) (?P<y>[0-9]{{4}})",
        "cjk_digits": r"(?P<y>[0-9]{4})年(?P<m>[0-9]{1,2})月(?P<d>[0-9]{1,2})日",
        "cjk_numerals": rf"(?P<y>[{CJK_DIGITS}]{{4}})年(?P<m>{_CJK_NUM_RE})月(?P<d>{_CJK_NUM_RE})日",
    }.items()
}
_NAME_TO_NUM = {name: i + 1 for i, name in enumerate(MONTHS)} | {
    abbr: i + 1 for i, abbr in enumerate(MONTH_ABBRS)
}
_CJK_TO_NUM = {cjk_number(i): i for i in range(1, 32)}


def _field_value(text: str) -> int:
    """Number in a matched date field: arabic digits, month name, or CJK numerals."""
    if text.isascii() and text.isdigit():
        return int(text)
    if text in _NAME_TO_NUM:
        return _NAME_TO_NUM[text]
    if text in _CJK_TO_NUM:
        return _CJK_TO_NUM[text]
    if len(text) == 4 and all(c in CJK_DIGITS for c in text):  # year written digit by digit
        return int("".join(str(CJK_DIGITS.index(c)) for c in text))
    raise ValueError(f"unreadable date field {text!r}")


def parse_date(text: str) -> tuple[datetime.date, str]:
    """Parse a written date in any DATE_FORMS form; return the date and its form id."""
    for form, pattern in _DATE_PATTERNS.items():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        y, m, d = (_field_value(match[g]) for g in ("y", "m", "d"))
        try:
            date = datetime.date(y, m, d)
        except ValueError as exc:
            raise ValueError(f"invalid date {text!r}: {exc}") from None
        if not MIN_YEAR <= y <= MAX_YEAR:
            raise ValueError(f"year {y} outside {MIN_YEAR}..{MAX_YEAR} in {text!r}")
        if form == "weekday_day_month_year" and match["w"] != WEEKDAYS[date.weekday()]:
            raise ValueError(f"wrong weekday in {text!r}: {date} is a {WEEKDAYS[date.weekday()]}")
        if format_date(date, form) != text:  # e.g. unpadded "1/1/2000" or padded "01 May 2000"
            raise ValueError(f"non-canonical {form} date {text!r}")
        return date, form
    raise ValueError(f"unrecognized date format {text!r}")


def split_source(source: str) -> tuple[str, str]:
    """Split ``"task: input"`` into ``(task, input)``."""
    task, sep, rest = source.partition(_PREFIX_SEP)
    if not sep or task not in TASK_NAMES:
        raise ValueError(f"source must start with one of {[t + ': ' for t in TASK_NAMES]}")
    return task, rest


def _check_symbols(text: str) -> None:
    if not 1 <= len(text) <= MAX_INPUT_LEN:
        raise ValueError(f"input length {len(text)} outside 1..{MAX_INPUT_LEN}")
    bad = sorted(set(text) - set(SYMBOLS))
    if bad:
        raise ValueError(f"input characters {''.join(bad)!r} not in SYMBOLS (a-z, 0-9)")


def solve(source: str) -> str:
    """Return the correct target for a source text; ValueError if it is not a valid task."""
    task, text = split_source(source)
    if task == "date":
        return parse_date(text)[0].isoformat()
    _check_symbols(text)
    return text[::-1] if task == "reverse" else "".join(sorted(text))


def make_example(
    task: str, rng: random.Random, *, form: str | None = None, length: int | None = None
) -> Example:
    """Draw one example of ``task``; ``form`` applies to date, ``length`` to reverse/sort."""
    if task not in TASK_NAMES:
        raise ValueError(f"unknown task {task!r}; expected one of {TASK_NAMES}")
    if task == "date":
        if length is not None:
            raise ValueError("length only applies to the reverse and sort tasks")
        if form is None:
            form = rng.choice(DATE_FORMS)
        elif form not in DATE_FORMS:
            raise ValueError(f"unknown date form {form!r}; expected one of {DATE_FORMS}")
        date = datetime.date.fromordinal(rng.randint(_FIRST_ORDINAL, _LAST_ORDINAL))
        return Example(task, f"date: {format_date(date, form)}", date.isoformat(), form)
    if form is not None:
        raise ValueError("form only applies to the date task")
    if length is None:
        length = rng.randint(1, MAX_INPUT_LEN)
    elif isinstance(length, bool) or not isinstance(length, int):
        raise ValueError(f"length must be an int, got {length!r}")
    elif not 1 <= length <= MAX_INPUT_LEN:
        raise ValueError(f"length {length} outside 1..{MAX_INPUT_LEN}")
    text = "".join(rng.choice(SYMBOLS) for _ in range(length))
    target = text[::-1] if task == "reverse" else "".join(sorted(text))
    return Example(task, f"{task}: {text}", target, None)


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
    tables = (TASK_NAMES, (_PREFIX_SEP, SYMBOLS, "0123456789"), MONTHS, WEEKDAYS)
    cjk = (DATE_PUNCTUATION, CJK_DIGITS, CJK_TEN, CJK_UNITS)
    return "".join(sorted({c for table in (*tables, cjk) for word in table for c in word}))
