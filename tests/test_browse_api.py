"""The explorer's JSON API over HTTP: a state by configuration and path, clear refusals of a
bad configuration, path, host or name, the run's chart, and jumps (the shortest break, a
review's counterexample from its ITF file) that land where the property is broken."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urlencode
from urllib.request import Request, urlopen

import pytest

from acp_suggestions.model.binding.verify import verify
from acp_suggestions.model.browse import setting, walk
from acp_suggestions.model.browse.jumps import ReviewFolder
from acp_suggestions.model.browse.server import Explorer, serve
from acp_suggestions.model.browse.setting import Unreadable, from_args
from acp_suggestions.model.config import baseline
from acp_suggestions.model.mutations import MUTATIONS, MUTATIONS_BY_RULE
from acp_suggestions.model.render.itf import dumps, to_itf
from acp_suggestions.model.rules import Revision

LT5 = "mutation.LT-5.v1.fifo"


@pytest.fixture(scope="module")
def review(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A review folder holding the ITF files of one exploration, as `review` writes them."""
    folder = tmp_path_factory.mktemp("review")
    (folder / "itf").mkdir()
    for name, cex in verify(setting.from_job(LT5).config).counterexamples().items():
        itf = to_itf(cex.start, cex.steps, name, cex.loop)
        (folder / "itf" / f"{LT5}.{name}.itf.json").write_text(dumps(itf), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def base(review: Path) -> Iterator[str]:
    default = from_args("--version 1 --break LT-5")
    server = serve(Explorer(default, ReviewFolder(review)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def get(url: str, **headers: str) -> tuple[int, bytes]:
    try:
        with urlopen(Request(url, headers=headers)) as answer:
            return int(answer.status), bytes(answer.read())
    except HTTPError as error:
        return error.code, error.read()


def api(base: str, route: str, **query: str) -> tuple[int, Any]:
    status, body = get(f"{base}/api/{route}?{urlencode(query)}")
    return status, json.loads(body)


def broken(view: dict[str, Any]) -> list[str]:
    return [p["name"] for p in view["properties"] if p["broken"]]


def test_the_initial_state_and_its_actions(base: str) -> None:
    status, view = api(base, "state")
    assert status == 200
    assert view["setting"]["query"] == {"args": "--break LT-5"}
    assert view["path"] == "" and view["steps"] == []
    assert view["state"]["client"]["list"] == "empty" and view["state"]["agent"]["list"] == "empty"
    words = [a["words"] for a in view["actions"]]
    assert words[0] == "user types in the empty composer"
    assert broken(view) == []
    # Each action leads one step further, and the step is the action taken.
    status, after = api(base, "state", args="--break LT-5", path="0")
    assert [s["words"] for s in after["steps"]] == [words[0]]
    assert after["state"]["client"]["composer"] == "typed"


def test_a_bad_configuration_or_path_is_refused_by_name(base: str) -> None:
    status, answer = api(base, "state", args="--version 3")
    assert status == 400 and "--version" in answer["error"]
    status, answer = api(base, "state", args="--break LT-9")
    assert status == 400 and "LT-9" in answer["error"]
    status, answer = api(base, "state", job="mutation.XX-1.v1.fifo")
    assert status == 400 and "XX-1" in answer["error"]
    status, answer = api(base, "state", path="0.99")
    assert status == 400 and answer["error"].startswith("step 2 of the path: action 99")
    status, answer = api(base, "state", path="0.x")
    assert status == 400 and "dots" in answer["error"]
    status, answer = api(base, "counterexample", name="../../etc/passwd")
    assert status == 400 and "no such ITF file" in answer["error"]
    assert get(f"{base}/nothing")[0] == 404


def test_another_host_is_refused(base: str) -> None:
    port = base.rsplit(":", 1)[1]
    assert get(f"{base}/", Host=f"attacker.example:{port}")[0] == 403
    assert get(f"{base}/")[0] == 200


def test_the_shortest_break_and_the_reviews_counterexample_land_on_it(base: str) -> None:
    status, jump = api(base, "shortest", args="--break LT-5", property="withdrawn_after_prompt")
    assert status == 200 and jump["query"] == {"args": "--break LT-5"}
    status, view = api(base, "state", **jump["query"], path=jump["path"])
    assert "withdrawn_after_prompt" in broken(view)
    # One step short of it, the property still held.
    shorter = jump["path"].rsplit(".", 1)[0]
    assert "withdrawn_after_prompt" not in broken(api(base, "state", path=shorter)[1])
    # The review's ITF file of the same exploration replays to the same path.
    name = f"{LT5}.withdrawn_after_prompt"
    status, from_review = api(base, "counterexample", name=name)
    assert from_review == {"query": {"job": LT5}, "path": jump["path"], "ending": ""}
    listed = api(base, "counterexamples")[1]["counterexamples"]
    assert {"name": name, "key": LT5, "property": "withdrawn_after_prompt"} in listed
    status, answer = api(base, "shortest", property="capability_respected")
    assert status == 400 and "every run keeps it" in answer["error"]


def test_the_chart_is_the_runs(base: str) -> None:
    status, svg = get(f"{base}/api/chart.svg?{urlencode({'path': '0.0'})}")
    assert status == 200 and svg.startswith(b"<?xml") and b"sends the composer" in svg


def test_a_tampered_trace_is_refused(review: Path, tmp_path: Path) -> None:
    (tmp_path / "itf").mkdir()
    name = f"{LT5}.withdrawn_after_prompt"
    trace = json.loads((review / "itf" / f"{name}.itf.json").read_text(encoding="utf-8"))
    trace["states"][2]["#meta"]["action"] = "agent.publish"
    (tmp_path / "itf" / f"{name}.itf.json").write_text(json.dumps(trace), encoding="utf-8")
    with pytest.raises(Unreadable, match=r"step 2 of the trace \(agent.publish\)"):
        ReviewFolder(tmp_path).jump(name)
    (tmp_path / "itf" / f"{name}.itf.json").write_text("{", encoding="utf-8")
    with pytest.raises(Unreadable, match="not an ITF trace"):
        ReviewFolder(tmp_path).jump(name)


def test_a_linked_trace_is_not_listed(review: Path, tmp_path: Path) -> None:
    (tmp_path / "itf").mkdir()
    target = review / "itf" / f"{LT5}.withdrawn_after_prompt.itf.json"
    (tmp_path / "itf" / "linked.prop.itf.json").symlink_to(target)
    assert ReviewFolder(tmp_path).names == []


def test_the_url_names_a_configuration_one_way() -> None:
    written = from_args("--predict text --version 2 --no-capability --version 2")
    assert written.query == (("args", "--version 2 --no-capability --predict text"),)
    assert from_args(written.query[0][1]).config == written.config


def test_the_reports_links_open_each_counterexample(review_folder: Path) -> None:
    """Each counterexample of the report names the `explore --jump` that opens it, and the
    first of each exploration kind lands where its property is broken (a leads-to
    property's obligation open)."""
    from acp_suggestions.model.browse import walk
    from acp_suggestions.model.system import System

    report = (review_folder / "report.md").read_text(encoding="utf-8")
    section = report.split("\n## Counterexamples\n", 1)[1].split("\n## ", 1)[0]
    names = re.findall(r"--jump ([^`\s]+)` \(DIR", section)
    assert len(names) == section.count("\n### ") > 0
    folder = ReviewFolder(review_folder)
    assert set(names) <= set(folder.names)
    for name in {name.split(".", 1)[0]: name for name in reversed(names)}.values():
        jump = folder.jump(name)
        view = walk.view(jump.setting, System(jump.setting.config), jump.path)
        value = next(p for p in view["properties"] if p["name"] == name.rsplit(".", 1)[1])
        assert value["broken"] or value["value"].startswith("open since"), (name, value)


@pytest.mark.documents(
    "acp-suggestions explore --version 1 --break LT-5",
    "acp-suggestions explore --review out/ --jump mutation.LT-5.v1.fifo.withdrawn_after_prompt",
)
def test_the_documented_commands_serve_the_state_they_name(review: Path, tmp_path: Path) -> None:
    """Each command prints its URL; the URL's state is the configuration's initial state, or
    the counterexample's last, where its property is broken."""
    (tmp_path / "out").symlink_to(review, target_is_directory=True)
    name = f"{LT5}.withdrawn_after_prompt"
    for words, breaks in [
        (["--version", "1", "--break", "LT-5"], []),
        (["--review", "out/", "--jump", name], ["withdrawn_after_prompt"]),
    ]:
        command = [sys.executable, "-m", "acp_suggestions.model.cli", "explore", *words]
        with subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, text=True) as served:
            assert served.stdout is not None
            url = served.stdout.readline().split(" is at ", 1)[1].strip()
            base, _, query = url.partition("/?")
            status, view = get(f"{base}/api/state?{query}")
            served.terminate()
        assert status == 200
        shown = json.loads(view)
        assert (shown["path"] == "") == (not breaks)
        assert [n for n in broken(shown) if n in breaks] == breaks


def test_a_trace_gone_or_not_text_is_refused(review: Path, tmp_path: Path) -> None:
    (tmp_path / "itf").mkdir()
    trace = tmp_path / "itf" / f"{LT5}.withdrawn_after_prompt.itf.json"
    trace.write_bytes(b"\xff\xfe")
    folder = ReviewFolder(tmp_path)
    with pytest.raises(Unreadable, match="cannot be read"):
        folder.jump(trace.name.removesuffix(".itf.json"))
    trace.unlink()
    with pytest.raises(Unreadable, match="cannot be read"):
        folder.jump(trace.name.removesuffix(".itf.json"))


def test_a_deep_or_endless_trace_is_refused(tmp_path: Path) -> None:
    """An ITF file nested 100,000 deep, or with more steps than any run, is refused by name
    (it was a traceback)."""
    (tmp_path / "itf").mkdir()
    name = f"{LT5}.withdrawn_after_prompt"
    path = tmp_path / "itf" / f"{name}.itf.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(Unreadable, match="nested too deep"):
        ReviewFolder(tmp_path).jump(name)
    steps = [{"#meta": {"action": "user.type"}}] * 1_002
    path.write_text(json.dumps({"states": steps}), encoding="utf-8")
    with pytest.raises(Unreadable, match="more than 1000 steps"):
        ReviewFolder(tmp_path).jump(name)


def test_a_path_longer_than_any_run_is_refused_at_once(base: str) -> None:
    status, body = api(base, "state", path=".".join(["0"] * 20_000))
    assert status == 400 and "more than 1000 steps" in body["error"]


def test_a_search_past_its_limit_is_refused_naming_it(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A jump whose search passes the states one request may take: 503, naming the limit;
    a property broken within them is still found."""
    from acp_suggestions.model.browse import jumps

    monkeypatch.setattr(jumps, "SEARCH_STATES", 50)
    args = "--version 2 --prompts 3"
    status, body = api(base, "shortest", args=args, property="withdrawn_after_prompt")
    assert status == 503 and "the search passed 50 states" in body["error"]


def test_a_burst_with_a_stalled_client_is_answered_and_the_stall_closed(
    review: Path, monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A connection that sends nothing is closed after the idle limit, and meanwhile 200
    requests at once are each answered (a backlog of 128, a thread each); a client that goes
    before its answer leaves no traceback."""
    import socket
    from concurrent.futures import ThreadPoolExecutor

    from acp_suggestions.model.browse import server as served

    monkeypatch.setattr(served, "IDLE", 1.0)
    explorer = Explorer(from_args("--version 1 --break LT-5"), ReviewFolder(review))
    server = serve(explorer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        stalled = socket.create_connection(("127.0.0.1", port))
        stalled.settimeout(60)
        with ThreadPoolExecutor(200) as pool:
            url = f"http://127.0.0.1:{port}/api/state?path=0"
            codes = list(pool.map(lambda _: get(url)[0], range(200)))
        assert codes == [200] * 200
        assert stalled.recv(1) == b""  # closed by the server, idle
        for _ in range(20):  # clients that go before their answer
            gone = socket.create_connection(("127.0.0.1", port))
            gone.sendall(
                f"GET /api/state?path=0 HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
            )
            gone.setsockopt(
                socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00"
            )
            gone.close()
        assert get(url)[0] == 200
    finally:
        server.shutdown()
        server.server_close()
    assert "Traceback" not in capfd.readouterr().err


@pytest.mark.parametrize(
    "rule",
    [m.rule for m in MUTATIONS if m.revision is Revision.CURRENT],
)
def test_each_rule_broken_alone_breaks_its_property_on_a_step_that_names_it(rule: str) -> None:
    """The explorer's table of the rules each action stands on, held to the model: the
    shortest run to where a rule's breach shows passes a step the page labels with it."""
    mutation = MUTATIONS_BY_RULE[rule]
    cfg = mutation.apply(baseline(Revision.CURRENT, mutation.versions[0]))
    cex = verify(cfg, liveness=False).counterexamples()[mutation.expect.name]
    assert rule in [r for step in cex.steps for r in walk.stands_on(cfg, step)]


def test_a_job_key_is_read_from_its_parts_as_the_review_names_it() -> None:
    """Every exploration of the default review (every proposal's too), by its key, is the job
    the review runs; a key changed in any one part names none."""
    from acp_suggestions.model.amendments import AMENDMENTS
    from acp_suggestions.model.review.jobs import Job, job_of, tasks

    every = tasks({}, [a.name for a in AMENDMENTS], with_duties=False)
    jobs = [t for t in every if isinstance(t, Job)]
    assert len({job.kind for job in jobs}) == 7 and len(jobs) > 500
    for job in jobs:
        assert job_of(job.key) == job, job.key
    for wrong in (
        "mutation.XX-1.v1.fifo",
        "mutation.LT-5.v3.fifo",
        "mutation.LT-5.v1.carrier",
        "baseline.later.v1.fifo",
        "nothing.LT-5.v1.fifo",
        "reading.x=y@" + LT5,
        "reading.acceptance-order=any@baseline.2026-11-14.v2.fifo.v2.fifo",  # the default
        f"reading.acceptance-order=withdrawal-first@{LT5}.v1.fifo",  # a job it does not judge
        "",
    ):
        with pytest.raises(KeyError):
            job_of(wrong)
    nested = LT5
    for _ in range(3000):  # a reading of a reading of ... (a URL can carry this many)
        nested = f"reading.acceptance-order=withdrawal-first@{nested}.v1.fifo"
    with pytest.raises(KeyError):
        job_of(nested)
