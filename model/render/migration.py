"""The `_meta` migration of the RFD's Proposed phases, from the legacy channel's rules the model
already holds (L-1 to L-9, read from the Claude adapter and the AIR client): what the phase
should say, each point checked against the review's run of the legacy peers."""

from __future__ import annotations

from acp_suggestions.model.render.findings import LEGACY, Review, Unsupported

MIGRATION = ("Proposed phases", "Keep the _meta key for one release for older peers.")
ENTRY = (
    "Proposed phases",
    'Each { "text": ... } entry becomes a prompt with one text block.',
)


def markdown(data: Review) -> list[str]:
    """The section as Markdown lines."""
    legacy = data["baselines"].get(f"baseline.{LEGACY}.v2.fifo")
    if legacy is None:
        raise Unsupported("the review did not run the legacy peers")
    broken = legacy["violated_in_force"] + legacy["violated_other"]
    if "withdrawn_after_foreground_work" not in broken:
        raise Unsupported("the legacy adapter withdraws on work without a prompt now")
    return [
        "## The `_meta` migration",
        "",
        f"{MIGRATION[0]}: \u201c{MIGRATION[1]}\u201d and \u201c{ENTRY[1]}\u201d For that "
        "release the phase should say:",
        "",
        "- **Which gate.** The adapter sends the `_meta` key only to clients that declare "
        "`_meta.jetbrains.air` (an allowlist, L-2); the update goes to clients that advertise "
        "`promptSuggestions`. A client that does both should get the update alone.",
        "- **Which channel wins.** A client that receives both gets each list twice, as two "
        "notifications an SDK may handle in either order, and a clear on one channel says "
        "nothing of the other. A client that advertises `promptSuggestions` ignores the key.",
        "- **The blank entry.** The adapter publishes a whitespace-only prediction as a clear "
        "(L-4) and the AIR client shows the first non-blank text (L-9). Mapped entry by entry, "
        "a blank entry becomes a suggestion the RFD forbids (whitespace-only text, Suggestion "
        "content); blank entries are dropped, and a list of only blanks is `suggestions: []`.",
        "- **When the key goes.** Name the adapter release after which it stops. Until then "
        "the legacy channel keeps the adapter's rules, which in v2 do not withdraw a list on "
        "work without a prompt (idle compaction, L-8): "
        "`acp-suggestions check --version 2 --revision legacy-meta` breaks that property. "
        "The adapter should clear its list on idle compaction, as LT-6 asks of the update, "
        "before the key goes.",
    ]
