/* cm_oscore_protect on a Cortex-M4 (QEMU mps2-an386, semihosting): RFC 8613
 * C.1.1's client context (master secret 0x01..0x10, salt 0x9e7ca92223786340,
 * sender id empty, recipient id 0x01) protects the reading "{}" at sequence
 * number 20; the message goes out in hex, or the status's words, and the
 * exit status says which. For tests/oscore_device.rs. */
#include "ciphermeter_seal.h"

static const uint8_t SECRET[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
static const uint8_t SALT[8] = {0x9e, 0x7c, 0xa9, 0x22, 0x23, 0x78, 0x63, 0x40};
static const uint8_t RECIPIENT[1] = {0x01};
static cm_oscore_context ctx;

/* ARM semihosting: SYS_WRITE0, then SYS_EXIT (ApplicationExit or RunTimeErrorUnknown). */
static void say(const char *text)
{
	register uint32_t r0 __asm__("r0") = 0x04;
	register const char *r1 __asm__("r1") = text;
	__asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}

static void leave(int ok)
{
	register uint32_t r0 __asm__("r0") = 0x18;
	register uint32_t r1 __asm__("r1") = ok ? 0x20026 : 0x20023;
	__asm__ volatile("bkpt 0xAB" : : "r"(r0), "r"(r1) : "memory");
	for (;;)
		;
}

void Reset_Handler(void)
{
	/* The FPU on (CPACR), for code built for thumbv7em-none-eabihf. */
	*(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
	__asm__ volatile("dsb\n\tisb");
	static char hex[2 * 128 + 2];
	uint8_t out[128];
	size_t len = 0;
	int32_t s = cm_oscore_context_init(&ctx, "oscore:aes-ccm-16-64-128", SECRET, sizeof SECRET, SALT,
					   sizeof SALT, NULL, 0, RECIPIENT, sizeof RECIPIENT, NULL, 0);
	if (s == CM_OK)
		s = cm_oscore_protect(&ctx, 20, NULL, 50, (const uint8_t *)"{}", 2, out, sizeof out, &len);
	if (s != CM_OK) {
		say(cm_strerror(s));
		leave(0);
	}
	for (size_t i = 0; i < len; i++) {
		hex[2 * i] = "0123456789abcdef"[out[i] >> 4];
		hex[2 * i + 1] = "0123456789abcdef"[out[i] & 15];
	}
	hex[2 * len] = '\n';
	say(hex);
	cm_oscore_context_wipe(&ctx);
	leave(1);
}

/* The initial stack pointer (the top of the 4 MB) and the reset vector. */
__attribute__((section(".isr_vector"))) const void *const vectors[2] = {(void *)0x00400000, (void *)Reset_Handler};
