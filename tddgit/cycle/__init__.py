"""`tddgit cycle`: a whole red → green → refactor made by a model in a throwaway worktree,
merged into the user's branch only when a person approves (docs/llm.md)."""
