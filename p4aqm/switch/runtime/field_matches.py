"""FieldMatch: one match field of a TableEntry, checked and put in canonical form, with the
key tuple the dataplane matches it on."""

from finsy.proto import p4r

from p4aqm.switch.runtime.codec import canonical, decode_uint, encode_uint, is_canonical
from p4aqm.switch.runtime.errors import invalid


def field_match(
    match_type: str, bitwidth: int, fm: p4r.FieldMatch | None, what: str
) -> tuple[p4r.FieldMatch | None, tuple]:
    """One field: its canonical FieldMatch (None for a wildcard) and its dataplane key.

    P4Runtime requires don't-care fields to be omitted, so a zero prefix length, a zero
    mask or a full range is refused rather than silently taken as a wildcard.
    """
    full = (1 << bitwidth) - 1
    if fm is None:
        if match_type == "exact":
            raise invalid(f"{what}: exact match field is missing")
        wildcard = {
            "lpm": ("lpm", b"\x00", 0),
            "ternary": ("ternary", b"\x00", b"\x00"),
            "optional": ("ternary", b"\x00", b"\x00"),
            "range": ("range", b"\x00", encode_uint(full)),
        }
        return None, wildcard[match_type]
    if match_type == "exact":
        value = fm.exact.value
        if is_canonical(value, bitwidth):
            return fm, ("exact", value)
        value = canonical(value, bitwidth, what)
        return p4r.FieldMatch(field_id=fm.field_id, exact={"value": value}), ("exact", value)
    if match_type == "lpm":
        plen = fm.lpm.prefix_len
        if not 0 < plen <= bitwidth:
            raise invalid(
                f"{what}: prefix length {plen} is not in 1..{bitwidth} "
                "(omit the field for a wildcard)"
            )
        number = decode_uint(fm.lpm.value, bitwidth, what)
        if number & (full >> plen):
            raise invalid(f"{what}: value has bits set beyond the /{plen} prefix")
        value = encode_uint(number)
        if value == fm.lpm.value:
            return fm, ("lpm", value, plen)
        return (
            p4r.FieldMatch(field_id=fm.field_id, lpm={"value": value, "prefix_len": plen}),
            ("lpm", value, plen),
        )
    if match_type == "ternary":
        number = decode_uint(fm.ternary.value, bitwidth, what)
        mask = decode_uint(fm.ternary.mask, bitwidth, f"{what} mask")
        if mask == 0:
            raise invalid(f"{what}: mask is zero (omit the field for a wildcard)")
        if number & ~mask:
            raise invalid(f"{what}: value has bits set outside the mask")
        value, mask_bytes = encode_uint(number), encode_uint(mask)
        if (value, mask_bytes) == (fm.ternary.value, fm.ternary.mask):
            return fm, ("ternary", value, mask_bytes)
        return (
            p4r.FieldMatch(field_id=fm.field_id, ternary={"value": value, "mask": mask_bytes}),
            ("ternary", value, mask_bytes),
        )
    if match_type == "range":
        low = decode_uint(fm.range.low, bitwidth, f"{what} low")
        high = decode_uint(fm.range.high, bitwidth, f"{what} high")
        if low > high:
            raise invalid(f"{what}: range low {low:#x} is above high {high:#x}")
        if low == 0 and high == full:
            raise invalid(f"{what}: full range (omit the field for a wildcard)")
        low_b, high_b = encode_uint(low), encode_uint(high)
        if (low_b, high_b) == (fm.range.low, fm.range.high):
            return fm, ("range", low_b, high_b)
        return (
            p4r.FieldMatch(field_id=fm.field_id, range={"low": low_b, "high": high_b}),
            ("range", low_b, high_b),
        )
    value = canonical(fm.optional.value, bitwidth, what)
    if value == fm.optional.value:
        return fm, ("ternary", value, encode_uint(full))
    return (
        p4r.FieldMatch(field_id=fm.field_id, optional={"value": value}),
        ("ternary", value, encode_uint(full)),
    )
