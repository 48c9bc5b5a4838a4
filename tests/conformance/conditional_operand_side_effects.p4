// Calls that change state in operands evaluated only sometimes: the right operand of
// && and || is evaluated only when the left does not decide the result, and only
// the chosen branch of ?: is evaluated (P4_16 spec, "Expression evaluation order";
// "Operations on Boolean expressions"). The calls here change an inout argument or
// apply a table, so evaluating them always would show in the packet.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> a;
    bit<8> b;
    bit<8> n;
}

struct headers_t {
    h_t h;
}

struct meta_t {
}

bool touch(inout bit<8> n) {
    n = n + 1;
    return true;
}

bit<8> bump(inout bit<8> n) {
    n = n + 1;
    return n;
}

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control MyVerify(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyIngress(inout headers_t hdr, inout meta_t meta,
                  inout standard_metadata_t sm) {
    action mark() {
        hdr.h.b = hdr.h.b | 0x80;
    }

    table t {
        key = {
            hdr.h.a: exact;
        }
        actions = {
            mark;
            NoAction;
        }
        const entries = {
            2: mark();
        }
        default_action = NoAction();
    }

    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 1) {
            if (hdr.h.a == 1 && touch(hdr.h.n)) {
                hdr.h.b = hdr.h.b + 1;
            }
        } else if (hdr.h.op == 2) {
            if (hdr.h.a == 1 || touch(hdr.h.n)) {
                hdr.h.b = hdr.h.b + 1;
            }
        } else if (hdr.h.op == 3) {
            hdr.h.b = hdr.h.a == 1 ? bump(hdr.h.n) : hdr.h.b;
        } else if (hdr.h.op == 4) {
            if (hdr.h.a != 0 && t.apply().hit) {
                hdr.h.n = 0xFF;
            }
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
    }
}

control MyCompute(inout headers_t hdr, inout meta_t meta) {
    apply {
    }
}

control MyDeparser(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerify(), MyIngress(), MyEgress(), MyCompute(), MyDeparser()) main;
