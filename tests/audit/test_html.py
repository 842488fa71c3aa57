"""`tddgit audit --format html`: the file itself, and the page real headless Chromium builds.

The Chromium tests read the DOM back after the report's script ran (``--dump-dom``) and
save one screenshot under ``artifacts/``; they skip, saying why, when no Chromium exists.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from tddgit.audit import render_html
from tddgit.audit.render_html import payload
from tests.audit.helpers import Steps, audit, note
from tests.conftest import REPO_ROOT, GitRepo

XSS_SUBJECT = "first test </script><script>alert(1)</script>"
XSS_DOM = "</script><script>document.body.setAttribute('data-xss','1')</script>"
MALLORY = "Mallory &amp; O'Neil"  # git drops < and > from names; & and ' stay
XSS_PATH = "tests/test_<img src=x onerror=document.body.setAttribute('data-xss','2')>.py"
TEST_CALC = "from calc import total\n\n\ndef test_empty():\n    assert total([]) == 0\n"


@pytest.fixture
def known(repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    """Two authors, one complete cycle with evidence, production code without a test, a
    broken cycle, and repository text that tries to become markup."""
    s = Steps(repo)
    shas = {"readme": s.commit("Initial readme", {"README.md": "hi\n"})}
    shas["red"] = s.commit(XSS_SUBJECT, {"tests/test_calc.py": TEST_CALC}, phase="red")
    shas["green"] = s.commit(
        "sum numbers", {"calc.py": "def total(xs):\n    return sum(xs)\n"}, phase="green"
    )
    shas["refactor"] = s.commit(
        "rename arg", {"calc.py": "def total(v):\n    return sum(v)\n"}, phase="refactor"
    )
    note(repo, shas["red"], "red")
    note(repo, shas["green"], "green")
    monkeypatch.setenv("GIT_AUTHOR_NAME", MALLORY)
    monkeypatch.setenv("GIT_AUTHOR_EMAIL", "mallory@example.com")
    shas["code"] = s.commit(XSS_DOM, {"report.py": "def report():\n    return 1\n"})
    shas["red2"] = s.commit("RED: odd input", {XSS_PATH: "def test_x():\n    assert 0\n"})
    shas["red3"] = s.commit(
        "RED: even input", {"tests/test_even.py": "def test_e():\n    assert 0\n"}
    )
    return shas


def _html(repo: GitRepo, tmp_path: Path, name: str = "report.html") -> Path:
    out = tmp_path / name
    proc = repo.tddgit("audit", "--format", "html", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


# --- the file ------------------------------------------------------------------------


def test_one_self_contained_file_that_fetches_nothing(repo, known, tmp_path):
    text = _html(repo, tmp_path).read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    for external in ("http://", "https://", "<link", "@import", "url(", "<iframe", "<img"):
        assert external not in text
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text)
    assert csp is not None and "default-src 'none'" in csp.group(1)
    # Exactly our two scripts (data + code) and our style, and the CSP names their hashes.
    assert text.count("<script") == 2 and text.count("</script>") == 2
    code = re.search(r"<script>(.*?)</script>", text, re.S)
    style = re.search(r"<style>(.*?)</style>", text, re.S)
    assert code is not None and style is not None
    for block in (code.group(1), style.group(1)):
        digest = base64.b64encode(hashlib.sha256(block.encode()).digest()).decode()
        assert f"'sha256-{digest}'" in csp.group(1)


def test_repository_text_cannot_become_markup(repo, known, tmp_path):
    text = _html(repo, tmp_path).read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text
    assert "<script>document" not in text and "<img" not in text
    assert MALLORY not in text and "Mallory \\u0026amp; O'Neil" in text
    data = re.search(r'<script type="application/json" id="tddgit-data">(.*?)</script>', text, re.S)
    assert data is not None
    doc = json.loads(data.group(1))
    subjects = [c["m"] for c in doc["commits"]]
    assert XSS_SUBJECT in subjects and XSS_DOM in subjects
    paths = [f[1] for c in doc["commits"] for f in c["f"]]
    assert XSS_PATH in paths


def test_dense_histories_draw_buckets_and_keep_detail_bounded(repo, monkeypatch):
    """Above DETAIL_LIMIT commits: per-day bars, detail only for the recent window and the
    commits of the findings shown (errors first, at most MAX_FINDINGS)."""
    monkeypatch.setattr(render_html, "DETAIL_LIMIT", 40)
    monkeypatch.setattr(render_html, "RECENT", 10)
    monkeypatch.setattr(render_html, "MAX_FINDINGS", 15)
    s = Steps(repo)
    for n in range(60):  # production code, never a test: pre-test-code on every commit
        s.commit(f"change {n}", {f"src/mod{n}.py": f"X = {n}\n"}, at=n * 300.0)
    report = audit(repo)
    assert len(report.findings) == 60
    data = payload(report)
    assert data["dense"] is True
    assert data["total"] == {"commits": 60, "findings": 60, "authors": 1}
    assert len(data["findings"]) == 15
    shown = {f[3] for f in data["findings"]}
    recent = {c.sha for c in report.commits[-10:]}
    assert {c["s"] for c in data["commits"]} == shown | recent
    assert [c["s"] for c in data["commits"][data["strip"] :]] == [
        c.sha for c in report.commits[-10:]
    ]
    buckets = data["buckets"]
    assert buckets["unit"] == "day"
    assert sum(sum(row[:5]) for row in buckets["counts"]) == 60
    assert sum(row[5] for row in buckets["counts"]) == 60


def test_size_stays_flat_past_the_detail_limit(repo, monkeypatch, tmp_path):
    monkeypatch.setattr(render_html, "DETAIL_LIMIT", 20)
    monkeypatch.setattr(render_html, "RECENT", 10)
    monkeypatch.setattr(render_html, "MAX_FINDINGS", 10)
    s = Steps(repo)
    sizes = []
    for n in range(80):
        s.commit(f"change {n}", {f"src/mod{n}.py": f"X = {n}\n"}, at=n * 60.0)
        if n + 1 in (40, 80):
            out = tmp_path / f"r{n}.html"
            with out.open("w", encoding="utf-8") as fh:
                render_html.write_html(audit(repo), fh)
            sizes.append(out.stat().st_size)
    assert abs(sizes[1] - sizes[0]) < 0.05 * sizes[0]  # twice the commits, same size


# --- in a real browser -----------------------------------------------------------------


def _chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("headless Chromium not found: `apt-get install chromium` (make test installs it)")


def _browse(file: Path, tmp_path: Path, *extra: str, fragment: str = "") -> str:
    argv = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--hide-scrollbars",
        f"--user-data-dir={tmp_path / 'chromium-profile'}",
        *extra,
        file.as_uri() + fragment,
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


class _Dom(HTMLParser):
    """Start tags with their attributes, and the text inside each element with an id."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.text: dict[str, list[str]] = {}
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        self.tags.append((tag, a))
        if tag not in ("meta", "input", "br", "img", "link"):
            self._open.append((tag, a.get("id")))
            if a.get("id"):
                self.text.setdefault(a["id"], [])

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break

    def handle_data(self, data: str) -> None:
        for _tag, ident in self._open:
            if ident:
                self.text[ident].append(data)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        return [
            a
            for t, a in self.tags
            if t == tag
            and all(
                re.fullmatch(v, a.get(k.rstrip("_").replace("_", "-"), ""))
                for k, v in attrs.items()
            )
        ]

    def of(self, ident: str) -> str:
        return "".join(self.text.get(ident, []))


@pytest.mark.chromium
def test_the_page_chromium_builds(repo, known, tmp_path):
    report = _html(repo, tmp_path)
    dom = _Dom()
    dom.feed(_browse(report, tmp_path, "--dump-dom", fragment=f"#c-{known['red']}"))
    [body] = dom.find("body")
    assert body.get("data-ready") == "1"  # the script ran to the end
    assert "data-xss" not in body  # and nothing from the repository did

    # the timeline: one chip per commit, oldest first, phase by class and by letter
    chips = dom.find("button", class_=r"cm ph-\w.*", id=r"c-[0-9a-f]{40}")
    assert [c["id"][2:] for c in chips] == list(known.values())
    assert [c["class"].split()[1] for c in chips] == [
        "ph-n",
        "ph-r",
        "ph-g",
        "ph-f",
        "ph-n",
        "ph-r",
        "ph-r",
    ]
    cycles = {g["data-cycle"]: g["class"] for g in dom.find("div", data_cycle=r"\d+")}
    assert sorted(cycles.values()) == ["grp st-broken", "grp st-complete", "grp st-open"]
    flagged = {c["id"][2:] for c in chips if "data-findings" in c}
    assert known["code"] in flagged and known["readme"] not in flagged

    # the commit named in the URL is shown, its subject as text
    detail = dom.of("detail")
    assert XSS_SUBJECT in detail and known["red"] in detail
    assert "Tess Driven <tess@example.com>" in detail
    assert "tests/test_x.py::test_a" in detail  # its evidence

    # the metrics, per author too
    charts = dom.of("charts")
    for label in ("Conformance", "SEQ test-first", "REF refactoring", "GRA median", "UNI MAD"):
        assert label in charts
    for kind in ("test-first", "test-last", "refactoring", "Time in red", "Cycles (3)"):
        assert kind in charts
    authors = dom.of("authors")
    assert "Tess Driven <tess@example.com>" in authors
    assert f"{MALLORY} <mallory@example.com>" in authors

    # the findings, filterable, each linking to its commit
    rows = dom.find("tr", data_rule=r"[a-z-]+")
    assert {r["data-rule"] for r in rows} >= {"pre-test-code"}
    links = {a["href"] for a in dom.find("a", href=r"#c-[0-9a-f]{40}")}
    assert f"#c-{known['code']}" in links
    assert {s["id"] for s in dom.find("select")} == {"f-rule", "f-sev"}
    assert f"showing {len(rows)} of {len(rows)}" in dom.of("f-count")

    artifacts = REPO_ROOT / "artifacts"
    artifacts.mkdir(exist_ok=True)
    shot = artifacts / "audit-report.png"
    _browse(report, tmp_path, "--window-size=1280,1500", f"--screenshot={shot}")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
