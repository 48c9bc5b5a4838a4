// SPDX-License-Identifier: GPL-2.0
/*
 * The tuning daemon's sock_ops program (p4aqm/tuning/): the kernel calls it at the points
 * of a TCP connection's life below, for each connection of a process in the cgroup it is
 * attached to. The first rule whose match holds sets that rule's options with
 * bpf_setsockopt, as WAD set them through Web100:
 *
 *   TCP_CONNECT_CB (active open, before the SYN): buffers and congestion control, so the
 *     window scale offered in the SYN fits the receive buffer;
 *   ACTIVE_ESTABLISHED_CB: initial window, cwnd clamp, delayed-ACK ceiling, minimum RTO
 *     (the initial window only counts before any data is sent);
 *   PASSIVE_ESTABLISHED_CB (a connection accepted): all of them but ECN;
 *   NEEDS_ECN (active open): reply 1 to ask for ECN in the SYN.
 *
 * rules[0..rule_count) are written by bpf.py from the rule file before the program is
 * attached. Addresses are in network order, already masked; ports in host order, 0 for
 * any. applied[i] counts the connections rule i tuned, failed[i] the options the kernel
 * refused for them. Only uapi headers are used: no kernel headers or BTF are needed.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>

#define MAX_RULES 64
#define CC_NAME_BYTES 16

#define SOL_SOCKET 1
#define SO_SNDBUF 7
#define SO_RCVBUF 8
#define SOL_TCP 6
#define TCP_CONGESTION 13
#define TCP_BPF_IW 1001
#define TCP_BPF_SNDCWND_CLAMP 1002
#define TCP_BPF_DELACK_MAX 1003
#define TCP_BPF_RTO_MIN 1004

/* Which of a rule's options are set (rule.set). */
#define SET_SNDBUF (1u << 0)
#define SET_RCVBUF (1u << 1)
#define SET_CC (1u << 2)
#define SET_IW (1u << 3)
#define SET_CLAMP (1u << 4)
#define SET_DELACK_MAX (1u << 5)
#define SET_RTO_MIN (1u << 6)
#define SET_ECN (1u << 7)

struct rule {
	__u32 local_addr;
	__u32 local_mask;
	__u32 remote_addr;
	__u32 remote_mask;
	__u32 local_port;
	__u32 remote_port;
	__u32 set;
	__u32 sndbuf_bytes;
	__u32 rcvbuf_bytes;
	__u32 initcwnd_pkts;
	__u32 cwnd_clamp_pkts;
	__u32 delack_max_us;
	__u32 rto_min_us;
	char congestion_control[CC_NAME_BYTES];
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_RULES);
	__type(key, __u32);
	__type(value, struct rule);
} rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} rule_count SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_RULES);
	__type(key, __u32);
	__type(value, __u64);
} applied SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, MAX_RULES);
	__type(key, __u32);
	__type(value, __u64);
} failed SEC(".maps");

static __always_inline int matches(const struct rule *r, struct bpf_sock_ops *skops)
{
	__u32 remote_port = bpf_ntohl(skops->remote_port);

	return (skops->local_ip4 & r->local_mask) == r->local_addr &&
	       (skops->remote_ip4 & r->remote_mask) == r->remote_addr &&
	       (r->local_port == 0 || r->local_port == skops->local_port) &&
	       (r->remote_port == 0 || r->remote_port == remote_port);
}

static __always_inline int set_int(struct bpf_sock_ops *skops, int level, int name, __u32 value)
{
	int v = value;

	return bpf_setsockopt(skops, level, name, &v, sizeof(v)) != 0;
}

/* The options of rule r due at this callback; how many the kernel refused. */
static __always_inline int apply(const struct rule *r, struct bpf_sock_ops *skops, int op)
{
	int refused = 0;
	int opening = op == BPF_SOCK_OPS_TCP_CONNECT_CB || op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB;
	int established = op == BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB ||
			  op == BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB;

	if (opening) {
		if (r->set & SET_SNDBUF)
			refused += set_int(skops, SOL_SOCKET, SO_SNDBUF, r->sndbuf_bytes);
		if (r->set & SET_RCVBUF)
			refused += set_int(skops, SOL_SOCKET, SO_RCVBUF, r->rcvbuf_bytes);
		if (r->set & SET_CC) {
			char name[CC_NAME_BYTES];

			__builtin_memcpy(name, r->congestion_control, CC_NAME_BYTES);
			refused += bpf_setsockopt(skops, SOL_TCP, TCP_CONGESTION, name, CC_NAME_BYTES) != 0;
		}
	}
	if (established) {
		if (r->set & SET_IW)
			refused += set_int(skops, SOL_TCP, TCP_BPF_IW, r->initcwnd_pkts);
		if (r->set & SET_CLAMP)
			refused += set_int(skops, SOL_TCP, TCP_BPF_SNDCWND_CLAMP, r->cwnd_clamp_pkts);
		if (r->set & SET_DELACK_MAX)
			refused += set_int(skops, SOL_TCP, TCP_BPF_DELACK_MAX, r->delack_max_us);
		if (r->set & SET_RTO_MIN)
			refused += set_int(skops, SOL_TCP, TCP_BPF_RTO_MIN, r->rto_min_us);
	}
	return refused;
}

static __always_inline void count(void *map, __u32 index, __u64 by)
{
	__u64 *counter = bpf_map_lookup_elem(map, &index);

	if (counter && by)
		__sync_fetch_and_add(counter, by);
}

SEC("sockops")
int wad(struct bpf_sock_ops *skops)
{
	int op = skops->op;
	__u32 zero = 0;
	__u32 *how_many;
	__u32 i;

	if (op != BPF_SOCK_OPS_TCP_CONNECT_CB && op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB &&
	    op != BPF_SOCK_OPS_PASSIVE_ESTABLISHED_CB && op != BPF_SOCK_OPS_NEEDS_ECN)
		return 1;
	if (skops->family != 2 /* AF_INET */)
		return 1;
	how_many = bpf_map_lookup_elem(&rule_count, &zero);
	if (!how_many)
		return 1;
	for (i = 0; i < MAX_RULES; i++) {
		struct rule *r;

		if (i >= *how_many)
			break;
		r = bpf_map_lookup_elem(&rules, &i);
		if (!r || !matches(r, skops))
			continue;
		if (op == BPF_SOCK_OPS_NEEDS_ECN) {
			if (r->set & SET_ECN)
				skops->reply = 1;
			break;
		}
		/* A connection counts once: when it opens (connect or accept). */
		if (op != BPF_SOCK_OPS_ACTIVE_ESTABLISHED_CB)
			count(&applied, i, 1);
		count(&failed, i, apply(r, skops, op));
		break;
	}
	return 1;
}

char LICENSE[] SEC("license") = "GPL";
