"""One module (or package) per game: rules written to the engine's game protocol."""
