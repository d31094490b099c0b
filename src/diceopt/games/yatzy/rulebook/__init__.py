"""Yatzy's rules as data: the category vocabulary, the rules object, the rule-file
compiler and the built-in variants by name. The lowest room of the Yatzy package: it
imports no other room, and no kernel (numba)."""
