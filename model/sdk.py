"""The few ACP SDK definitions a trace check needs, loaded without importing the whole SDK.

Importing `acp` builds all ~280 pydantic models of `acp.schema` (half a second), while a trace
check needs two method tables and the content block types of `session/prompt`.  This module
executes the SDK's own source for just those definitions: `acp/meta.py` whole, and from
`acp/schema.py` a class (`PromptRequest`; `InitializeRequest` for the review's examples) with
every top-level definition it depends on.  The code run is the SDK's, unchanged; a test holds
the result equal to the full import.  A release whose files this cannot slice is imported the
plain way: slower to start, the same answers.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

_IMPORTS = (ast.Import, ast.ImportFrom)


@functools.cache
def _package_dir() -> Path:
    """The installed SDK's package folder, found without executing its `__init__`."""
    spec = importlib.util.find_spec("acp")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the ACP Python SDK (agent-client-protocol) is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _tree(name: str) -> ast.Module:
    path = _package_dir() / f"{name}.py"
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _defined(node: ast.stmt) -> set[str]:
    """The top-level names a statement binds."""
    if isinstance(node, ast.ClassDef | ast.FunctionDef):
        return {node.name}
    if isinstance(node, ast.Assign):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return {node.target.id}
    if isinstance(node, _IMPORTS):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return set()


def _used(node: ast.stmt) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _closure(tree: ast.Module, root: str) -> list[ast.stmt]:
    """The statements defining `root` and, transitively, every module-level name they use, in
    source order (the `__future__` import kept, so annotations stay lazy as in the SDK)."""
    binders: dict[str, list[ast.stmt]] = {}
    for node in tree.body:
        for name in _defined(node):
            binders.setdefault(name, []).append(node)
    keep: set[int] = set()
    todo = [root]
    while todo:
        for node in binders.get(todo.pop(), ()):
            if id(node) not in keep:
                keep.add(id(node))
                todo.extend(_used(node))
    future = [n for n in tree.body if isinstance(n, ast.ImportFrom) and n.module == "__future__"]
    return future + [n for n in tree.body if id(n) in keep and n not in future]


def _module(name: str, body: list[ast.stmt], namespace: dict[str, object]) -> types.ModuleType:
    """Execute `body` as a fresh module registered under `name` (pydantic resolves forward
    references through `sys.modules`)."""
    module = types.ModuleType(name)
    module.__dict__.update(namespace)
    sys.modules[name] = module
    code = compile(ast.Module(body=body, type_ignores=[]), f"<{name}>", "exec")
    exec(code, module.__dict__)  # the installed SDK's own source
    return module


def _sdk_import(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and (node.module or "").startswith("acp.")


def _helper(node: ast.ImportFrom) -> dict[str, object]:
    """The names a statement imports from inside the SDK, its file loaded on its own."""
    name = (node.module or "").removeprefix("acp.")
    helper = _module(f"{__name__}._acp.{name}", list(_tree(name).body), {})
    return {a.asname or a.name: getattr(helper, a.name) for a in node.names}


@functools.cache
def prompt_type() -> Any:
    """The type of the SDK's `PromptRequest.prompt` (a list of content blocks), from the
    schema's own class definitions."""
    return schema_class("PromptRequest").model_fields["prompt"].annotation


@functools.cache
def schema_class(name: str) -> Any:
    """The class `name` of the SDK's `acp.schema`, from its own definition and those it
    depends on."""
    try:
        return _sliced(name)
    except Exception:  # a release shaped otherwise: the whole schema, as the SDK loads it
        import acp.schema

        return getattr(acp.schema, name)


def _sliced(root: str) -> Any:
    body = _closure(_tree("schema"), root)
    namespace: dict[str, object] = {}
    for node in body:
        if isinstance(node, ast.ImportFrom) and _sdk_import(node):
            namespace.update(_helper(node))
    kept = [node for node in body if not _sdk_import(node)]
    # A module of its own for each class's slice: pydantic resolves a class's forward
    # references through its module, which another slice must not replace.
    schema = _module(f"{__name__}._acp.schema.{root}", kept, namespace)
    return getattr(schema, root)


@functools.cache
def methods() -> tuple[dict[str, str], dict[str, str]]:
    """The SDK's tables of the methods an agent and a client handle (`acp.meta`)."""
    try:
        meta = _module(f"{__name__}._acp.meta", list(_tree("meta").body), {})
        return meta.AGENT_METHODS, meta.CLIENT_METHODS
    except Exception:  # a release shaped otherwise: the module, as the SDK loads it
        from acp.meta import AGENT_METHODS, CLIENT_METHODS

        return AGENT_METHODS, CLIENT_METHODS
