"""The ``attnviz`` command line: the app by default (``attnviz.py``), and the headless subcommands."""
