"""A switch process that exits before it listens is started once more, and only once:
CI once saw `p4aqm switch` abort at start on a transient pthread_create EAGAIN."""

import os
import sys
from pathlib import Path

import pytest

if os.geteuid() != 0:
    pytest.skip("Mininet nodes need root", allow_module_level=True)
try:
    import mininet.net  # noqa: F401
except ImportError as exc:
    pytest.skip(
        f"Mininet cannot be imported ({exc}): run scripts/setup.sh", allow_module_level=True
    )

from p4aqm.topology.p4switch import START_ATTEMPTS, P4AqmSwitch  # noqa: E402

# Exits with an abort message while `failures` is above 0 (counted down in a file),
# then becomes the real switch.
FLAKY = """
import os, sys
counter, real = sys.argv[1], sys.argv[2:]
left = int(open(counter).read())
if left > 0:
    open(counter, "w").write(str(left - 1))
    print("thd.cc:157] pthread_create failed: Resource temporarily unavailable", flush=True)
    os._exit(134)
os.execv(real[0], real)
"""


class FlakySwitch(P4AqmSwitch):
    def __init__(self, name: str, script: Path, counter: Path) -> None:
        super().__init__(name, startup_timeout_s=30.0)
        self.script = script
        self.counter = counter
        self.launches = 0

    def switch_args(self) -> list[str]:
        return [sys.executable, str(self.script), str(self.counter), *super().switch_args()]

    def _launch(self) -> bool:
        self.launches += 1
        return super()._launch()


def _switch(tmp_path: Path, failures: int) -> FlakySwitch:
    script = tmp_path / "flaky.py"
    script.write_text(FLAKY)
    counter = tmp_path / "failures"
    counter.write_text(str(failures))
    return FlakySwitch(f"p4fs{failures}", script, counter)


def test_a_switch_that_exits_while_starting_is_started_again(tmp_path: Path) -> None:
    switch = _switch(tmp_path, failures=1)
    try:
        switch.start([])
        assert switch.launches == 2
        assert switch.grpc_addr is not None
        output = "".join(switch.output)
        assert "pthread_create failed" in output and "exited while starting" in output
    finally:
        switch.stop()


def test_a_switch_that_keeps_exiting_fails_with_every_output(tmp_path: Path) -> None:
    switch = _switch(tmp_path, failures=START_ATTEMPTS)
    with pytest.raises(RuntimeError) as error:
        switch.start([])
    switch.stop()
    assert switch.launches == START_ATTEMPTS
    message = str(error.value)
    assert "did not start" in message
    assert message.count("pthread_create failed") == START_ATTEMPTS
