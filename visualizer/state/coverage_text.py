"""The words for ``model.tasks.coverage``'s findings, in English and Chinese."""

from __future__ import annotations

from model.tasks.coverage import Finding

TEXT = {
    "en": {
        "no_prefix": "no task prefix: this model was trained on sources that start with {tasks}",
        "unknown_task": "“{task}:” is not a task this model was trained on ({tasks})",
        "characters": "{characters} never appeared in {task}: training",
        "too_long": "{longest} characters is the longest {task}: input this model was trained on "
        "(this one has {length})",
        "empty": "an empty {task}: input was never seen in training",
        "date_form": "not a valid date between {first} and {last} in any of the {forms} forms this "
        "model was trained on",
        "pick_category": "“{category}” is not one of the pick: categories it was trained on ({categories})",
    },
    "zh": {
        "no_prefix": "没有任务前缀：这个模型训练时的输入都以 {tasks} 开头",
        "unknown_task": "“{task}:” 不是这个模型训练过的任务（{tasks}）",
        "characters": "{characters} 在 {task}: 的训练数据里从未出现过",
        "too_long": "这个模型训练时 {task}: 的输入最长 {longest} 个字符（这里有 {length} 个）",
        "empty": "训练时从未见过空的 {task}: 输入",
        "date_form": "不是 {first} 到 {last} 年之间、按训练过的 {forms} 种写法之一写出的合法日期",
        "pick_category": "“{category}” 不是训练过的 pick: 类别（{categories}）",
    },
}


def describe(finding: Finding, language: str) -> str:
    """One finding as a sentence in ``language``."""
    values = dict(finding.values)
    separator = "、" if language == "zh" else ", "
    if "tasks" in values:
        values["tasks"] = separator.join(f"{task}:" for task in values["tasks"])
    if "categories" in values:
        values["categories"] = separator.join(values["categories"])
    if "characters" in values:
        characters = values["characters"]
        shown = [c if c.isprintable() else f"U+{ord(c):04X}" for c in characters[:8]]
        values["characters"] = separator.join(f"‘{c}’" for c in shown) + ("…" if len(characters) > 8 else "")
    return TEXT.get(language, TEXT["en"])[finding.code].format(**values)
