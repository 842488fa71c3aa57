"""The default globs of the configuration's path keys (docs/configuration.md): which paths
are tests, production code, tooling, vendored, and secrets. ``tddgit.configkeys`` names
them as the keys' defaults.
"""

from __future__ import annotations

DEFAULT_TEST_GLOBS: tuple[str, ...] = (
    # Python
    "tests/**",
    "test/**",
    "testing/**",
    "**/tests/**",
    "test_*.py",
    "*_test.py",
    "conftest.py",
    # Django: an app's tests module, the book's functional tests (a file or a package)
    "tests.py",
    "functional_tests.py",
    "**/functional_tests/**",
    "*Tests.py",
    # JS / TS
    "*.test.*",
    "*.spec.*",
    "**/__tests__/**",
    "test.js",
    "test.mjs",
    "test.cjs",
    "test.ts",
    "*.test-d.ts",  # tsd type tests
    # Cypress and Playwright end-to-end specs
    "*.cy.*",
    "**/cypress/**",
    "**/e2e/**",
    # Go
    "*_test.go",
    # Java / Kotlin
    "**/src/test/**",
    # C#
    "*Tests.cs",
    "*Test.cs",
    "**/*.Tests/**",
)

DEFAULT_SOURCE_GLOBS: tuple[str, ...] = (
    *(
        f"*.{ext}"
        for ext in [
            "py",
            "pyi",
            "pyx",
            "js",
            "jsx",
            "mjs",
            "cjs",
            "ts",
            "tsx",
            "mts",
            "cts",
            "vue",
            "svelte",
            "go",
            "java",
            "kt",
            "scala",
            "groovy",
            "rs",
            "cs",
            "fs",
            "vb",
            "c",
            "h",
            "cc",
            "cpp",
            "cxx",
            "hh",
            "hpp",
            "hxx",
            "m",
            "mm",
            "swift",
            "rb",
            "php",
            "pl",
            "pm",
            "lua",
            "ex",
            "exs",
            "erl",
            "hs",
            "ml",
            "clj",
            "dart",
            "r",
            "jl",
            "zig",
            "nim",
        ]
    ),
    # Django, Jinja and Rails templates: the pages the functional tests check
    "**/templates/**/*.html",
    "**/views/**/*.erb",
)

# Source-looking files that are build or tooling configuration, not production code.
DEFAULT_OTHER_GLOBS: tuple[str, ...] = (
    "setup.py",
    "noxfile.py",
    "fabfile.py",
    "manage.py",
    "docs/**",
    "doc/**",
    "*.config.js",
    "*.config.cjs",
    "*.config.mjs",
    "*.config.ts",
    "*.gradle.kts",
    "**/node_modules/**",
    "**/vendor/**",
    ".github/**",
    "benchmark*.*",
    "**/benchmarks/**",
    # Django's project configuration and server entry points
    "settings.py",
    "**/settings/*.py",
    "wsgi.py",
    "asgi.py",
    "apps.py",  # a Django app's configuration (startapp's AppConfig)
)

# Copies of other people's code kept in the repository, and generated files: neither test
# nor production, whatever their names say (a vendored test framework is not the
# project's tests). The audit adds the paths .gitattributes marks linguist-vendored or
# linguist-generated.
DEFAULT_VENDORED_GLOBS: tuple[str, ...] = (
    "**/vendor/**",
    "**/vendored/**",
    "**/third_party/**",
    "**/third-party/**",
    "**/node_modules/**",
    "**/site-packages/**",
    "**/.venv/**",
    "**/venv/**",
    "**/bower_components/**",
    "*.min.js",
    "*.min.css",
    "*.bundle.js",
    "*-[0-9]*.[0-9]*.js",  # a versioned copy: jquery-3.3.1.js, qunit-2.9.2.js
    "**/migrations/[0-9][0-9][0-9][0-9]_*.py",  # Django's generated migrations
)

# Files whose name says they hold secrets: never read by, nor sent to, a model.
DEFAULT_SECRET_GLOBS: tuple[str, ...] = (
    ".env*",
    "*.pem",
    "*.key",
    "id_rsa*",
    "*.p12",
    ".npmrc",
    ".pypirc",
    "credentials*",
    "*secret*",
)
