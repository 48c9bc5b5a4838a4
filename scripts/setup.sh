#!/usr/bin/env bash
# Installs everything p4aqm needs on a fresh Debian 12 machine, builds it, and runs
# the main job's demo (FIFO against RED). Run as root from anywhere: scripts/setup.sh [--no-demo]
set -euo pipefail
cd "$(dirname "$0")/.."

run_demo=1
[ "${1:-}" = "--no-demo" ] && run_demo=0

say() { printf '\n== %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

[ "$(id -u)" -eq 0 ] || die "run as root: network namespaces, veths and apt need it"

# cpp: the compiler preprocesses P4 like p4c does; iproute2/procps: namespaces, veths, sysctl;
# ethtool: turning off veth offloads for traffic through a user-space switch;
# netsniff-ng: trafgen, the packet generator of `make bench`; iputils-ping: host tests;
# mininet: mnexec and its tools for p4aqm/topology/ (the venv gets the library from PyPI);
# iperf3: the dumbbell's TCP tests, the tuning tests' unmodified application and the
# bench's flows; irtt: RTT probes;
# chromium: the test that opens `p4aqm report`'s HTML headless; slurm-wlm and munge:
# the single-node cluster the Slurm backend's test starts; util-linux: setpriv, which
# ties each switch's life to the process that started it; clang, libbpf-dev and bpftool:
# the tuning daemon's sock_ops program (p4aqm/tuning/), compiled and attached to cgroups.
debian_packages=(util-linux cpp iproute2 procps ethtool netsniff-ng iputils-ping mininet iperf3 irtt chromium
                 slurm-wlm munge clang libbpf-dev bpftool)
missing=()
for pkg in "${debian_packages[@]}"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
    say "Debian packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
fi

command -v cargo >/dev/null || die "cargo not found: the switch's packet path is Rust (install rustup)"
python=${PYTHON:-python3}
"$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
    || die "$python is older than 3.11"

say "Python environment (.venv), with the Rust packet path built by maturin"
[ -x .venv/bin/python ] || "$python" -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e ".[test,fuzz]"

# p4runtime-shell pins protobuf < 3.21, which cannot share a venv with finsy: the test
# that drives our switch with it runs it, unchanged, from its own venv.
say "p4runtime-shell environment (.venv-p4rtsh)"
[ -x .venv-p4rtsh/bin/python ] || "$python" -m venv .venv-p4rtsh
.venv-p4rtsh/bin/pip install -q p4runtime-shell==0.0.6

say "P4 programs"
make build

if [ "$run_demo" -eq 1 ]; then
    say "Demo: FIFO against RED (30, 90) at 98 % load on the dumbbell (about 8 minutes)"
    scripts/demo_aqm.sh
fi
