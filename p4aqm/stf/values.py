"""STF literals to the big-endian byte strings the dataplane takes.

STF writes numbers in decimal, `0x` hex or `0b` binary. In hex and binary a `*` digit
is a wildcard: in a ternary key it clears those mask bits, in an LPM key trailing
wildcards shorten the prefix, as p4c's runner reads them.
"""

from p4aqm.stf.program import KeyField

_RADIX = {"0x": (16, 4), "0b": (2, 1), "0o": (8, 3)}


def _nbytes(bitwidth: int) -> int:
    return (bitwidth + 7) // 8


def _split(text: str) -> tuple[str, int, int]:
    """Return (digits, radix, bits per digit); decimal has 0 bits per digit."""
    prefix = text[:2].lower()
    if prefix in _RADIX:
        radix, bits = _RADIX[prefix]
        return text[2:], radix, bits
    return text, 10, 0


def _to_int(digits: str, radix: int, original: str) -> int:
    try:
        return int(digits, radix)
    except ValueError:
        raise ValueError(f"'{original}' is not a number") from None


def _fit(value: int, bitwidth: int, original: str) -> bytes:
    if value >= 1 << bitwidth:
        raise ValueError(f"'{original}' does not fit in {bitwidth} bits")
    return value.to_bytes(_nbytes(bitwidth), "big")


def number(text: str, bitwidth: int) -> bytes:
    digits, radix, _ = _split(text)
    if "*" in digits:
        raise ValueError(f"'{text}': wildcards are only allowed in ternary and LPM keys")
    return _fit(_to_int(digits, radix, text), bitwidth, text)


def _value_and_mask(text: str, bitwidth: int) -> tuple[int, int]:
    digits, radix, bits = _split(text)
    if not bits:
        if "*" in digits:
            raise ValueError(f"'{text}': wildcards need hex or binary digits")
        return _to_int(digits, radix, text), (1 << bitwidth) - 1
    value = _to_int(digits.replace("*", "0"), radix, text)
    mask = _mask(digits, bits)
    # Bits above the digits written are part of the match (they must be zero).
    mask |= ((1 << bitwidth) - 1) & ~((1 << (bits * len(digits))) - 1)
    return value, mask


def _mask(digits: str, bits: int) -> int:
    mask = 0
    for digit in digits:
        mask = (mask << bits) | (0 if digit == "*" else (1 << bits) - 1)
    return mask


def key(field: KeyField, text: str) -> tuple:
    """One dataplane key tuple for a `field:text` STF match."""
    width = field.bitwidth
    if field.match_type in ("exact", "valid"):
        return ("exact", number(text, width))
    if field.match_type == "lpm":
        return _lpm(text, width)
    if field.match_type in ("ternary", "optional"):
        value, mask = _value_and_mask(text, width)
        return ("ternary", _fit(value, width, text), _fit(mask & ((1 << width) - 1), width, text))
    raise ValueError(f"{field.match_type} keys cannot be written in STF")


def wildcard_key(field: KeyField) -> tuple:
    """The key p4c's runner uses for a field the test leaves out: 0, 0/0 or 0&&&0."""
    zero = bytes(_nbytes(field.bitwidth))
    if field.match_type == "lpm":
        return ("lpm", zero, 0)
    if field.match_type in ("ternary", "optional"):
        return ("ternary", zero, zero)
    return ("exact", zero)


def _lpm(text: str, bitwidth: int) -> tuple:
    if "/" in text:
        value_text, _, length_text = text.partition("/")
        if not length_text.isdigit() or int(length_text) > bitwidth:
            raise ValueError(f"'{text}': prefix length must be 0..{bitwidth}")
        return ("lpm", number(value_text, bitwidth), int(length_text))
    digits, _, bits = _split(text)
    if "*" in digits:
        # p4c's runner: the prefix is the digits written that are not wildcards.
        value = number(text[: len(text) - len(digits)] + digits.replace("*", "0"), bitwidth)
        return ("lpm", value, min(bitwidth, (len(digits) - digits.count("*")) * bits))
    return ("lpm", number(text, bitwidth), bitwidth)
