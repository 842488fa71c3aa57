"""Modules a gate defers to their first use (``tddgit.early.defer``): a deferred module
is the real one as soon as anything reads it, in any thread, and one module at that (issue
29: ``inspect`` and ``ast`` cost a Rust red ~5 ms of CPU beside ``cargo test``). Each
case runs in a fresh interpreter: this one has both loaded already."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run(code: str) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def test_a_deferred_module_is_imported_at_its_first_use() -> None:
    out = run(
        """
        import sys
        from tddgit.early.defer import defer
        defer("colorsys")
        import colorsys
        assert "rgb_to_hsv" not in vars(colorsys)  # not imported yet
        print(colorsys.rgb_to_hsv(1.0, 0.0, 0.0))
        import colorsys as again
        print(type(again).__name__, again is sys.modules["colorsys"], hasattr(again, "__file__"))
        """
    )
    assert out.splitlines() == ["(0.0, 1.0, 1.0)", "module True True"]


def test_a_module_loaded_already_is_not_deferred() -> None:
    out = run(
        """
        import colorsys, sys
        from tddgit.early.defer import defer
        defer("colorsys")
        print(sys.modules["colorsys"] is colorsys)
        """
    )
    assert out == "True"


def test_a_module_whose_compiled_part_is_missing_is_not_deferred() -> None:
    """A Python built without ``_bz2`` fails ``import bz2`` where it always did, not at
    the first use of a placeholder."""
    out = run(
        """
        import sys
        from tddgit.early import defer
        defer.NEEDS["colorsys"] = "tddgit_no_such_compiled_module"
        defer.defer("colorsys", "bz2")
        print("colorsys" in sys.modules, type(sys.modules["bz2"]).__name__)
        """
    )
    assert out == "False Deferred"


def test_threads_that_first_use_it_at_once_share_one_module() -> None:
    """The first use may come from the gate's run thread and its main thread together:
    each gets the same module (never a second copy of its classes), and it is imported
    once."""
    out = run(
        """
        import sys, threading
        from tddgit.early.defer import defer
        defer("fractions")
        import fractions
        placeholder = fractions
        seen, start = [], threading.Barrier(16)
        def use():
            start.wait()
            seen.append(fractions.Fraction)
        threads = [threading.Thread(target=use) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        real = sys.modules["fractions"]
        print(len(seen), len({id(c) for c in seen}), real is not placeholder)
        print(all(c is real.Fraction for c in seen))
        """
    )
    assert out.splitlines() == ["16 1 True", "True"]
