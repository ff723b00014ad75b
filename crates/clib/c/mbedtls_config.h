/* Mbed TLS 2.28 configuration for crates/clib (the firmware's `impl-mbedtls`
 * builds and the sealing core's `mbedtls` backend): the
 * modules measured, nothing else, and what a bare-metal build must turn off
 * (file system, OS entropy, time). Our own file: MBEDTLS_CONFIG_FILE. */
#ifndef CM_MBEDTLS_CONFIG_H
#define CM_MBEDTLS_CONFIG_H

/* No OS, no time, no entropy. Memory: Mbed TLS's own allocator over a static
 * buffer on Cortex-M and riscv32; a hosted build (CM_HOSTED: the host, a
 * board's Linux) keeps the C library's calloc, thread-safe; on AVR our arena allocator (shim_mbedtls.c), because
 * Mbed TLS's is not 16-bit clean (its 32-bit header magic is kept in a
 * size_t, 16 bits there, so every header looks corrupt and it stops the
 * program) and avr-libc's malloc would put the heap where the simulator
 * measures the stack. */
#define MBEDTLS_PLATFORM_C
#define MBEDTLS_PLATFORM_MEMORY
#if !defined(__AVR__) && !defined(CM_HOSTED)
#define MBEDTLS_MEMORY_BUFFER_ALLOC_C
#endif
#if !defined(CM_HOSTED)
#define MBEDTLS_PLATFORM_NO_STD_FUNCTIONS
#endif
#define MBEDTLS_NO_PLATFORM_ENTROPY
#define MBEDTLS_PLATFORM_SNPRINTF_MACRO cm_no_snprintf
#define MBEDTLS_PLATFORM_PRINTF_MACRO cm_no_printf
#define MBEDTLS_PLATFORM_FPRINTF_MACRO cm_no_fprintf
#define MBEDTLS_PLATFORM_EXIT_MACRO cm_no_exit
#define MBEDTLS_PLATFORM_STD_EXIT_SUCCESS 0
#define MBEDTLS_PLATFORM_STD_EXIT_FAILURE 1
int cm_no_snprintf(char *s, unsigned long n, const char *fmt, ...);
int cm_no_printf(const char *fmt, ...);
int cm_no_fprintf(void *f, const char *fmt, ...);
void cm_no_exit(int status);

/* AES: an AVR copies constant data to its 16 KiB of SRAM, so there the four
 * 1 KiB round tables become one (MBEDTLS_AES_FEWER_TABLES, what an AVR build
 * would choose); Cortex-M keeps the full tables in flash (ROM tables). */
#define MBEDTLS_AES_C
#if defined(__AVR__)
#define MBEDTLS_AES_FEWER_TABLES
#else
#define MBEDTLS_AES_ROM_TABLES
#endif
#define MBEDTLS_CIPHER_MODE_CTR
#define MBEDTLS_CIPHER_C
#define MBEDTLS_GCM_C
#define MBEDTLS_CCM_C
#define MBEDTLS_CHACHA20_C
#define MBEDTLS_POLY1305_C
#define MBEDTLS_CHACHAPOLY_C

#define MBEDTLS_SHA256_C
#define MBEDTLS_SHA512_C
#define MBEDTLS_MD_C

/* P-256 ECDH and ECDSA. */
#define MBEDTLS_BIGNUM_C
#define MBEDTLS_ECP_C
#define MBEDTLS_ECP_DP_SECP256R1_ENABLED
#define MBEDTLS_ECP_NIST_OPTIM
/* The caller gives the random source (the benchmark: a fixed stream). */
#define MBEDTLS_ECP_NO_INTERNAL_RNG
/* The small-RAM settings Mbed TLS documents for P-256: a 2-bit window and
 * no fixed-point table (the defaults need more than a 16 KiB part has). */
#define MBEDTLS_ECP_WINDOW_SIZE 2
#define MBEDTLS_ECP_FIXED_POINT_OPTIM 0
#define MBEDTLS_ECDH_C
#define MBEDTLS_ECDSA_C
#define MBEDTLS_ECDSA_DETERMINISTIC
#define MBEDTLS_HMAC_DRBG_C
#define MBEDTLS_ASN1_PARSE_C
#define MBEDTLS_ASN1_WRITE_C

#include "mbedtls/check_config.h"
#endif
