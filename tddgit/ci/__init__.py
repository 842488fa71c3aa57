"""tddgit for teams and CI: sharing the evidence notes (``notes_sync``, ``carry``), the CI
providers (``providers``) and the one-command audit of a pull request (``run``)."""
