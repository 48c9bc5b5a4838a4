"""The fields we record from Linux's struct tcp_info (getsockopt(IPPROTO_TCP, TCP_INFO)).

Layout from linux/tcp.h (checked against /usr/include/linux/tcp.h, kernel 6.x): eight
__u8 (state .. the wscale and app-limited bit fields), then __u32 fields from offset 8:
rto, ato, snd_mss, rcv_mss, unacked, sacked, lost, retrans, fackets, last_data_sent,
last_ack_sent, last_data_recv, last_ack_recv, pmtu (offset 60), rcv_ssthresh, rtt
(offset 68, smoothed RTT in us), rttvar, snd_ssthresh, snd_cwnd, advmss, reordering,
rcv_rtt, rcv_space, total_retrans (offset 100). The struct only grows at its end, so the
offsets do not move between kernels. state and pmtu are not recorded; they have values
known from elsewhere, which is how the tests check the offsets.
"""

import socket
import struct
from dataclasses import dataclass

_FIELDS = struct.Struct("=8B24I")  # the first 104 bytes, up to tcpi_total_retrans
# Indexes into the unpacked tuple: 8 bytes, then the n-th __u32 at offset 8 + 4n.
_STATE = 0
_PMTU = 8 + 13
_RTT = 8 + 15
_TOTAL_RETRANS = 8 + 23


@dataclass(frozen=True)
class TcpInfo:
    state: int
    pmtu: int
    rtt_us: int
    total_retrans: int


def tcp_info(sock: socket.socket) -> TcpInfo:
    fields = _FIELDS.unpack(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _FIELDS.size))
    return TcpInfo(
        state=fields[_STATE],
        pmtu=fields[_PMTU],
        rtt_us=fields[_RTT],
        total_retrans=fields[_TOTAL_RETRANS],
    )
