"""The date task's written forms: formatting, and reading a written date back.

Eleven forms, English and Chinese. Two of them, ``dd/mm/yyyy`` and ``mm/dd/yyyy``, are written
the same way, so ``03/04/2026`` has two readings (3 April, 4 March) whenever the day and the
month are both 12 or less and differ; ``readings`` returns every valid one.
"""

from __future__ import annotations

import datetime
import re

DATE_FORMS: tuple[str, ...] = (
    "day_month_year",
    "month_day_year",
    "mon_day_year",
    "day_mon_year",
    "dd/mm/yyyy",
    "mm/dd/yyyy",
    "yyyy.mm.dd",
    "yyyy-mm-dd",
    "weekday_day_month_year",
    "cjk_digits",
    "cjk_numerals",
)
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

FIRST_ORDINAL = datetime.date(MIN_YEAR, 1, 1).toordinal()
LAST_ORDINAL = datetime.date(MAX_YEAR, 12, 31).toordinal()


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
        "mm/dd/yyyy": f"{m:02d}/{day:02d}/{y:04d}",
        "yyyy.mm.dd": f"{y:04d}.{m:02d}.{day:02d}",
        "yyyy-mm-dd": d.isoformat(),
        "weekday_day_month_year": f"{WEEKDAYS[d.weekday()]}, {day} {month} {y}",
        "cjk_digits": f"{y}年{m}月{day}日",
        "cjk_numerals": "".join(CJK_DIGITS[int(c)] for c in f"{y:04d}")
        + f"年{cjk_number(m)}月{cjk_number(day)}日",
    }
    if form not in formats:
        raise ValueError(f"unknown date form {form!r}; expected one of {DATE_FORMS}")
    return formats[form]


# Apart from the two slash forms (which share one pattern and are told apart only by their
# values), the patterns are mutually exclusive; the exact spelling (padding, weekday) is then
# checked by re-formatting.
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
        "mm/dd/yyyy": r"(?P<m>[0-9]{2})/(?P<d>[0-9]{2})/(?P<y>[0-9]{4})",
        "yyyy.mm.dd": r"(?P<y>[0-9]{4})\.(?P<m>[0-9]{2})\.(?P<d>[0-9]{2})",
        "yyyy-mm-dd": r"(?P<y>[0-9]{4})-(?P<m>[0-9]{2})-(?P<d>[0-9]{2})",
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


def _reading(text: str, form: str, match: re.Match[str]) -> datetime.date:
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
    return date


def readings(text: str) -> list[tuple[datetime.date, str]]:
    """Every valid reading of a written date as (date, form), day-first before month-first.

    Two readings only for a slash date whose day and month are both 12 or less and differ;
    ValueError (naming the first problem) when there is none.
    """
    found: list[tuple[datetime.date, str]] = []
    problem: ValueError | None = None
    for form, pattern in _DATE_PATTERNS.items():
        match = pattern.fullmatch(text)
        if match is None:
            continue
        try:
            date = _reading(text, form, match)
        except ValueError as exc:
            problem = problem or exc
            continue
        if all(date != seen for seen, _ in found):
            found.append((date, form))
    if found:
        return found
    raise problem or ValueError(f"unrecognized date format {text!r}")


def parse_date(text: str) -> tuple[datetime.date, str]:
    """The first reading of a written date (see ``readings``) and its form id."""
    return readings(text)[0]


def is_ambiguous(text: str) -> bool:
    try:
        return len(readings(text)) > 1
    except ValueError:
        return False
