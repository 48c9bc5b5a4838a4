/* runtime_externs: one of each extern the P4Runtime server reads and writes, and
 * @controller_header packet-in/packet-out through CPU port 255.
 * Packets from the CPU carry packet_out { egress_port } and go straight there; other
 * packets are counted, measured and forwarded by the `forward` table on their ingress
 * port, whose to_cpu action sends them to the controller with packet_in { ingress_port }.
 * A packet-out to the CPU port itself loops back as a packet-in (ingress_port 255).
 * The multicast and send_and_clone actions exercise multicast groups and clone sessions. */
#include <core.p4>
#include <v1model.p4>

const bit<9> CPU_PORT = 255;

@controller_header("packet_out")
header packet_out_t {
    bit<9> egress_port;
    bit<7> pad;
}

@controller_header("packet_in")
header packet_in_t {
    bit<9> ingress_port;
    bit<7> pad;
}

header ethernet_t {
    bit<48> dst_addr;
    bit<48> src_addr;
    bit<16> ether_type;
}

struct headers_t {
    packet_out_t packet_out;
    packet_in_t  packet_in;
    ethernet_t   ethernet;
}

struct learn_t {
    bit<48> src_addr;
    bit<9>  ingress_port;
}

struct metadata_t { }

parser MyParser(packet_in packet,
                out headers_t hdr,
                inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        transition select(standard_metadata.ingress_port) {
            CPU_PORT: parse_packet_out;
            default: parse_ethernet;
        }
    }

    state parse_packet_out {
        packet.extract(hdr.packet_out);
        transition parse_ethernet;
    }

    state parse_ethernet {
        packet.extract(hdr.ethernet);
        transition accept;
    }
}

control MyVerifyChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MyIngress(inout headers_t hdr,
                  inout metadata_t meta,
                  inout standard_metadata_t standard_metadata) {
    register<bit<32>>(16) last_length;
    counter(16, CounterType.packets_and_bytes) port_packets;
    meter(16, MeterType.bytes) port_meter;
    direct_counter(CounterType.packets_and_bytes) forward_counter;
    direct_meter<bit<2>>(MeterType.packets) forward_meter;
    bit<2> color = 0;

    action send(bit<9> port) {
        standard_metadata.egress_spec = port;
        forward_meter.read(color);
    }

    action to_cpu() {
        standard_metadata.egress_spec = CPU_PORT;
        hdr.packet_in.setValid();
        hdr.packet_in.ingress_port = standard_metadata.ingress_port;
        hdr.packet_in.pad = 0;
        forward_meter.read(color);
    }

    action drop() {
        mark_to_drop(standard_metadata);
        forward_meter.read(color);
    }

    action multicast(bit<16> group) {
        standard_metadata.mcast_grp = group;
        forward_meter.read(color);
    }

    action send_and_clone(bit<9> port, bit<32> session) {
        standard_metadata.egress_spec = port;
        clone(CloneType.I2E, session);
        forward_meter.read(color);
    }

    table forward {
        key = {
            standard_metadata.ingress_port: exact;
        }
        actions = {
            send;
            to_cpu;
            drop;
            multicast;
            send_and_clone;
        }
        default_action = drop();
        counters = forward_counter;
        meters = forward_meter;
        size = 64;
    }

    apply {
        if (hdr.packet_out.isValid()) {
            standard_metadata.egress_spec = hdr.packet_out.egress_port;
            if (hdr.packet_out.egress_port == CPU_PORT) {
                // Loopback: a packet-out to the CPU port comes back as a packet-in.
                hdr.packet_in.setValid();
                hdr.packet_in.ingress_port = CPU_PORT;
                hdr.packet_in.pad = 0;
            }
            hdr.packet_out.setInvalid();
        } else {
            bit<32> index = (bit<32>) standard_metadata.ingress_port;
            last_length.write(index, standard_metadata.packet_length);
            port_packets.count(index);
            bit<2> port_color;
            port_meter.execute_meter(index, port_color);
            learn_t learn;
            learn.src_addr = hdr.ethernet.src_addr;
            learn.ingress_port = standard_metadata.ingress_port;
            digest<learn_t>(1, learn);
            forward.apply();
        }
    }
}

control MyEgress(inout headers_t hdr,
                 inout metadata_t meta,
                 inout standard_metadata_t standard_metadata) {
    apply { }
}

control MyComputeChecksum(inout headers_t hdr, inout metadata_t meta) {
    apply { }
}

control MyDeparser(packet_out packet, in headers_t hdr) {
    apply {
        packet.emit(hdr.packet_in);
        packet.emit(hdr.ethernet);
    }
}

V1Switch(
    MyParser(),
    MyVerifyChecksum(),
    MyIngress(),
    MyEgress(),
    MyComputeChecksum(),
    MyDeparser()
) main;
