"""Zombie Dice (RULES §10)."""

from diceopt.games.zombie.spec import ZombieSpec

SPEC = ZombieSpec()
