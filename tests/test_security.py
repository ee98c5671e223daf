"""Hostile inputs and unlucky moments: no command touches a file outside what it was given,
reads a file a scenario has no business naming, or leaves a half-written output folder."""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from acp_suggestions.model.cli.main import main
from acp_suggestions.model.render.atomic import (
    MANIFEST,
    STAGING,
    FolderError,
    OutputFolder,
    write_atomic,
)
from tests.helpers import CLI

DIAGRAMS = ["diagrams", "--sources-only", "--out"]


def _files(folder: Path) -> dict[str, bytes]:
    """Every file below `folder` (links not followed) with its bytes."""
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file() and not p.is_symlink()
    }


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file that is not the tool's: whatever happens, it must stay as it is."""
    victim = tmp_path / "victim" / "precious.txt"
    victim.parent.mkdir()
    victim.write_text("keep me")
    return victim


@pytest.fixture
def written(tmp_path: Path) -> Path:
    """An output folder as the tool's last run left it."""
    out = tmp_path / "out"
    assert main([*DIAGRAMS, str(out)]) == 0
    return out


def _kept(victim: Path) -> None:
    assert victim.read_text() == "keep me"
    assert [p.name for p in victim.parent.iterdir()] == ["precious.txt"]


# A manifest line the tool must never act on, and how it is written given the victim.
HOSTILE_LINES: dict[str, Callable[[Path, Path], str]] = {
    "parent": lambda out, victim: os.path.relpath(victim, out),
    "absolute": lambda out, victim: str(victim),
    "dot-dot inside": lambda out, victim: "x/../" + os.path.relpath(victim, out),
    "through a link": lambda out, victim: "link/precious.txt",
}


@pytest.mark.parametrize("case", list(HOSTILE_LINES))
def test_a_hostile_manifest_line_deletes_nothing(
    case: str, written: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (written / "link").symlink_to(outside.parent)
    line = HOSTILE_LINES[case](written, outside)
    with (written / MANIFEST).open("a") as f:
        f.write(line + "\n")
    capsys.readouterr()
    assert main([*DIAGRAMS, str(written)]) == 0
    _kept(outside)
    if case != "through a link":
        assert "is not a plain name inside the folder; ignored" in capsys.readouterr().err


def test_a_manifest_that_is_a_link_is_not_read(written: Path, outside: Path) -> None:
    outside.write_text("keep me")
    (written / MANIFEST).unlink()
    (written / MANIFEST).symlink_to(outside)
    assert main([*DIAGRAMS, str(written)]) == 2  # no manifest of its own: not the tool's
    assert main([*DIAGRAMS, str(written), "--force"]) == 0
    _kept(outside)
    assert not (written / MANIFEST).is_symlink()


def test_an_output_file_that_is_a_link_is_not_written_through(
    written: Path, outside: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = _files(written)
    (written / "README.md").unlink()
    (written / "README.md").symlink_to(outside)
    capsys.readouterr()
    assert main([*DIAGRAMS, str(written)]) == 2
    assert "README.md: is a link, not a file; nothing was written" in capsys.readouterr().err
    _kept(outside)
    assert _files(written) == {k: v for k, v in before.items() if k != "README.md"}


def test_a_linked_subfolder_is_not_written_through(tmp_path: Path, outside: Path) -> None:
    """A review writes itf/ and msc/; a link there to elsewhere is refused, not followed."""
    out = tmp_path / "o"
    with OutputFolder(out, print) as first:
        write_atomic(first.staging / "itf" / "a.json", "1")
        first.commit([first.staging / "itf" / "a.json"])
    (out / "itf" / "a.json").unlink()
    (out / "itf").rmdir()
    (out / "itf").symlink_to(outside.parent)
    with OutputFolder(out, print) as second, pytest.raises(FolderError, match="link"):
        write_atomic(second.staging / "itf" / "a.json", "2")
        second.commit([second.staging / "itf" / "a.json"])
    _kept(outside)


def test_no_predictable_temporary_name_is_used(written: Path, outside: Path) -> None:
    """Graphviz's output used to go through OUT/.NAME.FMT.tmp: a link planted there was
    written through."""
    pytest.importorskip("graphviz")
    if not any(Path(d, "dot").exists() for d in os.environ["PATH"].split(":")):
        pytest.skip("Graphviz's dot is not installed")
    (written / ".session-v1.svg.tmp").symlink_to(outside)
    assert main(["diagrams", "--out", str(written)]) == 0
    _kept(outside)


def test_files_the_tool_did_not_write_are_never_replaced(
    tmp_path: Path, written: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "README.md").write_text("the user's")
    assert main([*DIAGRAMS, str(mine)]) == 2
    assert "holds files this tool did not write (README.md)" in capsys.readouterr().err
    assert _files(mine) == {"README.md": b"the user's"}
    # In a folder of the tool's, a file it never wrote is in the way of one it writes.
    (written / "README.md").write_text("the user's")
    lines = (written / MANIFEST).read_text().splitlines()
    (written / MANIFEST).write_text("".join(f"{n}\n" for n in lines if n != "README.md"))
    assert main([*DIAGRAMS, str(written)]) == 2
    assert "README.md: a file this tool did not write is in the way" in capsys.readouterr().err
    assert (written / "README.md").read_text() == "the user's"
    assert main([*DIAGRAMS, str(written), "--force"]) == 0
    assert (written / "README.md").read_text() != "the user's"


@pytest.mark.parametrize("where", ["root", "home", "repository"])
def test_folders_that_are_never_an_output(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    folder = {"root": Path("/"), "home": tmp_path / "home", "repository": tmp_path / "repo"}
    assert main([*DIAGRAMS, str(folder[where]), "--force"]) == 2
    said = {"root": "file system's root", "home": "home folder", "repository": "git repository"}
    assert said[where] in capsys.readouterr().err
    assert _files(tmp_path) == {}
    assert sorted(p.name for p in (tmp_path / "repo").iterdir()) == [".git"]


def test_an_interrupted_run_leaves_the_previous_output(tmp_path: Path) -> None:
    out = tmp_path / "o"
    with OutputFolder(out, print) as first:
        for name in ("a", "b/c"):
            write_atomic(first.staging / name, "old")
        first.commit([first.staging / "a", first.staging / "b" / "c"])
    before = _files(out)
    with pytest.raises(KeyboardInterrupt), OutputFolder(out, print) as second:
        write_atomic(second.staging / "a", "new")
        raise KeyboardInterrupt
    assert _files(out) == before
    assert not [p for p in out.iterdir() if p.name.startswith(STAGING)]


def test_a_signal_while_the_outputs_move_waits_for_the_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """The move into place is done with the ending signals held: a Ctrl-C then lands after
    it, and the folder holds the whole new run."""
    out = tmp_path / "o"
    place = OutputFolder._place
    pressed: list[tuple[str, ...]] = []

    def press_then_place(self: OutputFolder, staged: int, parts: tuple[str, ...]) -> None:
        if not pressed:
            pressed.append(parts)
            os.kill(os.getpid(), signal.SIGINT)
        place(self, staged, parts)

    monkeypatch.setattr(OutputFolder, "_place", press_then_place)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C as in a run
    request.addfinalizer(lambda: signal.signal(signal.SIGINT, previous))
    names = [f"f{i}" for i in range(20)]
    with pytest.raises(KeyboardInterrupt), OutputFolder(out, print) as run:
        for name in names:
            write_atomic(run.staging / name, name)
        run.commit([run.staging / n for n in names])
    assert pressed
    assert _files(out) == {MANIFEST: "".join(f"{n}\n" for n in sorted(names)).encode()} | {
        n: n.encode() for n in names
    }


def test_what_a_killed_run_left_is_cleared(written: Path) -> None:
    before = _files(written)
    left = written / f"{STAGING}killed"
    left.mkdir()
    (left / "half.svg").write_text("<svg")
    assert main([*DIAGRAMS, str(written)]) == 0
    assert not left.exists()
    assert _files(written) == before


def test_write_atomic_interrupted_after_the_rename_keeps_the_interrupt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Ctrl-C landing just after the rename used to become FileNotFoundError (exit 2)."""
    real = os.replace

    def replace_then_press(src: str, dst: str) -> None:
        real(src, dst)
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", replace_then_press)
    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "f", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["f"]


# --- scenario files name only files of their own folder, of sane size and values -------------

_EIGHT = (
    "accept",
    "dismiss",
    "no_prediction",
    "reopen",
    "flicker_window",
    "think",
    "typing",
    "turn",
)
SCENARIOS: dict[str, tuple[str, str]] = {
    "a file elsewhere": ('latency = {dist = "empirical", file = "/etc/shadow"}', "not a file in"),
    "a parent's file": ('latency = {dist = "empirical", file = "../x.csv"}', "not a file in"),
    "a link out": ('latency = {dist = "empirical", file = "zero"}', "not a file in"),
    "a pipe": ('latency = {dist = "empirical", file = "pipe"}', "not a regular file"),
    "a folder": ('latency = {dist = "empirical", file = "sub"}', "(a folder)"),
    "not UTF-8": ('latency = {dist = "empirical", file = "latin1.csv"}', "not UTF-8 text"),
    "deep nesting": ("name = " + "[" * 5000 + "]" * 5000, "nested too deeply"),
    "a wide spread": ('latency = {dist = "lognormal", median = 1, sigma = 1000}', "from 0 to 3"),
    "a huge time": ("turn = 1e308", "from 0 to 1e+06"),
    "a huge grid": (
        "[sweep]\n" + "\n".join(f"{k} = [{', '.join(['0.1'] * 10)}]" for k in _EIGHT),
        "100,000,000 points",
    ),
}


@pytest.mark.parametrize("case", list(SCENARIOS))
def test_a_hostile_scenario_is_refused_by_name(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "x.csv").write_text("1\n")
    folder = tmp_path / "s"
    folder.mkdir()
    (folder / "zero").symlink_to("/dev/zero")
    os.mkfifo(folder / "pipe")
    (folder / "sub").mkdir()
    (folder / "latin1.csv").write_bytes("0.5 # caf\xe9\n".encode("latin-1"))
    text, says = SCENARIOS[case]
    (folder / "s.toml").write_text(text + "\n")
    code = main(["simulate", str(folder / "s.toml"), "--out", str(tmp_path / "o"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and says in err, err
    assert "Traceback" not in err and "root:" not in err  # nothing of /etc/shadow shown
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").iterdir())


@pytest.mark.parametrize("special", ["/dev/zero", "pipe"])
def test_a_scenario_that_is_not_a_file_is_refused(
    special: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if special == "pipe":
        os.mkfifo(tmp_path / "pipe")
        special = str(tmp_path / "pipe")
    assert main(["simulate", special, "--out", str(tmp_path / "o")]) == 2
    assert "not a regular file" in capsys.readouterr().err


# --- messages print what they are given, never read it as markup ------------------------------


def test_markup_in_a_file_name_is_printed_as_it_is(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = str(tmp_path / "[red]x[/] [/bold].jsonl")
    assert main(["trace", "check", name]) == 2
    err = capsys.readouterr().err
    assert f"{name}: no such file" in err


def test_one_unreadable_trace_does_not_stop_the_others(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text("")
    blocked = tmp_path / "file" / "t.jsonl"  # a path through a file: NotADirectoryError
    (tmp_path / "file").write_text("")
    assert main(["trace", "check", str(blocked), str(good), "--format", "json"]) == 2
    out = capsys.readouterr().out
    assert '"cannot read it (Not a directory)"' in out and str(good) in out


def test_junit_holds_control_characters_as_codes(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    from acp_suggestions.model.junit import dumps

    root = ET.Element("testsuites", name="a\x07b")
    ET.SubElement(root, "testcase", name="\x00").text = "bell \x07, escape \x1b"
    text = dumps(root)
    parsed = ET.fromstring(text.encode())
    assert parsed.get("name") == "a\\x07b"
    assert parsed[0].text is not None and "\\x1b" in parsed[0].text


def test_a_long_line_is_refused_before_it_is_read_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from acp_suggestions.model.wire import decode, tracecheck

    monkeypatch.setattr(decode, "MAX_LINE", 100)
    lines = decode.bounded_lines(io.BytesIO(b"x" * 10_000 + b"\n"))
    assert len(next(lines)) == 101
    with pytest.raises(decode.TraceError, match="line longer than 100 bytes"):
        tracecheck.check_lines(decode.bounded_lines(io.BytesIO(b"x" * 10_000 + b"\n")))


def test_a_closed_pipe_ends_quietly() -> None:
    """`acp-suggestions rules | head -1`: no 'Broken pipe' error, the code of SIGPIPE."""
    argv = [*CLI, "rules", "--format", "json"]
    run = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert run.stdout is not None and run.stderr is not None
    run.stdout.close()  # the reader leaves before the command has written anything
    stderr = run.stderr.read()
    assert run.wait(timeout=60) == 141
    assert stderr == b""


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 600 KiB file system of its own (root only): room for the diagrams' sources, not for
    their pictures."""
    disk = tmp_path / "disk"
    disk.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=600k", "tmpfs", str(disk)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        yield disk
    finally:
        subprocess.run(["umount", str(disk)], check=True)


def test_a_full_disk_leaves_the_previous_output(
    small_disk: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    if not any(Path(d, "dot").exists() for d in os.environ["PATH"].split(":")):
        pytest.skip("Graphviz's dot is not installed")
    out = small_disk / "d"
    assert main([*DIAGRAMS, str(out)]) == 0
    before = _files(out)
    capsys.readouterr()
    assert main(["diagrams", "--out", str(out)]) == 2
    assert "No space left on device" in capsys.readouterr().err
    assert _files(out) == before
    assert [p.name for p in out.iterdir() if p.name.startswith(".")] == [MANIFEST]
