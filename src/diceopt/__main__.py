"""``python -m diceopt``: the same as the ``diceopt`` command."""

import sys

from diceopt.cli import run

sys.exit(run())
