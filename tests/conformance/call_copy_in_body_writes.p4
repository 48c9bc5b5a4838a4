// Copy-in happens at the call (spec 6.8, calling convention: call by copy in/copy out):
// an action that writes a control variable passed to it as an `in` or `inout` argument
// still reads, through its parameter, the value the argument had at the call; an
// `inout` argument is written back at the end, over the body's own write. This also
// holds when the write is made by an action the callee calls.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> op;
    bit<8> a;
    bit<8> b;
    bit<8> c;
}

struct headers_t {
    h_t h;
}

struct meta_t {}

parser P(packet_in pk, out headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.h);
        transition accept;
    }
}

control NoCheck(inout headers_t hdr, inout meta_t m) {
    apply { }
}

control MyIngress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    // Reads its `in` copy of the header after overwriting the header itself.
    action read_copy(in h_t val) {
        hdr.h.a = 0xEE;
        hdr.h.b = val.a;
    }

    // v is hdr.h.a at the call; the body's write of hdr.h.a is overwritten by the
    // copy-out of v.
    action add_after_write(inout bit<8> v) {
        hdr.h.a = 5;
        v = v + hdr.h.a;
        hdr.h.c = hdr.h.a;
    }

    action clobber_a() {
        hdr.h.a = 0x77;
    }

    // The write to hdr.h.a happens in a called action.
    action read_after_call(in bit<8> v) {
        clobber_a();
        hdr.h.b = v;
    }

    apply {
        sm.egress_spec = 1;
        if (hdr.h.op == 0) {
            read_copy(hdr.h);
        } else if (hdr.h.op == 1) {
            add_after_write(hdr.h.a);
        } else {
            read_after_call(hdr.h.a);
        }
    }
}

control MyEgress(inout headers_t hdr, inout meta_t m, inout standard_metadata_t sm) {
    apply { }
}

control Deparse(packet_out pk, in headers_t hdr) {
    apply {
        pk.emit(hdr.h);
    }
}

V1Switch(P(), NoCheck(), MyIngress(), MyEgress(), NoCheck(), Deparse()) main;
