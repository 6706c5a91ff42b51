"""The app's state, free of Qt: the session (what is loaded, shown and selected), what it says to
the worker, the views computed from a snapshot, a second session for Compare, the Train page's
runs, and the words and names built from them. Tested without a window; import-linter keeps Qt out."""
