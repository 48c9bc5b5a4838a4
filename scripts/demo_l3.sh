#!/usr/bin/env bash
# The L3 demo: compile l3_forward.p4, start `p4aqm switch` on two veth pairs in a network
# namespace, install the pipeline and routes with `p4aqm controller`, then send packets
# with the PTF suite and report what came out. Cleans up even when a step fails.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$PWD/.venv/bin
ns=p4aqm-demo

cleanup() {
    [ -n "${switch_pid:-}" ] && kill "$switch_pid" 2>/dev/null && wait "$switch_pid" 2>/dev/null
    ip netns del "$ns" 2>/dev/null || true
}
trap cleanup EXIT

make -s build
ip netns del "$ns" 2>/dev/null || true
ip netns add "$ns"
ip -n "$ns" link set lo up
ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
for port in 1 2; do
    ip -n "$ns" link add "s$port" type veth peer name "h$port"
    ip -n "$ns" link set "s$port" up
    ip -n "$ns" link set "h$port" up
done

log=$(mktemp -d)
ip netns exec "$ns" "$bin/p4aqm" switch -i 1@s1 -i 2@s2 --grpc-server-addr 127.0.0.1:9559 \
    >"$log/switch.log" 2>&1 &
switch_pid=$!
for _ in $(seq 100); do
    grep -q listening "$log/switch.log" && break
    kill -0 "$switch_pid" 2>/dev/null || { cat "$log/switch.log"; exit 1; }
    sleep 0.1
done
head -n 1 "$log/switch.log"

ip netns exec "$ns" "$bin/p4aqm" controller examples/controller/l3_forward.yaml
ip netns exec "$ns" "$bin/ptf" --test-dir ptf-tests --pypath "$PWD" --log-dir "$log" \
    -i 1@h1 -i 2@h2 --test-params "config='$PWD/controller/examples/l3_forward.yaml'" l3_forward
echo "demo: the L3 pipeline forwarded and dropped as configured (logs in $log)"
