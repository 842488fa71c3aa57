"""`tddgit detect`: static anti-pattern checks on test files (PRODUCT.md §9)."""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from pathlib import Path

import click

from tddgit import __version__, console
from tddgit.appcontext import AppContext
from tddgit.cli import app
from tddgit.config import Config, default_config
from tddgit.detectors import (
    PARSE_ERROR,
    RULE_DESCRIPTIONS,
    SEVERITIES,
    DetectorFinding,
    analyze_file,
    conftest_paths,
    language_of,
    severity_rank,
)
from tddgit.errors import NotARepoError, UsageError
from tddgit.git import Repo, zsplit
from tddgit.paths import Classifier

MAX_BYTES = 4 * 1024 * 1024  # a "test file" larger than this is generated data, not a test
_SKIP_DIRS = frozenset({"node_modules", "__pycache__", "venv", "site-packages", "dist", "build"})


@click.command("detect")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "sarif"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option("--json", "as_json", is_flag=True, help="Same as --format json.")
@click.option(
    "--severity",
    type=click.Choice(list(SEVERITIES)),
    default="warning",
    show_default=True,
    help="Exit 1 when a finding is at or above this severity.",
)
@click.option("--max-mocks", type=click.IntRange(min=0), help="Override antipatterns.max_mocks.")
@click.option(
    "--max-asserts", type=click.IntRange(min=0), help="Override antipatterns.max_asserts."
)
@click.pass_context
def detect(
    ctx: click.Context,
    paths: tuple[Path, ...],
    fmt: str,
    as_json: bool,
    severity: str,
    max_mocks: int | None,
    max_asserts: int | None,
) -> None:
    """Find over-mocking and broad assertions in test files, without running them.

    PATHS are test files or directories (directories are searched for test files); by
    default, every test file of the work tree. Exit 1 when a finding is at or above
    --severity. The rules are described in docs/detectors.md.

    \b
    Examples:
      tddgit detect
      tddgit detect tests/test_cart.py src/cart.test.ts
      tddgit detect --max-mocks 2 --format sarif > detect.sarif
    """
    a = app(ctx)
    root, config = _root_and_config(a.cwd, a, bool(paths))
    config = _with_overrides(config, max_mocks, max_asserts)
    classifier = Classifier.from_config(config)
    files = _expand(paths, a.cwd, root, classifier) if paths else _tracked_tests(a.repo, classifier)
    findings: list[DetectorFinding] = []
    sources: dict[str, str | None] = {}
    with console.progress("checking test files", total=len(files)) as bar:
        for rel in files:
            findings += _check(root, rel, config, sources)
            bar.advance()
    _render("json" if as_json else fmt, findings, len(files), config)
    failing = [f for f in findings if severity_rank(f.severity) >= severity_rank(severity)]
    console.err(
        f"tddgit detect: {console.plural(len(findings), 'finding')} in "
        f"{console.plural(len(files), 'test file')} "
        f"(max_mocks={config.get('antipatterns.max_mocks')}, "
        f"max_asserts={config.get('antipatterns.max_asserts')})"
    )
    if failing:
        ctx.exit(1)


def _root_and_config(cwd: Path, a: AppContext, has_paths: bool) -> tuple[Path, Config]:
    """The repo and its config; explicit paths outside any repo get the defaults."""
    try:
        return a.repo.root, a.config
    except NotARepoError:
        if not has_paths:
            raise
        return cwd.resolve(), default_config()


def _with_overrides(config: Config, max_mocks: int | None, max_asserts: int | None) -> Config:
    values, sources = dict(config.values), dict(config.sources)
    for key, value in (("max_mocks", max_mocks), ("max_asserts", max_asserts)):
        if value is not None:
            values[f"antipatterns.{key}"] = value
            sources[f"antipatterns.{key}"] = "command line"
    return Config(values=values, sources=sources, file=config.file, root=config.root)


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()  # outside the repository: shown as given


def _expand(paths: Sequence[Path], cwd: Path, root: Path, classifier: Classifier) -> list[str]:
    out: dict[str, None] = {}
    for given in paths:
        path = given if given.is_absolute() else cwd / given
        if path.is_dir():
            for found in _walk(path):
                rel = _rel(found, root)
                if classifier.is_test(rel):
                    out[rel] = None
        elif path.is_file():
            if language_of(path.name) is None:
                console.warn(f"{given}: not a Python or JS/TS file, skipped")
            else:
                out[_rel(path, root)] = None
        else:
            raise UsageError(
                f"no such file or directory: {given}", "pass existing test files or directories"
            )
    return list(out)


def _walk(top: Path) -> Iterator[Path]:
    for dirpath, dirnames, filenames in os.walk(top):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS)
        for name in sorted(filenames):
            if language_of(name) is not None:
                yield Path(dirpath) / name


def _tracked_tests(repo: Repo, classifier: Classifier) -> list[str]:
    """Test files of the work tree: tracked, plus untracked ones git does not ignore."""
    listed = repo.git("ls-files", "-z", "--cached", "--others", "--exclude-standard")
    names = dict.fromkeys(zsplit(listed))  # a conflicted file is listed once per stage
    return [
        p
        for p in names
        if language_of(p) is not None and classifier.is_test(p) and (repo.root / p).is_file()
    ]


def _read(root: Path, rel: str) -> tuple[str | None, str]:
    """(source, "") or (None, why it cannot be checked)."""
    path = Path(rel) if Path(rel).is_absolute() else root / rel
    try:
        data = path.read_bytes()
    except OSError as exc:
        return None, f"cannot read: {exc.strerror}"
    if len(data) > MAX_BYTES:
        return None, f"not checked: larger than {MAX_BYTES // (1024 * 1024)} MiB"
    if b"\0" in data[:8192]:
        return None, "not checked: binary file"
    try:
        if rel.endswith(".py"):
            import importlib.util

            return importlib.util.decode_source(data), ""  # honours a coding cookie
        return data.decode("utf-8-sig"), ""
    except (UnicodeDecodeError, SyntaxError, LookupError):
        return None, "not checked: not valid UTF-8 (or its declared encoding)"


def _conftests(root: Path, rel: str, cache: dict[str, str | None]) -> dict[str, str]:
    out: dict[str, str] = {}
    for candidate in conftest_paths(rel):
        if candidate not in cache:
            cache[candidate] = _read(root, candidate)[0] if (root / candidate).is_file() else None
        source = cache[candidate]
        if source is not None:
            out[candidate] = source
    return out


def _check(
    root: Path, rel: str, config: Config, cache: dict[str, str | None]
) -> list[DetectorFinding]:
    source, why = _read(root, rel)
    if source is None:
        return [DetectorFinding(PARSE_ERROR, "note", rel, 1, None, why, 0)]
    conftests = _conftests(root, rel, cache) if rel.endswith(".py") else None
    return analyze_file(rel, source, config, conftests=conftests)


# --- output ------------------------------------------------------------------------------


def _render(fmt: str, findings: list[DetectorFinding], files: int, config: Config) -> None:
    if fmt == "json":
        data = {
            "schema": "tddgit.detect/1",
            "findings": [f.to_json() for f in findings],
            "files": files,
            "thresholds": {
                "max_mocks": config.get("antipatterns.max_mocks"),
                "max_asserts": config.get("antipatterns.max_asserts"),
            },
        }
        console.out(json.dumps(data, indent=2, ensure_ascii=False))
    elif fmt == "sarif":
        console.out(json.dumps(_sarif(findings), indent=2, ensure_ascii=False))
    else:
        _text(findings)


_SEVERITY_COLOUR = {"error": "red", "warning": "yellow", "note": "dim"}


def _text(findings: list[DetectorFinding]) -> None:
    by_file: dict[str, list[DetectorFinding]] = {}
    for f in findings:
        by_file.setdefault(f.path, []).append(f)
    for path in sorted(by_file):
        console.out(console.paint(path, "bold"))
        for f in sorted(by_file[path], key=lambda f: (f.line, f.rule)):
            level = console.paint(f"{f.severity:<7}", _SEVERITY_COLOUR.get(f.severity, ""))
            who = f"{f.test}: " if f.test else ""
            console.out(f"  {f.line:>5}  {level}  {f.rule:<16} {who}{f.message}")


def _fingerprint(f: DetectorFinding) -> str:
    # stable while the test keeps its name, even when lines move or counts change
    kind = re.sub(r"\d+", "#", f.message.split(":")[0])
    key = "\0".join([f.rule, f.path, f.test or "", kind])
    return hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()


def _sarif(findings: list[DetectorFinding]) -> dict[str, object]:
    from tddgit.sarif import SarifResult, SarifRule, rule_name, sarif_log

    rules = [
        SarifRule(rule, rule_name(rule), text, None, "note" if rule == PARSE_ERROR else "warning")
        for rule, text in RULE_DESCRIPTIONS.items()
    ]
    results = [
        SarifResult(
            rule_id=f.rule,
            level=f.severity,
            message=f"{f.test}: {f.message}" if f.test else f.message,
            path=f.path,
            line=f.line,
            fingerprint=_fingerprint(f),
            properties={"test": f.test, "count": f.count},
        )
        for f in findings
    ]
    return sarif_log(rules, results, tool_version=__version__)
