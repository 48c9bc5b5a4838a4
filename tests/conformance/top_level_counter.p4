// A counter declared at the top level is one array that both pipelines count into,
// here through a top-level action.  STF cannot read counters, so the same action
// bumps a top-level register at the same index, whose value the packet carries out:
// b is the register as egress leaves it, so it counts two per packet.

#include <core.p4>
#include <v1model.p4>

header h_t {
    bit<8> a;
    bit<8> b;
    bit<8> c;
    bit<8> d;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<32> index;
}

counter(4, CounterType.packets_and_bytes) passes;
register<bit<8>>(4) passes_shadow;

action count_pass(in bit<32> index) {
    passes.count(index);
    bit<8> n;
    passes_shadow.read(n, index);
    passes_shadow.write(index, n + 1);
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
    apply {
        sm.egress_spec = 1;
        meta.index = (bit<32>)hdr.h.a;
        count_pass(meta.index);
        passes_shadow.read(hdr.h.c, meta.index);
    }
}

control MyEgress(inout headers_t hdr, inout meta_t meta,
                 inout standard_metadata_t sm) {
    apply {
        count_pass(meta.index);
        passes_shadow.read(hdr.h.b, meta.index);
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
