// A program that asks for v1model version 20200408 by defining V1MODEL_VERSION before
// the include, as p4c allows: the newer branch is taken, __v1model_version holds the
// program's value, PortId_t is declared, and register and counter take their index
// type I as a type parameter (here a 2-bit register index and a PortId_t counter
// index, used without casts to bit<32>).

#include <core.p4>
#define V1MODEL_VERSION 20200408
#include <v1model.p4>

header h_t {
    bit<8>  a;
    bit<8>  version;
    bit<8>  old;
    bit<8>  port;
    bit<32> version_const;
}

struct headers_t {
    h_t h;
}

struct meta_t {
    bit<8> m8;
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
    register<bit<8>, bit<2>>(4) store;
    counter<PortId_t>(512, CounterType.packets) per_port;
    apply {
        PortId_t out_port = 3;
        sm.egress_spec = out_port;
        per_port.count(sm.ingress_port);
        bit<8> old;
        store.read(old, hdr.h.a[1:0]);
        store.write(hdr.h.a[1:0], hdr.h.a);
        hdr.h.old = old;
        hdr.h.port = (bit<8>)sm.egress_spec;
#if V1MODEL_VERSION >= 20200408
        hdr.h.version = 0x20;
#else
        hdr.h.version = 0x18;
#endif
        hdr.h.version_const = __v1model_version;
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
