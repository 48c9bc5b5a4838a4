"""Run inside a TestNetwork namespace by test_idle_timeouts.py's veth test: a P4Runtime
client of the switch at 127.0.0.1:9559 that pushes idle_timeout.p4, writes an entry
with a 300 ms idle timeout, hits it with frames sent on veth h1, and prints as JSON the
seconds from the write to each notification and the entry's time since its last hit.

    python idle_timeout_veth_client.py PROG.p4info.txtpb PROG.json
"""

import json
import queue
import socket
import sys
import time
from pathlib import Path

from finsy.proto import p4r
from switch_helpers import Client, Program, insert

TIMEOUT_NS = 300_000_000
MAC = bytes([0, 0, 0, 0, 0, 0x0A])


def main() -> None:
    program = Program.load(Path(sys.argv[1]), Path(sys.argv[2]))
    client = Client(9559, election_id=10)
    client.become_primary()
    client.set_pipeline(program.config())
    entry = p4r.TableEntry(
        table_id=program.table_id("IngressImpl.forward"),
        match=[p4r.FieldMatch(field_id=1, exact=p4r.FieldMatch.Exact(value=MAC))],
        idle_timeout_ns=TIMEOUT_NS,
    )
    entry.action.action.action_id = program.action_id("IngressImpl.to_port")
    entry.action.action.params.add(param_id=1, value=b"\x02")
    sender = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    sender.bind(("h1", 0))
    frame = MAC + bytes([0, 0, 0, 0, 0, 1]) + b"\x08\x00" + bytes(50)

    start = time.monotonic()
    client.write(insert(entry))
    result: dict[str, list[float] | int] = {"notified_s": [], "hit_elapsed_ns": -1}
    # Hit the entry every 100 ms for 1 s (no notification), then let it go idle.
    while time.monotonic() - start < 1.0:
        sender.send(frame)
        time.sleep(0.1)
    query = p4r.TableEntry()
    query.CopyFrom(entry)
    query.idle_timeout_ns = 0
    query.time_since_last_hit.elapsed_ns = 0
    [read] = client.read(p4r.Entity(table_entry=query))
    result["hit_elapsed_ns"] = read.table_entry.time_since_last_hit.elapsed_ns
    stream = client.streams[0]
    while time.monotonic() - start < 2.5:
        try:
            message = stream.next(timeout=0.05)
        except queue.Empty:
            continue
        if isinstance(message, p4r.StreamMessageResponse) and message.HasField(
            "idle_timeout_notification"
        ):
            result["notified_s"].append(round(time.monotonic() - start, 3))
    client.close()
    print(json.dumps(result))


if __name__ == "__main__":
    main()
