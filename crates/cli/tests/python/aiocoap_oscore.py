#!/usr/bin/env python3
"""OSCORE with aiocoap, an implementation nobody here wrote, against ours.

    aiocoap_oscore.py unprotect CONTEXT   protected request on stdin -> payload on stdout
    aiocoap_oscore.py protect CONTEXT SEQ payload on stdin -> protected POST on stdout
    aiocoap_oscore.py client CONTEXT URI  one reading per stdin line, each POSTed
                                          (confirmable, protected) to URI; prints
                                          each response's code, e.g. 2.04

CONTEXT is a ciphermeter context file (keygen --scheme oscore:ALG); its fields
are read here and given to aiocoap's own key derivation. Exit 1 on any failure.
"""
import asyncio
import json
import sys

import aiocoap
from aiocoap import oscore
from aiocoap.numbers.codes import Code
from aiocoap.numbers.types import Type


class Context(oscore.CanProtect, oscore.CanUnprotect, oscore.SecurityContextUtils):
    """A context held in memory: nothing persisted, a fresh replay window."""

    def __init__(self, path):
        with open(path) as f:
            doc = json.load(f)
        self.alg_aead = next(a for a in oscore.algorithms.values() if a.value == doc["alg"])
        self.hashfun = oscore.hashfunctions["sha256"]
        self.sender_id = bytes.fromhex(doc["sender_id"])
        self.recipient_id = bytes.fromhex(doc["recipient_id"])
        self.id_context = bytes.fromhex(doc["id_context"]) if doc["id_context"] else None
        self.sender_sequence_number = 0
        self.recipient_replay_window = oscore.ReplayWindow(32, lambda: None)
        self.recipient_replay_window.initialize_empty()
        self.echo_recovery = None
        self.derive_keys(bytes.fromhex(doc["master_salt"]), bytes.fromhex(doc["master_secret"]))

    def post_seqnoincrease(self):
        pass


async def client(ctx, uri, readings):
    """aiocoap's own client: it protects each request with `ctx` and verifies
    each response, raising if a protected response does not verify."""
    protocol = await aiocoap.Context.create_client_context()
    try:
        host = uri.split("/")[2]
        protocol.client_credentials[f"coap://{host}/*"] = ctx
        for reading in readings:
            request = aiocoap.Message(code=Code.POST, uri=uri, payload=reading)
            response = await asyncio.wait_for(protocol.request(request).response, 10)
            print(response.code.dotted, flush=True)
    finally:
        await protocol.shutdown()


def main():
    command, path = sys.argv[1], sys.argv[2]
    ctx = Context(path)
    data = sys.stdin.buffer.read()
    if command == "unprotect":
        message = aiocoap.Message.decode(data)
        message.direction = oscore.Direction.INCOMING
        inner, _ = ctx.unprotect(message)
        if inner.code != Code.POST:
            raise SystemExit(f"inner code {inner.code}, expected POST")
        sys.stdout.buffer.write(inner.payload)
    elif command == "protect":
        ctx.sender_sequence_number = int(sys.argv[3])
        request = aiocoap.Message(code=Code.POST, payload=data, uri_path=["readings"])
        request.direction = oscore.Direction.OUTGOING
        protected, _ = ctx.protect(request)
        # The header fields a transport would fill in: OSCORE does not protect them.
        protected.mtype = Type.NON
        protected.mid = int(sys.argv[3]) & 0xFFFF
        protected.token = b"\x42"
        sys.stdout.buffer.write(protected.encode())
    elif command == "client":
        readings = [line for line in data.splitlines() if line.strip()]
        asyncio.run(client(ctx, sys.argv[3], readings))
    else:
        raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    main()
