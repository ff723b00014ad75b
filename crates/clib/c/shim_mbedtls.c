/* Our view of Mbed TLS: a few flat functions over contexts held
 * here, so the Rust side never mirrors a C struct (their layout changes with
 * the target's `int` and the configuration): the Rust side holds each
 * context as opaque bytes of a size build.rs fixes and passes it back. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mbedtls/aes.h"
#include "mbedtls/ccm.h"
#include "mbedtls/chachapoly.h"
#include "mbedtls/ecdh.h"
#include "mbedtls/ecdsa.h"
#include "mbedtls/gcm.h"
#include "mbedtls/md.h"
#include "mbedtls/memory_buffer_alloc.h"
#include "mbedtls/platform.h"
#include "mbedtls/sha256.h"
#include "mbedtls/sha512.h"

int cm_no_snprintf(char *s, unsigned long n, const char *fmt, ...) { (void)fmt; if (n) s[0] = 0; return 0; }
int cm_no_printf(const char *fmt, ...) { (void)fmt; return 0; }
int cm_no_fprintf(void *f, const char *fmt, ...) { (void)f; (void)fmt; return 0; }
void cm_no_exit(int status) { (void)status; for (;;) {} }

/* The heap HMAC's md context, GCM's and CCM's cipher context and the
 * bignums of P-256 come from (mbedtls_config.h says which allocator). */
#if defined(MBEDTLS_MEMORY_BUFFER_ALLOC_C)
#ifndef CM_MBEDTLS_HEAP
#define CM_MBEDTLS_HEAP 4096
#endif
static unsigned char heap[CM_MBEDTLS_HEAP];
#endif
static int heap_ready;

#if !defined(MBEDTLS_MEMORY_BUFFER_ALLOC_C) && !defined(CM_HOSTED)
/* A first-fit allocator over a static arena, 16-bit clean: each block starts
 * with a 2-byte word, its size in bytes with the low bit set while in use.
 * Static, so the harness counts the heap as static data, not as stack. */
#ifndef CM_MBEDTLS_HEAP
#define CM_MBEDTLS_HEAP 5120
#endif
static uint16_t arena[CM_MBEDTLS_HEAP / 2];
#define ARENA_WORDS (sizeof arena / sizeof arena[0])

static void *arena_calloc(size_t n, size_t size)
{
    if (size != 0 && n > (size_t)-1 / size) return NULL;
    size_t bytes = n * size;
    if (bytes > sizeof arena - 2) return NULL;
    size_t words = (bytes + 1) / 2 + 1; /* the header word too */
    for (size_t i = 0; i < ARENA_WORDS; i += arena[i] / 2) {
        uint16_t block = arena[i] & ~1u;
        if (arena[i] & 1u) continue;
        /* Merge the free blocks that follow before judging the size. */
        while (i + block / 2 < ARENA_WORDS && !(arena[i + block / 2] & 1u))
            block += arena[i + block / 2];
        arena[i] = block;
        if (block / 2 < words) continue;
        if (block / 2 > words + 1) { /* split off the rest */
            arena[i + words] = (uint16_t)(block - words * 2);
            block = (uint16_t)(words * 2);
        }
        arena[i] = block | 1u;
        memset(&arena[i + 1], 0, (size_t)(block - 2));
        return &arena[i + 1];
    }
    return NULL;
}

static void arena_free(void *p)
{
    if (p != NULL) ((uint16_t *)p)[-1] &= ~1u;
}
#endif

static void ready(void)
{
    if (!heap_ready) {
#if defined(MBEDTLS_MEMORY_BUFFER_ALLOC_C)
        mbedtls_memory_buffer_alloc_init(heap, sizeof heap);
#elif !defined(CM_HOSTED) /* hosted: the C library's calloc (the config) */
        arena[0] = (uint16_t)sizeof arena;
        mbedtls_platform_set_calloc_free(arena_calloc, arena_free);
#endif
        heap_ready = 1;
    }
}

/* Each context lives in the Rust value that owns it (src/mbedtls.rs), in
 * the bytes build.rs reserves, so two keys never share one and the host may
 * seal on many threads. */
_Static_assert(sizeof(mbedtls_aes_context) <= CM_AES_BYTES, "CM_AES_BYTES (build.rs) too small");
_Static_assert(sizeof(mbedtls_gcm_context) <= CM_GCM_BYTES, "CM_GCM_BYTES (build.rs) too small");
_Static_assert(sizeof(mbedtls_ccm_context) <= CM_CCM_BYTES, "CM_CCM_BYTES (build.rs) too small");
_Static_assert(sizeof(mbedtls_chachapoly_context) <= CM_CHACHAPOLY_BYTES, "CM_CHACHAPOLY_BYTES (build.rs) too small");
_Static_assert(sizeof(mbedtls_sha256_context) <= CM_SHA256_BYTES, "CM_SHA256_BYTES (build.rs) too small");
_Static_assert(sizeof(mbedtls_sha512_context) <= CM_SHA512_BYTES, "CM_SHA512_BYTES (build.rs) too small");

/* ---- AES: one key schedule per direction, as Mbed TLS keeps them. The
 * round keys sit inside the context and `rk` points at them; Rust moves
 * values, so each call points it there again. ---- */
int cm_mbedtls_aes_setkey(mbedtls_aes_context *enc, mbedtls_aes_context *dec, const uint8_t *key,
                          unsigned bits)
{
    mbedtls_aes_init(enc);
    mbedtls_aes_init(dec);
    if (mbedtls_aes_setkey_enc(enc, key, bits) != 0) return -1;
    return mbedtls_aes_setkey_dec(dec, key, bits) == 0 ? 0 : -1;
}

void cm_mbedtls_aes_encrypt(mbedtls_aes_context *enc, uint8_t block[16])
{
    enc->rk = enc->buf;
    mbedtls_aes_crypt_ecb(enc, MBEDTLS_AES_ENCRYPT, block, block);
}

void cm_mbedtls_aes_decrypt(mbedtls_aes_context *dec, uint8_t block[16])
{
    dec->rk = dec->buf;
    mbedtls_aes_crypt_ecb(dec, MBEDTLS_AES_DECRYPT, block, block);
}

void cm_mbedtls_aes_free(mbedtls_aes_context *ctx) { mbedtls_aes_free(ctx); }

/* CTR with a 128-bit big-endian counter block, as SP 800-38A counts. */
int cm_mbedtls_aes_ctr(mbedtls_aes_context *enc, const uint8_t iv[16], uint8_t *buf, size_t len)
{
    unsigned char counter[16], stream[16];
    size_t offset = 0;
    memcpy(counter, iv, 16);
    enc->rk = enc->buf;
    return mbedtls_aes_crypt_ctr(enc, len, &offset, counter, stream, buf, buf);
}

/* ---- AEADs: encrypt in place with a detached tag; decrypt checks it.
 * GCM's and CCM's AES sits in the cipher layer's heap block, which stays
 * put when the context moves. ---- */
int cm_mbedtls_gcm_setkey(mbedtls_gcm_context *gcm, const uint8_t *key, unsigned bits)
{
    ready();
    mbedtls_gcm_init(gcm);
    return mbedtls_gcm_setkey(gcm, MBEDTLS_CIPHER_ID_AES, key, bits) == 0 ? 0 : -1;
}

int cm_mbedtls_gcm_encrypt(mbedtls_gcm_context *gcm, const uint8_t *nonce, size_t nonce_len,
                           const uint8_t *ad, size_t ad_len, uint8_t *buf, size_t len, uint8_t *tag,
                           size_t tag_len)
{
    return mbedtls_gcm_crypt_and_tag(gcm, MBEDTLS_GCM_ENCRYPT, len, nonce, nonce_len, ad, ad_len,
                                     buf, buf, tag_len, tag) == 0 ? 0 : -1;
}

int cm_mbedtls_gcm_decrypt(mbedtls_gcm_context *gcm, const uint8_t *nonce, size_t nonce_len,
                           const uint8_t *ad, size_t ad_len, uint8_t *buf, size_t len,
                           const uint8_t *tag, size_t tag_len)
{
    return mbedtls_gcm_auth_decrypt(gcm, len, nonce, nonce_len, ad, ad_len, tag, tag_len, buf,
                                    buf) == 0 ? 0 : -1;
}

void cm_mbedtls_gcm_free(mbedtls_gcm_context *gcm) { mbedtls_gcm_free(gcm); }

int cm_mbedtls_ccm_setkey(mbedtls_ccm_context *ccm, const uint8_t *key, unsigned bits)
{
    ready();
    mbedtls_ccm_init(ccm);
    return mbedtls_ccm_setkey(ccm, MBEDTLS_CIPHER_ID_AES, key, bits) == 0 ? 0 : -1;
}

int cm_mbedtls_ccm_encrypt(mbedtls_ccm_context *ccm, const uint8_t *nonce, size_t nonce_len,
                           const uint8_t *ad, size_t ad_len, uint8_t *buf, size_t len, uint8_t *tag,
                           size_t tag_len)
{
    return mbedtls_ccm_encrypt_and_tag(ccm, len, nonce, nonce_len, ad, ad_len, buf, buf, tag,
                                       tag_len) == 0 ? 0 : -1;
}

int cm_mbedtls_ccm_decrypt(mbedtls_ccm_context *ccm, const uint8_t *nonce, size_t nonce_len,
                           const uint8_t *ad, size_t ad_len, uint8_t *buf, size_t len,
                           const uint8_t *tag, size_t tag_len)
{
    return mbedtls_ccm_auth_decrypt(ccm, len, nonce, nonce_len, ad, ad_len, buf, buf, tag,
                                    tag_len) == 0 ? 0 : -1;
}

void cm_mbedtls_ccm_free(mbedtls_ccm_context *ccm) { mbedtls_ccm_free(ccm); }

int cm_mbedtls_chachapoly_setkey(mbedtls_chachapoly_context *ctx, const uint8_t key[32])
{
    mbedtls_chachapoly_init(ctx);
    return mbedtls_chachapoly_setkey(ctx, key) == 0 ? 0 : -1;
}

int cm_mbedtls_chachapoly_encrypt(mbedtls_chachapoly_context *ctx, const uint8_t nonce[12],
                                  const uint8_t *ad, size_t ad_len, uint8_t *buf, size_t len,
                                  uint8_t tag[16])
{
    return mbedtls_chachapoly_encrypt_and_tag(ctx, len, nonce, ad, ad_len, buf, buf, tag) == 0
        ? 0 : -1;
}

int cm_mbedtls_chachapoly_decrypt(mbedtls_chachapoly_context *ctx, const uint8_t nonce[12],
                                  const uint8_t *ad, size_t ad_len, uint8_t *buf, size_t len,
                                  const uint8_t tag[16])
{
    return mbedtls_chachapoly_auth_decrypt(ctx, len, nonce, ad, ad_len, tag, buf, buf) == 0 ? 0
                                                                                           : -1;
}

void cm_mbedtls_chachapoly_free(mbedtls_chachapoly_context *ctx) { mbedtls_chachapoly_free(ctx); }

/* ---- Hashes: plain contexts, so a copy is a fork of the running hash (an
 * HMAC's keyed state). HMAC itself is RFC 2104 over these (src/mbedtls.rs):
 * the same compressions as Mbed TLS's md layer, without its heap. ---- */
void cm_mbedtls_sha256_start(mbedtls_sha256_context *c) { mbedtls_sha256_init(c); mbedtls_sha256_starts_ret(c, 0); }
void cm_mbedtls_sha256_update(mbedtls_sha256_context *c, const uint8_t *p, size_t n) { mbedtls_sha256_update_ret(c, p, n); }
void cm_mbedtls_sha256_finish(mbedtls_sha256_context *c, uint8_t out[32]) { mbedtls_sha256_finish_ret(c, out); }
void cm_mbedtls_sha512_start(mbedtls_sha512_context *c) { mbedtls_sha512_init(c); mbedtls_sha512_starts_ret(c, 0); }
void cm_mbedtls_sha512_update(mbedtls_sha512_context *c, const uint8_t *p, size_t n) { mbedtls_sha512_update_ret(c, p, n); }
void cm_mbedtls_sha512_finish(mbedtls_sha512_context *c, uint8_t out[64]) { mbedtls_sha512_finish_ret(c, out); }

/* ---- P-256: ECDH and deterministic ECDSA (RFC 6979) with SHA-256. Keys
 * and points in SEC 1 bytes: a 32-byte scalar, a 65-byte uncompressed point,
 * a signature as r || s. ---- */

/* The blinding randomness Mbed TLS asks for: a fixed stream, as this is a
 * benchmark whose counts must repeat (never a device's key source). */
static int bench_rng(void *state, unsigned char *out, size_t len)
{
    unsigned char *counter = state;
    for (size_t i = 0; i < len; i++) out[i] = (unsigned char)(0xa5 ^ (*counter)++);
    return 0;
}
static unsigned char rng_state;

static int p256(mbedtls_ecp_group *grp)
{
    ready();
    mbedtls_ecp_group_init(grp);
    return mbedtls_ecp_group_load(grp, MBEDTLS_ECP_DP_SECP256R1);
}

int cm_mbedtls_p256_public(const uint8_t sk[32], uint8_t pk[65])
{
    mbedtls_ecp_group grp;
    mbedtls_mpi d;
    mbedtls_ecp_point q;
    size_t len = 0;
    mbedtls_mpi_init(&d);
    mbedtls_ecp_point_init(&q);
    int r = p256(&grp);
    if (r == 0) r = mbedtls_mpi_read_binary(&d, sk, 32);
    if (r == 0) r = mbedtls_ecp_mul(&grp, &q, &d, &grp.G, bench_rng, &rng_state);
    if (r == 0) r = mbedtls_ecp_point_write_binary(&grp, &q, MBEDTLS_ECP_PF_UNCOMPRESSED, &len, pk, 65);
    mbedtls_ecp_point_free(&q);
    mbedtls_mpi_free(&d);
    mbedtls_ecp_group_free(&grp);
    return r == 0 && len == 65 ? 0 : -1;
}

int cm_mbedtls_p256_shared(const uint8_t sk[32], const uint8_t peer[65], uint8_t out[32])
{
    mbedtls_ecp_group grp;
    mbedtls_mpi d, z;
    mbedtls_ecp_point q;
    mbedtls_mpi_init(&d);
    mbedtls_mpi_init(&z);
    mbedtls_ecp_point_init(&q);
    int r = p256(&grp);
    if (r == 0) r = mbedtls_mpi_read_binary(&d, sk, 32);
    if (r == 0) r = mbedtls_ecp_point_read_binary(&grp, &q, peer, 65);
    if (r == 0) r = mbedtls_ecp_check_pubkey(&grp, &q);
    if (r == 0) r = mbedtls_ecdh_compute_shared(&grp, &z, &q, &d, bench_rng, &rng_state);
    if (r == 0) r = mbedtls_mpi_write_binary(&z, out, 32);
    mbedtls_ecp_point_free(&q);
    mbedtls_mpi_free(&z);
    mbedtls_mpi_free(&d);
    mbedtls_ecp_group_free(&grp);
    return r == 0 ? 0 : -1;
}

int cm_mbedtls_p256_sign(const uint8_t sk[32], const uint8_t *msg, size_t msg_len, uint8_t sig[64])
{
    mbedtls_ecp_group grp;
    mbedtls_mpi d, r_, s_;
    unsigned char hash[32];
    mbedtls_mpi_init(&d);
    mbedtls_mpi_init(&r_);
    mbedtls_mpi_init(&s_);
    int r = p256(&grp);
    if (r == 0) r = mbedtls_sha256_ret(msg, msg_len, hash, 0);
    if (r == 0) r = mbedtls_mpi_read_binary(&d, sk, 32);
    if (r == 0) r = mbedtls_ecdsa_sign_det_ext(&grp, &r_, &s_, &d, hash, 32, MBEDTLS_MD_SHA256,
                                               bench_rng, &rng_state);
    if (r == 0) r = mbedtls_mpi_write_binary(&r_, sig, 32);
    if (r == 0) r = mbedtls_mpi_write_binary(&s_, sig + 32, 32);
    mbedtls_mpi_free(&s_);
    mbedtls_mpi_free(&r_);
    mbedtls_mpi_free(&d);
    mbedtls_ecp_group_free(&grp);
    return r == 0 ? 0 : -1;
}

int cm_mbedtls_p256_verify(const uint8_t pk[65], const uint8_t *msg, size_t msg_len, const uint8_t sig[64])
{
    mbedtls_ecp_group grp;
    mbedtls_ecp_point q;
    mbedtls_mpi r_, s_;
    unsigned char hash[32];
    mbedtls_ecp_point_init(&q);
    mbedtls_mpi_init(&r_);
    mbedtls_mpi_init(&s_);
    int r = p256(&grp);
    if (r == 0) r = mbedtls_sha256_ret(msg, msg_len, hash, 0);
    if (r == 0) r = mbedtls_ecp_point_read_binary(&grp, &q, pk, 65);
    if (r == 0) r = mbedtls_mpi_read_binary(&r_, sig, 32);
    if (r == 0) r = mbedtls_mpi_read_binary(&s_, sig + 32, 32);
    if (r == 0) r = mbedtls_ecdsa_verify(&grp, hash, 32, &q, &r_, &s_);
    mbedtls_mpi_free(&s_);
    mbedtls_mpi_free(&r_);
    mbedtls_ecp_point_free(&q);
    mbedtls_ecp_group_free(&grp);
    return r == 0 ? 0 : -1;
}
