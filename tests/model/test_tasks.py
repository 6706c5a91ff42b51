"""Tests for model.tasks: formats, solver, generators, determinism and alphabet."""

from __future__ import annotations

import datetime
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model.tasks.charset import CJK_CHARACTERS, COMMON_CJK, PRINTABLE_ASCII
from model.tasks.pick import PICK_CATEGORIES
from model.tasks.synthetic import (
    DATE_FORMS,
    MAX_INPUT_LEN,
    PICK_NAMES,
    SYMBOLS,
    TASK_NAMES,
    TEXT_STYLES,
    Example,
    answers,
    cjk_number,
    draw_examples,
    format_date,
    is_ambiguous,
    make_example,
    next_character_distribution,
    readings,
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
    "mm/dd/yyyy": "11/29/2026",
    "yyyy.mm.dd": "2026.11.29",
    "yyyy-mm-dd": "2026-11-29",
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
    "mm/dd/yyyy": "01/01/1900",
    "yyyy.mm.dd": "1900.01.01",
    "yyyy-mm-dd": "1900-01-01",
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
    "mm/dd/yyyy": "12/31/2099",
    "yyyy.mm.dd": "2099.12.31",
    "yyyy-mm-dd": "2099-12-31",
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
    assert TASK_NAMES == ("reverse", "sort", "date", "pick")


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
        "reverse: caf\u00e9",
        "sort: a\tb",
        "reverse: \U0001f600",
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
    for source in ("nope", "date: 30 February 2000", "sort: \u00e9", "pick: vegetable"):
        with pytest.raises(ValueError) as info:
            solve(source)
        assert "\n" not in str(info.value) and str(info.value)


@pytest.mark.parametrize("task", TASK_NAMES)
def test_roundtrip_every_task(task: str) -> None:
    rng = random.Random(1234)
    for _ in range(300):
        ex = make_example(task, rng)
        assert ex.task == task
        assert ex.target in answers(ex.source)
        assert split_source(ex.source)[0] == task
        if task == "date":
            assert ex.form in DATE_FORMS
        elif task == "pick":
            assert ex.form in PICK_NAMES
        else:
            assert ex.form in TEXT_STYLES
            assert solve(ex.source) == ex.target
            assert 1 <= len(split_source(ex.source)[1]) <= MAX_INPUT_LEN


@pytest.mark.parametrize("form", DATE_FORMS)
def test_roundtrip_every_form(form: str) -> None:
    rng = random.Random(form)
    for _ in range(200):
        ex = make_example("date", rng, form=form)
        assert ex.form == form
        assert ex.target in answers(ex.source)
        year = int(ex.target[:4])
        assert 1900 <= year <= 2099


@settings(max_examples=150, deadline=None)
@given(st.dates(FIRST, LAST), st.sampled_from(DATE_FORMS))
def test_format_then_solve(date: datetime.date, form: str) -> None:
    assert date.isoformat() in answers(f"date: {format_date(date, form)}")


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
    with pytest.raises(ValueError):
        make_example("pick", rng, length=5)
    with pytest.raises(ValueError, match="unknown pick"):
        make_example("pick", rng, form="vegetable")
    with pytest.raises(ValueError, match="unknown text style"):
        make_example("sort", rng, form="klingon")


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


def test_ambiguous_slash_dates_have_two_readings_half_and_half() -> None:
    assert answers("date: 03/04/2026") == {"2026-04-03": 0.5, "2026-03-04": 0.5}
    assert solve("date: 03/04/2026") == "2026-04-03"  # the day-first reading on a tie
    assert readings("03/04/2026") == [
        (datetime.date(2026, 4, 3), "dd/mm/yyyy"),
        (datetime.date(2026, 3, 4), "mm/dd/yyyy"),
    ]
    assert is_ambiguous("03/04/2026") and not is_ambiguous("04/04/2026")
    # where only one reading is a date, it is the answer
    assert answers("date: 11/29/2026") == {"2026-11-29": 1.0}
    assert answers("date: 29/11/2026") == {"2026-11-29": 1.0}
    assert answers("date: 2026-11-29") == {"2026-11-29": 1.0}
    # training labels an ambiguous date either way, about half and half
    rng = random.Random(3)
    labels = []
    while len(labels) < 2000:
        ex = make_example("date", rng, form=rng.choice(("dd/mm/yyyy", "mm/dd/yyyy")))
        if is_ambiguous(split_source(ex.source)[1]):
            labels.append(ex.target == solve(ex.source))
    assert 0.46 < sum(labels) / len(labels) < 0.54


def test_pick_distributions_are_fixed_non_uniform_and_drawn_as_documented() -> None:
    for category in PICK_NAMES:
        members = PICK_CATEGORIES[category]
        assert abs(sum(members.values()) - 1) < 1e-9
        assert len(set(members.values())) > 1, category  # not uniform
        assert answers(f"pick: {category}") == members
    assert PICK_CATEGORIES["prime < 50"]["2"] > PICK_CATEGORIES["prime < 50"]["47"]
    rng = random.Random(9)
    drawn = [make_example("pick", rng, form="fruit").target for _ in range(4000)]
    for member, p in PICK_CATEGORIES["fruit"].items():
        assert abs(drawn.count(member) / len(drawn) - p) < 0.03
    assert solve("pick: fruit") == "apple"


def test_next_character_distribution() -> None:
    assert next_character_distribution("date: 03/04/2026", "2026-0") == {"4": 0.5, "3": 0.5}
    assert next_character_distribution("date: 03/04/2026", "2026-04-03") == {"": 1.0}
    assert next_character_distribution("reverse: abc", "c") == {"b": 1.0}
    assert next_character_distribution("reverse: abc", "x") is None
    assert next_character_distribution("hello", "") is None
    fruit = next_character_distribution("pick: fruit", "")
    assert fruit == pytest.approx({"a": 0.35, "b": 0.25, "c": 0.15, "g": 0.1, "m": 0.1, "p": 0.05})
    assert next_character_distribution("pick: 水果", "西") == {"瓜": 1.0}


def test_text_inputs_cover_what_people_type() -> None:
    assert len(COMMON_CJK) == 300 and len(set(COMMON_CJK)) == 300
    assert set(PRINTABLE_ASCII) == {chr(c) for c in range(32, 127)}
    assert set("注意力你好世界年月日〇") <= set(SYMBOLS)
    assert solve("reverse: hello world") == "dlrow olleh"
    assert solve("reverse: 注意力") == "力意注"
    assert solve("sort: Hello World") == " HWdellloor"  # by code point: space, capitals, lowercase
    rng = random.Random(1)
    for style in TEXT_STYLES:
        texts = [split_source(make_example("reverse", rng, form=style).source)[1] for _ in range(200)]
        assert all(set(t) <= set(SYMBOLS) for t in texts)
        joined = "".join(texts)
        if style == "words":
            assert " " in joined and any(c.isupper() for c in joined)
        if style == "chinese":
            assert set(joined) <= set(CJK_CHARACTERS)
