"""The model's records replace fields by place (`state._quick_replace`): the same record as the
standard `_replace` gives, of the same type, and a field it does not have refused by name."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_suggestions.model.state import Update, initial_world

WORLD = initial_world(2)
RECORDS: dict[str, Any] = {  # NamedTuples of four types
    "Agent": WORLD.agent,
    "Client": WORLD.client,
    "Update": Update((("text",),), 1, 1, 0, False),
    "World": WORLD,
}


@given(data=st.data(), name=st.sampled_from(sorted(RECORDS)))
def test_a_record_replaced_by_place_is_the_standard_replace(data: st.DataObject, name: str) -> None:
    record = RECORDS[name]
    fields = type(record)._fields
    changed = data.draw(st.lists(st.sampled_from(fields), unique=True))
    changes = {f: data.draw(st.integers() | st.none() | st.text(max_size=3)) for f in changed}
    expected = type(record)._make(changes.get(f, v) for f, v in zip(fields, record, strict=True))
    got = record._replace(**changes)
    assert type(got) is type(record) and tuple(got) == tuple(expected)
    assert tuple(record) == tuple(RECORDS[name])  # the record itself is left as it was


@pytest.mark.parametrize("name", sorted(RECORDS))
def test_a_field_the_record_lacks_is_refused_by_name(name: str) -> None:
    record = RECORDS[name]
    assert type(record).__name__ == name
    with pytest.raises(ValueError, match="has no field 'colour'"):
        record._replace(colour=1)
