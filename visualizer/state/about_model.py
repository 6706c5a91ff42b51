"""Help > About this model: what the loaded model is and what it was trained on. Qt-free.

Read from the model's description (``FamilyInfo``) and the metadata its checkpoint carries
(``attnviz train`` writes the recipe, the training time, the held-out evaluation and
``trained_on``); a model without metadata shows what its description says.
"""

from __future__ import annotations

import html

from model.tasks.coverage import TRAINED_ON
from visualizer.state.session import ModelInfo

TEXT = {
    "en": {
        "title": "About this model",
        "none": "No model is loaded.",
        "model": "<b>{name}</b>: {family}, {parameters:,} parameters, on {device}",
        "config": "Configuration: {config}",
        "trained": "Trained with the <b>{recipe}</b> recipe: {steps:,} steps in {minutes:.0f} minutes.",
        "after": " It started from the weights of {name} ({steps:,} steps of <b>{recipe}</b>, "
        "{minutes:.0f} minutes).",
        "tasks": "Tasks it was trained on: {tasks}",
        "characters": "reverse: and sort: inputs: 1 to {longest} of {count} characters "
        "(printable ASCII and common Chinese)",
        "dates": "Dates: {forms} written forms, years {first}–{last}",
        "categories": "pick: categories: {categories}",
        "eval": "Held-out exact match recorded at the end of training: {rows}",
        "no_training": "Its file says nothing about what it was trained on, so the window cannot warn "
        "when a source lies outside it.",
    },
    "zh": {
        "title": "关于这个模型",
        "none": "还没有加载模型。",
        "model": "<b>{name}</b>：{family}，{parameters:,} 个参数，运行在 {device}",
        "config": "配置：{config}",
        "trained": "用 <b>{recipe}</b> 配方训练：{steps:,} 步，{minutes:.0f} 分钟。",
        "after": "它从 {name} 的权重开始（<b>{recipe}</b> 配方 {steps:,} 步，{minutes:.0f} 分钟）。",
        "tasks": "训练过的任务：{tasks}",
        "characters": "reverse: 与 sort: 的输入：由 {count} 个字符（可打印 ASCII 与常用汉字）组成，"
        "长 1 到 {longest} 个字符",
        "dates": "日期：{forms} 种写法，{first}–{last} 年",
        "categories": "pick: 的类别：{categories}",
        "eval": "训练结束时在留出数据上的完全匹配率：{rows}",
        "no_training": "它的文件没有说明训练数据，所以当输入超出训练范围时窗口无法提醒。",
    },
}


def about_html(model: ModelInfo | None, language: str) -> str:
    """The About box's text (HTML) for ``model`` in ``language``."""
    words = TEXT.get(language, TEXT["en"])
    if model is None:
        return words["none"]
    family = model.family
    lines = [
        words["model"].format(
            name=html.escape(model.name),
            family=html.escape(family.display_name),
            parameters=family.parameters,
            device=html.escape(model.device),
        ),
        words["config"].format(config=html.escape(", ".join(f"{k} {v}" for k, v in family.config.items()))),
    ]
    metadata = model.metadata if isinstance(model.metadata, dict) else {}
    steps, seconds = metadata.get("steps_done"), metadata.get("train_seconds")
    if isinstance(steps, int) and isinstance(seconds, (int, float)):
        trained = words["trained"].format(
            recipe=html.escape(str(metadata.get("recipe_name", "?"))), steps=steps, minutes=seconds / 60
        )
        origin = metadata.get("initialized_from")
        if isinstance(origin, dict) and isinstance(origin.get("steps_done"), int):
            trained += words["after"].format(
                name=html.escape(str(origin.get("checkpoint", "?"))),
                steps=origin["steps_done"],
                recipe=html.escape(str(origin.get("recipe_name", "?"))),
                minutes=float(origin.get("train_seconds") or 0) / 60,
            )
        lines.append(trained)
    described = metadata.get(TRAINED_ON)
    if isinstance(described, dict) and isinstance(described.get("tasks"), list):
        lines.append(words["tasks"].format(tasks=html.escape(", ".join(f"{t}:" for t in described["tasks"]))))
        if "text_characters" in described:
            lines.append(
                words["characters"].format(
                    longest=described.get("max_input_len", "?"), count=len(str(described["text_characters"]))
                )
            )
        if "date_forms" in described:
            first, last = (described.get("years") or ["?", "?"])[:2]
            lines.append(words["dates"].format(forms=len(described["date_forms"]), first=first, last=last))
        if "pick_categories" in described:
            categories = ", ".join(str(c) for c in described["pick_categories"])
            lines.append(words["categories"].format(categories=html.escape(categories)))
    else:
        lines.append(words["no_training"])
    recorded = metadata.get("eval")
    if isinstance(recorded, dict):
        rows = [
            f"{html.escape(str(key))} {value['accuracy'] * 100:.1f} %"
            for key, value in recorded.items()
            if isinstance(value, dict) and isinstance(value.get("accuracy"), (int, float)) and "/" not in key
        ]
        if rows:
            lines.append(words["eval"].format(rows=", ".join(rows)))
    return "<br>".join(lines)
