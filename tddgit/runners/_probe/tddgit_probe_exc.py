"""The probe's exception records (``EXC`` in ``tddgit_probe_hooks``): an exception's
class, its message and where it was raised, and for an import or attribute error what was
missing and whether it is the project's own. Standard library only, like the probe.
"""

from __future__ import annotations

import os
import sys
import types
from typing import Any

from tddgit_probe_out import _is_project

_MAX_MESSAGE = 1000
_SKIP_BASES = ("object", "BaseException", "Exception")


def _qualname(cls: type) -> str:
    mod = getattr(cls, "__module__", None) or "builtins"
    name = getattr(cls, "__qualname__", cls.__name__)
    return name if mod == "builtins" else f"{mod}.{name}"


def _module_file(modname: object) -> str | None:
    mod = sys.modules.get(modname) if isinstance(modname, str) else None
    if mod is None:
        return None
    f = getattr(mod, "__file__", None)
    if isinstance(f, str):
        return f
    path = getattr(mod, "__path__", None)  # a namespace package
    try:
        return next(iter(path)) if path is not None else None
    except (StopIteration, TypeError):
        return None


def _owner_module(obj: object) -> str | None:
    if isinstance(obj, types.ModuleType):
        return obj.__name__
    if isinstance(obj, (type, types.FunctionType, types.BuiltinFunctionType)):
        mod = getattr(obj, "__module__", None)
    else:
        mod = getattr(type(obj), "__module__", None)  # no user __getattr__ on instances
    return mod if isinstance(mod, str) else None


def _missing_module(exc: ModuleNotFoundError, out: dict[str, Any]) -> None:
    name = exc.name or ""
    out["missing"] = name
    out["stdlib"] = name.split(".")[0] in getattr(sys, "stdlib_module_names", ())
    out["project"] = None
    parts = name.split(".")
    for i in range(len(parts) - 1, 0, -1):  # the nearest imported parent package decides
        parent = ".".join(parts[:i])
        f = _module_file(parent)
        if f:
            out["owner"], out["owner_file"], out["project"] = parent, f, _is_project(f)
            return


def _import_error(exc: ImportError, out: dict[str, Any]) -> None:
    missing = getattr(exc, "name_from", None)
    if not missing:
        # "cannot import name 'x' from 'm' (...)": the first quoted word, on 3.10/3.11
        pieces = str(exc).split("'")
        missing = pieces[1] if len(pieces) > 2 else None
    out["missing"] = missing
    out["owner"] = exc.name
    f = exc.path or _module_file(exc.name)
    out["owner_file"] = f
    out["project"] = _is_project(f)


def _attribute_error(exc: AttributeError, out: dict[str, Any]) -> None:
    out["missing"] = getattr(exc, "name", None)
    obj = getattr(exc, "obj", None)
    if obj is None:
        out["project"] = None
        return
    modname = _owner_module(obj)
    if isinstance(obj, types.ModuleType):
        out["owner"] = modname
    else:
        cls = obj if isinstance(obj, type) else type(obj)
        out["owner"] = _qualname(cls)
    f = _module_file(modname)
    out["owner_file"] = f
    out["project"] = _is_project(f) if f else False


def _frames(exc: BaseException, test_file: str | None) -> tuple[str | None, int | None, int | None]:
    """(file, line) of the innermost frame, and the deepest line in the test's own file."""
    tb = exc.__traceback__
    file = line = test_line = None
    while tb is not None:
        file = tb.tb_frame.f_code.co_filename
        line = tb.tb_lineno
        if test_file and file == test_file:
            test_line = line
        tb = tb.tb_next
    return file, line, test_line


def _looks_like_test(path: str) -> bool:
    name = os.path.basename(path)
    return name == "conftest.py" or name.startswith("test_") or name.endswith("_test.py")


def _code_frame(exc: BaseException, test_file: str | None) -> tuple[str, int] | None:
    """The deepest frame below the test's own frames that lies in the project's own,
    non-test code: where an exception from the code under test was raised (or passed
    through last, when it came from a library the code called)."""
    if not test_file:
        return None
    tb = exc.__traceback__
    found: tuple[str, int] | None = None
    in_test = False
    while tb is not None:
        file = tb.tb_frame.f_code.co_filename
        if file == test_file:
            in_test, found = True, None
        elif in_test and not _looks_like_test(file) and _is_project(file):
            found = (file, tb.tb_lineno)
        tb = tb.tb_next
    return found


def _message(exc: BaseException) -> str:
    if type(exc).__name__ == "FixtureLookupError" and getattr(exc, "msg", None) is None:
        return f"fixture '{getattr(exc, 'argname', '?')}' not found"
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not break the probe
        text = f"<unprintable {type(exc).__name__}>"
    return text[:_MAX_MESSAGE]


def _real(exc: BaseException) -> tuple[BaseException, str | None]:
    """The exception behind pytest's collection wrappers."""
    name = type(exc).__name__
    if name in ("CollectError", "ConftestImportFailure"):
        inner = exc.__cause__ or getattr(exc, "cause", None)
        legacy = getattr(exc, "excinfo", None)  # pytest < 8: (type, value, tb)
        if inner is None and isinstance(legacy, tuple) and len(legacy) == 3:
            inner = legacy[1]
        if isinstance(inner, BaseException):
            return inner, _qualname(type(exc))
    return exc, None


def exc_record(exc: BaseException, test_file: str | None = None) -> dict[str, Any]:
    real, wrapper = _real(exc)
    cls = type(real)
    mro = [_qualname(c) for c in cls.__mro__[1:]]
    out: dict[str, Any] = {
        "type": _qualname(cls),
        "mro": [m for m in mro if m not in _SKIP_BASES],
        "message": _message(real),
    }
    out["file"], out["line"], out["test_line"] = _frames(real, test_file)
    code = _code_frame(real, test_file)
    if code is not None:
        out["code_file"], out["code_line"] = code
    if wrapper:
        out["wrapper"] = wrapper
    if isinstance(real, SyntaxError):
        out["file"], out["line"] = real.filename, real.lineno
        out["message"] = str(real.msg)[:_MAX_MESSAGE]
    try:
        if isinstance(real, ModuleNotFoundError):
            _missing_module(real, out)
        elif isinstance(real, ImportError):
            _import_error(real, out)
        elif isinstance(real, AttributeError):
            _attribute_error(real, out)
        elif isinstance(real, NameError):
            out["missing"] = getattr(real, "name", None)
    except Exception as err:  # never let introspection break the user's run
        out["probe_error"] = repr(err)[:200]
    return out


def _longrepr_text(report: object) -> str:
    try:
        text = str(getattr(report, "longreprtext", "") or getattr(report, "longrepr", ""))
    except Exception:
        return ""
    return text[-_MAX_MESSAGE:]


def _skip_reason(report: object) -> str | None:
    longrepr = getattr(report, "longrepr", None)
    if isinstance(longrepr, tuple) and len(longrepr) == 3:
        return str(longrepr[2])[:_MAX_MESSAGE]
    return None
