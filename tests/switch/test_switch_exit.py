"""A host program that ends while its in-process server still runs, with a client on it
(a test that fails before its teardown, a script that returns early), exits quietly: the
packet-in and digest pollers stop when the interpreter shuts their threads down, instead
of logging a traceback at every poll until the process is gone."""

import subprocess
import sys
import textwrap
from pathlib import Path

from programs import CompiledProgram

SCRIPT = textwrap.dedent(
    """
    import sys
    import time
    from pathlib import Path

    sys.path.insert(0, {helpers!r})
    from switch_helpers import Program, primary_with

    from p4aqm.switch._dataplane import Dataplane
    from p4aqm.switch.runtime.server import P4RuntimeService, ServerThread

    dataplane = Dataplane(cpu_port=255, seed=1)
    dataplane.start()
    server = ServerThread(P4RuntimeService(dataplane, device_id=0))
    clients = primary_with(server.start(), Program.load(Path({p4info!r}), Path({json!r})))
    next(clients)
    time.sleep(0.3)  # the pollers are running
    clients.close()  # the client is done; the server is left running
    print("leaving")
    """
)
# The traceback came in about half of the exits before the fix; a few runs catch it.
RUNS = 4


def test_an_exit_under_a_running_server_logs_no_poll_failure(
    externs_program: CompiledProgram,
) -> None:
    script = SCRIPT.format(
        helpers=str(Path(__file__).resolve().parent),
        p4info=str(externs_program.p4info_path),
        json=str(externs_program.json_path),
    )
    for _ in range(RUNS):
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False
        )
        assert done.stdout.strip() == "leaving", done.stderr
        assert "poll failed" not in done.stderr, done.stderr
        assert "Traceback" not in done.stderr, done.stderr
