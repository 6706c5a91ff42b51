"""What a model was trained on, recorded by training, and where a typed source lies outside it."""

from __future__ import annotations

import pytest

from model.tasks.coverage import Finding, outside_training, trained_on
from model.tasks.synthetic import DATE_FORMS, MAX_INPUT_LEN, PICK_NAMES, TASK_NAMES, TEXT_CHARACTERS
from visualizer.state.findings import describe

SHIPPED = trained_on(TASK_NAMES)


def codes(source: str, description=SHIPPED) -> list[str]:
    return [finding.code for finding in outside_training(source, description)]


def test_the_description_names_tasks_characters_lengths_forms_and_categories():
    assert SHIPPED["tasks"] == list(TASK_NAMES)
    assert SHIPPED["text_characters"] == TEXT_CHARACTERS and SHIPPED["max_input_len"] == MAX_INPUT_LEN
    assert SHIPPED["date_forms"] == list(DATE_FORMS) and SHIPPED["years"] == [1900, 2099]
    assert SHIPPED["pick_categories"] == list(PICK_NAMES)
    assert set(trained_on(("date",))) == {"tasks", "date_forms", "years"}


@pytest.mark.parametrize(
    "source",
    [
        "reverse: Hello, World!",
        "sort: 注意力",
        "date: 03/04/2026",
        "date: 2026-11-29",
        "pick: fruit",
        "reverse: " + "x" * MAX_INPUT_LEN,
    ],
)
def test_sources_inside_the_training_data_get_no_finding(source):
    assert outside_training(source, SHIPPED) == []


def test_each_way_out_is_found():
    assert codes("hello") == ["no_prefix"]
    assert codes("translate: hello") == ["unknown_task"]
    assert codes("reverse: café") == ["characters"]
    assert outside_training("reverse: café ü", SHIPPED)[0].values["characters"] == "éü"
    assert codes("reverse: " + "x" * (MAX_INPUT_LEN + 1)) == ["too_long"]
    assert codes("sort: " + "é" * 60) == ["characters", "too_long"]
    assert codes("reverse: ") == ["empty"]
    assert codes("date: 2026/11/29") == ["date_form"]
    assert codes("date: 31/02/2026") == ["date_form"]  # no such day
    assert codes("date: 01/01/2150") == ["date_form"]  # outside the years
    assert codes("pick: vegetable") == ["pick_category"]
    # a model trained on reverse only: sort is a task it does not know
    assert codes("sort: abc", trained_on(("reverse",))) == ["unknown_task"]
    # a model trained on fewer date forms: a form it never saw
    assert codes("date: 11/29/2026", {"tasks": ["date"], "date_forms": ["dd/mm/yyyy"]}) == ["date_form"]


@pytest.mark.parametrize("description", [None, {}, {"tasks": "reverse"}, "junk"])
def test_a_model_without_the_description_gets_no_findings(description):
    assert outside_training("hello", description) == []


def test_findings_are_worded_in_both_languages():
    english = describe(Finding("too_long", {"task": "reverse", "length": 60, "longest": 48}), "en")
    assert english == (
        "48 characters is the longest reverse: input this model was trained on (this one has 60)"
    )
    chinese = describe(Finding("too_long", {"task": "reverse", "length": 60, "longest": 48}), "zh")
    assert "48" in chinese and "60" in chinese and "最长" in chinese
    no_prefix = describe(Finding("no_prefix", {"tasks": ["reverse", "sort"]}), "en")
    assert no_prefix.endswith("reverse:, sort:")
    unseen = describe(Finding("characters", {"task": "sort", "characters": "é\x07"}), "en")
    assert "‘é’" in unseen and "U+0007" in unseen
