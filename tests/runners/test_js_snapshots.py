"""Snapshots and test configuration in jest and vitest (issue 24, items 1 and 6): a gate
never writes a snapshot into the user's tree, a missing snapshot in a red is refused with
the way out, a snapshot red turns green, and a green may not change a setup file."""

from __future__ import annotations

import pytest

from tests.conftest import GitRepo
from tests.runners.test_js_gates import FLAVOURS, gate, stage, start, targets

FMT = "export function fmt(n) {\n  return `n=${n}`;\n}\n"
FMT_STUB = "export function fmt(n) {\n  return undefined;\n}\n"


def _snapshot_test(f_name: str) -> str:
    header = FLAVOURS[f_name].header
    return (
        header
        + "import { fmt } from '../src/fmt.js';\n\n"
        + "test('formats', () => {\n  expect(fmt(2)).toMatchSnapshot();\n});\n"
    )


SNAP_HEADERS = {
    "vitest": "// Vitest Snapshot v1, https://vitest.dev/guide/snapshot.html\n\n",
    "jest": "// Jest Snapshot v1, https://goo.gl/fbAQLP\n\n",
}


def _snap(f_name: str) -> str:
    return SNAP_HEADERS[f_name] + 'exports[`formats 1`] = `"n=2"`;\n'


@pytest.fixture(params=["jest", "vitest"])
def project(request: pytest.FixtureRequest, repo: GitRepo) -> tuple[GitRepo, str]:
    start(repo, FLAVOURS[request.param])
    repo.write("src/fmt.js", FMT_STUB, dedent=False)
    repo.commit("fmt stub")
    return repo, request.param


def _untracked(repo: GitRepo) -> str:
    return repo.git("ls-files", "--others", "--exclude-standard")


def test_a_snapshot_red_turns_green(project: tuple[GitRepo, str]) -> None:
    repo, name = project
    stage(
        repo,
        {
            "test/fmt.test.js": _snapshot_test(name),
            "test/__snapshots__/fmt.test.js.snap": _snap(name),
        },
    )
    code, data = gate(repo, "red")
    assert code == 0, data
    assert targets(data) == {"test/fmt.test.js::formats": ("failed", "assertion")}
    assert _untracked(repo) == ""
    stage(repo, {"src/fmt.js": FMT})
    code, data = gate(repo, "green")
    assert code == 0, data
    assert _untracked(repo) == ""


def test_a_missing_snapshot_is_a_red_never_written_and_the_green_adds_it(
    project: tuple[GitRepo, str],
) -> None:
    repo, name = project
    stage(repo, {"test/fmt.test.js": _snapshot_test(name)})
    code, data = gate(repo, "red")
    assert code == 0, data
    assert targets(data) == {"test/fmt.test.js::formats": ("failed", "snapshot-missing")}
    assert _untracked(repo) == ""
    assert not (repo.root / "test" / "__snapshots__").exists()
    # The expected value is written with the code: exactly the entry the red asked for.
    stage(repo, {"src/fmt.js": FMT, "test/__snapshots__/fmt.test.js.snap": _snap(name)})
    code, data = gate(repo, "green")
    assert code == 0, data
    assert targets(data) == {"test/fmt.test.js::formats": ("passed", None)}
    assert _untracked(repo) == ""


def test_a_green_may_not_change_an_existing_snapshot(project: tuple[GitRepo, str]) -> None:
    repo, name = project
    snap = _snap(name) + 'exports[`other 1`] = `"kept"`;\n'
    stage(
        repo,
        {"test/fmt.test.js": _snapshot_test(name), "test/__snapshots__/fmt.test.js.snap": snap},
    )
    code, data = gate(repo, "red")
    assert code == 0, data
    # The code, and the expected values rewritten to whatever it produces.
    wrong = snap.replace('"n=2"', '"n=2!"').replace('"kept"', '"changed"')
    stage(
        repo,
        {
            "src/fmt.js": FMT.replace("`;", "!`;"),
            "test/__snapshots__/fmt.test.js.snap": wrong,
        },
    )
    code, data = gate(repo, "green")
    assert code == 1, data
    edited = [r["message"] for r in data["reasons"] if r["rule"] == "test-edited-in-green"]
    assert any("snapshot `formats 1` changed" in m for m in edited), data
    assert any("snapshot `other 1` changed" in m for m in edited), data


def test_an_obsolete_snapshot_is_reported(project: tuple[GitRepo, str]) -> None:
    repo, name = project
    stage(
        repo,
        {
            "test/fmt.test.js": _snapshot_test(name),
            "test/__snapshots__/fmt.test.js.snap": _snap(name) + 'exports[`gone 1`] = `"old"`;\n',
        },
    )
    code, data = gate(repo, "red")
    assert code == 0, data
    assert any("obsolete snapshot" in n and "gone 1" in n for n in data["notes"]), data["notes"]


SETUP = "globalThis.helper = () => 1;\n"
CHEAT = (
    "import { expect } from 'vitest';\n"
    "expect.extend({ toBe: () => ({ pass: true, message: () => '' }) });\n"
)


def test_a_green_may_not_change_a_vitest_setup_file(repo: GitRepo) -> None:
    f = FLAVOURS["vitest"]
    start(repo, f)
    repo.write("src/setup.js", SETUP, dedent=False)
    repo.write(
        "vitest.config.js",
        "export default { test: { setupFiles: ['./src/setup.js'] } };\n",
        dedent=False,
    )
    repo.commit("setup file")
    test = f"\ntest('multiplies', () => {{\n  {f.eq('calc.mul(2, 3)', '6')}\n}});\n"
    from tests.runners.test_js_gates import calc_test

    stage(repo, {"test/calc.test.js": calc_test(f, tail=test)})
    code, data = gate(repo, "red")
    assert code == 0, data
    # A wrong mul, and a setup file (production by its path) that makes every toBe pass.
    stage(
        repo,
        {
            "src/calc.js": "export function add(a, b) {\n  return a + b;\n}\n"
            "export function mul(a, b) {\n  return a + b;\n}\n",
            "src/setup.js": CHEAT,
        },
    )
    code, data = gate(repo, "green")
    assert code == 1, data
    found = [r for r in data["reasons"] if r["rule"] == "test-config-changed"]
    assert found and "src/setup.js" in found[0]["message"], data
