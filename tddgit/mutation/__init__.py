"""Mutation of a step's changed production lines (PRODUCT.md §15): ``operators`` makes
the mutants, ``run`` runs them on snapshots, ``check`` is what the gates call, ``audit``
the audit's ``--mutate``, ``refactor`` the agent guard's check of a refactor candidate."""
