"""The window's own words in Chinese; explanations live with their panels.

English is the source text. The translations live in `translations/attnviz_zh_CN.ts`, Qt
Linguist's format (open it in Linguist, or edit the XML), read here directly rather than
through a compiled `.qm` and QTranslator: the session and the views that build messages are
Qt-free by contract (import-linter; they are tested without Qt), and reading the source file
leaves no compiled copy to go stale. Qt's own words (standard dialog buttons, the file dialog)
do go through QTranslator with Qt's shipped translations: `visualizer/window/qt_language.py`.
``Translator`` remembers where each text went and sets it again when the language changes.
"""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from functools import cache
from pathlib import Path

TRANSLATIONS = Path(__file__).parent / "translations"
LOCALES = {"zh": "zh_CN"}  # the session's language -> the locale of its files


def ts_path(language: str) -> Path:
    return TRANSLATIONS / f"attnviz_{LOCALES[language]}.ts"


@cache
def translations(language: str) -> dict[str, str]:
    """Source text -> translation for ``language``, from its .ts file ({} for English).

    Unfinished or empty translations are left out: the English shows instead.
    """
    if language not in LOCALES:
        return {}
    found = {}
    for message in ElementTree.parse(ts_path(language)).getroot().iter("message"):
        source, translation = message.findtext("source"), message.find("translation")
        if source is None or translation is None or translation.get("type") in ("unfinished", "obsolete"):
            continue
        if translation.text:
            found[source] = translation.text
    return found


def tr(text: str, language: str) -> str:
    """``text`` in ``language`` ("en" or "zh"); English where no translation exists."""
    return translations(language).get(text, text)


def trf(template: str, language: str, **values: object) -> str:
    """A message with values: the template is what is translated ("loaded {name} on {device}")."""
    return tr(template, language).format(**values)


class Translator:
    def __init__(self) -> None:
        self.entries: list[tuple[Callable[[str], object], str]] = []

    def add(self, setter: Callable[[str], object], english: str) -> None:
        self.entries.append((setter, english))

    def apply(self, language: str) -> None:
        for setter, english in self.entries:
            setter(tr(english, language))
