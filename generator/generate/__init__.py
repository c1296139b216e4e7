"""Stages 2-3 of a run, in rooms named for its steps: ``run/`` composes and drives it
(preflight, budget, domains, the run folder), ``draw/`` draws task seeds with computed
answers, ``verbalise/`` words them, ``checks/`` vets and de-duplicates the drafts.
``model.py`` holds the contracts between the stages and ``tolerance.py`` the one tolerance
rule the draws and the grader share. Imports nothing (the rooms load lazily)."""
