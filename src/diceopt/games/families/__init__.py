"""Game families: compilers from rule files (TOML) to the arrays of a family's solver.

``category``: the Yatzy family (dice, rerolls, categories, bonuses, jokers) compiled to
:class:`~diceopt.games.yatzy.rules.YatzyRules`, the rules the Yatzy kernel reads. The
shipped rule files live in ``diceopt/games/rules``.
"""
