"""The environment a jailed test run gets: what runners need, nothing named like a secret.

An allow-list, not a deny-list: a variable reaches the tests only when its name is one the
runners use (locale, paths, the interpreters' and toolchains' own settings) or the user
listed it in ``llm.sandbox_env``; and even then never when its name looks like a secret.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

_NAMES = frozenset(
    {
        "PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "TZ", "TERM",
        "COLUMNS", "CI", "NO_COLOR", "FORCE_COLOR", "PY_COLORS", "VIRTUAL_ENV",
        "CONDA_PREFIX", "JAVA_HOME", "NODE_ENV", "NODE_OPTIONS", "NODE_PATH",
        "GOROOT", "GOPATH", "GOFLAGS", "GOCACHE", "GOMODCACHE", "GOTOOLCHAIN",
        "CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS", "CARGO_TARGET_DIR",
    }
)  # fmt: skip
_PREFIXES = ("LC_", "PYTHON", "PYTEST_", "TDDGIT_", "COVERAGE_", "JEST_", "VITEST")

# A name that looks like it holds a credential never passes, whatever the lists say.
SECRET_NAME = re.compile(
    r"KEY|TOKEN|SECRET|PASSW|PASSPHRASE|CREDENTIAL|AUTH|PRIVATE|COOKIE|SESSION|DSN|"
    r"DATABASE_URL|_PAT$|^PAT_",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    return bool(SECRET_NAME.search(name))


def scrubbed(env: Mapping[str, str], extra: Iterable[str] = ()) -> dict[str, str]:
    allowed = set(extra)
    return {
        name: value
        for name, value in env.items()
        if (name in _NAMES or name in allowed or name.startswith(_PREFIXES))
        and not is_secret_name(name)
    }
