"""One word per concept, read from the code itself: the identifiers (modules, classes,
functions, arguments, fields, names), the command line's flags and review.json's keys give
no concept of the list below a second spelling, and no word two concepts; a planted second
spelling is caught in each of the three."""

from __future__ import annotations

import argparse
import ast
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from acp_suggestions.model.cli.main import parser

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "model" / "render" / "review.schema.json"
# Each concept's one word, and the spellings it replaced (each a run of words).
CONCEPTS: dict[str, tuple[str, ...]] = {
    "transport": ("semantics",),  # how the client receives what the agent sends
    "checker": ("explorer",),  # the search; an explorer is the browser's (below)
    "violated_in_force": ("in_force_violated",),
    "search over arrays": ("level at a time", "batch search"),  # `model/check/arrays.py`
}
# Where a spelling is another concept's own word: the explorer is the browser's.
OWN: dict[str, tuple[str, ...]] = {
    "explorer": ("model/browse/", "model/cli/explore.py", "model/cli/browse.py"),
}
# A flag's earlier name, still read (said in the changelog).
EARLIER_FLAGS = {"--semantics"}


def words(name: str) -> list[str]:
    """A name's words, lower case: split at underscores, dashes, dots and capitals."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name)
    return [w.lower() for w in re.split(r"[_\-.\s]+", spaced) if w]


def spelt(name: str, spelling: str) -> bool:
    """Whether `spelling`'s words run together in `name`'s."""
    have, want = words(name), words(spelling)
    return any(have[i : i + len(want)] == want for i in range(len(have) - len(want) + 1))


def identifiers(source: str) -> Iterator[str]:
    """Every name a Python source defines or uses."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name
        elif isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
            yield node.arg
        elif isinstance(node, ast.alias):
            yield from node.name.split(".")


def flags(top: argparse.ArgumentParser) -> Iterator[str]:
    """Every option string and command word of a parser, its subcommands' too (argparse
    keeps them in private actions)."""
    for action in top._actions:
        yield from action.option_strings
        if isinstance(action, argparse._SubParsersAction):
            for word, sub in action.choices.items():
                yield word
                yield from flags(sub)


def keys(value: Any) -> Iterator[str]:
    """Every property name a JSON Schema declares, at any depth."""
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "properties" and isinstance(inner, dict):
                yield from inner
            yield from keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from keys(inner)


def second_spellings(named: Iterable[tuple[str, str]]) -> list[str]:
    """`where: name` for each name that spells a concept the replaced way, outside the places
    where that spelling is another concept's own word."""
    found = []
    for where, name in named:
        for concept, replaced in CONCEPTS.items():
            for spelling in replaced:
                if spelt(name, spelling) and not where.startswith(OWN.get(spelling, ())):
                    found.append(f"{where}: {name} (the concept's word is {concept})")
    return found


def _code() -> Iterator[tuple[str, str]]:
    for path in sorted([*ROOT.glob("model/**/*.py"), *ROOT.glob("sims/**/*.py")]):
        where = path.relative_to(ROOT).as_posix()
        yield where, path.stem
        yield from ((where, name) for name in identifiers(path.read_text()))


def test_the_code_spells_each_concept_one_way() -> None:
    assert second_spellings(_code()) == []


def test_the_command_line_spells_each_concept_one_way() -> None:
    named = [("cli", flag) for flag in flags(parser()) if flag not in EARLIER_FLAGS]
    assert second_spellings(named) == []
    assert set(flags(parser())) >= EARLIER_FLAGS  # the earlier names still read


def test_review_json_spells_each_concept_one_way() -> None:
    schema = json.loads(SCHEMA.read_text())
    assert second_spellings(("review.json", key) for key in keys(schema)) == []


def test_a_planted_second_spelling_is_caught_in_code_flags_and_keys() -> None:
    planted = "def offered(cfg, semantics):\n    return cfg.explorer_of(in_force_violated=1)\n"
    found = second_spellings(("model/x.py", name) for name in identifiers(planted))
    assert [f.split(" ")[1] for f in found] == ["semantics", "explorer_of", "in_force_violated"]
    assert second_spellings([("model/browse/x.py", "Explorer")]) == []  # the browser's own
    top = argparse.ArgumentParser()
    top.add_subparsers().add_parser("check").add_argument("--network-semantics")
    assert second_spellings(("cli", f) for f in flags(top)) == [
        "cli: --network-semantics (the concept's word is transport)"
    ]
    planted_schema: dict[str, Any] = {
        "properties": {"rows": {"items": {"properties": {"batchSearch": {}}}}}
    }
    assert second_spellings(("review.json", k) for k in keys(planted_schema)) == [
        "review.json: batchSearch (the concept's word is search over arrays)"
    ]
