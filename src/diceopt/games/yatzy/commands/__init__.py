"""The Yatzy game's commands and the checks of a request: solve, targets, export, batch,
sweep, Ray, the environments' codec, rule-file checks and what a request needs and
costs. The top room, under the package's ``SPEC``."""
