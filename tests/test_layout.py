"""The layout shows the architecture: the protocol model imports no tool, and each tool package
imports only the rooms its docstring allows."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("check", "render", "wire", "cli")
# Which rooms each room may import (a room is the protocol model, a tool package or sims).
MAY_IMPORT: dict[str, set[str]] = {
    "model": {"model"},
    "model.check": {"model", "model.check"},
    "model.render": {"model", "model.check", "model.render"},
    "model.wire": {"model", "model.wire"},
    "model.cli": {"model", "model.check", "model.render", "model.wire", "model.cli", "sims"},
    "sims": {"model", "model.check", "model.render", "model.wire", "sims"},
}


def room(module: str) -> str | None:
    """The room of a dotted module name of this project, or None for anything else."""
    parts = module.split(".")
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
        here = room(dotted)
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
    (tmp_path / "model" / "actors.py").write_text("from model.check.explorer import explore\n")
    assert violations(tmp_path) == ["model/actors.py:1 imports model.check.explorer.explore"]


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
    folders = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for room in ("model", "sims")
        for init in (ROOT / room).rglob("__init__.py")
    }
    assert listed == folders
