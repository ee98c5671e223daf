"""The exit codes of every command, one meaning each: the commands return these, and the
exit-codes page (docs/reference/exit-codes.md, held to `page()` by a test) shows this table."""

from __future__ import annotations

from enum import IntEnum


class Exit(IntEnum):
    """What a command's exit code says."""

    OK = 0  # done, and nothing in force broken (a trace: it passed, or nothing could tell)
    BROKEN = 1  # something in force broken: a property, a rule on the wire, an RFD sentence
    USAGE = 2  # nothing checked: a usage error, unusable input, a peer that cannot be set up
    UNDECIDED = 3  # nothing broken in what was seen, the rest not decided (a search cut short,
    # a trace with no evidence where evidence is required)


# Each code in words, with the codes beyond the table (a started agent's, a signal's).
MEANINGS: tuple[tuple[str, str], ...] = (
    (
        "0",
        "done, and nothing in force broken: `check` explored every state and every property "
        "in force held; `trace check` and `probe` found no violation (a pass, or inconclusive: "
        "nothing on the wire could tell); `review` stands as it expects (its findings are in "
        "its report); `audit` maps every sentence to its rule",
    ),
    (
        "1",
        "something in force broken: a property (`check`), a rule on the wire (`trace check`, "
        "`probe`), what the review stands on (a broken rule it no longer catches, compliant "
        "peers over stdio breaking a property; `findings`: a finding it no longer supports), an "
        "RFD sentence without its rule (`audit`)",
    ),
    (
        "2",
        "nothing checked: an unknown option or value, a file that is not what it should be "
        "(a trace, a scenario, an RFD text), an output folder that cannot be written, an agent "
        "that cannot be set up (`client`: or that never sends what a step waits for), a Dask "
        "scheduler out of reach",
    ),
    (
        "3",
        "not decided: `check` stopped at `--max-states` (nothing broken in the runs it saw, "
        "nothing decided beyond them); `trace check` or `probe` with `--require-evidence` found "
        "no violation but nothing of the feature on the wire (it says why)",
    ),
    ("126, 127", "`tap`: the agent's command cannot be run (127: not found), as in a shell"),
    (
        "128 + N",
        "the command was ended by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP): its "
        "output folder keeps the previous run's files",
    ),
    ("any other", "`tap`: the agent's own exit code, passed through"),
)


def page() -> str:
    """The exit-codes page, in Markdown."""
    out = ["# Exit codes", "", "Every command's exit code means one thing (`model/exits.py`).", ""]
    out += ["| code | means |", "| --- | --- |"]
    return "\n".join(out + [f"| {code} | {means} |" for code, means in MEANINGS]) + "\n"
