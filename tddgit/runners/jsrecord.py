"""tddgit's own record of every jest and vitest test's outcome, from the test itself
(issue 24, "outcomes nobody can rewrite").

A test run's JSON report is built from results that the project's modules may touch on
the way: a vitest setup file's ``afterEach``/``onTestFinished`` can set ``task.result.state``
to ``pass``, a jest test environment's ``handleTestEvent`` can clear ``test.errors``, a
``testResultsProcessor`` or a reporter can rewrite the whole account. The gate loads
``JS_RECORD`` into every node process of the run (``NODE_OPTIONS=--require``), before
jest or vitest load anything of the project's, and it writes one line per event to a
directory tddgit owns:

- jest: an event handler on jest-circus's own state (added when the test file's framework
  is set up, before the test environment's handler and any setup file): ``test_start``,
  ``test_fn_failure`` and ``hook_failure`` as jest-circus dispatches them;
- vitest: a watch on each test's ``result.state`` (installed when the worker makes the test
  current, before its ``beforeEach`` hooks): the runner's own ``run`` and ``fail``.

A test whose last attempt failed in the record but that the report calls passed or
skipped was rewritten: ``cross_check`` judges it as what it did (failed, with the error
the record saw) and names it in ``RunResult.tampered``. Expected failures (jest's
``test.failing``, vitest's ``test.fails``) are never recorded. A run without a record (a
command that does not run node, a runner tddgit cannot hook) is judged from its report
alone, as before: the record can only add a refusal, never hide a failure.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from tddgit.model import Cause, Outcome, TestResult

RECORD_NAME = "tddgit-js-record.cjs"
RECORD_DIR = "record"
MAX_RECORD_BYTES = 16 * 1024 * 1024  # per record file; the run's processes write them
MAX_CONFIG = 256 * 1024
_CONFIGS = re.compile(r"^(jest|vitest|vite)\.(config|workspace)\.[cm]?[jt]s(on)?$")
_MODULE_PATH = re.compile(r"""['"`]((?:\./|\.\./|<rootDir>/)[\w@./-]+)['"`]""")

JS_RECORD = r"""'use strict';
// tddgit's record of jest/vitest outcomes (tddgit/runners/jsrecord.py says why and how).
// Loaded with --require into every node process of a gate's run; it must never throw
// nor change what a test does: every hook is wrapped in try/catch and only observes.
try {
  const fs = require('fs');
  const path = require('path');
  const dir = process.env.TDDGIT_JS_RECORD;
  if (dir) {
    const { threadId } = require('worker_threads');
    const out = path.join(dir, `record-${process.pid}-${threadId}.jsonl`);
    // Written at once (sync): a later hook of the project's cannot take a line back.
    const emit = (rec) => {
      try { fs.appendFileSync(out, JSON.stringify(rec) + '\n'); } catch {}
    };
    const errorOf = (e) => {
      try {
        const x = Array.isArray(e) ? e[0] : e;
        return { type: String(x?.name ?? ''), message: String(x?.message ?? x ?? '').slice(0, 4000) };
      } catch {
        return { type: '', message: '' };
      }
    };

    // jest: jest-runtime loads jest-circus's state module for each test file; an event
    // handler added to it then runs before the test environment's and any setup file's.
    const Module = require('module');
    const load = Module._load;
    let jestHooked = false;
    Module._load = function (request) {
      const exported = load.apply(this, arguments);
      try {
        const proto = request === 'jest-runtime' ? exported?.default?.prototype : null;
        if (!jestHooked && proto && typeof proto.requireInternalModule === 'function') {
          jestHooked = true;
          hookJest(proto);
        }
      } catch {}
      return exported;
    };
    function hookJest(proto) {
      const requireInternal = proto.requireInternalModule;
      const states = new WeakSet();
      proto.requireInternalModule = function () {
        const m = requireInternal.apply(this, arguments);
        try {
          const isState = m && typeof m.addEventHandler === 'function' && typeof m.getState === 'function';
          if (isState && !states.has(m)) {
            states.add(m);
            const file = this._testPath;
            m.addEventHandler((event) => {
              const test = event?.test;
              if (!test || test.failing) return;
              const titles = [test.name];
              for (let p = test.parent; p && p.parent; p = p.parent) titles.unshift(p.name);
              if (event.name === 'test_start') emit({ file, titles, event: 'start' });
              else if (event.name === 'test_fn_failure' || event.name === 'hook_failure')
                emit({ file, titles, event: 'fail', ...errorOf(event.error) });
            });
          }
        } catch {}
        return m;
      };
    }

    // vitest: its worker state arrives by Object.defineProperty on globalThis; the runner
    // makes each test `current` before its hooks run, then sets result.state itself
    // ('run' per attempt, 'fail' where the test or a hook threw).
    const define = Object.defineProperty;
    const watched = new WeakSet();
    const watchResult = (test, result) => {
      if (!result || typeof result !== 'object' || watched.has(result)) return;
      watched.add(result);
      let state = result.state;
      const titles = [test.name];
      for (let s = test.suite; s && s !== test.file && !('filepath' in s); s = s.suite) titles.unshift(s.name);
      const file = test.file?.filepath;
      const rec = (event, extra) => {
        if (!test.fails) emit({ file, titles, event, ...extra });
      };
      define(result, 'state', {
        get() { return state; },
        set(value) {
          state = value;
          try {
            if (value === 'run') rec('start');
            // the runner pushes the error right after the state: read it a tick later
            else if (value === 'fail') queueMicrotask(() => rec('fail', errorOf(result.errors)));
          } catch {}
        },
        enumerable: true,
        configurable: true,
      });
      if (state === 'run') rec('start');
    };
    const watchTest = (test) => {
      if (watched.has(test)) return;
      watched.add(test);
      let result = test.result;
      define(test, 'result', {
        get() { return result; },
        set(value) { result = value; try { watchResult(test, value); } catch {} },
        enumerable: true,
        configurable: true,
      });
    };
    const watchWorker = (worker) => {
      if (!worker || typeof worker !== 'object' || watched.has(worker)) return;
      watched.add(worker);
      let current = worker.current;
      define(worker, 'current', {
        get() { return current; },
        set(task) { current = task; try { if (task?.type === 'test') watchTest(task); } catch {} },
        enumerable: true,
        configurable: true,
      });
    };
    Object.defineProperty = function defineProperty(o, key, desc) {
      if (key === '__vitest_worker__' && desc?.value) {
        try { watchWorker(desc.value); } catch {}
      }
      return define(o, key, desc);
    };
  }
} catch {}
"""

Classify = Callable[[str, str, str], tuple[Cause, str]]


@dataclass(frozen=True)
class Seen:
    """What the record saw of one test's last attempt."""

    failed: bool
    kind: str = ""
    message: str = ""


def env(workdir: Path, base: Mapping[str, str]) -> dict[str, str]:
    """``base`` with the record loaded into every node process: the module written into
    ``workdir`` and its output directory made there."""
    module = workdir / RECORD_NAME
    module.write_text(JS_RECORD, encoding="utf-8")
    out = workdir / RECORD_DIR
    out.mkdir(exist_ok=True)
    quoted = json.dumps(str(module))  # NODE_OPTIONS takes double-quoted values
    options = f"--require {quoted} {base.get('NODE_OPTIONS', '')}".strip()
    return {**base, "NODE_OPTIONS": options, "TDDGIT_JS_RECORD": str(out)}


def read(workdir: Path, rel: Callable[[str], str]) -> dict[str, Seen]:
    """Test id (``file::a > b > title``, as the reports give it) -> its last attempt."""
    seen: dict[str, Seen] = {}
    folder = workdir / RECORD_DIR
    try:
        files = sorted(folder.iterdir())
    except OSError:
        return seen
    for path in files:
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_RECORD_BYTES).decode("utf-8", "replace")
        except OSError:
            continue
        for line in raw.splitlines():
            try:
                rec = json.loads(line)
            except ValueError:
                continue  # a line cut short by a killed process
            if not isinstance(rec, dict) or not isinstance(rec.get("titles"), list):
                continue
            name = " > ".join(str(t).strip() for t in rec["titles"])
            tid = f"{rel(str(rec.get('file') or ''))}::{name}"
            if rec.get("event") == "start":
                seen[tid] = Seen(False)
            elif rec.get("event") == "fail" and not seen.get(tid, Seen(False)).failed:
                seen[tid] = Seen(True, str(rec.get("type") or ""), str(rec.get("message") or ""))
    return seen


def cross_check(
    tests: tuple[TestResult, ...], seen: Mapping[str, Seen], root: Path, classify: Classify
) -> tuple[tuple[TestResult, ...], tuple[str, ...]]:
    """``tests`` with every rewritten result judged as what the test did, and one line per
    rewritten result for ``RunResult.tampered``."""
    out: list[TestResult] = []
    lines: list[str] = []
    suspects: str | None = None
    for t in tests:
        record = seen.get(t.id)
        if (
            record is None
            or not record.failed
            or t.outcome not in (Outcome.PASSED, Outcome.SKIPPED)
        ):
            out.append(t)
            continue
        if suspects is None:
            found = config_modules(root)
            suspects = (
                f" (modules the test configuration loads: {', '.join(found)})" if found else ""
            )
        what = record.kind or "an error"
        lines.append(
            f"{t.id}: the test threw {what}, but the report was rewritten to "
            f"{t.outcome.value}{suspects}"
        )
        first = record.message.strip().splitlines()[0] if record.message.strip() else ""
        cause, message = classify(record.kind, first, record.message)
        out.append(
            replace(t, outcome=Outcome.FAILED, cause=cause, message=" ".join(message.split())[:300])
        )
    return tuple(out), tuple(lines)


def config_modules(root: Path) -> list[str]:
    """The project's modules jest/vitest configuration names (setup files, reporters,
    result processors, environments), repo-relative: the suspects of a rewrite."""
    texts: list[str] = []
    try:
        names = sorted(os.listdir(root))
    except OSError:
        return []
    for name in names:
        if name == "package.json" or _CONFIGS.match(name):
            text = config_text(name, _read(root / name))
            if text is not None:
                texts.append(text)
    found: dict[str, None] = {}
    for text in texts:
        for m in _MODULE_PATH.finditer(text):
            ref = m.group(1).removeprefix("<rootDir>/")
            target = Path(os.path.normpath(root / ref))
            if target.is_file() and target.is_relative_to(root):
                found[target.relative_to(root).as_posix()] = None
    return list(found)


def config_text(name: str, text: str) -> str | None:
    """The part of a jest/vitest configuration file that can name modules: a config file
    whole, package.json's ``jest`` section only ("" without one); None: package.json is not
    JSON."""
    if name != "package.json":
        return text
    try:
        data = json.loads(text)
    except ValueError:
        return None
    section = data.get("jest") if isinstance(data, dict) else None
    return json.dumps(section) if section is not None else ""


def _read(path: Path) -> str:
    try:
        with path.open("rb") as fh:
            return fh.read(MAX_CONFIG).decode("utf-8", "replace")
    except OSError:
        return ""
