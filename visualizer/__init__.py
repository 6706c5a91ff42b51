"""The desktop app (PySide6 + pyqtgraph) over the Qt-free model code in ``model``."""

# The app's name to the desktop: its desktop entry, icon and AppStream metainfo (shipped in
# visualizer/desktop/, installed by `attnviz install-desktop`) are named after it, and the
# window gives it to the compositor so that a Wayland dock shows the right icon.
APP_ID = "io.github.attention_visualizer.AttentionVisualizer"
