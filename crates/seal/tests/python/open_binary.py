#!/usr/bin/env python3
"""Opens ciphermeter `binary` sealed messages with Python's own crypto, as an
independent check of docs/containers.md ("Container `binary`", "What the tag
covers", "Keys", "Sizes per message"). Written from that document only, not
from the Rust container code.

usage: open_binary.py SCHEME KEY_ID_HEX KEY_HEX < messages
  stdin: one message a line, in hex (the whole container output)
  stdout: one JSON object a line, in the same order:
    {"ok": true, "aad": HEX, "plaintext": HEX}   or   {"ok": false, "error": TEXT}

Covers hmac:hmac-sha256/512, aead:aes-128/256-gcm, aead:aes-128/256-ccm,
aead:chacha20-poly1305 and etm:aes-{128,256}-{cbc,ctr}+hmac-sha{256,384,512}.
Needs the `cryptography` package (scripts/setup installs it).
"""
import hashlib
import hmac
import json
import sys

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes, padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM, ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

HASHES = {"hmac-sha256": hashlib.sha256, "hmac-sha512": hashlib.sha512}
# "Sizes per message": nonce lengths; AEAD tags are 16 bytes.
AEADS = {  # name: (key bytes, nonce bytes, constructor)
    "aes-128-gcm": (16, 12, AESGCM),
    "aes-256-gcm": (32, 12, AESGCM),
    "aes-128-ccm": (16, 13, lambda k: AESCCM(k, tag_length=16)),
    "aes-256-ccm": (32, 13, lambda k: AESCCM(k, tag_length=16)),
    "chacha20-poly1305": (32, 12, ChaCha20Poly1305),
}


class Rejected(Exception):
    pass


def header(scheme, kid, aad):
    """H = 0x01 || u8 len(scheme) || scheme || u8 len(key_id) || key_id || u16be len(aad) || aad"""
    s = scheme.encode("ascii")
    return bytes([1, len(s)]) + s + bytes([len(kid)]) + kid + len(aad).to_bytes(2, "big") + aad


def mac_len(mac):
    return HASHES[mac]().digest_size


def sizes(scheme):
    """(nonce length, tag length) of a scheme, per "Sizes per message"."""
    pattern, alg = scheme.split(":", 1)
    if pattern == "hmac":
        return 0, mac_len(alg)
    if pattern == "aead":
        return AEADS[alg][1], 16
    if pattern == "etm":
        cipher, mac = alg.split("+")
        return 16, mac_len(mac)  # CBC/CTR: one AES block
    raise Rejected("scheme not covered by this checker: " + scheme)


def parse(message, scheme, kid_expected):
    """The binary container's fields, checked as the table says."""
    at = 0

    def take(n, what):
        nonlocal at
        if at + n > len(message):
            raise Rejected("truncated in " + what)
        out = message[at:at + n]
        at += n
        return out

    if take(1, "version") != b"\x01":
        raise Rejected("version")
    if take(4, "scheme id") != hashlib.sha256(scheme.encode("ascii")).digest()[:4]:
        raise Rejected("scheme id is not this key's scheme")
    k = take(1, "K")[0]
    if not 1 <= k <= 32:
        raise Rejected("key id length")
    if take(k, "key id") != kid_expected:
        raise Rejected("other key id")
    n = take(1, "N")[0]
    if n > 32:
        raise Rejected("nonce length")
    nonce = take(n, "nonce")
    a = int.from_bytes(take(2, "A"), "big")
    aad = take(a, "aad")
    t = take(1, "T")[0]
    if t > 64:
        raise Rejected("tag length")
    rest = message[at:]
    if len(rest) < t:
        raise Rejected("shorter than its tag")
    body, tag = rest[:len(rest) - t], rest[len(rest) - t:]
    want_n, want_t = sizes(scheme)
    if (n, t) != (want_n, want_t):
        raise Rejected(f"nonce/tag lengths {n}/{t}, the scheme's are {want_n}/{want_t}")
    return nonce, aad, body, tag


def open_message(scheme, kid, key, message):
    nonce, aad, body, tag = parse(message, scheme, kid)
    h = header(scheme, kid, aad)
    pattern, alg = scheme.split(":", 1)
    if pattern == "hmac":
        # tag = MAC(key, H || plaintext)
        if not hmac.compare_digest(hmac.new(key, h + body, HASHES[alg]).digest(), tag):
            raise Rejected("tag")
        return aad, body
    if pattern == "aead":
        # ciphertext || tag = AEAD-Encrypt(key, nonce, plaintext, associated data = H)
        key_len, _, make = AEADS[alg]
        if len(key) != key_len:
            raise Rejected("key length")
        try:
            return aad, make(key).decrypt(nonce, body + tag, h)
        except InvalidTag:
            raise Rejected("tag") from None
    if pattern == "etm":
        # Keys: HKDF-SHA256(master, no salt, info) for each ("Keys").
        cipher, mac = alg.split("+")
        family, bits, mode = cipher.split("-")
        assert family == "aes" and mode in ("cbc", "ctr"), cipher

        def derive(info, length):
            return HKDF(hashes.SHA256(), length, None, info).derive(key)

        enc_key = derive(b"ciphermeter etm v1 encryption key", int(bits) // 8)
        mac_key = derive(b"ciphermeter etm v1 mac key", max(mac_len(mac), 32))
        # tag = MAC(mac_key, u32be(len H) || H || u8(len iv) || iv || ciphertext),
        # checked before anything is decrypted.
        covered = len(h).to_bytes(4, "big") + h + bytes([len(nonce)]) + nonce + body
        if not hmac.compare_digest(hmac.new(mac_key, covered, HASHES[mac]).digest(), tag):
            raise Rejected("tag")
        if mode == "cbc":
            dec = Cipher(algorithms.AES(enc_key), modes.CBC(nonce)).decryptor()
            unpad = padding.PKCS7(128).unpadder()
            plain = unpad.update(dec.update(body) + dec.finalize()) + unpad.finalize()
        else:
            # The IV is the first counter block, counted as one 128-bit big-endian number.
            dec = Cipher(algorithms.AES(enc_key), modes.CTR(nonce)).decryptor()
            plain = dec.update(body) + dec.finalize()
        return aad, plain
    raise Rejected("scheme not covered by this checker: " + scheme)


def main():
    scheme, kid, key = sys.argv[1], bytes.fromhex(sys.argv[2]), bytes.fromhex(sys.argv[3])
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            aad, plain = open_message(scheme, kid, key, bytes.fromhex(line))
            out = {"ok": True, "aad": aad.hex(), "plaintext": plain.hex()}
        except (Rejected, ValueError) as e:
            out = {"ok": False, "error": str(e) or type(e).__name__}
        print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
