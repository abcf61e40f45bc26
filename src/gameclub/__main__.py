"""``python -m gameclub``: the same as the ``gameclub`` command."""

import sys

from gameclub.cli import main

sys.exit(main())
