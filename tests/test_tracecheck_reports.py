"""The trace checker's reports: the command's JSON and exit codes, JUnit that CI systems
read (failures for violations, every file named, valid against the common schema)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.wire.reports import notes
from acp_suggestions.model.wire.tracecheck import LISTED, check_lines
from tests.traces import (
    TEXT,
    VALID,
    encoded,
    first_turn,
    prompt,
    req,
    res,
    suggest,
)


def test_cli_json_shape_and_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, bad, broken = tmp_path / "good.jsonl", tmp_path / "bad.jsonl", tmp_path / "x.jsonl"
    good.write_bytes(
        b"".join(
            encoded(
                [*first_turn(), prompt(3), suggest(), res("agent", 3, {"stopReason": "end_turn"})]
            )
        )
    )
    bad.write_bytes(b"".join(encoded(first_turn(caps={}))))
    broken.write_bytes(b"not json\n")
    assert main(["trace", "check", str(good), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "pass"
    assert set(out["findings"][0]) == {
        "file",
        "rule",
        "section",
        "level",
        "verdict",
        "exact_from",
        "line",
        "session",
        "message",
    }
    assert main(["trace", "check", str(bad)]) == 1
    assert "violation: CAP-2 (MUST NOT, Capability)" in capsys.readouterr().out
    assert main(["trace", "check", str(broken)]) == 2
    assert "x.jsonl: line 1: not valid JSON" in capsys.readouterr().err


def test_junit_marks_violations_as_failures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xml.etree.ElementTree as ET

    bad = tmp_path / "bad.jsonl"
    hostile = [{"type": "text", "text": '</testcase><x a="1">& "q"'}]
    bad.write_bytes(b"".join(encoded([*first_turn(caps={}), suggest(hostile)])))
    assert main(["trace", "check", str(bad), "--format", "junit"]) == 1
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    suite = root.find("testsuite")
    assert suite is not None and int(suite.get("failures", "0")) >= 1
    failures = [c for c in suite.iter("testcase") if c.find("failure") is not None]
    assert failures and failures[0].get("classname", "") == f"{bad}: CAP-2 Capability"


def test_ci_reports_name_each_file_and_are_never_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xml.etree.ElementTree as ET

    good, empty, broken = tmp_path / "good.jsonl", tmp_path / "empty.jsonl", tmp_path / "x.jsonl"
    good.write_bytes(VALID)
    empty.write_bytes(b"")
    broken.write_bytes(b"not json\n")
    assert main(["trace", "check", str(good), str(empty), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "inconclusive"  # the empty file checks nothing
    assert [f["verdict"] for f in out["files"]] == ["pass", "inconclusive"]
    assert "no session or no suggestion traffic" in out["files"][1]["reason"]
    assert {f["file"] for f in out["findings"]} == {str(good)}
    assert main(["trace", "check", str(good), str(broken), "--format", "json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "error" and "line 1: not valid JSON" in out["files"][1]["error"]
    assert main(["trace", "check", str(good), str(broken), "--format", "junit"]) == 2
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    suites = root.findall("testsuite")
    assert [s.get("name") for s in suites] == [str(good), str(broken)]
    for key in ("tests", "failures", "errors"):
        assert int(root.get(key, "-1")) == sum(int(s.get(key, "-1")) for s in suites)
    assert suites[1].get("errors") == "1" and suites[1].find("testcase/error") is not None
    assert main(["trace", "check", str(empty)]) == 0
    assert "empty.jsonl: inconclusive: no rule found anything" in capsys.readouterr().out


JUNIT_XSD = Path(__file__).parent / "data" / "junit.xsd"


@pytest.mark.parametrize(
    "contents",
    [
        [VALID],  # pass
        [b""],  # nothing to check: a skipped case
        [b"not json\n"],  # unusable: an error case
        [VALID, b"", b"{}\n"],  # several files
        [b"".join(encoded([*first_turn(caps={}), suggest([{"type": "text", "text": "&<"}])]))],
    ],
)
def test_junit_is_valid_against_the_common_schema(
    contents: list[bytes], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import xmlschema

    files = []
    for n, data in enumerate(contents):
        files.append(tmp_path / f"t{n}.jsonl")
        files[-1].write_bytes(data)
    main(["trace", "check", *map(str, files), "--format", "junit"])
    xmlschema.XMLSchema(JUNIT_XSD).validate(capsys.readouterr().out.encode())


def test_a_trace_without_suggestion_traffic_passes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Sessions and prompts with no list and no withdrawal on the wire (a client that never
    advertised the capability, an agent that never suggested) keep every rule by doing
    nothing: inconclusive, with the reason the probe gives too, and JUnit cases all skipped."""
    import xml.etree.ElementTree as ET

    from acp_suggestions.model.wire.reports import NO_SUGGESTION_TRAFFIC, NOT_ADVERTISED

    quiet = tmp_path / "quiet.jsonl"
    turn = [*first_turn(caps={})[:-1], prompt(3), res("agent", 3, {"stopReason": "end_turn"})]
    quiet.write_bytes(b"".join(encoded(turn)))
    assert main(["trace", "check", str(quiet), "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    why = NO_SUGGESTION_TRAFFIC + NOT_ADVERTISED
    assert out["verdict"] == "inconclusive" and out["files"][0]["reason"] == why
    assert out["findings"] and {f["verdict"] for f in out["findings"]} == {"pass"}
    assert main(["trace", "check", str(quiet)]) == 0
    assert f"quiet.jsonl: inconclusive: {why}" in capsys.readouterr().out
    main(["trace", "check", str(quiet), "--format", "junit"])
    root = ET.fromstring(capsys.readouterr().out.split("\n", 1)[1])
    cases = list(root.iter("testcase"))
    assert len(cases) > 1 and all(c.find("skipped") is not None for c in cases)  # none green
    assert cases[-1].get("name") == "the trace"


def test_past_a_hundred_findings_of_a_rule_the_rest_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A client without the capability gets 150 lists: each is a violation, the first 100 are
    listed, the other 50 counted in a note, and the verdict is the same; so a trace of millions
    of violations is reported in bounded memory."""
    trace = tmp_path / "t.jsonl"
    lists = [suggest([{"type": "text", "text": f"Next {i}"}]) for i in range(150)]
    trace.write_bytes(b"".join(encoded([*first_turn(caps={})[:-1], *lists])))
    assert main(["trace", "check", str(trace), "--format", "json"]) == 1
    (report,) = json.loads(capsys.readouterr().out)["files"]
    cap = [f for f in report["findings"] if f["rule"] == "CAP-2" and f["verdict"] == "violation"]
    assert len(cap) == 100 and cap[-1]["line"] == 106
    assert (
        "CAP-2: 50 more violation finding(s) past the first 100, counted, not listed"
        in report["notes"]
    ), report["notes"]


def test_evidence_required_makes_an_inconclusive_trace_fail(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With --require-evidence a trace that exercised nothing exits 3 and says why (here, as
    with acpx, a client that never advertised the capability); a trace with a list on the
    wire passes as before."""
    quiet = tmp_path / "quiet.jsonl"
    turn = [*first_turn(caps={})[:-1], prompt(3), res("agent", 3, {"stopReason": "end_turn"})]
    quiet.write_bytes(b"".join(encoded(turn)))
    assert main(["trace", "check", str(quiet), "--require-evidence"]) == 3
    said = capsys.readouterr()
    assert "the client did not advertise promptSuggestions" in said.err
    assert said.out.endswith("inconclusive: 0 violations, 0 findings left open, 1 check passed\n")
    busy = tmp_path / "busy.jsonl"
    busy.write_bytes(b"".join(encoded(first_turn())))
    assert main(["trace", "check", str(busy), "--require-evidence"]) == 0


def _auto_sending(tmp_path: Path) -> Path:
    """A client that sends the offered suggestion as its next prompt, twice: what the model's
    client breaking CP-1 does, as `tap` records it."""
    turns = [
        *first_turn(),
        prompt(3),
        suggest(),  # the agent withdraws the list it accepts the prompt over (LT-5)
        res("agent", 3, {"stopReason": "end_turn"}),
        suggest(TEXT),
        prompt(4),
        suggest(),
        res("agent", 4, {"stopReason": "end_turn"}),
    ]
    trace = tmp_path / "auto.jsonl"
    trace.write_bytes(b"".join(encoded(turns)))
    return trace


def _record(tmp_path: Path, *actions: dict[str, object]) -> str:
    path = tmp_path / "actions.jsonl"
    path.write_text("".join(json.dumps(a) + "\n" for a in actions))
    return str(path)


ON, OFF = {"action": "setting-on", "prompts_sent": 0}, {"action": "setting-off", "prompts_sent": 2}


@pytest.mark.parametrize(
    ("actions", "verdicts"),
    [
        ((), ["violation", "violation"]),
        (({"action": "typed", "prompts_sent": 1}, {"action": "dismissed", "prompts_sent": 2}),
         ["violation", "violation"]),
        (({"action": "sent", "prompts_sent": 1}, {"action": "selected", "prompts_sent": 2}),
         ["pass"]),
        (({"action": "setting-on", "prompts_sent": 1},), ["pass"]),
        ((ON, OFF), ["pass", "violation"]),
    ],
    ids=["none", "no-send", "sent-each", "setting-on", "setting-off-before-the-third"],
)  # fmt: skip
def test_the_users_record_makes_cp1_a_verdict(
    actions: tuple[dict[str, object], ...],
    verdicts: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """With the test's record of its user's actions, each prompt that sends the suggestion
    then offered (the session's second and third) with no send, chip or user's setting before
    it breaks CP-1 (a pass is listed once a session); without the record the same trace
    passes, with a note that the recording cannot tell."""
    trace = str(_auto_sending(tmp_path))
    args = ["trace", "check", trace, "--user-actions", _record(tmp_path, *actions)]
    code = 1 if "violation" in verdicts else 0
    assert main([*args, "--format", "json"]) == code
    report = json.loads(capsys.readouterr().out)["files"][0]
    assert [f["verdict"] for f in report["findings"] if f["rule"] == "CP-1"] == verdicts
    assert main(["trace", "check", trace, "--format", "json"]) == 0
    (note,) = json.loads(capsys.readouterr().out)["files"][0]["notes"]
    assert "2 prompt(s) send the suggestion then offered, 2 in a row" in note


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ('{"action": "clicked", "prompts_sent": 0}\n', "line 1: action 'clicked' is not one of"),
        ('{"action": "sent"}\n', "line 1: prompts_sent must be a whole number"),
        ('\n{"action": "sent", "prompts_sent": -1}\n', "line 2: prompts_sent must be"),
        ("not json\n", "line 1: not JSON"),
    ],
)
def test_a_wrong_user_record_is_refused_with_its_line(
    text: str, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = tmp_path / "actions.jsonl"
    record.write_text(text)
    trace = str(_auto_sending(tmp_path))
    assert main(["trace", "check", trace, "--user-actions", str(record)]) == 2
    assert says in capsys.readouterr().err


def test_sarif_puts_each_violation_on_its_traces_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--format sarif`: a violation an error on its line, an unusable file an error on the
    file; valid against the SARIF 2.1.0 schema."""
    import jsonschema

    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(b"".join(encoded([*first_turn(), prompt(3), res("agent", 3, {})])))
    missing = tmp_path / "missing.jsonl"
    assert main(["trace", "check", str(broken), str(missing), "--format", "sarif"]) == 2
    log = json.loads(capsys.readouterr().out)
    schema = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
    jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker()).validate(log)
    found = {
        (
            r["ruleId"],
            r["level"],
            r["locations"][0]["physicalLocation"].get("region", {}).get("startLine"),
        )
        for r in log["runs"][0]["results"]
    }
    assert ("LT-5", "error", 9) in found and ("unusable", "error", None) in found


def test_large_traces_report_progress_by_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Traces past the size from which `trace check` shows progress are counted by bytes on
    standard error (plain lines in a log), an unreadable file's bytes passed at once; the
    findings on standard output are the same, and --quiet shows none."""
    from acp_suggestions.model.cli import wire
    from acp_suggestions.model.wire import reports

    trace, broken = tmp_path / "t.jsonl", tmp_path / "broken.jsonl"
    trace.write_bytes(VALID * 40)
    broken.write_bytes(b"not json\n" * 10)
    total = trace.stat().st_size + broken.stat().st_size
    files = [str(trace), str(broken), str(tmp_path / "missing.jsonl")]
    monkeypatch.setattr(wire, "PROGRESS_FROM", total)
    monkeypatch.setattr(reports, "READ_EVERY", 3)
    assert main(["trace", "check", *files]) == 2
    shown = capsys.readouterr()
    lines = [x for x in shown.err.splitlines() if x.startswith("checking traces, bytes: ")]
    assert len(lines) == 10
    assert lines[-1].startswith(f"checking traces, bytes: {total:,} of {total:,} (100%)")
    assert main(["trace", "check", "--quiet", *files]) == 2
    quiet = capsys.readouterr()
    assert quiet.out == shown.out and "checking traces" not in quiet.err
    monkeypatch.setattr(wire, "PROGRESS_FROM", total + 1)
    assert main(["trace", "check", *files]) == 2
    assert "checking traces" not in capsys.readouterr().err


def test_endless_distinct_methods_are_noted_by_name_up_to_a_bound() -> None:
    """A trace of ever new extension methods: the first 100 are noted by name, the messages of
    the rest counted in one note, so the checker holds no entry for each."""
    pings = [{"from": "client", "msg": {"jsonrpc": "2.0", "method": f"_x/{i}"}} for i in range(150)]
    checker = check_lines(encoded([*first_turn(), *pings, *pings[:3]]))
    noted = notes(checker)
    assert len(checker.unchecked) == 100 and "_x/0: 2 message(s) from line 8 on" in noted[0]
    assert "50 message(s) of methods past the first 100 named, not checked by any rule" in noted


def test_notes_of_prompts_sent_from_the_offer_are_bounded() -> None:
    """A note for each of the first `LISTED` sessions whose prompts send the suggestion then
    offered, and one that counts the rest: a trace of endless such sessions keeps its report
    bounded."""
    update = {"sessionUpdate": "prompt_suggestions_update", "suggestions": [{"prompt": TEXT}]}
    records = first_turn()[:2]
    for i in range(LISTED + 2):
        sid = f"s{i}"
        listed = req("agent", 0, "session/update", {"sessionId": sid, "update": update})
        del listed["msg"]["id"]  # a notification
        records += [
            req("client", 100 + i, "session/new", {"cwd": "/"}),
            res("agent", 100 + i, {"sessionId": sid}),
            listed,
            req("client", 1000 + i, "session/prompt", {"sessionId": sid, "prompt": TEXT}),
        ]
    said = notes(check_lines(encoded(records)))
    assert sum(n.startswith("session s") for n in said) == LISTED
    assert f"2 more session(s) past the first {LISTED} have prompts" in said[-1]
