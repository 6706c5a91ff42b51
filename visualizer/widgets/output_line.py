"""The output line beside the stepping buttons: what was generated, up to the shown step."""

from __future__ import annotations

import html
from collections.abc import Collection, Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSizePolicy

from visualizer.widgets.heatmap import display_token

SPACE_COLOR = "#8a8a8a"  # a space's ␣ is dimmer than the letters: seen, but not read as one
# a character the model wrote as <unk> and attention copied from the source: violet, underlined
COPIED_STYLE = "color:#8e24aa; text-decoration: underline"


def visible(text: str, copied: Collection[int] = (), start: int = 0) -> str:
    """``text`` as HTML with every character labelled as the grid labels a token of it
    (``display_token``: a space is ␣, dimmed), so that leading and trailing spaces show.
    ``copied``: offsets (counted from ``start``, where ``text`` begins) of characters copied
    by attention in place of an ``<unk>``, marked."""
    parts = []
    for offset, character in enumerate(text, start):
        label = html.escape(display_token(character), quote=False)
        if offset in copied:
            parts.append(f"<span style='{COPIED_STYLE}'>{label}</span>")
        elif character == " ":
            parts.append(f"<span style='color:{SPACE_COLOR}'>{label}</span>")
        else:
            parts.append(label)
    return "".join(parts)


class OutputLine(QLabel):
    """The output so far (bold), what comes after the shown step (grey) and the step.

    Every space shows, as ␣ (``visible``): the answer of ``sort: b a`` starts with one. A
    character copied by attention in place of an ``<unk>`` is violet and underlined, and the
    tooltip says where it came from.
    A long output never widens the window (64 Chinese characters asked for 2,000 pixels, and
    every view redrew at the new size): it is elided from the left instead, the whole output
    in the tooltip.
    """

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setStyleSheet("font-size: 14pt; padding: 2px;")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)

    def show_output(
        self, title: str, shown: str, ahead: str, where: str, copied: Mapping[int, str] | None = None
    ) -> None:
        """Where it is wider than the line, the grey part goes first, then the output's start.
        ``copied``: offset in ``shown + ahead`` → how that character was copied by attention."""
        copied = copied or {}

        def text(shown_part: str, ahead_part: str, cut: bool) -> str:
            first = len(shown) - len(shown_part)
            return (
                f"{title} <b>{'…' if cut else ''}{visible(shown_part, copied, first)}</b>"
                f"<span style='color:#888'>{visible(ahead_part, copied, len(shown))}</span>"
                f" <span style='color:#aaa; font-size:10pt'>{where}</span>"
            )

        self.setToolTip("\n".join([shown + ahead, *dict.fromkeys(copied.values())]))
        room = self.width()
        self.setText(text(shown, ahead, False))
        if self.sizeHint().width() <= room or room <= 0:
            return
        self.setText(text(shown, "", False))
        if self.sizeHint().width() <= room:
            return
        keep_low, keep_high = 0, len(shown)  # the most characters of the output's end that fit
        while keep_low < keep_high:
            keep = (keep_low + keep_high + 1) // 2
            self.setText(text(shown[len(shown) - keep :], "", True))
            if self.sizeHint().width() <= room:
                keep_low = keep
            else:
                keep_high = keep - 1
        self.setText(text(shown[len(shown) - keep_low :], "", True))
