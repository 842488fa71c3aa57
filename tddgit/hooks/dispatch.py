"""``tddgit hook NAME ARGS``: run one hook, apply ``hooks.on_internal_error`` to crashes.

Reached from ``tddgit.__main__`` without click (start-up time is the hook's latency);
``tddgit hook --help`` and bad usage go through click (``tddgit.commands.hook``).

Exit codes: 0 the commit may go on; 1 refused; 2 a usage or configuration error (it blocks:
the fix is in the message). An unexpected exception is an internal error: with
``hooks.on_internal_error = allow`` (the default) the hook prints a loud warning, appends a
JSON line to ``<common git dir>/tddgit/hook-errors.log`` for the audit, and exits 0; with
``block`` it exits 3 (git treats any non-zero as a refusal).

Test seam: ``TDDGIT_HOOK_TEST_CRASH=NAME`` (a hook name, or ``all``) makes that hook raise
an internal error right after it has read its configuration, so the policy can be tested
deterministically. Nothing else reads this variable.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tddgit import faults
from tddgit.errors import EXIT_INTERNAL, EXIT_INTERRUPTED, TddgitError
from tddgit.hooks.report import HookRefusal, refused, warn
from tddgit.signals import terminate_as_interrupt

if TYPE_CHECKING:
    from tddgit.config import Config
    from tddgit.hooks.context import HookContext

CRASH_ENV = "TDDGIT_HOOK_TEST_CRASH"
ERROR_LOG = "hook-errors.log"

HookFn = Callable[["HookContext", "Config", Sequence[str]], int]

# name -> (module with a `run(ctx, config, args) -> int`, min args, max args)
HOOKS: dict[str, tuple[str, int, int]] = {
    "commit-msg": ("tddgit.hooks.commit_msg", 1, 1),
    "prepare-commit-msg": ("tddgit.hooks.prepare_commit_msg", 1, 3),
    "post-commit": ("tddgit.hooks.post_commit", 0, 0),
    # pre-commit passes staged file names when pass_filenames is left on: they are ignored,
    # the hook reads the index itself
    "pre-commit": ("tddgit.hooks.pre_commit", 0, 1 << 20),
}


def fast_path(argv: Sequence[str]) -> int | None:
    """Run ``tddgit hook NAME ARGS`` without click when the arguments are plain; None
    hands them to the click command line (help, unknown names, wrong arity)."""
    if len(argv) < 1 or argv[0] not in HOOKS:
        return None
    if any(a in ("-h", "--help") for a in argv[1:]) or "--debug" in argv:
        return None
    _, lo, hi = HOOKS[argv[0]]
    if not lo <= len(argv) - 1 <= hi:
        return None
    return run_hook(argv[0], list(argv[1:]))


def run_hook(name: str, args: Sequence[str], *, cwd: Path | None = None) -> int:
    """Run hook ``name`` and map every outcome to the exit code git acts on."""
    from tddgit import console

    config: Config | None = None
    ctx: HookContext | None = None
    _forget_framework_venv()
    terminate_as_interrupt()
    try:
        from tddgit.hooks.context import discover
        from tddgit.project import load_project_config

        ctx = discover(cwd)
        config = load_project_config(ctx.repo, ctx.repo.root)  # git runs hooks at the top
        crash = os.environ.get(CRASH_ENV)
        if crash in (name, "all"):
            raise RuntimeError(f"{CRASH_ENV}={crash}: simulated internal error")
        faults.point(f"hook.{name}")
        module = __import__(HOOKS[name][0], fromlist=["run"])
        fn: HookFn = module.run
        return fn(ctx, config, args)
    except HookRefusal as exc:
        return refused(exc, name)
    except TddgitError as exc:
        console.error_line(f"tddgit {name}: {exc.one_line()}")
        return exc.exit_code
    except KeyboardInterrupt:
        console.err(f"tddgit {name}: interrupted")
        return EXIT_INTERRUPTED
    except Exception as exc:
        return _internal_error(name, exc, ctx, config)


def _forget_framework_venv() -> None:
    """Under the pre-commit framework, ``VIRTUAL_ENV`` names the framework's own venv for
    tddgit, which lacks the user's project: the gate must not take it for the project's
    interpreter (the ``python`` key, ``.venv/`` or ``venv/`` decide instead)."""
    venv = os.environ.get("VIRTUAL_ENV")
    if not venv or not os.environ.get("PRE_COMMIT"):
        return
    try:
        same = os.path.samefile(venv, sys.prefix)
    except OSError:
        same = False
    if same:
        del os.environ["VIRTUAL_ENV"]


def _internal_error(
    name: str, exc: Exception, ctx: HookContext | None, config: Config | None
) -> int:
    policy = "allow"
    if config is not None:
        policy = str(config.get("hooks.on_internal_error"))
    if os.environ.get("TDDGIT_DEBUG", "") not in ("", "0"):
        import traceback

        traceback.print_exc()
    what = f"{type(exc).__name__}: {exc}"
    logged = log_error(ctx, name, what, policy)
    if policy == "block":
        from tddgit import console

        console.error_line(
            f"tddgit {name}: internal error ({what}); the commit is blocked "
            "(hooks.on_internal_error = block). Rerun with TDDGIT_DEBUG=1 for the traceback "
            "and report it."
        )
        return EXIT_INTERNAL
    where = f" (recorded in {logged})" if logged else ""
    banner = "!" * 72
    warn(name, f"\n{banner}\n  tddgit crashed inside the {name} hook: {what}")
    warn(
        name,
        f"the commit was NOT checked and goes through unverified{where} "
        "(hooks.on_internal_error = allow). Rerun with TDDGIT_DEBUG=1 and report it.\n" + banner,
    )
    return 0


def log_error(ctx: HookContext | None, name: str, what: str, policy: str) -> Path | None:
    """Append the crash to ``<common git dir>/tddgit/hook-errors.log`` (JSON lines) so the
    audit can tell which commits went through unchecked."""
    if ctx is None:
        return None
    import json
    import time

    record = {
        "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "hook": name,
        "head": ctx.head,
        "error": what[:500],
        "policy": policy,
        "argv": sys.argv[1:][:8],
    }
    path = ctx.repo.tddgit_dir / ERROR_LOG
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as fh:
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    except OSError:
        return None
    return path
