"""The stored Yatzy tables: :mod:`.store` is the one module that hands out every table
(it loads, locks, solves, stores and keeps them); the file formats beside it are
private to this room. Above the kernel and the analyses it builds tables with."""
