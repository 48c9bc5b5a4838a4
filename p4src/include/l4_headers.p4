/* Headers, parser, checksum and deparser for programs that also look at L4 ports.
 *
 * Include after include/headers.p4 and after declaring metadata_t, in place of
 * include/parser.p4. Only the first four bytes of TCP and UDP are parsed: both start
 * with the source and destination ports, which is all a classifier needs, and the
 * rest of the segment is carried as payload, untouched (so its checksum stays right).
 * Ports are parsed only when they are where a 20-byte IPv4 header puts them: not for
 * IPv4 options, and not for fragments after the first, which carry no L4 header.
 */
#ifndef P4AQM_L4_HEADERS_P4
#define P4AQM_L4_HEADERS_P4

const bit<8> IP_PROTO_TCP = 6;
const bit<8> IP_PROTO_UDP = 17;

header l4_ports_t {
    bit<16> src_port;
    bit<16> dst_port;
}

struct l4_headers_t {
    ethernet_t ethernet;
    ipv4_t     ipv4;
    l4_ports_t l4;
}

parser L4Parser(packet_in packet,
                out l4_headers_t hdr,
                inout metadata_t meta,
                inout standard_metadata_t standard_metadata) {
    state start {
        packet.extract(hdr.ethernet);
        transition select(hdr.ethernet.ether_type) {
            ETHERTYPE_IPV4: parse_ipv4;
            default: accept;
        }
    }

    state parse_ipv4 {
        packet.extract(hdr.ipv4);
        transition select(hdr.ipv4.ihl, hdr.ipv4.frag_offset, hdr.ipv4.protocol) {
            (5, 0, IP_PROTO_TCP): parse_l4;
            (5, 0, IP_PROTO_UDP): parse_l4;
            default: accept;
        }
    }

    state parse_l4 {
        packet.extract(hdr.l4);
        transition accept;
    }
}

control L4VerifyChecksum(inout l4_headers_t hdr, inout metadata_t meta) {
    apply { }
}

/* The IPv4 header checksum, as include/parser.p4 computes it. */
control L4ComputeChecksum(inout l4_headers_t hdr, inout metadata_t meta) {
    apply {
        update_checksum(
            hdr.ipv4.isValid(),
            { hdr.ipv4.version,
              hdr.ipv4.ihl,
              hdr.ipv4.dscp,
              hdr.ipv4.ecn,
              hdr.ipv4.total_len,
              hdr.ipv4.identification,
              hdr.ipv4.flags,
              hdr.ipv4.frag_offset,
              hdr.ipv4.ttl,
              hdr.ipv4.protocol,
              hdr.ipv4.src_addr,
              hdr.ipv4.dst_addr },
            hdr.ipv4.hdr_checksum,
            HashAlgorithm.csum16);
    }
}

control L4Deparser(packet_out packet, in l4_headers_t hdr) {
    apply {
        packet.emit(hdr.ethernet);
        packet.emit(hdr.ipv4);
        packet.emit(hdr.l4);
    }
}

#endif
