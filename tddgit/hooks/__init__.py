"""The git hooks (PRODUCT.md §7): commit-msg, prepare-commit-msg, post-commit, pre-commit.

``tddgit hook NAME ARGS`` reaches ``dispatch`` straight from ``tddgit.__main__`` without
importing click, rich or the gates: a hook that finds fresh evidence must stay fast (§11).
Nothing here imports more than the step at hand needs.
"""
