"""Tests for model.tasks: formats, solver, generators, determinism and alphabet."""

from __future__ import annotations

import datetime
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.tasks.synthetic import (
    DATE_FORMS,
    MAX_INPUT_LEN,
    SYMBOLS,
    TASK_NAMES,
    Example,
    cjk_number,
    draw_examples,
    format_date,
    make_example,
    solve,
    split_source,
    task_alphabet,
)

NOV_29_2026 = {
    "day_month_year": "29 November 2026",
    "month_day_year": "November 29, 2026",
    "mon_day_year": "Nov 29 2026",
    "day_mon_year": "29 Nov 2026",
    "dd/mm/yyyy": "29/11/2026",
    "yyyy.mm.dd": "2026.11.29",
    "weekday_day_month_year": "Sunday, 29 November 2026",
    "cjk_digits": "2026年11月29日",
    "cjk_numerals": "二〇二六年十一月二十九日",
}
JAN_1_1900 = {
    "day_month_year": "1 January 1900",
    "month_day_year": "January 1, 1900",
    "mon_day_year": "Jan 1 1900",
    "day_mon_year": "1 Jan 1900",
    "dd/mm/yyyy": "01/01/1900",
    "yyyy.mm.dd": "1900.01.01",
    "weekday_day_month_year": "Monday, 1 January 1900",
    "cjk_digits": "1900年1月1日",
    "cjk_numerals": "一九〇〇年一月一日",
}
DEC_31_2099 = {
    "day_month_year": "31 December 2099",
    "month_day_year": "December 31, 2099",
    "mon_day_year": "Dec 31 2099",
    "day_mon_year": "31 Dec 2099",
    "dd/mm/yyyy": "31/12/2099",
    "yyyy.mm.dd": "2099.12.31",
    "weekday_day_month_year": "Thursday, 31 December 2099",
    "cjk_digits": "2099年12月31日",
    "cjk_numerals": "二〇九九年十二月三十一日",
}
FIRST, LAST = datetime.date(1900, 1, 1), datetime.date(2099, 12, 31)
PINNED = [
    (datetime.date(2026, 11, 29), NOV_29_2026),
    (FIRST, JAN_1_1900),
    (LAST, DEC_31_2099),
]


def test_date_forms_order() -> None:
    assert tuple(NOV_29_2026) == DATE_FORMS
    assert TASK_NAMES == ("reverse", "sort", "date")


@pytest.mark.parametrize(("date", "table"), PINNED)
@pytest.mark.parametrize("form", DATE_FORMS)
def test_pinned_date_forms(date: datetime.date, table: dict[str, str], form: str) -> None:
    assert format_date(date, form) == table[form]
    assert solve(f"date: {table[form]}") == date.isoformat()


def test_pinned_reverse_and_sort() -> None:
    assert solve("reverse: attention") == "noitnetta"
    assert solve("sort: 31415926") == "11234569"
    assert solve("sort: b2a1") == "12ab"
    assert split_source("reverse: attention") == ("reverse", "attention")


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (1, "一"),
        (9, "九"),
        (10, "十"),
        (11, "十一"),
        (19, "十九"),
        (20, "二十"),
        (21, "二十一"),
        (29, "二十九"),
        (30, "三十"),
        (31, "三十一"),
    ],
)
def test_cjk_numbers(n: int, text: str) -> None:
    assert cjk_number(n) == text


def test_leap_years() -> None:
    assert solve("date: 29 February 2000") == "2000-02-29"
    assert solve("date: 二〇〇〇年二月二十九日") == "2000-02-29"
    assert solve("date: 29/02/2024") == "2024-02-29"
    for bad in ("29 February 1900", "29/02/1900", "1900年2月29日", "Feb 29 2023"):
        with pytest.raises(ValueError, match="invalid date"):
            solve(f"date: {bad}")


@pytest.mark.parametrize(
    "source",
    [
        "",
        "reverse",
        "reverse:abc",
        "Reverse: abc",
        "copy: abc",
        "reverse: ",
        "reverse: ABC",
        "sort: a b",
        "sort: " + "a" * (MAX_INPUT_LEN + 1),
        "date: 31 February 2026",
        "date: 31/04/2026",
        "date: 2026.13.01",
        "date: 0 May 2026",
        "date: 29 Nov 2026 ",
        "date: 29 november 2026",
        "date: 29 Nov. 2026",
        "date: 01 November 2026",
        "date: 1/1/2026",
        "date: Monday, 29 November 2026",
        "date: 29 November 1899",
        "date: 2100-01-01",
        "date: 二〇二六年一十一月二十九日",
        "date: 二〇二六年十一月三十二日",
        "date: tomorrow",
    ],
)
def test_solve_rejects(source: str) -> None:
    with pytest.raises(ValueError):
        solve(source)


def test_solve_error_is_one_line() -> None:
    for source in ("nope", "date: 30 February 2000", "sort: A"):
        with pytest.raises(ValueError) as info:
            solve(source)
        assert "\n" not in str(info.value) and str(info.value)


@pytest.mark.parametrize("task", TASK_NAMES)
def test_roundtrip_every_task(task: str) -> None:
    rng = random.Random(1234)
    for _ in range(300):
        ex = make_example(task, rng)
        assert ex.task == task
        assert solve(ex.source) == ex.target
        assert split_source(ex.source)[0] == task
        if task == "date":
            assert ex.form in DATE_FORMS
        else:
            assert ex.form is None
            assert 1 <= len(split_source(ex.source)[1]) <= MAX_INPUT_LEN


@pytest.mark.parametrize("form", DATE_FORMS)
def test_roundtrip_every_form(form: str) -> None:
    rng = random.Random(form)
    for _ in range(200):
        ex = make_example("date", rng, form=form)
        assert ex.form == form
        assert solve(ex.source) == ex.target
        year = int(ex.target[:4])
        assert 1900 <= year <= 2099


@settings(max_examples=150, deadline=None)
@given(st.dates(FIRST, LAST), st.sampled_from(DATE_FORMS))
def test_format_then_solve(date: datetime.date, form: str) -> None:
    assert solve(f"date: {format_date(date, form)}") == date.isoformat()


@pytest.mark.parametrize("length", [1, 2, 13, MAX_INPUT_LEN])
def test_explicit_length(length: int) -> None:
    rng = random.Random(length)
    for task in ("reverse", "sort"):
        ex = make_example(task, rng, length=length)
        text = split_source(ex.source)[1]
        assert len(text) == len(ex.target) == length
        assert set(text) <= set(SYMBOLS)


def test_lengths_cover_range() -> None:
    rng = random.Random(7)
    lengths = {len(make_example("reverse", rng).target) for _ in range(2000)}
    assert lengths == set(range(1, MAX_INPUT_LEN + 1))


def test_make_example_rejects() -> None:
    rng = random.Random(0)
    bad_kwargs = ({"length": 0}, {"length": MAX_INPUT_LEN + 1}, {"length": True}, {"form": "mon"})
    for kwargs in bad_kwargs:
        with pytest.raises(ValueError):
            make_example("reverse", rng, **kwargs)
    with pytest.raises(ValueError, match="unknown task"):
        make_example("copy", rng)
    with pytest.raises(ValueError, match="unknown date form"):
        make_example("date", rng, form="iso")
    with pytest.raises(ValueError):
        make_example("date", rng, length=5)


def test_determinism() -> None:
    a = draw_examples(200, random.Random(42))
    b = draw_examples(200, random.Random(42))
    c = draw_examples(200, random.Random(43))
    assert a == b
    assert a != c
    assert all(isinstance(ex, Example) for ex in a)


def test_draw_examples_weights() -> None:
    rng = random.Random(5)
    only_sort = draw_examples(50, rng, tasks=("reverse", "sort"), weights=(0, 1))
    assert {ex.task for ex in only_sort} == {"sort"}
    mixed = draw_examples(600, rng)
    assert {ex.task for ex in mixed} == set(TASK_NAMES)
    assert {ex.form for ex in mixed if ex.task == "date"} == set(DATE_FORMS)
    assert draw_examples(0, rng) == []
    for bad in ({"tasks": ()}, {"tasks": ("copy",)}, {"weights": (1, 2)}, {"weights": (0, 0, 0)}):
        with pytest.raises(ValueError):
            draw_examples(3, rng, **bad)


def test_alphabet() -> None:
    alphabet = task_alphabet()
    assert alphabet == "".join(sorted(set(alphabet)))
    assert set(SYMBOLS) <= set(alphabet)
    assert set("年月日十〇:,/.- ") <= set(alphabet)
    seen: set[str] = set()
    for ex in draw_examples(3000, random.Random(11)):
        seen |= set(ex.source) | set(ex.target)
    assert seen <= set(alphabet)
    for _date, table in PINNED:
        for text in table.values():
            assert set(text) <= set(alphabet)
