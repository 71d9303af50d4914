"""``python -m rankbook`` is the ``rankbook`` command."""

import sys

from .book.cli import main

sys.exit(main())
