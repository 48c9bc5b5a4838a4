"""ADDR:PORT arguments, optionally labelled NAME=ADDR:PORT, resolved once at start.

Resolving up front turns a mistyped host into an error that names the flag, instead of
thousands of failed requests later. Generators use IPv4, as the lab's topologies do.
"""

import socket
from dataclasses import dataclass


@dataclass(frozen=True)
class Endpoint:
    name: str
    """The label recorded with each request: NAME if given, else the host as written."""
    address: str
    port: int

    def __str__(self) -> str:
        return f"{self.address}:{self.port}"


def parse_endpoint(text: str, flag: str, listen: bool = False) -> Endpoint:
    """NAME=HOST:PORT or HOST:PORT; port 0 only for listening (the kernel picks)."""
    name, _, hostport = text.rpartition("=")
    host, sep, port_text = hostport.rpartition(":")
    if not sep or not host:
        raise ValueError(f"{flag}: {text!r} is not HOST:PORT")
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"{flag}: port {port_text!r} in {text!r} is not a number") from None
    if not (0 if listen else 1) <= port <= 65535:
        raise ValueError(f"{flag}: port {port} in {text!r} is out of range")
    try:
        infos = socket.getaddrinfo(host, port, socket.AF_INET, socket.SOCK_STREAM)
    except socket.gaierror:
        raise ValueError(f"{flag}: unknown host name {host!r} in {text!r}") from None
    return Endpoint(name or host, infos[0][4][0], port)


def parse_endpoints(text: str, flag: str) -> list[Endpoint]:
    """A comma-separated list of endpoints, at least one."""
    items = [item.strip() for item in text.split(",") if item.strip()]
    if not items:
        raise ValueError(f"{flag}: no HOST:PORT given")
    return [parse_endpoint(item, flag) for item in items]
