"""Refilling a combo box (new words for a language, new choices for a model) without telling
its listeners: the choice is not the user's."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtWidgets import QComboBox


def refill(combo: QComboBox, items: Sequence[tuple[str, object]], chosen: object = None) -> None:
    """Replace ``combo``'s items (text, data) and choose the item whose data is ``chosen``
    (default: the data chosen now), or the first where it is not offered."""
    if chosen is None:
        chosen = combo.currentData()
    combo.blockSignals(True)
    combo.clear()
    for text, data in items:
        combo.addItem(text, data)
    datas = [data for _, data in items]
    combo.setCurrentIndex(datas.index(chosen) if chosen in datas else 0)
    combo.blockSignals(False)
