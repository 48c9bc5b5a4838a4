"""The web generator's wire format: HTTP/1.0's shape without its text.

One TCP connection per object. The client sends exactly request_bytes: an 8-byte header
(request_bytes, then the reply_bytes it wants, both u32 in network order) and zeros up to
request_bytes. The server reads the whole request, sends exactly reply_bytes of zeros and
closes its side first, as an HTTP/1.0 server does, which also leaves TIME_WAIT on the
server rather than on the client that opens thousands of connections.

A request cannot be shorter than its header: Mah's requests of 0 bytes (0.15 % of them;
the next smallest is 10 bytes) are sent as 8 bytes, and records hold the bytes sent.
"""

import struct

HEADER = struct.Struct("!II")
MIN_REQUEST_BYTES = HEADER.size
# Mah's largest request is 1373 bytes; a server keeps a whole request in memory.
MAX_REQUEST_BYTES = 1 << 20
MAX_REPLY_BYTES = (1 << 32) - 1


class ProtocolError(ValueError):
    pass


def encode_request(request_bytes: int, reply_bytes: int) -> bytes:
    if not MIN_REQUEST_BYTES <= request_bytes <= MAX_REQUEST_BYTES:
        raise ProtocolError(
            f"request_bytes {request_bytes} outside [{MIN_REQUEST_BYTES}, {MAX_REQUEST_BYTES}]"
        )
    if not 0 <= reply_bytes <= MAX_REPLY_BYTES:
        raise ProtocolError(f"reply_bytes {reply_bytes} outside [0, {MAX_REPLY_BYTES}]")
    return HEADER.pack(request_bytes, reply_bytes) + bytes(request_bytes - HEADER.size)


def decode_header(header: bytes) -> tuple[int, int]:
    """(request_bytes, reply_bytes) from the first HEADER.size bytes of a request."""
    request_bytes, reply_bytes = HEADER.unpack(header)
    if not MIN_REQUEST_BYTES <= request_bytes <= MAX_REQUEST_BYTES:
        raise ProtocolError(f"request announces {request_bytes} bytes")
    return request_bytes, reply_bytes
