"""What a solved table yields beyond one position's advice: the exact distribution of the
final score, target tables (P(at least k more points)) and every action's value by the
generic engine (the second path). Pure computation: they read no stored file."""
