"""A point starts its bulk flows' ends before it sets the epoch and waits for each to say
"ready": an end that exits first, or is not ready in time, is an error naming it."""

import subprocess
import sys

import pytest

from p4aqm.experiments.point import _await_ready, _tell_epoch


def end(code: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def test_ends_that_say_ready_pass() -> None:
    ends = {f"bulk{i}-listen": end("print('ready', flush=True)") for i in range(2)}
    _await_ready(ends, timeout_s=30)


def test_an_end_that_exits_first_is_named_with_what_it_said() -> None:
    ends = {
        "bulk0-listen": end("print('ready', flush=True)"),
        "bulk0-connect": end("import sys; sys.exit('error: --address: cannot bind')"),
    }
    with pytest.raises(
        RuntimeError, match=r"^bulk0-connect: exit 1 before it was ready: error: --address"
    ):
        _await_ready(ends, timeout_s=30)


def test_an_end_not_ready_in_time_is_named() -> None:
    slow = end("import time; time.sleep(30)")
    try:
        with pytest.raises(RuntimeError, match=r"^bulk0-connect: not ready after 1 s$"):
            _await_ready({"bulk0-connect": slow}, timeout_s=1)
    finally:
        slow.kill()
        slow.wait()


def test_an_end_that_ends_after_it_was_ready_is_named_when_given_the_epoch() -> None:
    gone = subprocess.Popen(
        [sys.executable, "-c", "import sys; print('ready', flush=True); sys.exit('error: gone')"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    _await_ready({"bulk0-listen": gone}, timeout_s=30)
    gone.wait()
    with pytest.raises(
        RuntimeError, match=r"^bulk0-listen: exit 1 after it was ready: error: gone"
    ):
        _tell_epoch({"bulk0-listen": gone}, 1)
