"""Chinese is complete: every text the app passes to its translation functions has a
translation in the .ts file, the file is valid Qt Linguist XML, and Qt's own dialogs follow."""

from __future__ import annotations

import ast
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

from visualizer.i18n import tr, translations, trf, ts_path

VISUALIZER = Path(__file__).resolve().parents[2] / "visualizer"


def translated_literals() -> dict[str, str]:
    """Each string literal given to tr(), trf() or Translator.add(), with where it is."""
    found = {}
    for path in VISUALIZER.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            candidates = []
            if name in ("tr", "trf") and node.args:
                candidates.append(node.args[0])
            elif name == "add" and len(node.args) == 2:  # Translator.add(setter, english)
                candidates.append(node.args[1])
            for arg in candidates:
                if isinstance(arg, ast.IfExp):  # tr("a" if x else "b", language)
                    candidates += [arg.body, arg.orelse]
                elif isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found[arg.value] = f"{path.relative_to(VISUALIZER.parent)}:{node.lineno}"
    return found


def test_every_text_the_app_translates_has_a_chinese_translation():
    literals = translated_literals()
    assert len(literals) > 40  # the scan found the app's texts
    missing = {text: where for text, where in literals.items() if text not in translations("zh")}
    assert not missing, "no Chinese for:\n" + "\n".join(f"{w}: {t!r}" for t, w in missing.items())


def test_the_ts_file_is_qt_linguist_xml_with_one_context_and_no_unfinished_entries():
    root = ElementTree.parse(ts_path("zh")).getroot()
    assert root.tag == "TS" and root.get("language") == "zh_CN" and root.get("sourcelanguage") == "en"
    messages = list(root.iter("message"))
    sources = [m.findtext("source") for m in messages]
    assert len(sources) == len(set(sources)), "a source text appears twice"
    for message in messages:
        translation = message.find("translation")
        assert translation is not None and translation.text and translation.get("type") is None, (
            message.findtext("source")
        )


def test_templates_keep_their_placeholders_in_chinese():
    for source, translation in translations("zh").items():
        placeholders = {part.split("}")[0] for part in source.split("{")[1:]}
        assert placeholders == {part.split("}")[0] for part in translation.split("{")[1:]}, source
    assert trf("loaded {name} on {device}", "zh", name="a.safetensors", device="cpu") != (
        "loaded a.safetensors on cpu"
    )
    assert tr("a text nobody translated", "zh") == "a text nobody translated"  # English, not nothing


@pytest.mark.gui
def test_qt_standard_dialog_buttons_follow_the_language(qapp):
    from PySide6.QtCore import QCoreApplication

    from visualizer.window.qt_language import install_qt_translations

    try:
        assert install_qt_translations("zh")
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") != "Cancel"
        assert install_qt_translations("en")
        assert QCoreApplication.translate("QPlatformTheme", "Cancel") == "Cancel"
    finally:
        install_qt_translations("en")


def test_the_keyboard_shortcuts_are_translated_line_by_line():
    from visualizer.window.parts import SHORTCUT_LINES

    assert all(line in translations("zh") for line in SHORTCUT_LINES)


def test_every_reason_a_page_gives_for_a_model_it_cannot_show_has_chinese():
    """The registry's ``needs_*`` reasons reach the page through ``tr(reason, language)``."""
    tree = ast.parse((VISUALIZER / "panels" / "registry.py").read_text(encoding="utf-8"))
    reasons = [
        node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Return)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    ]
    assert len(reasons) > 10
    missing = [reason for reason in reasons if reason not in translations("zh")]
    assert not missing, missing
