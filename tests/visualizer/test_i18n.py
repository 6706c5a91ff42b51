"""One way to translate, and Chinese complete.

Every text the app shows in a language goes through ``visualizer.i18n`` (``tr``, ``trf``,
``Translator.add``) with its English source, and has a translation in the Qt Linguist file. The
scan below reads the source of ``visualizer/``: a literal given to those functions is a text; a
name is followed to what it is bound to (a constant, a loop over literals, a parameter given
literals); the few texts that come from the model (its kinds' titles, a loader's stages, ...)
are listed in ``FROM_ELSEWHERE`` with where they come from. A text the scan cannot follow fails
the test until it is listed, so nothing the app shows escapes the check. Words kept any other
way (``{"en": ..., "zh": ...}`` dictionaries, ``language == "zh"`` branches, ``*_text.py``
modules of words, Chinese typed into the code) fail it too.
"""

from __future__ import annotations

import ast
import re
import sys
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path

import pytest

from visualizer.i18n import tr, translations, trf, ts_path

ROOT = Path(__file__).resolve().parents[2]
VISUALIZER = ROOT / "visualizer"
CHINESE = re.compile(r"[\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef]")
ENDONYMS = {"中文", "&Language / 语言"}  # a language's menu entry in its own language, never translated
Found = dict[tuple[str, str], str]  # (English, disambiguation) -> where it is used


# -- where the texts that do not start in visualizer/ come from ----------------------------------
def model_calls(name: str, argument: int) -> list[str]:
    """The literal ``argument``-th arguments of every call of ``name`` in model/."""
    found = []
    for path in (ROOT / "model").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and call_name(node) == name and len(node.args) > argument:
                value = node.args[argument]
                if isinstance(value, ast.Constant) and isinstance(value.value, str):
                    found.append(value.value)
    return found


def kind_titles() -> list[str]:
    from model.rnn.family import ALIGNMENT_TITLES

    return model_calls("AttentionKind", 1) + list(ALIGNMENT_TITLES.values())


def score_titles() -> list[str]:
    """The titles of the families' score stages (``ScoreStage(name, symbol, title)``)."""
    return model_calls("ScoreStage", 2)


def score_explanations() -> list[str]:
    """How each family says its scores are made (``ScoreFunction(name, explanation, ...)``)."""
    return model_calls("ScoreFunction", 1)


def without_attention() -> list[str]:
    from model.rnn.family import NO_ATTENTION

    return [NO_ATTENTION]


def registry_reasons() -> list[str]:
    """The registry's ``needs_*`` reasons a page gives for a model it cannot show."""
    tree = ast.parse((VISUALIZER / "panels" / "registry.py").read_text(encoding="utf-8"))
    literal = [
        node.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Constant) and node.value.value
    ]
    return literal + without_attention()


def panel_tabs() -> list[str]:
    from visualizer.panels.registry import PANELS

    return [entry.tab for entry in PANELS]


def sublayers() -> list[str]:
    from model.probes.norm_records import DECODER_SUBLAYERS, ENCODER_SUBLAYERS

    return [*ENCODER_SUBLAYERS, *DECODER_SUBLAYERS]


def example_notes() -> list[str]:
    from model.tasks.examples import CHOSEN

    return [example.note for examples in CHOSEN.values() for example in examples]


def b_what_ifs() -> list[str]:
    from visualizer.widgets.compare_view import B_WHAT_IF_CHOICES

    return [text for _name, text in B_WHAT_IF_CHOICES]


FROM_ELSEWHERE: dict[str, Callable[[], list[str]]] = {  # expression -> the texts it can be
    "kind.title": kind_titles,  # the model family's description
    "session.model.family.kind(session.kind).title": kind_titles,
    "result.titles[kind]": kind_titles,
    "trace.title(kind)": kind_titles,  # the Train page's probe: the probed family's kinds
    "self.result.titles[kind]": kind_titles,
    "model.family.without_attention": without_attention,
    "stage.title": score_titles,  # the family's description of how its scores are made
    "score.explanation": score_explanations,
    "self.unsupported()": registry_reasons,
    "stage": lambda: model_calls("report", 1),  # a model opening reports its stages
    "self.tab": panel_tabs,
    "sublayer": sublayers,
    "example.note": example_notes,
    "dict(B_WHAT_IF_CHOICES)[self.b_what_if.currentData()]": b_what_ifs,
}


# -- the scan -----------------------------------------------------------------------------------
def call_name(node: ast.Call) -> str:
    return node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")


@cache
def parsed(path: Path) -> ast.Module:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            child.parent = parent  # type: ignore[attr-defined]
    return tree


def sources() -> Iterator[Path]:
    return (path for path in sorted(VISUALIZER.rglob("*.py")) if path.name != "i18n.py")


def enclosing(node: ast.AST) -> Iterator[ast.AST]:
    while hasattr(node, "parent"):
        node = node.parent
        yield node


class Texts:
    """What one module's expression can be as a text: follows names to their bindings."""

    def __init__(self, path: Path) -> None:
        self.tree = parsed(path)
        self.unknown: list[str] = []  # expressions neither followed nor listed in FROM_ELSEWHERE

    def of(self, node: ast.AST) -> list[str]:
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return [node.value]
        if isinstance(node, ast.IfExp):
            return self.of(node.body) + self.of(node.orelse)
        source = ast.unparse(node)
        if source in FROM_ELSEWHERE:
            return FROM_ELSEWHERE[source]()
        if isinstance(node, ast.Name):
            bound = list(self.bindings(node))
            if bound:
                return [text for texts in bound for text in texts]
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):  # LABELS[key]
            return [text for element in self.elements(node.value) or [] for text in self.of(element)]
        self.unknown.append(source)
        return []

    def bindings(self, name: ast.Name) -> Iterator[list[str]]:
        """What ``name`` is bound to where it is used: a comprehension's or a function's
        variable or parameter, else a module constant."""
        for node in enclosing(name):
            for loop in getattr(node, "generators", []):
                if contains(loop.target, name.id):
                    yield self.unpacked(loop.target, loop.iter, name.id)
                    return
            if isinstance(node, ast.FunctionDef):
                parameters = [a.arg for a in node.args.args]
                if name.id in parameters:
                    yield self.arguments(node.name, parameters.index(name.id) - (parameters[0] == "self"))
                    return
                local = False
                for inner in ast.walk(node):
                    if isinstance(inner, ast.Assign) and any(contains(t, name.id) for t in inner.targets):
                        local = True
                        yield self.of(inner.value)
                    elif isinstance(inner, ast.For) and contains(inner.target, name.id):
                        local = True
                        yield self.unpacked(inner.target, inner.iter, name.id)
                if local:
                    return
                break
        for node in self.tree.body:
            if isinstance(node, ast.Assign) and any(contains(t, name.id) for t in node.targets):
                elements = self.elements(node.value) or [node.value]
                yield [text for element in elements for text in self.of(element)]

    def arguments(self, function: str, index: int) -> list[str]:
        """What a parameter is given at the calls of its function in this module."""
        calls = [n for n in ast.walk(self.tree) if isinstance(n, ast.Call) and call_name(n) == function]
        return [text for call in calls if len(call.args) > index for text in self.of(call.args[index])]

    def unpacked(self, target: ast.AST, iterable: ast.AST, name: str) -> list[str]:
        """``name`` in a loop ``for target in iterable`` over literal elements."""
        elements = self.elements(iterable)
        if elements is None:
            self.unknown.append(ast.unparse(iterable))
            return []
        texts = []
        for element in elements:
            part = pick(target, element, name)
            if part is not None:
                texts += self.of(part)
        return texts

    def elements(self, node: ast.AST) -> list[ast.AST] | None:
        """The literal elements a loop over ``node`` yields (a dict: its values), or None."""
        if isinstance(node, (ast.Tuple, ast.List)):
            return list(node.elts)
        if isinstance(node, ast.Dict):
            return list(node.values)
        if isinstance(node, ast.Call) and call_name(node) == "enumerate" and node.args:
            inner = self.elements(node.args[0])
            return None if inner is None else [ast.Tuple([ast.Constant(i), e]) for i, e in enumerate(inner)]
        if isinstance(node, ast.Call) and call_name(node) == "items" and isinstance(node.func, ast.Attribute):
            mapping = self.value_of(node.func.value)
            if isinstance(mapping, ast.Dict):
                return [ast.Tuple([k, v]) for k, v in zip(mapping.keys, mapping.values, strict=True)]
        if isinstance(node, ast.Name):
            value = self.value_of(node)
            return None if value is None else self.elements(value)
        return None

    def value_of(self, name: ast.AST) -> ast.AST | None:
        """The literal a name was assigned, in its function or in the module."""
        if not isinstance(name, ast.Name):
            return None
        scopes = [n for n in enclosing(name) if isinstance(n, ast.FunctionDef)][:1] + [self.tree]
        for scope in scopes:
            for node in ast.walk(scope) if scope is not self.tree else scope.body:
                if isinstance(node, ast.Assign) and any(contains(t, name.id) for t in node.targets):
                    return node.value
        return None


def contains(target: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


def pick(target: ast.AST, element: ast.AST, name: str) -> ast.AST | None:
    """The part of ``element`` that ``name`` in the unpacking ``target`` takes."""
    if isinstance(target, ast.Name):
        return element if target.id == name else None
    if isinstance(target, ast.Tuple) and isinstance(element, ast.Tuple):
        for sub, part in zip(target.elts, element.elts, strict=False):
            found = pick(sub, part, name)
            if found is not None:
                return found
    return None


def chinese(node: ast.Constant) -> bool:
    """A string in the code (not a docstring) with Chinese in it, other than a language's own name."""
    docstring = isinstance(getattr(node, "parent", None), ast.Expr)
    text = node.value
    return isinstance(text, str) and text not in ENDONYMS and not docstring and bool(CHINESE.search(text))


def disambiguation(node: ast.Call, name: str) -> str:
    """The literal disambiguation of a tr()/trf() call ("" for most texts)."""
    for keyword in node.keywords:
        if keyword.arg == "disambiguation":
            assert isinstance(keyword.value, ast.Constant), ast.unparse(node)
            return keyword.value.value
    if name == "tr" and len(node.args) > 2:
        assert isinstance(node.args[2], ast.Constant), ast.unparse(node)
        return node.args[2].value
    return ""


@cache
def translated_texts() -> tuple[Found, tuple[str, ...]]:
    """Every text given to tr(), trf() or a Translator, and the expressions the scan could not follow."""
    found: Found = {}
    unknown: list[str] = []
    for path in sources():
        texts = Texts(path)
        for node in ast.walk(texts.tree):
            if not isinstance(node, ast.Call):
                continue
            name = call_name(node)
            translator = isinstance(node.func, ast.Attribute) and "translator" in ast.unparse(node.func.value)
            if name in ("tr", "trf") and node.args:
                english, context = node.args[0], disambiguation(node, name)
            elif name == "add" and translator and len(node.args) == 2:  # Translator.add(setter, english)
                english, context = node.args[1], ""
            else:
                continue
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            for text in texts.of(english):
                found.setdefault((text, context), where)
        unknown += [f"{path.relative_to(ROOT)}: {expression}" for expression in texts.unknown]
    return found, tuple(unknown)


# -- the tests ----------------------------------------------------------------------------------
def test_the_scan_follows_every_text_given_to_the_translation_functions():
    found, unknown = translated_texts()
    assert len(found) > 450  # the scan found the app's texts
    assert not unknown, "where do these texts come from? follow them or list them in FROM_ELSEWHERE:\n" + (
        "\n".join(unknown)
    )


def test_every_text_the_app_translates_has_a_chinese_translation():
    found, _ = translated_texts()
    catalogue = translations("zh")
    missing = {key: where for key, where in found.items() if key not in catalogue and key[0]}
    assert not missing, "no Chinese for:\n" + "\n".join(f"{w}: {t!r} {d}" for (t, d), w in missing.items())


def test_every_translation_is_of_a_text_the_app_shows():
    found, _ = translated_texts()
    unused = [key for key in translations("zh") if key not in found]
    assert not unused, f"the .ts file translates texts the app no longer shows: {unused}"


def test_no_words_are_kept_outside_the_translation_file():
    """No {"en": ..., "zh": ...} dictionary, no branch on the language, no *_text.py module of
    words, no Chinese typed into the code: there is one way to translate."""
    problems = [f"{p.relative_to(ROOT)}: a module of words" for p in VISUALIZER.rglob("*_text.py")]
    for path in VISUALIZER.rglob("*.py"):
        where = path.relative_to(ROOT)
        for node in ast.walk(parsed(path)):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if {"en", "zh"} <= keys:
                    problems.append(f"{where}:{node.lineno}: a dictionary of words per language")
            elif isinstance(node, ast.Compare) and any(
                isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops
            ):
                values = [node.left, *node.comparators]
                if any(isinstance(v, ast.Constant) and v.value in ("en", "zh") for v in values):
                    problems.append(f"{where}:{node.lineno}: a branch on the language")
            elif isinstance(node, ast.MatchValue) and getattr(node.value, "value", None) in ("en", "zh"):
                problems.append(f"{where}:{node.lineno}: a branch on the language")
            elif isinstance(node, ast.Constant) and chinese(node):
                problems.append(f"{where}:{node.lineno}: Chinese in the code: {node.value[:40]!r}")
    assert not problems, "\n".join(problems)


def test_the_check_catches_words_kept_the_old_ways(tmp_path, monkeypatch):
    """The previous test fails on each old way of keeping words (it reads this very scan)."""
    module = tmp_path / "visualizer"
    (module / "panels").mkdir(parents=True)
    (module / "panels" / "masks_text.py").write_text('TEXT = {"en": {"a": "b"}, "zh": {"a": "乙"}}\n')
    (module / "branch.py").write_text('def f(language):\n    return "甲" if language == "zh" else "a"\n')
    monkeypatch.setattr(sys.modules[__name__], "VISUALIZER", module)
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    with pytest.raises(AssertionError) as failure:
        test_no_words_are_kept_outside_the_translation_file()
    for problem in ("a module of words", "a dictionary of words per language", "a branch on the language"):
        assert problem in str(failure.value)
    assert "Chinese in the code" in str(failure.value)


def test_the_ts_file_is_qt_linguist_xml_with_one_context_and_no_unfinished_entries():
    root = ElementTree.parse(ts_path("zh")).getroot()
    assert root.tag == "TS" and root.get("language") == "zh_CN" and root.get("sourcelanguage") == "en"
    assert len(root.findall("context")) == 1
    messages = list(root.iter("message"))
    keys = [(m.findtext("source"), m.findtext("comment") or "") for m in messages]
    assert len(keys) == len(set(keys)), "a source text appears twice with the same disambiguation"
    for message in messages:
        translation = message.find("translation")
        assert translation is not None and translation.text and translation.get("type") is None, (
            message.findtext("source")
        )


def test_templates_keep_their_placeholders_in_chinese():
    for (source, _context), translation in translations("zh").items():
        placeholders = {part.split("}")[0] for part in source.split("{")[1:]}
        assert placeholders == {part.split("}")[0] for part in translation.split("{")[1:]}, source
    assert trf("loaded {name} on {device}", "zh", name="a.safetensors", device="cpu") != (
        "loaded a.safetensors on cpu"
    )
    assert tr("a text nobody translated", "zh") == "a text nobody translated"  # English, not nothing


def test_a_disambiguation_picks_its_own_translation():
    assert tr("mean", "zh") != tr("mean", "zh", disambiguation="a statistic: the mean of the features")
    assert tr("mean", "en", disambiguation="a statistic: the mean of the features") == "mean"
    assert trf("head {n}", "zh", n=2) != trf("head {n}", "zh", disambiguation="ordinal: the nth head", n=2)


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

    assert all((line, "") in translations("zh") for line in SHORTCUT_LINES)


def test_every_reason_a_page_gives_for_a_model_it_cannot_show_has_chinese():
    """The registry's ``needs_*`` reasons reach the page through ``tr(reason, language)``."""
    reasons = registry_reasons()
    assert len(reasons) > 10
    missing = [reason for reason in reasons if (reason, "") not in translations("zh")]
    assert not missing, missing


def test_every_reason_is_a_text_the_scan_can_read():
    """A reason built at run time (an f-string, a concatenation, a format) could never match its
    translation."""
    tree = ast.parse((VISUALIZER / "panels" / "registry.py").read_text(encoding="utf-8"))

    def built(value: ast.expr) -> bool:
        return isinstance(value, (ast.JoinedStr, ast.BinOp)) or (
            isinstance(value, ast.Call) and getattr(value.func, "attr", "") in ("format", "join")
        )

    lines = [node.lineno for node in ast.walk(tree) if isinstance(node, ast.Return) and node.value is not None
             and built(node.value)]
    assert not lines, f"panels/registry.py returns a reason built at run time on lines {lines}"
