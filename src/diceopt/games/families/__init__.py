"""Rule families: games described by rule files rather than by code."""
