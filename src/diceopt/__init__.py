"""diceopt: exact optimal play for dice games, solved with the Bellman equation."""

__version__ = "0.1.0"
