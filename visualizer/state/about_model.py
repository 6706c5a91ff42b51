"""Help > About this model: what the loaded model is and what it was trained on. Qt-free.

Read from the model's description (``FamilyInfo``) and the metadata its checkpoint carries
(``attnviz train`` writes the recipe, the training time, the held-out evaluation and
``trained_on``); a model without metadata shows what its description says.
"""

from __future__ import annotations

import html

from model.tasks.coverage import TRAINED_ON
from visualizer.i18n import tr, trf
from visualizer.state.session import ModelInfo


def about_html(model: ModelInfo | None, language: str) -> str:
    """The About box's text (HTML) for ``model`` in ``language``."""
    if model is None:
        return tr("No model is loaded.", language)
    family = model.family
    lines = [
        trf(
            "<b>{name}</b>: {family}, {parameters:,} parameters, on {device}",
            language,
            name=html.escape(model.name),
            family=html.escape(family.display_name),
            parameters=family.parameters,
            device=html.escape(model.device),
        ),
        trf(
            "Configuration: {config}",
            language,
            config=html.escape(", ".join(f"{k} {v}" for k, v in family.config.items())),
        ),
    ]
    metadata = model.metadata if isinstance(model.metadata, dict) else {}
    steps, seconds = metadata.get("steps_done"), metadata.get("train_seconds")
    if isinstance(steps, int) and isinstance(seconds, (int, float)):
        trained = trf(
            "Trained with the <b>{recipe}</b> recipe: {steps:,} steps in {minutes:.0f} minutes.",
            language,
            recipe=html.escape(str(metadata.get("recipe_name", "?"))),
            steps=steps,
            minutes=seconds / 60,
        )
        origin = metadata.get("initialized_from")
        if isinstance(origin, dict) and isinstance(origin.get("steps_done"), int):
            trained += trf(
                " It started from the weights of {name} ({steps:,} steps of <b>{recipe}</b>, "
                "{minutes:.0f} minutes).",
                language,
                name=html.escape(str(origin.get("checkpoint", "?"))),
                steps=origin["steps_done"],
                recipe=html.escape(str(origin.get("recipe_name", "?"))),
                minutes=float(origin.get("train_seconds") or 0) / 60,
            )
        lines.append(trained)
    described = metadata.get(TRAINED_ON)
    if isinstance(described, dict) and isinstance(described.get("tasks"), list):
        tasks = html.escape(", ".join(f"{t}:" for t in described["tasks"]))
        lines.append(trf("Tasks it was trained on: {tasks}", language, tasks=tasks))
        if "text_characters" in described:
            lines.append(
                trf(
                    "reverse: and sort: inputs: 1 to {longest} of {count} characters (printable ASCII and "
                    "common Chinese)",
                    language,
                    longest=described.get("max_input_len", "?"),
                    count=len(str(described["text_characters"])),
                )
            )
        if "date_forms" in described:
            first, last = (described.get("years") or ["?", "?"])[:2]
            forms = len(described["date_forms"])
            lines.append(
                trf(
                    "Dates: {forms} written forms, years {first}–{last}",
                    language,
                    forms=forms,
                    first=first,
                    last=last,
                )
            )
        if "pick_categories" in described:
            categories = ", ".join(str(c) for c in described["pick_categories"])
            lines.append(trf("pick: categories: {categories}", language, categories=html.escape(categories)))
    else:
        lines.append(
            tr(
                "Its file says nothing about what it was trained on, so the window cannot warn when a "
                "source lies outside it.",
                language,
            )
        )
    recorded = metadata.get("eval")
    if isinstance(recorded, dict):
        rows = [
            f"{html.escape(str(key))} {value['accuracy'] * 100:.1f} %"
            for key, value in recorded.items()
            if isinstance(value, dict) and isinstance(value.get("accuracy"), (int, float)) and "/" not in key
        ]
        if rows:
            lines.append(
                trf(
                    "Held-out exact match recorded at the end of training: {rows}",
                    language,
                    rows=", ".join(rows),
                )
            )
    return "<br>".join(lines)
