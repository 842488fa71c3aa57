"""Changes that add no behaviour to Python production code (issue 27, found on the labelled
corpus in bench/corpus): typing only (annotations, type variables, protocols, overloads,
generic bases, ``TYPE_CHECKING`` imports, stubs) and exception chaining. A reviewer calls
them refactors: no ``pre-test-code``. Each test is a small real repository aimed at one
kind; the counter-tests show the same commits with one real change still found."""

from __future__ import annotations

from tests.audit.helpers import Steps, audit, by_subject, rules_fired

CALC = '''\
import json


class Codec:
    """Reads and writes payloads."""

    default = json

    def __init__(self, serializer=None):
        self.serializer: object = serializer or self.default

    def dumps(self, obj, salt=None):
        return self.serializer.dumps(obj)

    def loads(self, text):
        try:
            return self.serializer.loads(text)
        except ValueError:
            raise TypeError("bad payload")


class TextCodec(Codec):
    pass
'''

TYPED = '''\
from __future__ import annotations

import json
import typing as t

from calc_types import Payload

if t.TYPE_CHECKING:
    import typing_extensions as te

    _T = te.TypeVar("_T", bound=str | bytes, default=str)
else:
    _T = t.TypeVar("_T", bound=t.Union[str, bytes])


class _PSerializer(t.Protocol[_T]):
    def loads(self, payload: _T, /) -> t.Any: ...
    def dumps(self, obj: t.Any, /) -> _T: ...


class Codec(t.Generic[_T]):
    """Reads and writes payloads."""

    default: _PSerializer[t.Any] = json

    @t.overload
    def __init__(self: Codec[str], serializer: None = None) -> None: ...
    @t.overload
    def __init__(self: Codec[bytes], serializer: _PSerializer[bytes]) -> None: ...
    def __init__(self, serializer: _PSerializer[_T] | None = None) -> None:
        self.serializer: _PSerializer[_T] = serializer or self.default

    def dumps(self, obj: Payload, salt: str | bytes | None = None) -> _T:
        return self.serializer.dumps(obj)  # type: ignore[return-value]

    def loads(self, text: _T) -> Payload:
        try:
            return self.serializer.loads(text)
        except ValueError:
            raise TypeError("bad payload")


class TextCodec(Codec[str]):
    pass
'''

TEST = "from calc import Codec\n\n\ndef test_round_trip():\n    assert Codec().loads(Codec().dumps(1)) == 1\n"


def started(repo) -> Steps:
    s = Steps(repo)
    s.commit(
        "codec with its test",
        {"calc.py": CALC, "calc_types.py": "Payload = object\n", "tests/test_calc.py": TEST},
    )
    return s


def findings_on(repo, subject: str) -> list[str]:
    return [rule for rule, on in rules_fired(audit(repo)) if on == subject]


def test_a_typing_only_change_is_not_production_code(repo):
    s = started(repo)
    s.commit(
        "type the codec as generic",
        {
            "calc.py": TYPED,
            "calc.pyi": "class Codec:\n    def dumps(self, obj: object) -> str: ...\n",
            "py.typed": "",
        },
    )
    assert findings_on(repo, "type the codec as generic") == []
    assert by_subject(audit(repo))["type the codec as generic"].phase is None


def test_typing_does_not_hide_a_real_change(repo):
    s = started(repo)
    s.commit("type it and change it", {"calc.py": TYPED.replace("dumps(obj)", "dumps(obj, 2)")})
    assert findings_on(repo, "type it and change it") == ["pre-test-code"]


def test_what_runs_outside_type_checking_is_code(repo):
    s = started(repo)
    s.commit("typing", {"calc.py": TYPED})
    runtime = TYPED.replace(
        '    _T = t.TypeVar("_T", bound=t.Union[str, bytes])\n',
        '    _T = t.TypeVar("_T", bound=t.Union[str, bytes])\n    json.encoder = None\n',
    )
    s.commit("a runtime change in the else branch", {"calc.py": runtime})
    assert findings_on(repo, "a runtime change in the else branch") == ["pre-test-code"]


def test_exception_chaining_only_is_not_production_code(repo):
    s = started(repo)
    chained = CALC.replace(
        '        except ValueError:\n            raise TypeError("bad payload")\n',
        '        except ValueError as e:\n            raise TypeError("bad payload") from e\n',
    )
    s.commit("use exception chaining", {"calc.py": chained})
    assert findings_on(repo, "use exception chaining") == []
    s.commit(
        "raise something else",
        {"calc.py": chained.replace('TypeError("bad payload") from e', "KeyError(e) from e")},
    )
    assert findings_on(repo, "raise something else") == ["pre-test-code"]


def test_what_a_typing_comparison_still_counts_as_code():
    from tddgit.audit.typingonly import same_at_runtime

    field = "import dataclasses\n\n\n@dataclasses.dataclass\nclass P:\n    x: int\n"
    # a dataclass field's type is typing; a new field is behaviour
    assert same_at_runtime(field, field.replace("x: int", "x: 'int | None'"))
    assert not same_at_runtime(field, field + "    y: int\n")
    proto = "import typing\n\n\nclass P(typing.Protocol):\n    def f(self) -> int:\n"
    # a protocol's stub methods are typing; a default implementation runs
    assert same_at_runtime(proto + "        ...\n", proto + "        pass\n")
    assert not same_at_runtime(proto + "        ...\n", proto + "        return 1\n")
    # the TYPE_CHECKING import, the annotation and the chained cause are not what runs
    typed = (
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from x import T\n\n\n"
        "def f(a: T) -> None:\n    try:\n        g(a)\n    except OSError as e:\n"
        "        raise ValueError(a) from e\n"
    )
    plain = "def f(a):\n    try:\n        g(a)\n    except OSError:\n        raise ValueError(a)\n"
    assert same_at_runtime(plain, typed)
    assert not same_at_runtime(plain, typed.replace("ValueError(a)", "ValueError(e)"))
    assert same_at_runtime(None, "from typing import TypeVar\n\nT = TypeVar('T')\n")
    assert same_at_runtime("x = 1\n", "def f(: broken", "stubs.pyi")
    assert not same_at_runtime("x = 1\n", "def f(: broken")


def test_a_declaration_changed_to_match_a_protocol_is_not_production_code(repo):
    # Fowler's Change Function Declaration: a positional parameter renamed throughout the
    # body, a ``*args`` nothing reads added, a positional-only marker: a refactor.
    s = started(repo)
    renamed = CALC.replace(
        "    def loads(self, text):\n        try:\n            return self.serializer.loads(text)",
        "    def loads(self, payload, /, *args):\n        try:\n"
        "            return self.serializer.loads(payload)",
    )
    s.commit("match the serializer protocol", {"calc.py": renamed})
    assert findings_on(repo, "match the serializer protocol") == []
    used = renamed.replace("loads(payload)", "loads(payload, *args)")
    s.commit("pass the arguments on", {"calc.py": used})
    assert findings_on(repo, "pass the arguments on") == ["pre-test-code"]
    swapped = used.replace("def dumps(self, obj, salt=None)", "def dumps(self, obj, salt=0)")
    s.commit("another default", {"calc.py": swapped})
    assert findings_on(repo, "another default") == ["pre-test-code"]
