"""Per-connection TCP tuning after Net100's Work-Around Daemon (WAD, Dunigan, Mathis and
Tierney, SC2002): rules by local and remote address and port (rules.py) applied to each
matching connection as it opens, by an eBPF sock_ops program attached to the cgroup of
the tuned processes (sockops.bpf.c, loaded by bpf.py), so that applications are tuned
without being changed."""
