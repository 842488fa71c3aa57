"""A specification: what a model is asked to test and build (PRODUCT.md §12).

A ``.yaml``/``.yml`` file is a structured spec and is validated here, every error naming
``file:line: field.path: problem`` (the line comes from PyYAML's composed nodes, so it is
the line of the offending value, not of the document). Any other file (Markdown, text) is
a free-form spec: its text is sent as it is, and only its id and title are derived.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tddgit.errors import UsageError

COMPONENT_TYPES = ("module", "class", "function")
STRUCTURED_SUFFIXES = (".yaml", ".yml")
_STR_TAG = "tag:yaml.org,2002:str"


class SpecError(UsageError):
    """The spec cannot be read or does not validate; the message names file:line and field."""


@dataclass(frozen=True)
class Method:
    signature: str
    description: str = ""


@dataclass(frozen=True)
class Component:
    name: str
    type: str  # module | class | function
    file_path: str
    description: str = ""
    methods: tuple[Method, ...] = ()
    # The raw ``interface`` mapping, for fields this loader does not model (attributes...).
    interface: Mapping[str, Any] = field(default_factory=dict, compare=False, hash=False)


@dataclass(frozen=True)
class TestCase:
    __test__ = False  # not a pytest class, whatever its name says

    id: str
    component: str
    type: str = "unit"
    description: str = ""
    given: str = ""
    when: str = ""
    then: str = ""


@dataclass(frozen=True)
class TaskScope:
    """The one plan task a spec is narrowed to (``tddgit cycle --plan``): its test cases
    are the spec's, and these say what else the task is (``tddgit.plans.slice``)."""

    id: str
    title: str
    components: tuple[str, ...]
    files: tuple[str, ...]  # to create or change
    depends_on: tuple[str, ...]
    implement: tuple[str, ...]  # the green step
    look_at: tuple[str, ...]  # the refactor step


@dataclass(frozen=True)
class Spec:
    spec_id: str
    title: str
    components: tuple[Component, ...]
    test_cases: tuple[TestCase, ...]
    acceptance_criteria: tuple[str, ...]
    implementation_order: tuple[str, ...]
    path: str
    text: str
    structured: bool
    task: TaskScope | None = None  # a plan task's slice of the spec

    def component(self, name: str) -> Component | None:
        return next((c for c in self.components if c.name == name), None)


def load_spec(path: Path) -> Spec:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SpecError(
            f"spec not found: {path}", "pass the path of a YAML or Markdown spec"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise SpecError(f"cannot read the spec {path}: {exc}", "pass a UTF-8 text file") from None
    if path.suffix.lower() in STRUCTURED_SUFFIXES:
        return _Reader(path, text).spec()
    return _free_form(path, text)


def _free_form(path: Path, text: str) -> Spec:
    if not text.strip():
        raise SpecError(f"{path}:1: the spec is empty", "describe what to build and test")
    first = next(line for line in text.splitlines() if line.strip())
    title = first.strip().lstrip("#").strip() or path.stem
    return Spec(
        spec_id=path.stem,
        title=title,
        components=(),
        test_cases=(),
        acceptance_criteria=(),
        implementation_order=(),
        path=str(path),
        text=text,
        structured=False,
    )


class _Reader:
    """Walks the composed YAML nodes, so every error knows its line and field path."""

    def __init__(self, path: Path, text: str) -> None:
        self.path = path
        self.text = text

    def fail(self, node: yaml.Node | None, where: str, problem: str) -> SpecError:
        line = node.start_mark.line + 1 if node is not None else 1
        prefix = f"{self.path}:{line}: {where}: " if where else f"{self.path}:{line}: "
        return SpecError(prefix + problem, "fix the spec (see docs/llm.md, 'The spec format')")

    def spec(self) -> Spec:
        try:
            root = yaml.compose(self.text, Loader=yaml.SafeLoader)
        except yaml.YAMLError as exc:
            mark = getattr(exc, "problem_mark", None)
            line = mark.line + 1 if mark is not None else 1
            problem = getattr(exc, "problem", None) or str(exc)
            raise SpecError(
                f"{self.path}:{line}: not valid YAML: {problem}", "fix the YAML syntax"
            ) from None
        if root is None:
            raise self.fail(None, "", "the spec is empty")
        top = self.mapping(root, "")
        components = self.components(top, root)
        names = {c.name for c in components}
        test_cases = self.test_cases(top, root, names)
        order_node = top.get("implementation_order")
        order: tuple[str, ...] = ()
        if order_node is not None:
            order = self.names_list(order_node, "implementation_order", names)
        return Spec(
            spec_id=self.string(self.required(top, root, "spec_id", ""), "spec_id"),
            title=self.string(self.required(top, root, "title", ""), "title"),
            components=components,
            test_cases=test_cases,
            acceptance_criteria=self.criteria(top.get("acceptance_criteria")),
            implementation_order=order,
            path=str(self.path),
            text=self.text,
            structured=True,
        )

    # -- the parts --------------------------------------------------------------------

    def components(self, top: dict[str, yaml.Node], root: yaml.Node) -> tuple[Component, ...]:
        items = self.sequence(self.required(top, root, "components", ""), "components")
        if not items:
            raise self.fail(top["components"], "components", "at least one component is needed")
        seen: set[str] = set()
        out = []
        for i, node in enumerate(items):
            where = f"components[{i}]"
            fields = self.mapping(node, where)
            name = self.string(self.required(fields, node, "name", where), f"{where}.name")
            if name in seen:
                raise self.fail(fields["name"], f"{where}.name", f"duplicate component {name!r}")
            seen.add(name)
            kind = self.string(self.required(fields, node, "type", where), f"{where}.type")
            if kind not in COMPONENT_TYPES:
                raise self.fail(
                    fields["type"],
                    f"{where}.type",
                    f"{kind!r} is not one of {', '.join(COMPONENT_TYPES)}",
                )
            file_path = self.string(
                self.required(fields, node, "file_path", where), f"{where}.file_path"
            )
            interface_node = fields.get("interface")
            methods: tuple[Method, ...] = ()
            raw_interface: dict[str, Any] = {}
            if interface_node is not None:
                interface = self.mapping(interface_node, f"{where}.interface")
                methods = self.methods(interface.get("methods"), f"{where}.interface.methods")
                raw_interface = _construct(interface_node)
            out.append(
                Component(
                    name=name,
                    type=kind,
                    file_path=file_path,
                    description=self.text_of(fields.get("description"), f"{where}.description"),
                    methods=methods,
                    interface=raw_interface,
                )
            )
        return tuple(out)

    def methods(self, node: yaml.Node | None, where: str) -> tuple[Method, ...]:
        if node is None:
            return ()
        out = []
        for i, item in enumerate(self.sequence(node, where)):
            if isinstance(item, yaml.ScalarNode):
                out.append(Method(signature=self.string(item, f"{where}[{i}]")))
                continue
            fields = self.mapping(item, f"{where}[{i}]")
            signature = self.required(fields, item, "signature", f"{where}[{i}]")
            out.append(
                Method(
                    signature=self.string(signature, f"{where}[{i}].signature"),
                    description=self.text_of(
                        fields.get("description"), f"{where}[{i}].description"
                    ),
                )
            )
        return tuple(out)

    def test_cases(
        self, top: dict[str, yaml.Node], root: yaml.Node, components: set[str]
    ) -> tuple[TestCase, ...]:
        items = self.sequence(self.required(top, root, "test_cases", ""), "test_cases")
        if not items:
            raise self.fail(top["test_cases"], "test_cases", "at least one test case is needed")
        seen: set[str] = set()
        out = []
        for i, node in enumerate(items):
            where = f"test_cases[{i}]"
            fields = self.mapping(node, where)
            case_id = self.string(self.required(fields, node, "id", where), f"{where}.id")
            if case_id in seen:
                raise self.fail(fields["id"], f"{where}.id", f"duplicate test case id {case_id!r}")
            seen.add(case_id)
            component_node = self.required(fields, node, "component", where)
            component = self.string(component_node, f"{where}.component")
            if component not in components:
                raise self.fail(
                    component_node, f"{where}.component", f"{component!r} names no component"
                )
            kind = fields.get("type")
            out.append(
                TestCase(
                    id=case_id,
                    component=component,
                    type=self.string(kind, f"{where}.type") if kind is not None else "unit",
                    description=self.text_of(fields.get("description"), f"{where}.description"),
                    given=self.text_of(fields.get("given"), f"{where}.given"),
                    when=self.text_of(fields.get("when"), f"{where}.when"),
                    then=self.text_of(fields.get("then"), f"{where}.then"),
                )
            )
        return tuple(out)

    def criteria(self, node: yaml.Node | None) -> tuple[str, ...]:
        if node is None:
            return ()
        out = []
        for i, item in enumerate(self.sequence(node, "acceptance_criteria")):
            where = f"acceptance_criteria[{i}]"
            if isinstance(item, yaml.MappingNode):
                fields = self.mapping(item, where)
                item = self.required(fields, item, "criterion", where)
                where += ".criterion"
            out.append(self.text_of(item, where))
        return tuple(out)

    def names_list(self, node: yaml.Node, where: str, names: set[str]) -> tuple[str, ...]:
        out = []
        for i, item in enumerate(self.sequence(node, where)):
            name = self.string(item, f"{where}[{i}]")
            if name not in names:
                raise self.fail(item, f"{where}[{i}]", f"{name!r} names no component")
            out.append(name)
        return tuple(out)

    # -- node shapes ------------------------------------------------------------------

    def mapping(self, node: yaml.Node, where: str) -> dict[str, yaml.Node]:
        if not isinstance(node, yaml.MappingNode):
            raise self.fail(node, where, "expected a mapping")
        out: dict[str, yaml.Node] = {}
        for key, value in node.value:
            name = str(key.value)
            if name in out:
                raise self.fail(key, _join(where, name), "duplicate key")
            out[name] = value
        return out

    def sequence(self, node: yaml.Node, where: str) -> list[yaml.Node]:
        if not isinstance(node, yaml.SequenceNode):
            raise self.fail(node, where, "expected a list")
        return list(node.value)

    def required(
        self, fields: dict[str, yaml.Node], parent: yaml.Node, key: str, where: str
    ) -> yaml.Node:
        node = fields.get(key)
        if node is None:
            raise self.fail(parent, _join(where, key), "required field is missing")
        return node

    def string(self, node: yaml.Node, where: str) -> str:
        """A name-like field: a non-empty string (``42`` or ``yes`` are not names)."""
        if not isinstance(node, yaml.ScalarNode) or node.tag != _STR_TAG:
            raise self.fail(node, where, "expected a string")
        value = str(node.value).strip()
        if not value:
            raise self.fail(node, where, "must not be empty")
        return value

    def text_of(self, node: yaml.Node | None, where: str) -> str:
        """A prose field: any scalar, taken as written (``then: 0`` means the text "0")."""
        if node is None:
            return ""
        if not isinstance(node, yaml.ScalarNode):
            raise self.fail(node, where, "expected text")
        return "" if node.tag == "tag:yaml.org,2002:null" else str(node.value)


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _construct(node: yaml.Node) -> dict[str, Any]:
    loader = yaml.SafeLoader("")
    try:
        value = loader.construct_document(node)
    finally:
        loader.dispose()
    return dict(value) if isinstance(value, dict) else {}
