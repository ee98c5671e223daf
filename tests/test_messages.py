"""The message layer: valid payloads parse, broken ones fail naming the JSON path and the rule."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_suggestions.model import invariants, messages
from acp_suggestions.model.config import baseline
from acp_suggestions.model.messages import (
    AUDIO,
    IMAGE,
    RESOURCE,
    RESOURCE_LINK,
    AgentPromptCaps,
    ClientSuggestionCaps,
    MessageError,
    Offer,
    Suggestion,
    allowed_kinds,
    parse_agent_caps,
    parse_client_caps,
    parse_session_update,
    same_json,
)
from acp_suggestions.model.messages import TEXT as TEXT_KIND
from acp_suggestions.model.rules import Revision
from acp_suggestions.model.state import BLANK, UNPARSEABLE, Update, content_types
from acp_suggestions.model.wire import records
from tests.strategies import json_values, prompt_suggestions_caps, updates


def _update(*suggestions: object, **extra: object) -> dict[str, Any]:
    return {"sessionUpdate": "prompt_suggestions_update", "suggestions": list(suggestions), **extra}


TEXT = {"prompt": [{"type": "text", "text": "Run the tests"}]}


@given(updates)
def test_valid_updates_parse_whole(update: dict[str, Any]) -> None:
    parsed = parse_session_update(update)
    assert parsed is not None and parsed.form == "update"
    assert not parsed.skipped
    assert [s.kinds for s in parsed.suggestions] == [
        tuple(b["type"] for b in s["prompt"]) for s in update["suggestions"]
    ]
    assert parsed.withdraws == (not update["suggestions"])


@given(json_values)
def test_any_json_gives_a_value_or_a_located_error(value: object) -> None:
    for update in (value, {"sessionUpdate": "prompt_suggestions_update", "suggestions": value}):
        try:
            parse_session_update(update)
        except MessageError as err:
            assert err.path.startswith("$.params.update") and err.rule


@pytest.mark.parametrize(
    ("suggestions", "path", "rule"),
    [
        (None, "$.params.update.suggestions", "UPD-1"),
        ("x", "$.params.update.suggestions", "UPD-1"),
    ],
)
def test_suggestions_must_be_a_list(suggestions: object, path: str, rule: str) -> None:
    with pytest.raises(MessageError) as err:
        parse_session_update(
            {"sessionUpdate": "prompt_suggestions_update", "suggestions": suggestions}
        )
    assert (err.value.path, err.value.rule) == (path, rule)


def test_missing_suggestions_breaks_upd_1() -> None:
    with pytest.raises(MessageError, match=r"UPD-1"):
        parse_session_update({"sessionUpdate": "prompt_suggestions_update"})


@pytest.mark.parametrize(
    ("bad", "path", "rule"),
    [
        ({"prompt": None}, "$.params.update.suggestions[1].prompt", "UPD-4"),
        ({"prompt": []}, "$.params.update.suggestions[1].prompt", "UPD-4"),
        ({}, "$.params.update.suggestions[1].prompt", "UPD-4"),
        ("text", "$.params.update.suggestions[1]", "UPD-4"),
        ({"prompt": [{"type": "text"}]}, "$.params.update.suggestions[1].prompt[0].text", "SC-1"),
        (
            {"prompt": [{"type": "video", "uri": "x"}]},
            "$.params.update.suggestions[1].prompt[0]",
            "SC-1",
        ),
        (
            {"prompt": [{"type": "text", "text": "a"}], "_meta": 3},
            "$.params.update.suggestions[1]._meta",
            "UPD-5",
        ),
    ],
)
def test_a_broken_suggestion_is_skipped_and_the_rest_kept(
    bad: object, path: str, rule: str
) -> None:
    parsed = parse_session_update(_update(TEXT, bad))
    assert parsed is not None
    assert len(parsed.suggestions) == 1  # SC-4: the rest is kept
    (err,) = parsed.skipped
    assert (err.path, err.rule) == (path, rule)


def test_all_skipped_still_replaces_the_list() -> None:
    parsed = parse_session_update(_update({"prompt": []}))
    assert parsed is not None and parsed.withdraws  # SC-6


def test_update_meta_must_be_an_object() -> None:
    with pytest.raises(MessageError) as err:
        parse_session_update(_update(TEXT, _meta=[1]))
    assert (err.value.path, err.value.rule) == ("$.params.update._meta", "UPD-5")


def test_blank_is_seen() -> None:
    parsed = parse_session_update(_update({"prompt": [{"type": "text", "text": " \n\t"}]}, TEXT))
    assert parsed is not None
    assert [s.blank for s in parsed.suggestions] == [True, False]  # SC-2


def test_draft_and_legacy_forms() -> None:
    draft = parse_session_update(
        {"sessionUpdate": "prompt_suggestions", "suggestions": [{"text": "a"}]}
    )
    assert draft is not None and draft.form == "draft" and draft.suggestions[0].kinds == ("text",)
    legacy_update = {
        "sessionUpdate": "session_info_update",
        "_meta": {"promptSuggestions": {"suggestions": [{"text": "b"}, {"txt": 1}]}},
    }
    legacy = parse_session_update(legacy_update)
    assert legacy is not None and legacy.form == "legacy" and len(legacy.suggestions) == 1
    assert legacy.skipped[0].rule == "L-1"
    assert parse_session_update({"sessionUpdate": "session_info_update", "title": "t"}) is None
    assert parse_session_update({"sessionUpdate": "agent_message_chunk"}) is None


# --- capabilities (CAP-1, CAP-3, CT-1) ------------------------------------------------------


@pytest.mark.parametrize("version", [1, 2])
@pytest.mark.parametrize(
    "session",
    ["absent", None, {}, {"promptSuggestions": None}, {"configOptions": {}}],
)
def test_what_advertises_nothing(version: int, session: object) -> None:
    key = "clientCapabilities" if version == 1 else "capabilities"
    caps: dict[str, Any] = {} if session == "absent" else {"session": session}
    assert parse_client_caps(version, {key: caps}) == ClientSuggestionCaps()


@pytest.mark.parametrize("version", [1, 2])
@given(prompt_suggestions_caps())
def test_prompt_suggestions_object_advertises(
    version: int, case: tuple[dict[str, Any], dict[str, bool]]
) -> None:
    obj, expected = case
    key = "clientCapabilities" if version == 1 else "capabilities"
    caps = parse_client_caps(version, {key: {"session": {"promptSuggestions": obj}}})
    assert caps.advertised
    assert (caps.image, caps.audio, caps.embedded_context) == (
        expected["image"],
        expected["audio"],
        expected["embeddedContext"],
    )


@pytest.mark.parametrize(
    ("params", "path", "rule"),
    [
        ({"clientCapabilities": {"session": []}}, "$.params.clientCapabilities.session", "CAP-1"),
        (
            {"clientCapabilities": {"session": {"promptSuggestions": True}}},
            "$.params.clientCapabilities.session.promptSuggestions",
            "CAP-1",
        ),
        (
            {"clientCapabilities": {"session": {"promptSuggestions": {"image": True}}}},
            "$.params.clientCapabilities.session.promptSuggestions.image",
            "CT-1",
        ),
    ],
)
def test_bad_capabilities_name_path_and_rule(params: object, path: str, rule: str) -> None:
    with pytest.raises(MessageError) as err:
        parse_client_caps(1, params)
    assert (err.value.path, err.value.rule) == (path, rule)


def test_v2_session_group_must_be_an_object() -> None:
    with pytest.raises(MessageError) as err:
        parse_client_caps(2, {"capabilities": {"session": 1}})
    assert err.value.rule == "CAP-3"


@pytest.mark.parametrize(
    ("meta", "allowlisted"),
    [
        ({"jetbrains": {"air": {"version": 1, "capabilities": []}}}, True),
        ({"jetbrains.air": {"version": 1}}, True),
        ({"jetbrains": {"air": True}}, False),
        ({}, False),
    ],
)
def test_legacy_allowlist(meta: dict[str, Any], allowlisted: bool) -> None:
    caps = parse_client_caps(1, {"clientCapabilities": {"_meta": meta}})
    assert caps.legacy_allowlisted is allowlisted and not caps.advertised


def test_agent_prompt_caps_v1_booleans_v2_objects() -> None:
    v1 = {"agentCapabilities": {"promptCapabilities": {"image": True, "audio": False}}}
    assert parse_agent_caps(1, v1) == AgentPromptCaps(image=True)
    v2: dict[str, object] = {
        "capabilities": {"session": {"prompt": {"image": {}, "audio": None, "embeddedContext": {}}}}
    }
    assert parse_agent_caps(2, v2) == AgentPromptCaps(image=True, embedded_context=True)
    with pytest.raises(MessageError, match=r"promptCapabilities\.image"):
        parse_agent_caps(1, {"agentCapabilities": {"promptCapabilities": {"image": "yes"}}})
    with pytest.raises(MessageError, match=r"session\.prompt\.audio"):
        parse_agent_caps(2, {"capabilities": {"session": {"prompt": {"audio": True}}}})


@given(st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans(), st.booleans())
def test_allowed_kinds_need_both_sides(
    ai: bool, aa: bool, ae: bool, ci: bool, ca: bool, ce: bool
) -> None:
    kinds = allowed_kinds(AgentPromptCaps(ai, aa, ae), ClientSuggestionCaps(True, ci, ca, ce))
    assert {"text", "resource_link"} <= kinds  # SC-3: always allowed
    assert ("image" in kinds) == (ai and ci)
    assert ("audio" in kinds) == (aa and ca)
    assert ("resource" in kinds) == (ae and ce)


def test_parsing_does_not_change_its_input() -> None:
    update = _update(TEXT, {"prompt": []})
    before = copy.deepcopy(update)
    parse_session_update(update)
    assert update == before


_KINDS = (TEXT_KIND, BLANK, IMAGE, AUDIO, RESOURCE_LINK, RESOURCE, UNPARSEABLE)
_FORMS = {Revision.CURRENT: "update", Revision.DRAFT: "draft", Revision.LEGACY: "legacy"}


@given(
    st.sampled_from(Revision),
    st.lists(st.lists(st.sampled_from(_KINDS), min_size=1, max_size=3), max_size=3),
)
def test_the_wire_form_of_an_update_reads_back_as_the_model_abstracts_it(
    revision: Revision, kinds: list[list[str]]
) -> None:
    """Encoder (`wire.records`), parser (`messages`) and the model's abstraction of a
    suggestion agree: what the client reads off the wire is what the model says it holds.
    The draft and legacy forms carry text alone, so there a suggestion is text or blank."""
    if revision is not Revision.CURRENT:
        kinds = [[TEXT_KIND if BLANK not in s else BLANK] for s in kinds]
    u = Update(tuple(tuple(s) for s in kinds), 0, 0, 0, False)
    record = records.update(baseline(revision, 1), u)
    parsed = parse_session_update(record["msg"]["params"]["update"])
    assert parsed is not None and parsed.form == _FORMS[revision]
    usable = invariants.usable(u.suggestions)  # SC-4: the model skips a suggestion whole
    assert len(parsed.skipped) == len(u.suggestions) - len(usable)
    assert [frozenset(p.kinds) for p in parsed.suggestions] == [content_types(s) for s in usable]
    assert [p.blank for p in parsed.suggestions] == [set(s) == {BLANK} for s in usable]  # SC-2
    assert parsed.withdraws == (not usable)


def _offered(*prompts: list[dict[str, Any]]) -> tuple[Suggestion, ...]:
    update = {
        "sessionUpdate": "prompt_suggestions_update",
        "suggestions": [{"prompt": p} for p in prompts],
    }
    parsed = parse_session_update(update)
    assert parsed is not None
    return parsed.suggestions


def test_json_values_are_the_same_only_with_the_same_types() -> None:
    assert same_json({"a": [1, "x", None]}, {"a": [1, "x", None]})
    assert not same_json(1, 1.0) and not same_json(1, True) and not same_json(0, False)
    assert not same_json({"a": 1}, {"a": 1, "b": 2}) and not same_json([1], [1, 1])
    assert not same_json(float("nan"), float("nan"))  # json.loads reads NaN; no JSON equals it


def _same(a: object, b: object) -> bool:
    """The same JSON value, by recursion: the reference `same_json`'s loop is held to."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(v, b[k]) for k, v in a.items())
    return a == b


@given(json_values, json_values, st.text(max_size=2), st.text(max_size=2))
def test_same_json_agrees_with_its_recursive_definition(
    a: object, b: object, s: str, t: str
) -> None:
    """Drawn values, in lists and objects beside short texts (often equal, often not: the
    text leaves an object holds are compared at once, the rest queued)."""
    assert same_json(a, copy.deepcopy(a))
    pairs = ((a, b), ([a, s], [b, t]), ({"k": a, "t": s}, {"k": b, "t": t}), ({"k": s}, {"k": a}))
    for x, y in pairs:
        assert same_json(x, y) == _same(x, y), (x, y)


def test_a_prompt_sends_an_offered_suggestion_as_the_sdk_reads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The JSON a suggestion was read from is sent as is; JSON that reads the same (a null
    field, another key order) is sent as the SDK reads it; other text or other types are
    told apart without reading the prompt."""
    block = {"type": "text", "text": "Run the tests"}
    offered = Offer(_offered([{"type": "text", "text": "Fix it"}], [block]))
    assert offered.sends([dict(block)])
    assert offered.sends([{"text": "Run the tests", "annotations": None, "type": "text"}])
    assert not offered.sends([{**block, "annotations": {"priority": "high"}}])
    assert not offered.sends([block, block])

    def unread(raw: object) -> None:
        raise AssertionError(f"{raw} read")

    monkeypatch.setattr(messages, "prompt_blocks", unread)
    assert not offered.sends([{"type": "text", "text": "Run the tests "}])
    assert not offered.sends([{"type": "resource_link", "text": "Fix it"}])
    assert not offered.sends("Run the tests")


def test_the_sdk_keeps_a_texts_spaces_as_sent() -> None:
    """What a prompt's text is told apart by before it is read (`Offer.sends`)."""
    (suggestion,) = _offered([{"type": "text", "text": " padded\t"}])
    assert suggestion.prompt[0].text == " padded\t"


def _sends_by_definition(raw_prompt: object, offered: tuple[Suggestion, ...]) -> bool:
    """A prompt sends one of the suggestions: a pass over them (what `Offer` must equal)."""
    if any(s.raw is not None and same_json(raw_prompt, s.raw) for s in offered):
        return True
    sent = messages.prompt_blocks(raw_prompt)
    return sent is not None and any(s.blocks() == sent for s in offered)


# Blocks close to one another: the same texts, with and without fields that read the same
# (a null) or do not (a meta of 1, 1.0 or true), so that matches and near misses are common.
_close_blocks = st.builds(
    lambda text, extra: {"type": "text", "text": text, **extra},
    st.sampled_from(["Run it", "Fix it"]),
    st.sampled_from([{}, {"annotations": None}, {"_meta": {"n": 1}}, {"_meta": {"n": 1.0}},
                     {"_meta": {"n": True}}]),
) | st.just({"type": "resource_link", "name": "a", "uri": "file:///a"})  # fmt: skip
_close_prompts = st.lists(_close_blocks, min_size=1, max_size=2)


@given(
    st.lists(_close_prompts, max_size=messages.PASSED)  # passed over
    | st.lists(_close_prompts, min_size=messages.PASSED + 1, max_size=12),  # indexed
    st.lists(_close_prompts | st.just("x"), max_size=6),
)
def test_an_offer_matches_prompts_as_a_pass_over_its_list_does(
    suggestions: list[list[dict[str, Any]]], prompts: list[object]
) -> None:
    """One offer, prompt after prompt (a long one's indexes built at the first and the SDK's
    forms written as far as a match): each verdict that of a pass over the whole list.  First each
    suggestion with a null field more, which reads the same as the SDK's, not as JSON."""
    offered = _offered(*suggestions) if suggestions else ()
    offer = Offer(offered)
    read_alike = [[{**b, "annotations": None} for b in s] for s in suggestions]
    for raw in [*read_alike, *prompts, *suggestions]:
        assert offer.sends(raw) == _sends_by_definition(raw, offered), raw
