"""What `pip install .` installs is what the package imports: every module outside the standard
library that the package's code imports is a run-time dependency, or an extra's where the code
only imports it behind that extra's feature."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Modules imported only inside a feature that an extra installs: module -> extra.
BEHIND_AN_EXTRA = {"dask": "cluster", "distributed": "cluster", "matplotlib": "plots"}


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised (PEP 503)."""
    bare = re.split(r"[\s<>=!~;\[]", requirement, maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", bare).lower()


def imports(folder: Path) -> dict[str, set[str]]:
    """Top-level modules outside the standard library imported anywhere in `folder`'s code
    (inside functions too), each with the files that import it."""
    found: dict[str, set[str]] = {}
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for top in {n.split(".")[0] for n in names}:
                if top not in sys.stdlib_module_names and top != "acp_suggestions":
                    found.setdefault(top, set()).add(str(path.relative_to(ROOT)))
    return found


def _distributions(module: str) -> set[str]:
    return {_name(d) for d in importlib.metadata.packages_distributions().get(module, [])}


def _names(requirements: list[str]) -> set[str]:
    """The distributions requirements name: each one's own, and an extra of it named after
    a distribution that the extra installs (`dask[distributed]` installs distributed)."""
    out = set()
    for r in requirements:
        out.add(_name(r))
        extras = re.search(r"\[([^\]]*)\]", r)
        out.update(_name(e) for e in (extras.group(1).split(",") if extras else []))
    return out


def _declared() -> tuple[set[str], dict[str, set[str]]]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    required = _names(project["dependencies"])
    extras = {k: _names(v) for k, v in project["optional-dependencies"].items()}
    return required, extras


def missing(required: set[str], extras: dict[str, set[str]]) -> list[str]:
    """The package's imports that neither `required` nor (behind its extra) an extra lists."""
    found = {m: f for folder in ("model", "sims") for m, f in imports(ROOT / folder).items()}
    assert found, "no import read: the walk is broken"
    out = []
    for module, files in sorted(found.items()):
        dists = _distributions(module)
        assert dists, f"{module} (imported by {sorted(files)}) is not installed here"
        wanted = extras[BEHIND_AN_EXTRA[module]] if module in BEHIND_AN_EXTRA else required
        if not dists & wanted:
            out.append(f"{module} ({', '.join(sorted(dists))}) imported by {sorted(files)}")
    return out


def test_every_run_time_import_is_a_dependency() -> None:
    gaps = missing(*_declared())
    assert not gaps, "imported but not in [project.dependencies]: " + "; ".join(gaps)


def test_an_import_left_out_of_the_dependencies_is_named() -> None:
    """The review imports jsonschema at run time: without it in the list the check names it."""
    required, extras = _declared()
    (gap,) = missing(required - {"jsonschema"}, extras)
    assert gap.startswith("jsonschema") and "model/wire/rfd_schema.py" in gap
