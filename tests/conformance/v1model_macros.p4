// The macros p4c's core.p4 and v1model.p4 define, seen by a program that defines none
// itself: the include guards _CORE_P4_ and _V1_MODEL_P4_, V1MODEL_VERSION (20180101 by
// default, so the pre-20200408 branch is taken), the constant __v1model_version and the
// meter colours V1MODEL_METER_COLOR_GREEN/YELLOW/RED (0, 1, 2).  Each branch writes its
// own value into the packet.

#include <core.p4>
#ifdef _V1_MODEL_P4_
#define V1MODEL_BEFORE_INCLUDE 0xEE
#else
#define V1MODEL_BEFORE_INCLUDE 0x0A
#endif
#include <v1model.p4>

header h_t {
    bit<8>  core;
    bit<8>  v1model;
    bit<8>  before;
    bit<8>  version;
    bit<8>  green;
    bit<8>  yellow;
    bit<8>  red;
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
    // Under the default version the register has no index type parameter.
    register<bit<8>>(2) store;
    apply {
        sm.egress_spec = 1;
#ifdef _CORE_P4_
        hdr.h.core = 0x01;
#else
        hdr.h.core = 0xEE;
#endif
#ifndef _V1_MODEL_P4_
        hdr.h.v1model = 0xEE;
#else
        hdr.h.v1model = 0x01;
#endif
        hdr.h.before = V1MODEL_BEFORE_INCLUDE;
#if V1MODEL_VERSION >= 20200408
        hdr.h.version = 0x20;
#elif V1MODEL_VERSION == 20180101
        hdr.h.version = 0x18;
#else
        hdr.h.version = 0xEE;
#endif
        hdr.h.green = V1MODEL_METER_COLOR_GREEN;
        hdr.h.yellow = V1MODEL_METER_COLOR_YELLOW;
        hdr.h.red = V1MODEL_METER_COLOR_RED;
        store.write(32w1, 0x5A);
        bit<8> back;
        store.read(back, 32w1);
        hdr.h.version_const = __v1model_version + (bit<32>)(back - 0x5A);
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
