/* Our view of Monocypher: flat functions over contexts the Rust side holds
 * as opaque bytes of a size build.rs fixes, so it never mirrors a C struct. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "monocypher.h"
#include "optional/monocypher-ed25519.h"

_Static_assert(sizeof(crypto_sha512_ctx) <= CM_MONO_SHA512_BYTES, "CM_MONO_SHA512_BYTES (build.rs) too small");
_Static_assert(sizeof(crypto_sha512_hmac_ctx) <= CM_MONO_HMAC_BYTES, "CM_MONO_HMAC_BYTES (build.rs) too small");

/* ChaCha20-Poly1305 of RFC 8439 (the IETF nonce): a context per message,
 * from the key the Rust value keeps. */
void cm_monocypher_aead_encrypt(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *ad,
                                size_t ad_len, uint8_t *buf, size_t len, uint8_t mac[16])
{
    crypto_aead_ctx ctx;
    crypto_aead_init_ietf(&ctx, key, nonce);
    crypto_aead_write(&ctx, buf, mac, ad, ad_len, buf, len);
    crypto_wipe(&ctx, sizeof ctx);
}

int cm_monocypher_aead_decrypt(const uint8_t key[32], const uint8_t nonce[12], const uint8_t *ad,
                               size_t ad_len, uint8_t *buf, size_t len, const uint8_t mac[16])
{
    crypto_aead_ctx ctx;
    crypto_aead_init_ietf(&ctx, key, nonce);
    int r = crypto_aead_read(&ctx, buf, mac, ad, ad_len, buf, len);
    crypto_wipe(&ctx, sizeof ctx);
    return r;
}

/* SHA-512 and HMAC-SHA-512 over contexts the Rust value holds: plain data,
 * so a copy of a keyed HMAC starts each message from the key's state, as a
 * caller of crypto_sha512_hmac_init would keep it. */
void cm_monocypher_sha512_start(crypto_sha512_ctx *c) { crypto_sha512_init(c); }
void cm_monocypher_sha512_update(crypto_sha512_ctx *c, const uint8_t *p, size_t n) { crypto_sha512_update(c, p, n); }
void cm_monocypher_sha512_finish(crypto_sha512_ctx *c, uint8_t out[64]) { crypto_sha512_final(c, out); }

void cm_monocypher_hmac_setkey(crypto_sha512_hmac_ctx *c, const uint8_t *key, size_t key_len) { crypto_sha512_hmac_init(c, key, key_len); }
void cm_monocypher_hmac_update(crypto_sha512_hmac_ctx *c, const uint8_t *p, size_t n) { crypto_sha512_hmac_update(c, p, n); }
void cm_monocypher_hmac_finish(crypto_sha512_hmac_ctx *c, uint8_t out[64]) { crypto_sha512_hmac_final(c, out); }
void cm_monocypher_wipe(void *p, size_t n) { crypto_wipe(p, n); }

void cm_monocypher_x25519_public(uint8_t pk[32], const uint8_t sk[32]) { crypto_x25519_public_key(pk, sk); }
void cm_monocypher_x25519(uint8_t shared[32], const uint8_t sk[32], const uint8_t pk[32]) { crypto_x25519(shared, sk, pk); }

void cm_monocypher_ed25519_keypair(uint8_t sk[64], uint8_t pk[32], uint8_t seed[32]) { crypto_ed25519_key_pair(sk, pk, seed); }
void cm_monocypher_ed25519_sign(uint8_t sig[64], const uint8_t sk[64], const uint8_t *m, size_t n) { crypto_ed25519_sign(sig, sk, m, n); }
int cm_monocypher_ed25519_check(const uint8_t sig[64], const uint8_t pk[32], const uint8_t *m, size_t n) { return crypto_ed25519_check(sig, pk, m, n); }
