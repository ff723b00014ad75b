#!/usr/bin/env python3
"""Opens a ciphermeter `json` sealed message with Python's own crypto, as an
independent check of docs/containers.md. Written from that document only.

usage: open_json.py KEY_HEX < message.json   (prints the plaintext; exit 1 if rejected)
hmac schemes need only the standard library; aead (AES-GCM) and etm
(AES-CBC + HMAC) need the `cryptography` package.
"""
import base64, hashlib, hmac, json, sys

HASHES = {"hmac-sha256": hashlib.sha256, "hmac-sha512": hashlib.sha512,
          "hmac-sha3-256": hashlib.sha3_256, "hmac-sha3-512": hashlib.sha3_512}


def header(scheme, kid, aad):
    # 0x01 || u8 len(scheme) || scheme || u8 len(kid) || kid || u16be len(aad) || aad
    s = scheme.encode()
    return bytes([1, len(s)]) + s + bytes([len(kid)]) + kid + len(aad).to_bytes(2, "big") + aad


def main():
    key = bytes.fromhex(sys.argv[1])
    msg = json.loads(sys.stdin.read())
    assert msg["v"] == 1
    scheme, kid = msg["scheme"], bytes.fromhex(msg["kid"])
    aad = msg.get("aad", "").encode()
    ad = header(scheme, kid, aad)
    tag = base64.b64decode(msg["tag"], validate=True)
    pattern, alg = scheme.split(":", 1)
    if pattern == "hmac":
        body = msg["text"].encode() if "text" in msg else base64.b64decode(msg["data"], validate=True)
        want = hmac.new(key, ad + body, HASHES[alg]).digest()
        if not hmac.compare_digest(want, tag):
            sys.exit("rejected")
        plain = body
    elif pattern == "aead" and alg.endswith("-gcm"):
        from cryptography.hazmat.primitives.ciphers.aead import AESGCM
        iv = base64.b64decode(msg["iv"], validate=True)
        data = base64.b64decode(msg["data"], validate=True)
        plain = AESGCM(key).decrypt(iv, data + tag, ad)
    elif pattern == "etm":
        from cryptography.hazmat.primitives import hashes, padding
        from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
        from cryptography.hazmat.primitives.kdf.hkdf import HKDF
        cipher_id, mac_id = alg.split("+")
        assert cipher_id.startswith("aes-") and cipher_id.endswith("-cbc")
        key_len = int(cipher_id.split("-")[1]) // 8
        mac_len = max(HASHES[mac_id]().digest_size, 32)
        derive = lambda info, n: HKDF(hashes.SHA256(), n, None, info).derive(key)
        enc_key = derive(b"ciphermeter etm v1 encryption key", key_len)
        mac_key = derive(b"ciphermeter etm v1 mac key", mac_len)
        iv = base64.b64decode(msg["iv"], validate=True)
        data = base64.b64decode(msg["data"], validate=True)
        covered = len(ad).to_bytes(4, "big") + ad + bytes([len(iv)]) + iv + data
        if not hmac.compare_digest(hmac.new(mac_key, covered, HASHES[mac_id]).digest(), tag):
            sys.exit("rejected")
        dec = Cipher(algorithms.AES(enc_key), modes.CBC(iv)).decryptor()
        unpad = padding.PKCS7(128).unpadder()
        plain = unpad.update(dec.update(data) + dec.finalize()) + unpad.finalize()
    else:
        sys.exit("scheme not covered by this checker: " + scheme)
    sys.stdout.buffer.write(plain)


if __name__ == "__main__":
    main()
