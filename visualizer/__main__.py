"""``python -m visualizer`` behaves exactly like ``attnviz``."""

import sys

from visualizer.cli import main

sys.exit(main())
