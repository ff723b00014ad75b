/* The firmware's view of Monocypher: flat functions over contexts held here
 * (one algorithm per firmware, one message at a time), so the Rust side
 * never mirrors a C struct. The HMAC keeps the keyed state apart so each
 * message starts from it, as a caller of crypto_sha512_hmac_init would. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "monocypher.h"
#include "optional/monocypher-ed25519.h"

static uint8_t aead_key[32];

void cm_monocypher_aead_setkey(const uint8_t key[32]) { memcpy(aead_key, key, 32); }

/* ChaCha20-Poly1305 of RFC 8439 (the IETF nonce): a context per message. */
void cm_monocypher_aead_encrypt(const uint8_t nonce[12], const uint8_t *ad, size_t ad_len,
                                uint8_t *buf, size_t len, uint8_t mac[16])
{
    crypto_aead_ctx ctx;
    crypto_aead_init_ietf(&ctx, aead_key, nonce);
    crypto_aead_write(&ctx, buf, mac, ad, ad_len, buf, len);
    crypto_wipe(&ctx, sizeof ctx);
}

int cm_monocypher_aead_decrypt(const uint8_t nonce[12], const uint8_t *ad, size_t ad_len,
                               uint8_t *buf, size_t len, const uint8_t mac[16])
{
    crypto_aead_ctx ctx;
    crypto_aead_init_ietf(&ctx, aead_key, nonce);
    int r = crypto_aead_read(&ctx, buf, mac, ad, ad_len, buf, len);
    crypto_wipe(&ctx, sizeof ctx);
    return r;
}

static crypto_sha512_ctx sha512;

void cm_monocypher_sha512_start(void) { crypto_sha512_init(&sha512); }
void cm_monocypher_sha512_update(const uint8_t *p, size_t n) { crypto_sha512_update(&sha512, p, n); }
void cm_monocypher_sha512_finish(uint8_t out[64]) { crypto_sha512_final(&sha512, out); }

static crypto_sha512_hmac_ctx hmac_keyed, hmac;

void cm_monocypher_hmac_setkey(const uint8_t *key, size_t key_len)
{
    crypto_sha512_hmac_init(&hmac_keyed, key, key_len);
    hmac = hmac_keyed;
}

void cm_monocypher_hmac_update(const uint8_t *p, size_t n) { crypto_sha512_hmac_update(&hmac, p, n); }

void cm_monocypher_hmac_finish(uint8_t out[64])
{
    crypto_sha512_hmac_final(&hmac, out);
    hmac = hmac_keyed;
}

void cm_monocypher_x25519_public(uint8_t pk[32], const uint8_t sk[32]) { crypto_x25519_public_key(pk, sk); }
void cm_monocypher_x25519(uint8_t shared[32], const uint8_t sk[32], const uint8_t pk[32]) { crypto_x25519(shared, sk, pk); }

void cm_monocypher_ed25519_keypair(uint8_t sk[64], uint8_t pk[32], uint8_t seed[32]) { crypto_ed25519_key_pair(sk, pk, seed); }
void cm_monocypher_ed25519_sign(uint8_t sig[64], const uint8_t sk[64], const uint8_t *m, size_t n) { crypto_ed25519_sign(sig, sk, m, n); }
int cm_monocypher_ed25519_check(const uint8_t sig[64], const uint8_t pk[32], const uint8_t *m, size_t n) { return crypto_ed25519_check(sig, pk, m, n); }
