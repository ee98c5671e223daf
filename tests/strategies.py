"""Shared Hypothesis strategies: ACP JSON payloads (valid and broken) and model configurations."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from acp_suggestions.model.config import Config, baseline
from acp_suggestions.model.network import Transport
from acp_suggestions.model.rules import Revision

json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text()
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
metas = st.none() | st.dictionaries(st.text(max_size=6), json_scalars, max_size=2)
words = st.text(min_size=1, max_size=20).filter(lambda s: s.strip())

text_blocks = st.builds(lambda t: {"type": "text", "text": t}, words)
resource_links = st.builds(
    lambda n, u: {"type": "resource_link", "name": n, "uri": f"file:///{u}"}, words, words
)
images = st.builds(lambda d: {"type": "image", "data": d, "mimeType": "image/png"}, st.text())
audios = st.builds(lambda d: {"type": "audio", "data": d, "mimeType": "audio/wav"}, st.text())
resources = st.builds(
    lambda u, t: {"type": "resource", "resource": {"uri": f"file:///{u}", "text": t}},
    words,
    st.text(),
)
blocks = st.one_of(text_blocks, resource_links, images, audios, resources)


def _with_meta(obj: dict[str, Any], meta: object, present: bool) -> dict[str, Any]:
    return {**obj, "_meta": meta} if present else obj


suggestions = st.builds(
    _with_meta,
    st.builds(lambda p: {"prompt": p}, st.lists(blocks, min_size=1, max_size=3)),
    metas,
    st.booleans(),
)
updates = st.builds(
    _with_meta,
    st.builds(
        lambda s: {"sessionUpdate": "prompt_suggestions_update", "suggestions": s},
        st.lists(suggestions, max_size=3),
    ),
    metas,
    st.booleans(),
)

capability_fields = st.sampled_from(["image", "audio", "embeddedContext"])
opt_in_values = st.sampled_from([None, {}, {"x": 1}, "absent"])


@st.composite
def prompt_suggestions_caps(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, bool]]:
    """A promptSuggestions object with its expected opt-ins (omitted and null mean no)."""
    obj: dict[str, Any] = {}
    expected = {}
    for name in ("image", "audio", "embeddedContext"):
        value = draw(opt_in_values)
        if value != "absent":
            obj[name] = value
        expected[name] = isinstance(value, dict)
    return obj, expected


configs = st.builds(
    lambda rev, v, transport: baseline(rev, v, transport=transport),
    st.sampled_from(list(Revision)),
    st.sampled_from([1, 2]),
    st.sampled_from(list(Transport)),
)


def describe(cfg: Config) -> str:
    """A short name for a configuration in test ids."""
    return f"v{cfg.version}-{cfg.revision.value}-{cfg.transport.value}"
