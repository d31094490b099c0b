"""Playing Yatzy to reach a target or beat other players: target advice, the chance of
beating an opponent's sheet, duels of two strategies and play against the computer.
They ask the store for their tables."""
