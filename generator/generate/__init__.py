"""Stages 2-3: budget, task seeds, verbalisation, checks, repair, output."""
