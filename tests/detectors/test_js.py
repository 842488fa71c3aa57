"""JS/TS mock counting with the tolerant tokenizer (PRODUCT.md §9)."""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from pathlib import Path

import pytest

from tddgit.detectors import OVER_MOCKING
from tddgit.detectors.js import analyze_js, test_mocks
from tddgit.detectors.jstokens import match_brackets, tokenize


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def counts(source: str) -> dict[str, int]:
    return {k: m.mocks for k, m in test_mocks(_src(source)).items()}


CASES: list[tuple[str, str, dict[str, int]]] = [
    (
        "each mock factory counts once",
        """
        test('all kinds', () => {
          jest.fn(); vi.fn(); jest.spyOn(o, 'a'); vi.spyOn(o, 'b');
          sinon.stub(o, 'c'); sinon.mock(o); sinon.spy(); jest.mock('./x'); vi.mock('./y');
          jest.fn().mockReturnValue(1).mockName('n');
        });
        """,
        {"all kinds": 10},
    ),
    (
        "beforeEach mocks count for every test of the describe, nested ones too",
        """
        describe('Cart', () => {
          let api;
          beforeEach(() => {
            api = { get: jest.fn(), put: jest.fn() };
          });
          afterEach(() => jest.restoreAllMocks());
          it('adds', () => {
            jest.spyOn(api, 'get');
            expect(api.get).not.toHaveBeenCalled();
          });
          describe('empty', () => {
            beforeEach(() => { vi.fn(); });
            it('is empty', () => { expect(1).toBe(1); });
          });
        });
        describe('Other', () => {
          it('is not affected', () => { expect(2).toBe(2); });
        });
        """,
        {"Cart > adds": 3, "Cart > empty > is empty": 3, "Other > is not affected": 0},
    ),
    (
        "file-level module mocks count for every test; sibling tests do not",
        """
        jest.mock('../db');
        jest.mock('../mailer');
        test('one', () => { jest.fn(); jest.fn(); });
        test('two', () => { expect(true).toBe(true); });
        """,
        {"one": 4, "two": 2},
    ),
    (
        "strings, templates, comments and regexes hide look-alikes",
        """
        // jest.fn() in a line comment
        /* it('commented out', () => { jest.fn() }) */
        const re = /it\\('x', \\(\\) => \\{ jest.fn\\(\\)/g;
        const half = 10 / 2 / 5;
        test("quotes 'jest.fn()' and \\"vi.fn()\\"", () => {
          const t = `jest.fn() ${ { a: 'vi.fn()' }.a } it('nope', () => {})`;
          const r = /[/]jest.fn()/.test(t);
          expect(t).toContain('it(');
        });
        """,
        {"quotes 'jest.fn()' and \\\"vi.fn()\\\"": 0},
    ),
    (
        "each tables, modifiers and Playwright-style describe",
        """
        describe.each([[1], [2]])('with %i', (n) => {
          test.each`
            a | b
            ${1} | ${2}
          `('table $a', ({ a }) => { vi.fn(); });
          it.only('only', () => { sinon.stub(); });
        });
        test.describe('pw', () => {
          test.beforeEach(async () => { jest.fn(); });
          test.skip('skipped', async () => {});
        });
        xit('x', () => { jest.fn(); });
        """,
        {
            "with %i > table $a": 1,
            "with %i > only": 1,
            "pw > skipped": 1,
            "x": 1,
        },
    ),
    (
        "calls on other objects are not tests or mocks",
        """
        const ok = /abc/.test('abc');
        obj.it('x', () => {});
        myjest.fn();
        it('real', () => { expect(ok).toBe(true); });
        """,
        {"real": 0},
    ),
    (
        "tests with the same title are both kept",
        """
        it('works', () => { jest.fn(); });
        it('works', () => { jest.fn(); jest.fn(); });
        """,
        {"works": 1, "works #2": 2},
    ),
    (
        "TypeScript generics, types and JSX",
        """
        import { render } from '@testing-library/react';
        type Api = { get: (id: number) => Promise<string> };
        describe('Widget', () => {
          it('renders', () => {
            const get = vi.fn<[number], Promise<string>>();
            const api: Api = { get } as unknown as Api;
            const view = render(<Widget api={api} label="it's fine" />);
            expect(view.getByText(/loaded/i)).toBeTruthy();
          });
        });
        """,
        {"Widget > renders": 1},
    ),
]


@pytest.mark.parametrize(("source", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_mock_counts(source: str, expected: dict[str, int]) -> None:
    assert counts(source) == expected


# Files node can parse, so the tokenizer is tested on real JavaScript, not only on snippets.
NODE_CASES = [c for c in CASES if "TypeScript" not in c[0]]


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
@pytest.mark.parametrize("source", [c[1] for c in NODE_CASES], ids=[c[0] for c in NODE_CASES])
def test_cases_are_valid_javascript(source: str, tmp_path: Path) -> None:
    path = tmp_path / "case.test.mjs"
    path.write_text(_src(source).replace("import { render }", "// import { render }"))
    proc = subprocess.run(["node", "--check", str(path)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_finding_names_counts_and_shared_mocks() -> None:
    source = _src(CASES[1][1])
    findings = analyze_js(source, "src/cart.test.js", max_mocks=2)
    assert [f.test for f in findings] == ["Cart > adds", "Cart > empty > is empty"]
    finding = findings[0]
    assert finding.rule == OVER_MOCKING
    assert finding.severity == "warning"
    assert finding.path == "src/cart.test.js"
    assert finding.line == 7
    assert finding.count == 3
    assert finding.message.startswith("3 mocks (max 2): ")
    assert "shared from hooks" in finding.message
    assert analyze_js(source, "a.test.js", max_mocks=3) == []


def test_line_of_the_test_block() -> None:
    found = test_mocks(_src(CASES[1][1]))
    assert found["Cart > adds"].line == 7
    assert found["Cart > adds"].shared == 2


@pytest.mark.parametrize(
    "source",
    [
        "it('unterminated, () => { jest.fn(); ",
        "describe('x', () => { it('y', () => { jest.fn() ",
        "}}}) ))) it('z', () => { jest.fn(); });",
        "const s = `never closed ${ jest.fn( ",
        "/* never closed jest.fn()",
        "",
        "\0\ufeff`",
    ],
)
def test_malformed_input_never_raises(source: str) -> None:
    test_mocks(source)
    analyze_js(source, "x.test.js", max_mocks=0)


def test_stray_closer_does_not_break_later_tests() -> None:
    assert counts("}}}) ))) it('z', () => { jest.fn(); });") == {"z": 1}


def test_tokenizer_basics() -> None:
    toks = tokenize("#!/usr/bin/env node\nconst a = 'x' + `y${b}` / 2; // c\n/re[/]/g.test(a)")
    kinds = [(t.kind, t.text) for t in toks]
    assert ("str", "x") in kinds
    assert ("str", "y${b}") in kinds
    assert ("regex", "/re[/]/g") in kinds
    assert all(t.text != "c" for t in toks)
    assert toks[-1].line == 3
    pairs = match_brackets(tokenize("f(a[1], {b: (2)})"))
    assert pairs == {1: 14, 3: 5, 7: 13, 10: 12}


def test_pathologically_nested_templates_give_nothing() -> None:
    assert test_mocks("`${" * 3000) == {}
    assert analyze_js("`${" * 3000, "x.test.js", max_mocks=0) == []
