"""JS/TS stubs for red.allow_stubs: what a red step may add to a production file."""

from __future__ import annotations

import pytest

from tddgit.detectors.jsstubs import non_stub_additions_js

OLD = "export function add(a, b) {\n  return a + b;\n}\n"


@pytest.mark.parametrize(
    "added",
    [
        "export function sub(a, b) {\n  throw new Error('not implemented');\n}\n",
        "export function sub(a, b) {}\n",
        "export async function sub(a: number, b: number): Promise<number> {\n  return null;\n}\n",
        "export const sub = (a, b) => {\n  throw new NotImplementedError();\n};\n",
        "export const sub = () => undefined;\nexport const mul = async () => null;\n",
        "export class Stack {\n  push(x) {}\n  static of() { return; }\n  get size() { return undefined; }\n}\n",
        "export const ops = {\n  sub(a, b) { throw new Error('todo'); },\n};\n",
        "import { x } from './x.js';\nexport { x };\nexport interface P { a: number }\ntype Q = string;\n",
        "function sub() {}\nmodule.exports = { add, sub };\n",
    ],
)
def test_stubs_and_declarations_are_allowed(added: str) -> None:
    assert non_stub_additions_js(OLD, OLD + added, "src/calc.ts") == []


@pytest.mark.parametrize(
    ("new", "expected"),
    [
        (OLD + "export function sub(a, b) {\n  return a - b;\n}\n", "`sub` is new"),
        (OLD + "export const sub = (a, b) => a - b;\n", "`sub` is new"),
        ("export function add(a, b) {\n  return a + b + 1;\n}\n", "`add` has a changed body"),
        (OLD + "export class S {\n  push(x) { this.items.push(x); }\n}\n", "`S.push` is new"),
        (OLD + "export const total = add(1, 2);\n", "code outside a function"),
        (
            OLD + "export function sub() {\n  if (x) throw new Error('no');\n  return 1;\n}\n",
            "`sub` is new",
        ),
    ],
)
def test_real_code_is_named(new: str, expected: str) -> None:
    [line] = non_stub_additions_js(OLD, new, "src/calc.js")
    assert line.startswith("src/calc.js:") and expected in line


def test_formatting_comments_and_moves_are_not_changes() -> None:
    old = OLD + "export function mul(a, b) {\n  return a * b;\n}\n"
    new = "// maths\nexport function mul(a,b){ return a*b }\n\nexport function add(a, b) {\n  return a + b\n}\n"
    assert non_stub_additions_js(old, new, "src/calc.js") == []


def test_a_new_file_of_stubs_and_a_broken_file_are_read_tolerantly() -> None:
    assert non_stub_additions_js(None, "export function f() {}\n", "src/f.js") == []
    assert non_stub_additions_js(None, "export function f() {\n  return 1;\n", "src/f.js") == [
        "src/f.js:1: `f` is new and has a body that is not a stub"
    ]
