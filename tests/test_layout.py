"""The layout shows the architecture: the protocol model imports no tool, and each tool package
imports only the rooms its docstring allows."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import networkx as nx
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("model", "sims", "tests", "benchmarks")
MOST_LINES = 500  # a module longer than this does more than one job
# A type checker's silencer, and what must follow it: the error codes, then a reason.
_SILENCER = re.compile(r"#\s*type:\s*ignore(.*)$")
_EXPLAINED = re.compile(r"\[[a-z-]+(, [a-z-]+)*\]\s+#\s*\S")
TOOLS = ("check", "binding", "review", "render", "wire", "browse", "cli")
# Which rooms each room may import (a room is the protocol model, a tool package or sims).
ENGINE = {"model.check", "model.binding", "model.review"}
MAY_IMPORT: dict[str, set[str]] = {
    "model": {"model"},
    "model.check": {"model.check"},
    "model.binding": {"model", "model.check", "model.binding"},
    "model.review": {"model", "model.check", "model.binding", "model.review"},
    "model.render": {"model", *ENGINE, "model.render"},
    "model.wire": {"model", "model.wire"},
    "model.browse": {"model", *ENGINE, "model.render", "model.browse"},
    "model.cli": {
        "model",
        *ENGINE,
        "model.render",
        "model.wire",
        "model.browse",
        "model.cli",
        "sims",
    },
    "sims": {"model", *ENGINE, "model.render", "model.wire", "sims"},
}


def room(module: str) -> str | None:
    """The room of a dotted module name of this project (`acp_suggestions.model...` or
    `acp_suggestions.sims...`), or None for anything else."""
    if not module.startswith("acp_suggestions."):
        return None
    parts = module.removeprefix("acp_suggestions.").split(".")
    if parts[0] == "sims":
        return "sims"
    if parts[0] != "model":
        return None
    return f"model.{parts[1]}" if len(parts) > 1 and parts[1] in TOOLS else "model"


def imports(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, anywhere in it, with its line."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [f"{node.module}.{alias.name}" for alias in node.names]
            found += [(node.lineno, name) for name in names]
    return found


def violations(root: Path) -> list[str]:
    """Imports across rooms that the layout forbids, as `file:line imports module`."""
    bad = []
    for path in sorted([*root.glob("model/**/*.py"), *root.glob("sims/**/*.py")]):
        dotted = ".".join(path.relative_to(root).with_suffix("").parts)
        here = room(f"acp_suggestions.{dotted}")
        assert here is not None
        for line, name in imports(path):
            there = room(name)
            if there is not None and there not in MAY_IMPORT[here]:
                bad.append(f"{path.relative_to(root)}:{line} imports {name}")
    return bad


def test_each_room_imports_only_what_it_may() -> None:
    assert violations(ROOT) == []


def test_a_model_module_importing_a_tool_is_caught(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "actors.py").write_text(
        "from acp_suggestions.model.check.checker import explore\n"
    )
    assert violations(tmp_path) == [
        "model/actors.py:1 imports acp_suggestions.model.check.checker.explore"
    ]


def bare_imports(root: Path) -> list[str]:
    """Imports of `model` or `sims` by their folder's name: installed, the code is
    `acp_suggestions.model` and `acp_suggestions.sims`, and in the repository a module
    imported under both names would be two modules with two sets of classes."""
    return [
        f"{path.relative_to(root)}:{line} imports {name}"
        for path in _python(root)
        for line, name in imports(path)
        if name.split(".")[0] in ("model", "sims")
    ]


def test_the_code_is_imported_by_its_installed_name() -> None:
    assert bare_imports(ROOT) == []


def test_a_module_imported_by_its_folder_name_is_caught(tmp_path: Path) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("from model.system import System\n")
    assert bare_imports(tmp_path) == ["tests/test_x.py:1 imports model.system.System"]


@pytest.mark.parametrize("package", ["model", *(f"model/{t}" for t in TOOLS), "sims"])
def test_each_package_says_what_it_holds_and_may_import(package: str) -> None:
    init = ROOT / package / "__init__.py"
    doc = ast.get_docstring(ast.parse(init.read_text())) or ""
    assert "import" in doc, f"{init}: the docstring says nothing of what it may import"


def test_every_package_folder_is_in_the_wheel() -> None:
    """`pip install .` ships the packages pyproject lists: a new folder of code left out of the
    list would be missing from every installed copy (as model/rules once nearly was)."""
    import tomllib

    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    folders = {"acp_suggestions"} | {
        ".".join(("acp_suggestions", *init.parent.relative_to(ROOT).parts))
        for room in ("model", "sims")
        for init in (ROOT / room).rglob("__init__.py")
    }
    assert listed == folders


def _python(root: Path) -> list[Path]:
    return sorted(p for folder in SOURCES for p in (root / folder).rglob("*.py"))


def long_modules(root: Path) -> list[str]:
    """The modules over `MOST_LINES` lines, with their length."""
    lengths = ((p, len(p.read_text(encoding="utf-8").splitlines())) for p in _python(root))
    return [f"{p.relative_to(root)}: {n} lines" for p, n in lengths if n > MOST_LINES]


def unexplained_silencers(root: Path) -> list[str]:
    """Each type-checker silencer that does not name its error codes and give a reason."""
    return [
        f"{p.relative_to(root)}:{n}"
        for p in _python(root)
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if (found := _SILENCER.search(line)) and not _EXPLAINED.match(found.group(1))
    ]


def test_no_module_does_too_much() -> None:
    assert long_modules(ROOT) == []


def test_every_silenced_type_error_says_which_and_why() -> None:
    assert unexplained_silencers(ROOT) == []


def test_a_long_module_and_a_bare_silencer_are_caught(tmp_path: Path) -> None:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "long.py").write_text("x = 1\n" * (MOST_LINES + 1))
    silenced = "# type" + ": ignore"  # spelt apart so this file has none
    (tmp_path / "model" / "quiet.py").write_text(
        f"a = 1  {silenced}\nb = 2  {silenced}[misc]\nc = 3  {silenced}[misc]  # on purpose\n"
    )
    assert long_modules(tmp_path) == [f"model/long.py: {MOST_LINES + 1} lines"]
    assert unexplained_silencers(tmp_path) == ["model/quiet.py:1", "model/quiet.py:2"]


def _modules(root: Path) -> dict[str, Path]:
    """The dotted name of every module of the model, the package's `__init__` as the package."""
    found = {}
    for path in root.glob("model/**/*.py"):
        parts = path.relative_to(root).with_suffix("").parts
        found[".".join(["acp_suggestions", *parts[: -1 if parts[-1] == "__init__" else None]])] = (
            path
        )
    return found


def import_loops(root: Path) -> list[list[str]]:
    """The loops among the model's modules through the imports each runs on loading (its
    top-level statements, those only a type checker reads included)."""
    modules = _modules(root)
    graph = nx.DiGraph()
    for name, path in modules.items():
        for node in ast.parse(path.read_text(), str(path)).body:
            for statement in node.body if isinstance(node, ast.If) else [node]:
                if isinstance(statement, ast.ImportFrom) and statement.module:
                    named = [f"{statement.module}.{a.name}" for a in statement.names]
                    targets = [t for t in named if t in modules] or [statement.module]
                elif isinstance(statement, ast.Import):
                    targets = [a.name for a in statement.names]
                else:
                    continue
                graph.add_edges_from((name, t) for t in targets if t in modules and t != name)
    return sorted(sorted(loop) for loop in nx.simple_cycles(graph))


def test_no_import_loop_in_the_model() -> None:
    assert import_loops(ROOT) == []


def test_an_import_loop_is_caught(tmp_path: Path) -> None:
    rules = tmp_path / "model" / "rules"
    rules.mkdir(parents=True)
    (rules / "card.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from acp_suggestions.model.rules.current import RuleId\n"
    )
    (rules / "current.py").write_text("from acp_suggestions.model.rules.card import Rule\n")
    assert import_loops(tmp_path) == [
        ["acp_suggestions.model.rules.card", "acp_suggestions.model.rules.current"]
    ]


def test_the_checker_has_one_door_taking_a_spec() -> None:
    """`explore` takes a Spec and nothing beside it but options: a caller with a Config writes
    `spec.of(config)`, with the properties in the Spec."""
    from acp_suggestions.model.check.checker import explore

    parameters = list(inspect.signature(explore).parameters.values())
    assert [(p.name, p.annotation) for p in parameters[:1]] == [("spec", "Spec[C, W, S, A]")]
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in parameters[1:])


def private_reads(child: Path, parent: Path) -> set[str]:
    """The underscored members of `self` that `child` reads and `parent` defines."""

    def members(path: Path) -> set[str]:
        return {
            node.attr
            for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        }

    return members(child) & members(parent)


def test_the_batch_system_reads_the_packed_system_through_its_methods(tmp_path: Path) -> None:
    """BatchSystem takes the packed system's local steps by their public methods, never its
    tables; a planted read of one is caught."""
    binding = ROOT / "model" / "binding"
    assert private_reads(binding / "batch.py", binding / "packed.py") == set()
    planted = tmp_path / "batch.py"
    planted.write_text((binding / "batch.py").read_text() + "\n\ndef f(self):\n    self._read\n")
    assert private_reads(planted, binding / "packed.py") == {"_read"}
