"""The model-driven phases (PRODUCT.md §12): a model proposes, tddgit's gates decide.

Read in this order: ``phases`` (what differs between red, green and refactor, as data),
``tools`` (everything the model can do) and ``sandbox`` (the rules every tool obeys),
``loop`` (the one conversation loop), ``run`` (one phase run: preflight, loop, restore or
keep), ``providers`` (who answers: the Anthropic SDK or a replay). ``transcript``,
``workspace``, ``prompt``, ``prices`` and ``coverage`` are the loop's helpers.

Nothing here is imported on the hook path; the SDK is imported only inside
``providers.anthropic``.
"""
