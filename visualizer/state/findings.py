"""``model.tasks.coverage``'s findings as sentences: why a source lies outside what the model
was trained on."""

from __future__ import annotations

from model.tasks.coverage import Finding
from visualizer.i18n import tr, trf


def describe(finding: Finding, language: str) -> str:
    """One finding as a sentence in ``language``."""
    values = dict(finding.values)
    separator = tr(", ", language)  # a list's separator is the language's: 、 in Chinese
    if "tasks" in values:
        values["tasks"] = separator.join(f"{task}:" for task in values["tasks"])
    if "categories" in values:
        values["categories"] = separator.join(values["categories"])
    if "characters" in values:
        characters = values["characters"]
        shown = [c if c.isprintable() else f"U+{ord(c):04X}" for c in characters[:8]]
        values["characters"] = separator.join(f"‘{c}’" for c in shown) + ("…" if len(characters) > 8 else "")
    code = finding.code
    if code == "no_prefix":
        return trf(
            "no task prefix: this model was trained on sources that start with {tasks}", language, **values
        )
    if code == "unknown_task":
        return trf("“{task}:” is not a task this model was trained on ({tasks})", language, **values)
    if code == "characters":
        return trf("{characters} never appeared in {task}: training", language, **values)
    if code == "copied":
        return trf(
            "{characters} not in the vocabulary: the model writes <unk> in their place, and each "
            "is copied from the source position cross-attention points at (violet in the output)",
            language,
            **values,
        )
    if code == "sort_unknown":
        return trf(
            "sort: cannot know where an unknown character belongs ({characters} has no place in "
            "the vocabulary's order): a copied character stands where the model wrote <unk>",
            language,
            **values,
        )
    if code == "too_long":
        return trf(
            "{longest} characters is the longest {task}: input this model was trained on "
            "(this one has {length})",
            language,
            **values,
        )
    if code == "empty":
        return trf("an empty {task}: input was never seen in training", language, **values)
    if code == "date_form":
        return trf(
            "not a valid date between {first} and {last} in any of the {forms} forms this "
            "model was trained on",
            language,
            **values,
        )
    if code == "pick_category":
        return trf(
            "“{category}” is not one of the pick: categories it was trained on ({categories})",
            language,
            **values,
        )
    raise ValueError(f"no words for the finding {code!r}")
