"""microschc (PyPI, 0.22.0) as an independent SCHC peer for crates/schc's interop test.

It reads the same RFC 9363 rule file as ciphermeter and turns it into microschc's
rules itself; microschc's own compressor and decompressor do the SCHC work. Its
CoAP parser has no OSCORE option (RFC 8824 §6.4), so this file gives it one: a
HeaderParser that names CoAP's fields as RFC 8824 does, the OSCORE option as
flags, piv, kid context and kid, and writes the message back from them.

RFC 8824 §7.2's inner compression works on an OSCORE plaintext (the inner
code, the class E options, the payload after its marker), which microschc has
no parser for either: PlaintextParser names its fields as RFC 8824 does.

One JSON request per line on stdin: {"op": "compress" | "decompress" |
"compress-inner" | "decompress-inner", "way": "up" | "down", "hex": "..."};
one answer per line: {"hex": "..."} or {"error": "..."}.
"""

import base64
import json
import sys

from microschc import (Buffer, CompressionDecompressionAction as CDA, DirectionIndicator as DI,
                       HeaderParser, MatchingOperator as MO, RuleDescriptor,
                       RuleFieldDescriptor as RFD, RuleNature)
from microschc.compressor.compressor import compress
from microschc.decompressor.decompressor import decompress
from microschc.parser.parser import PacketParser
from microschc.rfc8724 import FieldDescriptor, HeaderDescriptor
from microschc.rfc8724 import FieldLengthDefinitions as FL
from microschc.ruler.ruler import Ruler
from microschc.tools import create_target_value as tv

OSCORE = 9
MARKER = "CoAP:Payload Marker"
HEADER = {
    "fid-coap-version": ("CoAP:Version", 2),
    "fid-coap-type": ("CoAP:Type", 2),
    "fid-coap-tkl": ("CoAP:Token Length", 4),
    "fid-coap-code": ("CoAP:Code", 8),
    "fid-coap-mid": ("CoAP:Message ID", 16),
    "fid-coap-token": ("CoAP:Token", None),
    "fid-coap-option-oscore-flags": ("CoAP:OSCORE flags", None),
    "fid-coap-option-oscore-piv": ("CoAP:OSCORE piv", None),
    "fid-coap-option-oscore-kidctx": ("CoAP:OSCORE kid context", None),
    "fid-coap-option-oscore-kid": ("CoAP:OSCORE kid", None),
}
OPTIONS = {"uri-path": 11, "content-format": 12, "uri-host": 3, "uri-query": 15, "observe": 6}


def bits(data, length):
    return Buffer(content=data, length=length)


def option_field(number, value):
    return FieldDescriptor(id=f"CoAP:Option({number})", position=0, value=bits(value, 8 * len(value)))


def options_and_marker(data, at, fields_of):
    """The CoAP options from byte `at` to the payload marker, each as `fields_of(number,
    value)` gives its fields, then the marker as a field: the fields and the bytes read."""
    fields, number = [], 0
    while at < len(data) and data[at] != 0xFF:
        delta, length = data[at] >> 4, data[at] & 15
        at += 1
        delta, at = extended(data, at, delta)
        length, at = extended(data, at, length)
        number += delta
        value = data[at:at + length]
        at += length
        fields.extend(fields_of(number, value))
    if at < len(data):
        fields.append(FieldDescriptor(id=MARKER, position=0, value=tv(0xFF, length=8)))
        at += 1
    return fields, at


class OscoreCoAPParser(HeaderParser):
    """CoAP with the OSCORE option in four fields; the payload marker as a field."""

    def __init__(self):
        super().__init__(name="CoAP")

    def parse(self, buffer):
        data = buffer.content[: buffer.length // 8]
        tkl = data[0] & 15
        fields = [
            FieldDescriptor(id="CoAP:Version", position=0, value=tv(data[0] >> 6, length=2)),
            FieldDescriptor(id="CoAP:Type", position=0, value=tv((data[0] >> 4) & 3, length=2)),
            FieldDescriptor(id="CoAP:Token Length", position=0, value=tv(tkl, length=4)),
            FieldDescriptor(id="CoAP:Code", position=0, value=tv(data[1], length=8)),
            FieldDescriptor(id="CoAP:Message ID", position=0, value=tv(data[2:4], length=16)),
        ]
        if tkl:
            fields.append(FieldDescriptor(id="CoAP:Token", position=0, value=bits(data[4:4 + tkl], 8 * tkl)))
        def option(number, value):
            return oscore_fields(value) if number == OSCORE else [option_field(number, value)]

        more, at = options_and_marker(data, 4 + tkl, option)
        return HeaderDescriptor(id="CoAP", length=8 * at, fields=fields + more)

    def unparse(self, decompressed_fields):
        if not decompressed_fields:
            # A no-compression rule: the packet is all "payload".
            return []
        values = {}
        options = []
        for name, value in decompressed_fields:
            raw = value.content[: (value.length + 7) // 8] if value.length else b""
            if name.startswith("CoAP:Option("):
                options.append((int(name[len("CoAP:Option("):-1]), raw))
            else:
                values[name] = (value, raw)
        uint = lambda name: int.from_bytes(values[name][1], "big") >> ((8 - values[name][0].length % 8) % 8)
        token = values.get("CoAP:Token", (None, b""))[1]
        head = bytes([(uint("CoAP:Version") << 6) | (uint("CoAP:Type") << 4) | uint("CoAP:Token Length"),
                      uint("CoAP:Code")]) + values["CoAP:Message ID"][1] + token
        if "CoAP:OSCORE flags" in values:
            parts = ["CoAP:OSCORE flags", "CoAP:OSCORE piv", "CoAP:OSCORE kid context", "CoAP:OSCORE kid"]
            options.append((OSCORE, b"".join(values[p][1] for p in parts)))
        options.sort(key=lambda o: o[0])
        out, prev = bytearray(head), 0
        for number, value in options:
            out += option_bytes(number - prev, value)
            prev = number
        if MARKER in values:
            out.append(0xFF)
        return [("CoAP:message", Buffer(content=bytes(out), length=8 * len(out)))]


class PlaintextParser(HeaderParser):
    """An OSCORE plaintext: the code, the options, the payload marker as a field."""

    def __init__(self):
        super().__init__(name="CoAP")

    def parse(self, buffer):
        data = buffer.content[: buffer.length // 8]
        fields = [FieldDescriptor(id="CoAP:Code", position=0, value=tv(data[0], length=8))]
        more, at = options_and_marker(data, 1, lambda number, value: [option_field(number, value)])
        return HeaderDescriptor(id="CoAP", length=8 * at, fields=fields + more)

    def unparse(self, decompressed_fields):
        if not decompressed_fields:
            return []
        out, prev, marker = bytearray(), 0, False
        for name, value in decompressed_fields:
            raw = value.content[: (value.length + 7) // 8] if value.length else b""
            if name == "CoAP:Code":
                out.insert(0, raw[-1])
            elif name.startswith("CoAP:Option("):
                number = int(name[len("CoAP:Option("):-1])
                out += option_bytes(number - prev, raw)
                prev = number
            elif name == MARKER:
                marker = True
        if marker:
            out.append(0xFF)
        return [("CoAP:plaintext", Buffer(content=bytes(out), length=8 * len(out)))]


def extended(data, at, nibble):
    if nibble == 13:
        return data[at] + 13, at + 1
    if nibble == 14:
        return int.from_bytes(data[at:at + 2], "big") + 269, at + 2
    return nibble, at


def option_bytes(delta, value):
    def nibble(n):
        if n < 13:
            return n, b""
        if n < 269:
            return 13, bytes([n - 13])
        return 14, (n - 269).to_bytes(2, "big")
    d, dx = nibble(delta)
    l, lx = nibble(len(value))
    return bytes([(d << 4) | l]) + dx + lx + value


def oscore_fields(value):
    part = lambda name, b: FieldDescriptor(id=name, position=0, value=bits(b, 8 * len(b)))
    if not value:
        return [part(n, b"") for n in ("CoAP:OSCORE flags", "CoAP:OSCORE piv", "CoAP:OSCORE kid context", "CoAP:OSCORE kid")]
    flags, n = value[0], value[0] & 7
    rest = value[1 + n:]
    ctx = b""
    if flags & 0x10:
        ctx, rest = rest[:1 + rest[0]], rest[1 + rest[0]:]
    return [part("CoAP:OSCORE flags", value[:1]), part("CoAP:OSCORE piv", value[1:1 + n]),
            part("CoAP:OSCORE kid context", ctx), part("CoAP:OSCORE kid", rest)]


def unprefixed(name):
    return name.rsplit(":", 1)[-1]


def field_name(fid):
    fid = unprefixed(fid)
    if fid in HEADER:
        return HEADER[fid][0]
    option = fid[len("fid-coap-option-"):]
    return f"CoAP:Option({OPTIONS[option]})"


def rule_entry(e):
    fid = unprefixed(e["field-id"])
    name = field_name(fid)
    fl = e.get("field-length")
    if isinstance(fl, int):
        length = fl
    elif fl is None:
        length = HEADER.get(fid, (None, None))[1] or FL.VAR_BYTES
    else:
        length = {"fl-variable": FL.VAR_BYTES, "fl-variable-bits": 0}[unprefixed(fl)]
    direction = {"di-up": DI.UP, "di-down": DI.DOWN, "di-bidirectional": DI.BIDIRECTIONAL}[
        unprefixed(e.get("direction-indicator", "di-bidirectional"))]
    values = [base64.b64decode(v["value"]) for v in sorted(e.get("target-value", []), key=lambda v: v["index"])]
    fixed = isinstance(length, int) and length > 0
    as_int = lambda b: int.from_bytes(b, "big")
    mo = unprefixed(e["matching-operator"])
    target = None
    if mo == "mo-equal":
        target = tv(as_int(values[0]), length=length) if fixed else bits(values[0], 8 * len(values[0]))
        mo = MO.EQUAL
    elif mo == "mo-ignore":
        mo = MO.IGNORE
    elif mo == "mo-match-mapping":
        target = tv([as_int(v) for v in values], length=length)
        mo = MO.MATCH_MAPPING
    elif mo == "mo-msb":
        x = as_int(base64.b64decode(e["matching-operator-value"][0]["value"]))
        whole = 8 * len(values[0]) if not fixed else length
        target = tv(as_int(values[0]) >> (whole - x), length=x)
        mo = MO.MSB
    cda = {"cda-not-sent": CDA.NOT_SENT, "cda-value-sent": CDA.VALUE_SENT,
           "cda-mapping-sent": CDA.MAPPING_SENT, "cda-lsb": CDA.LSB}[unprefixed(e["comp-decomp-action"])]
    return RFD(name, length, 0, direction, target, mo, cda)


def load_rules(path):
    with open(path) as f:
        doc = json.load(f)
    schc = next(v for k, v in doc.items() if unprefixed(k) == "schc")
    rules = []
    for r in schc["rule"]:
        rule_id = tv(r["rule-id-value"], length=r["rule-id-length"])
        if unprefixed(r.get("rule-nature", "nature-compression")) == "nature-no-compression":
            rules.append(RuleDescriptor(id=rule_id, nature=RuleNature.NO_COMPRESSION))
            continue
        entries = [rule_entry(e) for e in r["entry"]]
        # RFC 8824-update never sends the payload marker: no bits, but a field here.
        entries.append(RFD(MARKER, 8, 0, DI.BIDIRECTIONAL, tv(0xFF, length=8), MO.EQUAL, CDA.NOT_SENT))
        rules.append(RuleDescriptor(id=rule_id, nature=RuleNature.COMPRESSION, field_descriptors=entries))
    return rules


def main():
    rules = load_rules(sys.argv[1])
    parsers = {"": PacketParser("CoAP-OSCORE", [OscoreCoAPParser()]),
               "-inner": PacketParser("OSCORE-plaintext", [PlaintextParser()])}
    for line in sys.stdin:
        request = json.loads(line)
        way = DI.UP if request["way"] == "up" else DI.DOWN
        data = bytes.fromhex(request["hex"])
        op, _, inner = request["op"].partition("-")
        parser = parsers["-" + inner if inner else ""]
        try:
            if op == "compress":
                packet = parser.parse(Buffer(content=data, length=8 * len(data)))
                packet.direction = way
                rule = next(Ruler(rules).match_packet_descriptor(packet))
                out = compress(packet, rule).content
            else:
                schc = Buffer(content=data, length=8 * len(data))
                rule = Ruler(rules).match_schc_packet(schc)
                out = decompress(schc, rule, direction=way, unparser=parser).content
            print(json.dumps({"hex": out.hex()}), flush=True)
        except Exception as e:  # the test names what failed
            print(json.dumps({"error": f"{type(e).__name__}: {e}"}), flush=True)


if __name__ == "__main__":
    main()
