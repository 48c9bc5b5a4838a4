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
_SND_MSS = 8 + 2
_PMTU = 8 + 13
_RTT = 8 + 15
_SND_CWND = 8 + 18
_TOTAL_RETRANS = 8 + 23


@dataclass(frozen=True)
class TcpInfo:
    state: int
    pmtu: int
    rtt_us: int
    total_retrans: int
    snd_mss: int  # bytes
    snd_cwnd: int  # segments


def tcp_info(sock: socket.socket) -> TcpInfo:
    fields = _FIELDS.unpack(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _FIELDS.size))
    return TcpInfo(
        state=fields[_STATE],
        pmtu=fields[_PMTU],
        rtt_us=fields[_RTT],
        total_retrans=fields[_TOTAL_RETRANS],
        snd_mss=fields[_SND_MSS],
        snd_cwnd=fields[_SND_CWND],
    )


# The whole struct up to tcpi_snd_wnd (offset 228; Linux 6.2 and later), for the tracer
# (p4aqm/traffic/tcp_trace.py): after total_retrans come pacing_rate, max_pacing_rate,
# bytes_acked, bytes_received (__u64), segs_out, segs_in, notsent_bytes, min_rtt,
# data_segs_in, data_segs_out (__u32), delivery_rate, busy_time, rwnd_limited,
# sndbuf_limited (__u64), delivered, delivered_ce (__u32), bytes_sent, bytes_retrans
# (__u64), dsack_dups, reord_seen, rcv_ooopack, snd_wnd (__u32).
FULL = struct.Struct("=8B24I4Q6I4Q2I2Q4I")
FULL_NAMES = (
    "state", "ca_state", "retransmits", "probes", "backoff", "options", "wscale",
    "app_limited", "rto", "ato", "snd_mss", "rcv_mss", "unacked", "sacked", "lost",
    "retrans", "fackets", "last_data_sent", "last_ack_sent", "last_data_recv",
    "last_ack_recv", "pmtu", "rcv_ssthresh", "rtt", "rttvar", "snd_ssthresh", "snd_cwnd",
    "advmss", "reordering", "rcv_rtt", "rcv_space", "total_retrans", "pacing_rate",
    "max_pacing_rate", "bytes_acked", "bytes_received", "segs_out", "segs_in",
    "notsent_bytes", "min_rtt", "data_segs_in", "data_segs_out", "delivery_rate",
    "busy_time", "rwnd_limited", "sndbuf_limited", "delivered", "delivered_ce",
    "bytes_sent", "bytes_retrans", "dsack_dups", "reord_seen", "rcv_ooopack", "snd_wnd",
)  # fmt: skip
INDEX = {name: i for i, name in enumerate(FULL_NAMES)}
