"""Scoring of generated scenarios (static checks, judges, dry runs)."""
