"""Reading a text file a user names (an RFD, a scenario, a review's JSON, a record of user
actions): a regular file of bounded size, decoded as UTF-8, so that a device, a pipe or a
huge file is refused with a reason instead of hanging the command or filling the memory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_BYTES = 16 << 20  # an RFD is tens of kilobytes, a review's JSON a few megabytes


class InputError(ValueError):
    """A file that cannot be read as a text input; the message says why without the path,
    which the caller names as the user gave it.  `missing` when there is no such file."""

    def __init__(self, message: str, missing: bool = False) -> None:
        super().__init__(message)
        self.missing = missing


def read_text(path: Path | str, limit: int = MAX_BYTES) -> str:
    """The UTF-8 text of the regular file at `path`, of at most `limit` bytes, or an
    InputError.  Opened without blocking, so a pipe with no writer is refused, not waited on."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputError("no such file", missing=True) from None
    except OSError as err:
        raise InputError(f"cannot be read ({err.strerror})") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "a device, a pipe or a socket"
        raise InputError(f"not a regular file ({kind})")
    with os.fdopen(fd, "rb") as f:
        data = f.read(limit + 1)
    if len(data) > limit:
        raise InputError(f"larger than {limit >> 20} MiB")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})") from None
