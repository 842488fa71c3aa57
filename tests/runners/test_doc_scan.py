"""Whether a crate's library could hold a doc test (``tddgit.cargocmd.doc_tests_possible``):
read before the early start spawns cargo, so only what rustdoc tests is read, and a
doubt means yes (a doc test the gate skipped would let a green hold that plain `cargo
test` fails)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tddgit.cargocmd import doc_tests_possible

PACKAGE = '[package]\nname = "calc"\nversion = "0.1.0"\nedition = "2021"\n'
LIB = "/// Adds.\npub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n"
DOC_CODE = "/// ```\n/// assert_eq!(calc::add(1, 1), 2);\n/// ```\n"


def _crate(root: Path, files: dict[str, str], manifest: str = PACKAGE) -> Path:
    for name, text in {"Cargo.toml": manifest, "src/lib.rs": LIB, **files}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_library_without_doc_code_has_none(tmp_path: Path) -> None:
    assert not doc_tests_possible(_crate(tmp_path, {}))


def test_doc_code_in_the_library_s_modules_counts(tmp_path: Path) -> None:
    crate = _crate(tmp_path, {"src/lib.rs": "mod shapes;\n" + LIB, "src/shapes.rs": DOC_CODE})
    assert doc_tests_possible(crate)


@pytest.mark.parametrize("folder", ["tests", "examples", "benches"])
def test_doc_comments_outside_the_library_are_not_doc_tests(tmp_path: Path, folder: str) -> None:
    """rustdoc tests the library: an integration test's doc comment is never run (and
    every file read here delays cargo's start)."""
    crate = _crate(tmp_path, {f"{folder}/mul.rs": DOC_CODE + "#[test]\nfn mul() {}\n"})
    assert not doc_tests_possible(crate)


@pytest.mark.parametrize(
    ("files", "manifest"),
    [
        ({"src/lib.rs": '#[path = "../shared/doc.rs"]\nmod doc;\n' + LIB}, PACKAGE),
        ({"src/lib.rs": 'include!("../generated/api.rs");\n' + LIB}, PACKAGE),
        ({"lib/calc.rs": DOC_CODE + LIB}, PACKAGE + '\n[lib]\npath = "lib/calc.rs"\n'),
        ({"member/src/lib.rs": DOC_CODE}, PACKAGE + '\n[workspace]\nmembers = ["member"]\n'),
    ],
    ids=["path-attribute", "include", "lib-elsewhere", "workspace"],
)
def test_code_from_elsewhere_is_a_doubt(
    tmp_path: Path, files: dict[str, str], manifest: str
) -> None:
    assert doc_tests_possible(_crate(tmp_path, files, manifest))


def test_a_package_without_a_manifest_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / "doc.rs").write_text(DOC_CODE)
    assert doc_tests_possible(tmp_path)
