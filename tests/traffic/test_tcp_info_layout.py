"""The struct tcp_info offsets, checked against what the kernel knows of a loopback socket."""

import socket

from p4aqm.traffic.tcp_info import tcp_info

TCP_ESTABLISHED = 1
IP_MTU = 14  # linux/in.h; the path MTU the kernel keeps for a connected socket


def test_offsets_read_known_values() -> None:
    with socket.create_server(("127.0.0.1", 0)) as server:
        client = socket.create_connection(server.getsockname())
        accepted, _ = server.accept()
        with client, accepted:
            for _ in range(3):
                client.sendall(b"x" * 1000)
                accepted.recv(4096)
                accepted.sendall(b"y")
                client.recv(1)
            info = tcp_info(client)
            path_mtu = client.getsockopt(socket.IPPROTO_IP, IP_MTU)
    assert info.state == TCP_ESTABLISHED
    # tcpi_pmtu (offset 60) against the same value read another way: 65535 on loopback,
    # which none of the neighbouring fields holds.
    assert info.pmtu == path_mtu == 65535
    assert 0 < info.rtt_us < 1_000_000
    assert info.total_retrans == 0
