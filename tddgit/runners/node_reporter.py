"""tddgit's reporter module for ``node --test`` (the ``{node_reporter}`` placeholder).

Node's own junit reporter names no file (every classname is "test") and drops the stderr
of a test file that fails before its tests run: a missing import or a syntax error becomes
a bare "test failed". This reporter, for node >= 18.17 / 20, writes the same JUnit XML
plus each test's file and describe path (titles stripped of surrounding whitespace), the
thrown error's own name and code, and such a file's stderr, so causes come from the error
objects, not from output.
"""

from __future__ import annotations

NODE_REPORTER = r"""
import { isAbsolute, relative, sep } from 'node:path';
import { inspect } from 'node:util';

const CAP = 64 * 1024;
const BAD = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const ESC = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' };
const esc = (s) => String(s).slice(0, CAP).replace(BAD, '').replace(/[&<>"]/g, (c) => ESC[c]);
const rel = (f) => (f && isAbsolute(f) ? relative(process.cwd(), f) : f || '').split(sep).join('/');

function problem(error) {
  const failureType = error?.failureType ?? '';
  const cause = error?.cause ?? error;
  if (failureType === 'testTimeoutFailure') {
    return { tag: 'failure', type: 'TestTimeoutFailure', message: error.message, body: '' };
  }
  if (failureType === 'hookFailed') {
    return { tag: 'error', type: 'HookFailed', message: cause?.message ?? '', body: inspect(cause) };
  }
  if (cause && typeof cause === 'object') {
    const type = (cause.name || 'Error') + (cause.code ? ` [${cause.code}]` : '');
    return { tag: 'failure', type, message: cause.message ?? '', body: inspect(cause) };
  }
  return { tag: 'failure', type: failureType || 'Error', message: String(cause ?? ''), body: '' };
}

function testcase(type, data, ancestors, stderr) {
  const file = rel(data.file);
  const details = data.details ?? {};
  const atFile = data.nesting === 0 && data.file && data.name === data.file;
  let p = null;
  if (atFile) {
    if (type === 'test:pass') return '';
    const code = details.error?.exitCode;
    const how = code == null ? '' : ` (exit code ${code})`;
    p = { tag: 'error', type: 'TestFileFailed', message: `test file failed${how}`,
          body: stderr.get(data.file) ?? '' };
  } else if (details.error?.failureType === 'subtestsFailed' || details.type === 'suite') {
    // A describe block or a parent test: its subtests carry the verdicts, unless it
    // failed on its own account (a hook, a throwing describe body).
    if (type === 'test:pass' || details.error?.failureType === 'subtestsFailed') return '';
    p = problem(details.error);
  } else if (data.skip !== undefined || data.todo !== undefined) {
    const todo = data.todo !== undefined;
    const why = todo ? data.todo : data.skip;
    p = { tag: 'skipped', type: todo ? 'todo' : 'skip', message: why === true ? '' : why ?? '',
          body: '' };
  } else if (type === 'test:fail') {
    p = problem(details.error);
  }
  const name = atFile ? file : [...ancestors, data.name].map((n) => String(n).trim()).join(' > ');
  const secs = (details.duration_ms ?? 0) / 1000;
  const attrs = `classname="${esc(file)}" name="${esc(name)}" file="${esc(file)}"` +
    ` line="${data.line ?? ''}" time="${secs}"`;
  if (!p) return `  <testcase ${attrs}/>\n`;
  return `  <testcase ${attrs}>\n    <${p.tag} type="${esc(p.type)}" message="${esc(p.message)}">` +
    `${esc(p.body)}</${p.tag}>\n  </testcase>\n`;
}

export default async function* tddgitJunit(source) {
  const stderr = new Map();
  const paths = new Map();
  const cases = [];
  for await (const { type, data } of source) {
    if (type === 'test:stderr' && data.file) {
      const seen = stderr.get(data.file) ?? '';
      if (seen.length < CAP) stderr.set(data.file, seen + data.message);
    } else if (type === 'test:start') {
      const path = paths.get(data.file) ?? [];
      path.length = data.nesting;
      path.push(data.name);
      paths.set(data.file, path);
    } else if (type === 'test:pass' || type === 'test:fail') {
      const ancestors = (paths.get(data.file) ?? []).slice(0, data.nesting);
      cases.push(testcase(type, data, ancestors, stderr));
    }
  }
  yield '<?xml version="1.0" encoding="utf-8"?>\n<testsuites name="node --test">\n' +
    cases.join('') + '</testsuites>\n';
}
"""
