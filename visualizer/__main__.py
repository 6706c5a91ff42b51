"""``python -m visualizer`` behaves exactly like ``attnviz``."""

import sys

from visualizer.cli.attnviz import main

sys.exit(main())
