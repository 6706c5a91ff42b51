"""Qt's own words in the session's language: QTranslator with the translations Qt ships
(the buttons of standard dialogs, the file dialog). The app's words: visualizer/i18n.py."""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QTranslator

from visualizer.i18n import LOCALES

_installed: QTranslator | None = None


def install_qt_translations(language: str) -> bool:
    """Install Qt's translations for ``language`` on the application (English: remove them).
    False where Qt ships none for it (the dialogs then stay in English)."""
    global _installed
    app = QCoreApplication.instance()
    if app is None:
        return False
    if _installed is not None:
        app.removeTranslator(_installed)
        _installed = None
    locale = LOCALES.get(language)
    if locale is None:
        return True
    qt = QTranslator(app)
    if not qt.load(f"qtbase_{locale}", QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)):
        return False
    app.installTranslator(qt)
    _installed = qt
    return True
