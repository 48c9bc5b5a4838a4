"""Small TCP programs run inside the dumbbell's hosts by the topology tests."""

import sys

# Listens on PORT; each connection reads a 4-byte big-endian size and replies with that
# many bytes, then closes (one request/response per connection, as in HTTP/1.0).
RESPONDER = """
import socket, sys
srv = socket.create_server(("0.0.0.0", int(sys.argv[1])))
print("ready", flush=True)
while True:
    conn, _ = srv.accept()
    size = int.from_bytes(conn.recv(4), "big")
    conn.sendall(b"x" * size)
    conn.close()
"""

# Connects to ADDR PORT, asks for SIZE bytes and prints the seconds from the request to
# the last byte of the reply.
REQUESTER = """
import socket, sys, time
sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
size = int(sys.argv[3])
start = time.monotonic()
sock.sendall(size.to_bytes(4, "big"))
got = 0
while got < size:
    chunk = sock.recv(65536)
    if not chunk:
        break
    got += len(chunk)
print(got, time.monotonic() - start)
"""

# Accepts connections and holds them open, so that `ss -ti` can see them.
HOLDER = """
import socket, sys, time
srv = socket.create_server(("0.0.0.0", int(sys.argv[1])))
print("ready", flush=True)
held = []
while True:
    held.append(srv.accept()[0])
"""

# Opens a connection to ADDR PORT and holds it for 30 s.
OPENER = """
import socket, sys, time
sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
time.sleep(30)
"""


def python_command(program: str, *args: object) -> list[str]:
    return [sys.executable, "-c", program, *map(str, args)]
