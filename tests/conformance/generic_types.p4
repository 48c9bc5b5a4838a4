// Generic data types (P4_16 1.2.2, spec 7.2.11): a struct, header or header union may
// take type parameters, and each use names its arguments. Checked here: a generic
// header extracted and emitted (a field of the argument type), a generic struct in
// user metadata, a generic struct nested in another with a type variable as argument
// (Pair<Box<T>>), a tuple<T, T> field, a typedef of a stack of a generic header, a
// generic header union, a constant of generic struct type and a cast to one. Two uses
// with the same arguments are one type: values of it are assigned between them.

#include <core.p4>
#include <v1model.p4>

header tagged_t<T> {
    bit<8> tag;
    T      value;
}

header plain_t {
    bit<8> p;
}

header_union either_t<T> {
    plain_t     plain;
    tagged_t<T> tagged;
}

struct Box<T> {
    T       item;
    bit<8>  count;
}

struct Pair<T> {
    T           first;
    T           second;
    tuple<T, T> both;
}

typedef tagged_t<bit<8>>[2] small_stack_t;

struct headers_t {
    tagged_t<bit<16>> wide;
    small_stack_t     small;
    either_t<bit<8>>  either;
}

struct meta_t {
    Box<bit<16>>       box;
    Pair<Box<bit<8>>>  pair;
}

const Box<bit<8>> START = { item = 8w0x30, count = 8w1 };

parser MyParser(packet_in pk, out headers_t hdr, inout meta_t meta,
                inout standard_metadata_t sm) {
    state start {
        pk.extract(hdr.wide);
        pk.extract(hdr.small.next);
        pk.extract(hdr.small.next);
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
        meta.box = { item = hdr.wide.value + 1, count = hdr.wide.tag };
        meta.pair.first = START;
        meta.pair.second = (Box<bit<8>>){ item = hdr.small[0].value, count = 2 };
        meta.pair.both = { meta.pair.second, meta.pair.first };
        Box<bit<8>> copy = meta.pair.both[0];
        hdr.wide.value = meta.box.item;
        hdr.wide.tag = meta.box.count + copy.count;
        hdr.small[1].value = copy.item + meta.pair.both[1].item;
        hdr.either.tagged.setValid();
        hdr.either.tagged = { tag = 8w0xE0, value = hdr.small[1].tag };
        sm.egress_spec = 1;
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
