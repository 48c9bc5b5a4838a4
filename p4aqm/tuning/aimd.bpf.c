// SPDX-License-Identifier: GPL-2.0
/*
 * Reno with WAD's additive increase and multiplicative decrease (the seed's wadai and
 * wadmd), as a TCP congestion control registered through BPF struct_ops
 * (p4aqm/tuning/aimd.py builds, registers and unregisters it):
 *
 *   slow start as Reno (tcp_slow_start: one segment per segment acked);
 *   congestion avoidance: WAD_AI segments per round trip instead of one, by counting
 *     cwnd / WAD_AI segments acked per increment (tcp_cong_avoid_ai), WAD's "virtual MSS";
 *   at a congestion event: ssthresh = cwnd - cwnd * WAD_MD_PERMILLE / 1000 (Reno: 500),
 *     at least 2 segments;
 *   undo after a spurious recovery: Reno's (tcp_reno_undo_cwnd).
 *
 * As Reno, the window grows only while it limits the sender (cwnd_limited below).
 * WAD_AI, WAD_MD_PERMILLE and WAD_NAME (the congestion control's name, also the struct_ops
 * map's) are given with -D when it is built; one build per rule that asks for it.
 */
/* This kernel's types (bpftool btf dump) come first, given by aimd.py with -include. */
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#if !defined(WAD_AI) || !defined(WAD_MD_PERMILLE) || !defined(WAD_NAME)
#error "build with -DWAD_AI=segments -DWAD_MD_PERMILLE=n -DWAD_NAME=name"
#endif
#define STR2(x) #x
#define STR(x) STR2(x)

extern __u32 tcp_slow_start(struct tcp_sock *tp, __u32 acked) __ksym;
extern void tcp_cong_avoid_ai(struct tcp_sock *tp, __u32 w, __u32 acked) __ksym;
extern __u32 tcp_reno_undo_cwnd(struct sock *sk) __ksym;

char _license[] SEC("license") = "GPL";

static __always_inline struct tcp_sock *tcp_of(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

/* tcp_is_cwnd_limited (include/net/tcp.h): as the stack last found it, or in slow start
 * while cwnd is under twice what is in flight. is_cwnd_limited is a bitfield, which only
 * the CO-RE macro reads. */
static __always_inline bool cwnd_limited(const struct tcp_sock *tp)
{
	if (BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited))
		return true;
	return tp->snd_cwnd < tp->snd_ssthresh && tp->snd_cwnd < 2 * tp->max_packets_out;
}

SEC("struct_ops")
void BPF_PROG(wad_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_of(sk);
	__u32 per_increment;

	if (!cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		acked = tcp_slow_start(tp, acked);
		if (!acked)
			return;
	}
	per_increment = tp->snd_cwnd / WAD_AI;
	tcp_cong_avoid_ai(tp, per_increment ? per_increment : 1, acked);
}

SEC("struct_ops")
__u32 BPF_PROG(wad_ssthresh, struct sock *sk)
{
	__u32 cwnd = tcp_of(sk)->snd_cwnd;
	__u32 kept = cwnd - (__u32)(((__u64)cwnd * WAD_MD_PERMILLE) / 1000);

	return kept > 2 ? kept : 2;
}

SEC("struct_ops")
__u32 BPF_PROG(wad_undo_cwnd, struct sock *sk)
{
	return tcp_reno_undo_cwnd(sk);
}

SEC(".struct_ops")
struct tcp_congestion_ops WAD_NAME = {
	.ssthresh = (void *)wad_ssthresh,
	.cong_avoid = (void *)wad_cong_avoid,
	.undo_cwnd = (void *)wad_undo_cwnd,
	.name = STR(WAD_NAME),
};
