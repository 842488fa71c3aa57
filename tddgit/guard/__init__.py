"""The agent guard (PRODUCT.md §13): hooks that hold coding agents to test-first.

Decided from facts — the lineage's phase state, evidence for the index, the tree's test
outcomes and coverage — never from a model's opinion. Read it in this order:

- ``model``: the agent-neutral event and decision records;
- ``rules``: every rule, with its id, in one place;
- ``facts``: what the pre-write rules read (fast: no test run, nothing heavy imported);
- ``snapshots``: each file's content before a write, kept per agent session;
- ``checks``: the checks that run tests (after a write, before a stop);
- ``adapters/``: one module per agent (its stdin/stdout format and its configuration);
- ``dispatch``: one hook call, failing open on tddgit's own faults;
- ``quick``: the post-tool hook's fast path ("nothing changed", stdlib only), before
  ``aftertool`` and ``tree`` (the tree check) and ``inflight`` (the race rule between
  parallel sessions);
- ``install``: merging the hooks into (and out of) each agent's configuration;
- ``trust``, ``agentcli``: ``agent doctor`` (the agents' trust rules, their own CLIs).
"""
