"""Every word the app shows, in English or Chinese: one mechanism for the whole app.

English is the source text, written where it is used: ``tr("Step", language)``, or with values
``trf("step {n}", language, n=3)`` (the template is what is translated, so that a language
can reorder the values and put its own words around them). The translations live in
`translations/attnviz_zh_CN.ts`, Qt Linguist's format (open it in Linguist, or edit the XML),
read here directly rather than through a compiled `.qm` and QTranslator: the session and the
views that build messages are Qt-free by contract (import-linter; they are tested without Qt),
and reading the source file leaves no compiled copy to go stale. Qt's own words (standard
dialog buttons, the file dialog) do go through QTranslator with Qt's shipped translations:
`visualizer/window/qt_language.py`. ``Translator`` remembers where each text went and sets it
again when the language changes.

An English text that Chinese says in two ways takes a ``disambiguation`` (Qt Linguist's comment,
as in ``QCoreApplication.translate(context, source, disambiguation)``): "mean" as a statistic
on the LayerNorm page is not worded as the mean of the heads.
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
def translations(language: str) -> dict[tuple[str, str], str]:
    """(source text, disambiguation) -> translation for ``language``, from its .ts file ({} for
    English); the disambiguation is "" for most texts.

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
            found[source, message.findtext("comment") or ""] = translation.text
    return found


def tr(text: str, language: str, disambiguation: str = "") -> str:
    """``text`` in ``language`` ("en" or "zh"); English where no translation exists."""
    return translations(language).get((text, disambiguation), text)


def trf(template: str, language: str, /, disambiguation: str = "", **values: object) -> str:
    """A message with values: the template is what is translated ("loaded {name} on {device}")."""
    return tr(template, language, disambiguation).format(**values)


class Translator:
    def __init__(self) -> None:
        self.entries: list[tuple[Callable[[str], object], str]] = []

    def add(self, setter: Callable[[str], object], english: str) -> None:
        self.entries.append((setter, english))

    def apply(self, language: str) -> None:
        for setter, english in self.entries:
            setter(tr(english, language))
