"""What a model was trained on, and where a source falls outside it.

``attnviz train`` writes ``trained_on(tasks)`` into the checkpoint's metadata (the tasks, their
characters, the longest input, the date forms and years, the pick categories). The window reads
it back and, without blocking anything, says when a typed source is outside it: no task
prefix, an unknown task, characters never seen in training, an input longer than any trained
on, a date in no trained form, an unknown category. A model without this metadata gets none.

Plain data, no torch: the window uses it before torch loads. Findings are language-neutral
``Finding(code, values)``; ``visualizer/state/findings.py`` words them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from model.tasks.dates import MAX_YEAR, MIN_YEAR, readings
from model.tasks.synthetic import (
    DATE_FORMS,
    MAX_INPUT_LEN,
    PICK_NAMES,
    PREFIX_SEP,
    TEXT_CHARACTERS,
    TEXT_TASKS,
)

TRAINED_ON = "trained_on"  # the metadata key


def trained_on(tasks: Sequence[str], unknown_rate: float = 0.0) -> dict:
    """The description of the training data that ``attnviz train`` records for ``tasks``;
    ``unknown_rate`` > 0: reverse: was also trained with characters outside the vocabulary."""
    description: dict = {"tasks": list(tasks)}
    if any(task in TEXT_TASKS for task in tasks):
        description["text_characters"] = TEXT_CHARACTERS
        description["max_input_len"] = MAX_INPUT_LEN
    if unknown_rate > 0 and "reverse" in tasks:
        # the tasks on which the model writes <unk> where an unknown character stands
        description["unknown_characters"] = ["reverse"]
    if "date" in tasks:
        description["date_forms"] = list(DATE_FORMS)
        description["years"] = [MIN_YEAR, MAX_YEAR]
    if "pick" in tasks:
        description["pick_categories"] = list(PICK_NAMES)
    return description


@dataclass(frozen=True)
class Finding:
    """One way a source lies outside the training data, as a code and the values to show."""

    # no_prefix, unknown_task, characters, copied, sort_unknown, too_long, empty, date_form,
    # pick_category
    code: str
    values: dict = field(default_factory=dict)


def outside_training(source: str, description: dict | None) -> list[Finding]:
    """How ``source`` lies outside what a model with this ``trained_on`` description saw (a
    source that is not text, such as an audio file, is described by no task: nothing)."""
    if not isinstance(source, str) or not isinstance(description, dict):
        return []
    if not isinstance(description.get("tasks"), list):
        return []
    tasks = [str(task) for task in description["tasks"]]
    task, sep, text = source.partition(PREFIX_SEP)
    if not sep or " " in task or not task:
        return [Finding("no_prefix", {"tasks": tasks})]
    if task not in tasks:
        return [Finding("unknown_task", {"task": task, "tasks": tasks})]
    findings = []
    if task in TEXT_TASKS:
        known = set(str(description.get("text_characters", "")))
        unseen = "".join(dict.fromkeys(c for c in text if c not in known))
        if unseen:
            findings.append(unknown_characters_finding(task, unseen, description))
        longest = description.get("max_input_len")
        if isinstance(longest, int) and len(text) > longest:
            findings.append(Finding("too_long", {"task": task, "length": len(text), "longest": longest}))
        if not text:
            findings.append(Finding("empty", {"task": task}))
    elif task == "date":
        findings += date_findings(text, description)
    elif task == "pick":
        categories = [str(c) for c in description.get("pick_categories", [])]
        if text not in categories:
            findings.append(Finding("pick_category", {"category": text, "categories": categories}))
    return findings


def unknown_characters_finding(task: str, unseen: str, description: dict) -> Finding:
    """Characters outside the training data: on a task trained with unknown characters the
    model writes ``<unk>`` in their place and the app copies them by attention ("copied");
    ``sort:`` cannot know where such a character belongs ("sort_unknown", when the model was
    trained with unknowns elsewhere); otherwise they were simply never seen ("characters")."""
    trained = description.get("unknown_characters")
    trained = [str(t) for t in trained] if isinstance(trained, list) else []
    if task in trained:
        return Finding("copied", {"task": task, "characters": unseen})
    if task == "sort" and trained:
        return Finding("sort_unknown", {"characters": unseen})
    return Finding("characters", {"task": task, "characters": unseen})


def date_findings(text: str, description: dict) -> list[Finding]:
    """A date is inside when it is a valid date, of the trained years, in a trained form."""
    forms = [str(f) for f in description.get("date_forms", [])]
    years = description.get("years")
    first, last = years if isinstance(years, list) and len(years) == 2 else (MIN_YEAR, MAX_YEAR)
    outside = Finding("date_form", {"forms": len(forms), "first": first, "last": last})
    try:
        found = readings(text)
    except ValueError:
        return [outside]
    if not any(form in forms and first <= date.year <= last for date, form in found):
        return [outside]
    return []
