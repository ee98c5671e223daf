"""A configuration has one grammar, `model.options`: whatever options name one, the options
written back the one way name the same configuration and are written the same way again, and
`check`'s command line, the browser's URL and a Python caller read them with the same
function; the server has no way of its own."""

from __future__ import annotations

import inspect
import shlex

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from acp_suggestions.model import options
from acp_suggestions.model.browse import server, setting
from acp_suggestions.model.cli.main import parser
from acp_suggestions.model.config import AGENT_POLICIES, CLIENT_FLAGS, CLIENT_POLICIES
from acp_suggestions.model.mutations import MUTATIONS_BY_RULE
from acp_suggestions.model.network import NAMES
from acp_suggestions.model.readings import READINGS
from acp_suggestions.model.rules import Revision


def _pairs(flag: str, values: st.SearchStrategy[str]) -> st.SearchStrategy[list[str]]:
    return values.map(lambda v: [flag, v])


@st.composite
def option_lists(draw: st.DrawFn) -> list[list[str]]:
    """Options as a user writes them: any of `check`'s configuration options, in any order,
    some given twice, some that name nothing usable together."""
    chosen: list[list[str]] = []
    chosen += draw(st.lists(_pairs("--version", st.sampled_from(["1", "2"])), max_size=2))
    chosen += draw(st.lists(_pairs("--revision", st.sampled_from([r.value for r in Revision]))))
    transports = st.sampled_from(NAMES)
    chosen += draw(
        st.lists(
            _pairs(draw(st.sampled_from(["--transport", "--semantics"])), transports), max_size=2
        )
    )
    chosen += draw(st.lists(_pairs("--agent", st.sampled_from(sorted(AGENT_POLICIES))), max_size=1))
    clients = st.lists(st.sampled_from([*CLIENT_POLICIES, *CLIENT_FLAGS]), min_size=1, max_size=3)
    chosen += draw(st.lists(_pairs("--client", clients.map(",".join)), max_size=1))
    chosen += draw(
        st.lists(_pairs("--break", st.sampled_from(sorted(MUTATIONS_BY_RULE))), max_size=2)
    )
    readings = st.sampled_from([f"{r.name}={o}" for r in READINGS for o in r.names])
    chosen += draw(st.lists(_pairs("--reading", readings), max_size=2))
    for flag in ("--no-capability", "--distinct-predictions", "--live-load"):
        chosen += draw(st.lists(st.just([flag]), max_size=1))
    kinds = st.sampled_from(["text", "text+resource_link", "image", "command"])
    chosen += draw(st.lists(_pairs("--predict", kinds), max_size=2))
    for bound in ("--prompts", "--predictions", "--loads", "--cancels"):
        chosen += draw(st.lists(_pairs(bound, st.integers(0, 3).map(str)), max_size=1))
    return draw(st.permutations(chosen))


@settings(max_examples=300, deadline=None)
@given(option_lists())
def test_options_written_back_name_the_same_configuration(given_options: list[list[str]]) -> None:
    text = shlex.join(word for option in given_options for word in option)
    try:
        cfg, words = options.read(text)
    except options.UsageError:
        return  # options that name nothing usable: refused alike everywhere (below)
    assert options.read(words) == (cfg, words)
    check = parser().parse_args(["check", *shlex.split(text)])
    assert options.config_of(check) == cfg  # the command line's reading
    assert setting.from_args(text).config == cfg  # the browser's
    assert setting.from_args(text).query == (("args", words),)


@settings(max_examples=100, deadline=None)
@given(option_lists())
def test_options_refused_by_one_reader_are_refused_by_each(given_options: list[list[str]]) -> None:
    text = shlex.join(word for option in given_options for word in option)
    try:
        options.read(text)
    except options.UsageError:
        with pytest.raises(setting.Unreadable):
            setting.from_args(text)


def test_the_server_reads_a_configuration_with_the_models_grammar_alone() -> None:
    """No reader of options is handed to the server: it names the model's."""
    assert list(inspect.signature(server.Explorer).parameters) == ["default", "review"]
    assert "options" in inspect.getsource(setting.from_args)


def test_an_earlier_option_name_is_written_by_its_name() -> None:
    assert options.read("--semantics python-sdk")[1] == "--transport python-sdk"
    assert options.read("--transport sdk")[1] == "--transport python-sdk"
