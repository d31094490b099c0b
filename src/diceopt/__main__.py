"""``python -m diceopt``: the same as the ``diceopt`` command."""

import sys

from diceopt.cli import main

sys.exit(main())
