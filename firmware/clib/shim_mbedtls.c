/* The firmware's view of Mbed TLS: a few flat functions over contexts held
 * here, so the Rust side never mirrors a C struct (their layout changes with
 * the target's `int` and the configuration, and AES's holds a pointer into
 * itself). One algorithm runs per firmware, one message at a time. */
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

#if !defined(MBEDTLS_MEMORY_BUFFER_ALLOC_C)
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
#else
        arena[0] = (uint16_t)sizeof arena;
        mbedtls_platform_set_calloc_free(arena_calloc, arena_free);
#endif
        heap_ready = 1;
    }
}

/* ---- AES: one key schedule per direction, as Mbed TLS keeps them. ---- */
static mbedtls_aes_context aes_enc, aes_dec;

int cm_mbedtls_aes_setkey(const uint8_t *key, unsigned bits)
{
    mbedtls_aes_init(&aes_enc);
    mbedtls_aes_init(&aes_dec);
    if (mbedtls_aes_setkey_enc(&aes_enc, key, bits) != 0) return -1;
    return mbedtls_aes_setkey_dec(&aes_dec, key, bits) == 0 ? 0 : -1;
}

void cm_mbedtls_aes_encrypt(uint8_t block[16])
{
    mbedtls_aes_crypt_ecb(&aes_enc, MBEDTLS_AES_ENCRYPT, block, block);
}

void cm_mbedtls_aes_decrypt(uint8_t block[16])
{
    mbedtls_aes_crypt_ecb(&aes_dec, MBEDTLS_AES_DECRYPT, block, block);
}

/* CTR with a 128-bit big-endian counter block, as SP 800-38A counts. */
int cm_mbedtls_aes_ctr(const uint8_t iv[16], uint8_t *buf, size_t len)
{
    unsigned char counter[16], stream[16];
    size_t offset = 0;
    memcpy(counter, iv, 16);
    return mbedtls_aes_crypt_ctr(&aes_enc, len, &offset, counter, stream, buf, buf);
}

/* ---- AEADs: encrypt in place with a detached tag; decrypt checks it. ---- */
static mbedtls_gcm_context gcm;
static mbedtls_ccm_context ccm;
static mbedtls_chachapoly_context chachapoly;

int cm_mbedtls_gcm_setkey(const uint8_t *key, unsigned bits)
{
    ready();
    mbedtls_gcm_free(&gcm);
    mbedtls_gcm_init(&gcm);
    return mbedtls_gcm_setkey(&gcm, MBEDTLS_CIPHER_ID_AES, key, bits) == 0 ? 0 : -1;
}

int cm_mbedtls_gcm_encrypt(const uint8_t *nonce, size_t nonce_len, const uint8_t *ad, size_t ad_len,
                           uint8_t *buf, size_t len, uint8_t *tag, size_t tag_len)
{
    return mbedtls_gcm_crypt_and_tag(&gcm, MBEDTLS_GCM_ENCRYPT, len, nonce, nonce_len, ad, ad_len,
                                     buf, buf, tag_len, tag) == 0 ? 0 : -1;
}

int cm_mbedtls_gcm_decrypt(const uint8_t *nonce, size_t nonce_len, const uint8_t *ad, size_t ad_len,
                           uint8_t *buf, size_t len, const uint8_t *tag, size_t tag_len)
{
    return mbedtls_gcm_auth_decrypt(&gcm, len, nonce, nonce_len, ad, ad_len, tag, tag_len, buf,
                                    buf) == 0 ? 0 : -1;
}

int cm_mbedtls_ccm_setkey(const uint8_t *key, unsigned bits)
{
    ready();
    mbedtls_ccm_free(&ccm);
    mbedtls_ccm_init(&ccm);
    return mbedtls_ccm_setkey(&ccm, MBEDTLS_CIPHER_ID_AES, key, bits) == 0 ? 0 : -1;
}

int cm_mbedtls_ccm_encrypt(const uint8_t *nonce, size_t nonce_len, const uint8_t *ad, size_t ad_len,
                           uint8_t *buf, size_t len, uint8_t *tag, size_t tag_len)
{
    return mbedtls_ccm_encrypt_and_tag(&ccm, len, nonce, nonce_len, ad, ad_len, buf, buf, tag,
                                       tag_len) == 0 ? 0 : -1;
}

int cm_mbedtls_ccm_decrypt(const uint8_t *nonce, size_t nonce_len, const uint8_t *ad, size_t ad_len,
                           uint8_t *buf, size_t len, const uint8_t *tag, size_t tag_len)
{
    return mbedtls_ccm_auth_decrypt(&ccm, len, nonce, nonce_len, ad, ad_len, buf, buf, tag,
                                    tag_len) == 0 ? 0 : -1;
}

int cm_mbedtls_chachapoly_setkey(const uint8_t key[32])
{
    mbedtls_chachapoly_init(&chachapoly);
    return mbedtls_chachapoly_setkey(&chachapoly, key) == 0 ? 0 : -1;
}

int cm_mbedtls_chachapoly_encrypt(const uint8_t nonce[12], const uint8_t *ad, size_t ad_len,
                                  uint8_t *buf, size_t len, uint8_t tag[16])
{
    return mbedtls_chachapoly_encrypt_and_tag(&chachapoly, len, nonce, ad, ad_len, buf, buf, tag)
        == 0 ? 0 : -1;
}

int cm_mbedtls_chachapoly_decrypt(const uint8_t nonce[12], const uint8_t *ad, size_t ad_len,
                                  uint8_t *buf, size_t len, const uint8_t tag[16])
{
    return mbedtls_chachapoly_auth_decrypt(&chachapoly, len, nonce, ad, ad_len, tag, buf, buf)
        == 0 ? 0 : -1;
}

/* ---- Hashes: one running context each. ---- */
static mbedtls_sha256_context sha256;
static mbedtls_sha512_context sha512;

void cm_mbedtls_sha256_start(void) { mbedtls_sha256_init(&sha256); mbedtls_sha256_starts_ret(&sha256, 0); }
void cm_mbedtls_sha256_update(const uint8_t *p, size_t n) { mbedtls_sha256_update_ret(&sha256, p, n); }
void cm_mbedtls_sha256_finish(uint8_t out[32]) { mbedtls_sha256_finish_ret(&sha256, out); }
void cm_mbedtls_sha512_start(void) { mbedtls_sha512_init(&sha512); mbedtls_sha512_starts_ret(&sha512, 0); }
void cm_mbedtls_sha512_update(const uint8_t *p, size_t n) { mbedtls_sha512_update_ret(&sha512, p, n); }
void cm_mbedtls_sha512_finish(uint8_t out[64]) { mbedtls_sha512_finish_ret(&sha512, out); }

/* ---- HMAC through the md layer, as Mbed TLS users call it: the key is set
 * once; each message is reset (the inner pad again), update, finish. ---- */
static mbedtls_md_context_t hmac;

int cm_mbedtls_hmac_setkey(unsigned sha_bits, const uint8_t *key, size_t key_len)
{
    ready();
    mbedtls_md_free(&hmac);
    mbedtls_md_init(&hmac);
    const mbedtls_md_info_t *info =
        mbedtls_md_info_from_type(sha_bits == 512 ? MBEDTLS_MD_SHA512 : MBEDTLS_MD_SHA256);
    if (info == NULL || mbedtls_md_setup(&hmac, info, 1) != 0) return -1;
    return mbedtls_md_hmac_starts(&hmac, key, key_len) == 0 ? 0 : -1;
}

void cm_mbedtls_hmac_update(const uint8_t *p, size_t n) { mbedtls_md_hmac_update(&hmac, p, n); }

void cm_mbedtls_hmac_finish(uint8_t *out)
{
    mbedtls_md_hmac_finish(&hmac, out);
    mbedtls_md_hmac_reset(&hmac);
}

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
