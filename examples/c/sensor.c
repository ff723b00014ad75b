/*
 * A sensor's firmware in C calling ciphermeter's sealing library: it seals
 * readings under counter nonces kept in two storage slots, in the binary
 * container (the smallest of the three, which `recommend` ranks for LoRaWAN),
 * frames each for the serial line and writes it to the UART, where
 * `ciphermeter gateway` (or `ciphermeter open`) reads it. Over LoRaWAN the
 * sealed message alone is the FRMPayload: the radio frame delimits it, so
 * cm_frame's bytes are for serial lines and TCP only (docs/c-library.md). The same C runs on a Cortex-M0+ (QEMU
 * microbit: nRF51 UART, semihosting exit) and on an ATmega1284P (simavr with
 * ciphermeter's harness: USART0, EEPROM slots).
 *
 * KEY, KEY_ID and SCHEME come from key.h, which `examples/c/build` writes
 * from a `ciphermeter keygen` key file: provisioning, here at build time.
 *
 * From an OSCORE context file (keygen --scheme oscore:ALG), key.h holds the
 * context's master secret, salt and ids instead (OSCORE_SCHEME): each
 * reading is an OSCORE-protected CoAP POST (cm_oscore_protect) under a
 * sequence number from the same slots, framed on the UART as a binary
 * message is; each frame is one datagram to `ciphermeter gateway --listen
 * coap://… --container oscore` (crates/cli/tests/oscore_c_gateway_cli.rs
 * carries them there).
 *
 * Built for a link with frames (`examples/c/build KEY OUT BOARD IMPL LINK`),
 * key.h also holds FRAME_LEN, the link's frame (`ciphermeter link --link LINK
 * --format json`: fragment_frame_bytes; 12 on sigfox-rc1, 20 on ble-1m-27,
 * 51 at LoRaWAN EU868 DR0): a message longer than one frame is cut with
 * cm_fragment, and each fragment is what the radio sends as one frame. Here
 * each is framed on the UART as its own message, as `send --link` writes
 * them to a serial line, and `ciphermeter gateway` puts them back together.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ciphermeter_seal.h"
#include "key.h"

#ifndef READINGS
#define READINGS 3
#endif

/* ---- the board: a UART, two storage slots, an exit ---------------------- */
#if defined(__AVR__)
#include <avr/eeprom.h>
#include <avr/io.h>

static void uart_init(void)
{
	UCSR0A = 1 << U2X0;
	UBRR0L = 8; /* 111,111 baud at 8 MHz */
	UCSR0C = (1 << UCSZ01) | (1 << UCSZ00);
	UCSR0B = 1 << TXEN0;
}

static void uart_put(uint8_t b)
{
	while (!(UCSR0A & (1 << UDRE0)))
		;
	UDR0 = b;
}

/* EEPROM cells 0 and 16 hold the counter's slots; command 6 asks ciphermeter's
 * simavr harness to keep the EEPROM across runs, as the part itself would. */
static bool slot_read(void *ctx, size_t slot, uint8_t *out)
{
	(void)ctx;
	eeprom_read_block(out, (const void *)(slot * CM_SLOT_LEN), CM_SLOT_LEN);
	return true;
}

static bool slot_write(void *ctx, size_t slot, const uint8_t *bytes)
{
	(void)ctx;
	eeprom_update_block(bytes, (void *)(slot * CM_SLOT_LEN), CM_SLOT_LEN);
	GPIOR0 = 6;
	return true;
}

/* The harness has no console but the UART, which carries frames only. */
static void board_log(const char *text)
{
	(void)text;
}

static void board_exit(int status)
{
	GPIOR1 = (uint8_t)status;
	GPIOR0 = 5;
	for (;;)
		;
}
#else
#define NRF_UART(off) (*(volatile uint32_t *)(0x40002000u + (off)))

static void uart_init(void)
{
	NRF_UART(0x500) = 4; /* ENABLE */
	NRF_UART(0x008) = 1; /* TASKS_STARTTX */
}

static void uart_put(uint8_t b)
{
	NRF_UART(0x51C) = b; /* TXD */
	while (NRF_UART(0x11C) == 0) /* EVENTS_TXDRDY */
		;
	NRF_UART(0x11C) = 0;
}

/* The example keeps its slots in RAM: a real nRF51 would use two flash
 * words through the NVMC. The counter's logic is the library's either way. */
static uint8_t slots_ram[2][CM_SLOT_LEN];
static bool slots_written[2];

static bool slot_read(void *ctx, size_t slot, uint8_t *out)
{
	(void)ctx;
	if (!slots_written[slot])
		return false;
	for (size_t i = 0; i < CM_SLOT_LEN; i++)
		out[i] = slots_ram[slot][i];
	return true;
}

static bool slot_write(void *ctx, size_t slot, const uint8_t *bytes)
{
	(void)ctx;
	for (size_t i = 0; i < CM_SLOT_LEN; i++)
		slots_ram[slot][i] = bytes[i];
	slots_written[slot] = true;
	return true;
}

/* A line for the person running the board, apart from the UART's frames:
 * ARM semihosting SYS_WRITE0 (QEMU writes it to its stderr). */
static void board_log(const char *text)
{
	register uint32_t r0 __asm__("r0") = 0x04;
	register const char *r1 __asm__("r1") = text;
	/* The call's result comes back in r0. */
	__asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
}

static void board_exit(int status)
{
	/* ARM semihosting SYS_EXIT: ApplicationExit or RunTimeErrorUnknown. */
	register uint32_t r0 __asm__("r0") = 0x18;
	register uint32_t r1 __asm__("r1") = status == 0 ? 0x20026 : 0x20023;
	__asm__ volatile("bkpt 0xAB" : : "r"(r0), "r"(r1) : "memory");
	for (;;)
		;
}
#endif

/* ---- the application: seal, frame, send --------------------------------- */
static void uart_write(const uint8_t *p, size_t n)
{
	while (n--)
		uart_put(*p++);
}

/* {"t":T,"id":"Logger1","temp_c10":N}: integers only, no printf needed. */
static size_t reading(uint8_t *out, uint32_t t, int16_t temp_c10)
{
	static const char head[] = "{\"t\":", mid[] = ",\"id\":\"Logger1\",\"temp_c10\":";
	size_t n = 0;
	char digits[12];
	int d;
	for (const char *s = head; *s; s++)
		out[n++] = (uint8_t)*s;
	d = 0;
	do {
		digits[d++] = (char)('0' + t % 10);
		t /= 10;
	} while (t);
	while (d)
		out[n++] = (uint8_t)digits[--d];
	for (const char *s = mid; *s; s++)
		out[n++] = (uint8_t)*s;
	if (temp_c10 < 0) {
		out[n++] = '-';
		temp_c10 = (int16_t)-temp_c10;
	}
	d = 0;
	do {
		digits[d++] = (char)('0' + temp_c10 % 10);
		temp_c10 /= 10;
	} while (temp_c10);
	while (d)
		out[n++] = (uint8_t)digits[--d];
	out[n++] = '}';
	return n;
}

/* One message (or fragment) framed for the serial line. */
static void send_framed(const uint8_t *message, size_t len)
{
	uint8_t header[3], trailer[1];
	size_t hl, tl;
	if (cm_frame(CM_CONTAINER_BINARY, message, len, header, &hl, trailer, &tl) != CM_OK)
		board_exit(6);
	uart_write(header, hl);
	uart_write(message, len);
	uart_write(trailer, tl);
}

#ifdef FRAME_LEN
/* The message whole when it fits one frame, else its fragments, tagged with
 * the message's number (its counter nonce, which goes on across reboots, so
 * the 15 messages after one never share its tag): one frame each. */
static void send_fragments(const uint8_t *message, size_t len, uint8_t tag)
{
	static uint8_t frame[FRAME_LEN];
	size_t count, fl;
	if (cm_fragment_count(len, FRAME_LEN, &count) != CM_OK)
		board_exit(7);
	for (size_t f = 0; f < count; f++) {
		if (cm_fragment(message, len, FRAME_LEN, tag, f, frame, sizeof frame, &fl) != CM_OK)
			board_exit(8);
		send_framed(frame, fl);
	}
}
#endif

#ifdef OSCORE_SCHEME
static cm_oscore_context context;

/* The readings as OSCORE requests (Content-Format 50, JSON), one frame each. */
static void send_oscore(const cm_slots *slots, cm_counter *counter)
{
	static uint8_t reading_buf[96], request[160];
	if (cm_oscore_context_init(&context, OSCORE_SCHEME, MASTER_SECRET, MASTER_SECRET_LEN,
				   MASTER_SALT, MASTER_SALT_LEN, SENDER_ID, SENDER_ID_LEN, RECIPIENT_ID,
				   RECIPIENT_ID_LEN, NULL, 0) != CM_OK)
		board_exit(10);
	for (int i = 0; i < READINGS; i++) {
		uint64_t sequence;
		size_t len, n;
		if (cm_counter_reserve(slots, counter, &sequence) != CM_OK)
			board_exit(3);
		n = reading(reading_buf, 1555666777u + (uint32_t)i, (int16_t)(215 + i));
		if (cm_oscore_protect(&context, sequence, NULL, 50, reading_buf, n, request,
				      sizeof request, &len) != CM_OK)
			board_exit(11);
		send_framed(request, len);
	}
	cm_oscore_context_wipe(&context);
	board_exit(0);
}
#else
static uint8_t plain[96];
/* A reading's message plus the binary container's scratch is about 130
 * bytes: the AVR's stack needs the rest of its 16 KiB (at 640 it overran the
 * readings once cm_implementation's text joined the RAM's initialised data). */
static uint8_t sealed[256];
static uint8_t opened[640];
#endif

int main(void)
{
	const cm_slots slots = { 0, slot_read, slot_write };
	cm_counter counter;
	uart_init();
	/* Whose code seals, as the library says (its build refuses one that cannot). */
	const char *implementation;
	if (cm_implementation(SCHEME, &implementation) != CM_OK)
		board_exit(9);
	board_log(implementation);
	board_log("\n");
	if (cm_counter_resume(&slots, &counter) != CM_OK)
		board_exit(2);
#ifdef OSCORE_SCHEME
	send_oscore(&slots, &counter);
#else
	for (int i = 0; i < READINGS; i++) {
		uint64_t nonce;
		size_t len, n, pl;
		const uint8_t *pt;
		int32_t status = cm_counter_reserve(&slots, &counter, &nonce);
		if (status != CM_OK)
			board_exit(3);
		n = reading(plain, 1555666777u + (uint32_t)i, (int16_t)(215 + i));
		status = cm_seal(SCHEME, KEY, sizeof KEY, KEY_ID, sizeof KEY_ID, CM_CONTAINER_BINARY,
				 nonce, plain, n, sealed, sizeof sealed, &len);
		if (status != CM_OK)
			board_exit(4);
		/* Self-test: the library opens what it sealed, and refuses it altered. */
		if (cm_open(SCHEME, KEY, sizeof KEY, KEY_ID, sizeof KEY_ID, CM_CONTAINER_BINARY,
			    sealed, len, opened, sizeof opened, &pt, &pl) != CM_OK || pl != n)
			board_exit(5);
#ifdef FRAME_LEN
		send_fragments(sealed, len, (uint8_t)nonce);
#else
		send_framed(sealed, len);
#endif
	}
#endif
	board_exit(0);
	return 0;
}
