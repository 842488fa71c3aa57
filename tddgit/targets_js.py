"""Which JS/TS tests a step is about: the ``test(...)`` / ``it(...)`` cases of a staged test
file that are new or whose body changed, named as the runners name them
(``test/calc.test.js::calc > adds``: the file, then the describe titles and the test's).

The files are read with the detectors' tolerant tokenizer, so comments and formatting do
not count as changes and a file that does not parse is still read as far as it goes. A
title tddgit cannot know before the run (a template with ``${}``, ``test.each``) targets
the whole file, as does a test file in which no test block is found at all.
"""

from __future__ import annotations

from collections import Counter

from tddgit.detectors.js import JsTest, test_blocks


def _keyed(tests: list[JsTest]) -> dict[tuple[str, int], JsTest]:
    """Tests by name and occurrence: two tests with one title are both kept."""
    seen: Counter[str] = Counter()
    out: dict[tuple[str, int], JsTest] = {}
    for t in tests:
        out[(t.name, seen[t.name])] = t
        seen[t.name] += 1
    return out


def js_targets(path: str, new: str, old: str | None) -> list[str]:
    """The target ids in test file ``path`` (``old`` is None for a new file)."""
    new_tests = test_blocks(new)
    if not new_tests:
        return [path]
    old_tests = _keyed(test_blocks(old)) if old is not None else {}
    targets: list[str] = []
    for key, test in _keyed(new_tests).items():
        before = old_tests.get(key)
        if before is not None and before.fingerprint == test.fingerprint:
            continue
        if not test.exact:
            return [path]
        test_id = f"{path}::{test.name}"
        if test_id not in targets:
            targets.append(test_id)
    return targets
