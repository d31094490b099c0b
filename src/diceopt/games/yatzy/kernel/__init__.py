"""Yatzy's exact kernel in numba: the turn, the widget, the layers of states, the backward
solve, saved rerolls, policies, the target turn and seeded simulation; the plain-Python
twin reads a stored table without numpy. Above the rules; knows no stored file."""
