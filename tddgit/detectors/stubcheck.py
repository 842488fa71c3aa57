"""Which stub detector reads a production file, by language (``red.allow_stubs``)."""

from __future__ import annotations

from collections.abc import Callable

StubCheck = Callable[[str | None, str, str], list[str]]


def stub_checker(path: str) -> StubCheck | None:
    """The function listing a change's non-stub additions for ``path``'s language, or
    None when tddgit recognises no stubs in it."""
    from tddgit.languages import language_of

    if language_of(path) == "js":
        from tddgit.detectors.jsstubs import non_stub_additions_js

        return non_stub_additions_js
    if path.endswith((".py", ".pyi")):
        from tddgit.detectors.stubs import non_stub_additions

        return non_stub_additions
    if path.endswith(".go"):
        from tddgit.detectors.gostubs import non_stub_additions_go

        return non_stub_additions_go
    if path.endswith(".rs"):
        from tddgit.detectors.ruststubs import non_stub_additions_rust

        return non_stub_additions_rust
    return None
