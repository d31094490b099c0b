"""A Yatzy position as a player sees it: the notation, typed moves and the sheet, every
legal action's value from a table, and Yatzy on the generic engine (the slow,
independent reference). Above the kernel."""
