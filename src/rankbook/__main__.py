"""``python -m rankbook`` is the ``rankbook`` command."""

import sys

from .cli import main

sys.exit(main())
