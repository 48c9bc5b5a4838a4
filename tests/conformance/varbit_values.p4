// varbit values outside headers (spec 7.1.6.4, and "Operations on variable-size
// bit types"): varbit locals, a varbit field of user metadata, copies between them
// and header fields in a parser, a control, an action's inout parameter and a
// function's in parameters, and == / != , which compare the dynamic width and the
// bits (so 0x00 and 0x0000 differ). A local never written is empty (width 0).
// A copy changes the destination's width: the emitted header grows or shrinks.

#include <core.p4>
#include <v1model.p4>

header lengths_t {
    bit<8> len_a;   // bytes of a.v
    bit<8> len_b;   // bytes of b.v
    bit<8> op;      // in: 1 swaps a.v and b.v, 2 empties b.v; out: the flags
}

header var_t {
    varbit<32> v;
}

struct headers {
    lengths_t p;
    var_t     a;
    var_t     b;
}

struct metadata {
    varbit<32> first;   // a.v, as the parser saw it
}

parser MyParser(packet_in pk, out headers hdr, inout metadata meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.p);
        pk.extract(hdr.a, (bit<32>)hdr.p.len_a << 3);
        meta.first = hdr.a.v;
        pk.extract(hdr.b, (bit<32>)hdr.p.len_b << 3);
        transition accept;
    }
}

bool same(in varbit<32> x, in varbit<32> y) {
    return x == y;
}

control MyIngress(inout headers hdr, inout metadata meta,
                  inout standard_metadata_t sm) {
    varbit<32> empty;

    action overwrite(inout varbit<32> dst, in varbit<32> src) {
        dst = src;
    }

    apply {
        varbit<32> saved = hdr.a.v;
        bit<8> flags = 0;
        if (same(hdr.a.v, hdr.b.v)) {
            flags = flags | 1;
        }
        if (meta.first == saved) {
            flags = flags | 2;
        }
        if (empty != hdr.b.v) {
            flags = flags | 4;
        }
        if (hdr.p.op == 1) {
            hdr.a.v = hdr.b.v;
            hdr.b.v = saved;
            bit<8> len = hdr.p.len_a;
            hdr.p.len_a = hdr.p.len_b;
            hdr.p.len_b = len;
        } else if (hdr.p.op == 2) {
            overwrite(hdr.b.v, empty);
            hdr.p.len_b = 0;
        }
        hdr.p.op = flags;
        sm.egress_spec = 1;
    }
}

control MyEgress(inout headers hdr, inout metadata meta,
                 inout standard_metadata_t sm) {
    apply { }
}

control MyVerifyChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyComputeChecksum(inout headers hdr, inout metadata meta) {
    apply { }
}

control MyDeparser(packet_out pk, in headers hdr) {
    apply {
        pk.emit(hdr);
    }
}

V1Switch(MyParser(), MyVerifyChecksum(), MyIngress(), MyEgress(),
         MyComputeChecksum(), MyDeparser()) main;
