/*
 * ciphermeter simavr harness: runs a firmware ELF on a simulated ATmega1284P
 * and counts exact CPU cycles between the firmware's start/stop markers.
 * C only because libsimavr is a C library; all analysis happens in Rust.
 *
 * Protocol (see firmware/src/platform/avr.rs): the firmware writes a command
 * to GPIOR0 (data address 0x3E) with arguments in GPIOR1/GPIOR2 (0x4A/0x4B):
 *   1 start region   2 stop region   3 put byte GPIOR1 on stdout
 *   4 stack floor = GPIOR2:GPIOR1    5 exit with status GPIOR1
 *   6 save the EEPROM to the --eeprom file (an uplink device's counter)
 * At stop the harness prints "C <cycles> <stack bytes> <room>\n" where cycles is
 * avr->cycle(stop) - avr->cycle(start): it includes the marker cost, which
 * the calibration region measures (the host subtracts it).
 * At start the free SRAM between the floor and SP is painted; at stop the
 * lowest overwritten byte gives the region's peak stack; room is the painted
 * size, so a peak equal to it means the stack ran into the static data.
 *
 * Uplink devices (ciphermeter device-send): --uart copies USART0's output to
 * stdout as it is sent (everything else printed goes to stderr), and --eeprom FILE loads
 * the EEPROM from FILE at start (if it exists) and writes it back, whole and
 * atomically (a temporary file renamed), at each command 6.
 *
 * The constant-time check (crates/mcu `ct`): --trace FILE writes, for every
 * instruction inside a region, its byte address as a little-endian u32, then,
 * for a load or store through X, Y or Z (LD, ST, LDD, STD, LPM, ELPM), the
 * address it reads or writes with bit 31 set (bit 24 set too for program
 * memory); 0xFFFFFFFF ends each region. LDS/STS (fixed addresses) and the
 * stack's PUSH/POP are not recorded.
 *
 * Usage: harness [--mcu NAME] [--freq HZ] [--max-cycles N] [--uart] [--eeprom FILE] [--trace FILE] firmware.elf
 * Exit status: the firmware's, 3 on a crash or when max cycles pass, 4 on
 * bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>
#include <unistd.h>

#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_io.h>
#include <simavr/avr_uart.h>
#include <simavr/avr_eeprom.h>

#define GPIOR0 0x3E
#define GPIOR1 0x4A
#define GPIOR2 0x4B
#define SPL 0x5D
#define SPH 0x5E
#define PAINT 0xA5

static struct {
	avr_cycle_count_t start;
	uint16_t floor;
	uint16_t sp_at_start;
	int running;
	int exited;
	int status;
	int uart; /* the UART's file descriptor (--uart), else 0 */
	const char *eeprom;
	FILE *trace; /* --trace */
} st;

#define EEPROM_BYTES 4096

static void save_eeprom(avr_t *avr)
{
	if (!st.eeprom)
		return;
	uint8_t buf[EEPROM_BYTES];
	avr_eeprom_desc_t d = { .ee = buf, .offset = 0, .size = EEPROM_BYTES };
	/* simavr's EEPROM_GET returns -1 even when it copied: not checked. */
	avr_ioctl(avr, AVR_IOCTL_EEPROM_GET, &d);
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", st.eeprom);
	FILE *f = fopen(tmp, "wb");
	if (!f || fwrite(d.ee, 1, EEPROM_BYTES, f) != EEPROM_BYTES || fflush(f) != 0 || fsync(fileno(f)) != 0) {
		fprintf(stderr, "harness: cannot write %s\n", tmp);
		if (f)
			fclose(f);
		return;
	}
	fclose(f);
	if (rename(tmp, st.eeprom) != 0)
		fprintf(stderr, "harness: cannot replace %s\n", st.eeprom);
}

static void load_eeprom(avr_t *avr)
{
	uint8_t buf[EEPROM_BYTES];
	FILE *f = fopen(st.eeprom, "rb");
	if (!f)
		return; /* blank part: simavr's EEPROM starts erased (0xFF) */
	size_t n = fread(buf, 1, EEPROM_BYTES, f);
	fclose(f);
	avr_eeprom_desc_t d = { .ee = buf, .offset = 0, .size = (uint32_t)n };
	avr_ioctl(avr, AVR_IOCTL_EEPROM_SET, &d);
}

static void on_uart_byte(struct avr_irq_t *irq, uint32_t value, void *param)
{
	(void)irq;
	(void)param;
	uint8_t b = (uint8_t)value;
	if (write(st.uart, &b, 1) != 1)
		st.exited = 1, st.status = 3; /* the reader went away */
}

static void trace_word(uint32_t w)
{
	uint8_t b[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24) };
	fwrite(b, 1, 4, st.trace);
}

/* The data address of a load or store through a pointer register, with
 * bit 24 set for program memory; -1 for any other instruction. */
static int32_t pointer_address(avr_t *avr, uint16_t op)
{
	const uint8_t *r = avr->data; /* r0..r31 sit at data addresses 0..31 */
	int32_t x = r[26] | (r[27] << 8), y = r[28] | (r[29] << 8), z = r[30] | (r[31] << 8);
	if (op == 0x95C8) /* LPM r0, Z */
		return 0x1000000 | z;
	if (op == 0x95D8) /* ELPM r0, RAMPZ:Z (RAMPZ, I/O 0x3B, at data 0x5B) */
		return 0x1000000 | (avr->data[0x5B] << 16) | z;
	if ((op & 0xD000) == 0x8000) { /* LDD/STD Y+q, Z+q (LD/ST Y, Z when q = 0) */
		int q = ((op >> 8) & 0x20) | ((op >> 7) & 0x18) | (op & 7);
		return ((op & 8) ? y : z) + q;
	}
	if ((op & 0xFC00) != 0x9000) /* not 1001 00sd dddd xxxx */
		return -1;
	int store = op & 0x200;
	switch (op & 0xF) {
	case 0x1: return z;     /* Z+ */
	case 0x2: return z - 1; /* -Z */
	case 0x4: case 0x5: /* LPM Rd, Z(+) */
		return store ? -1 : 0x1000000 | z;
	case 0x6: case 0x7: /* ELPM Rd, Z(+) */
		return store ? -1 : 0x1000000 | (avr->data[0x5B] << 16) | z;
	case 0x9: return y;     /* Y+ */
	case 0xA: return y - 1; /* -Y */
	case 0xC: case 0xD: return x; /* X, X+ */
	case 0xE: return x - 1; /* -X */
	default: return -1; /* LDS/STS, PUSH/POP */
	}
}

/* Before an instruction inside a region runs: its address, and the data
 * address it touches. */
static void trace_step(avr_t *avr)
{
	avr_flashaddr_t pc = avr->pc;
	uint16_t op = (uint16_t)(avr->flash[pc] | (avr->flash[pc + 1] << 8));
	trace_word((uint32_t)pc);
	int32_t at = pointer_address(avr, op);
	if (at >= 0)
		trace_word(0x80000000u | (uint32_t)at);
}

static uint16_t stack_pointer(avr_t *avr)
{
	return (uint16_t)(avr->data[SPL] | (avr->data[SPH] << 8));
}

static void on_command(avr_t *avr, avr_io_addr_t addr, uint8_t v, void *param)
{
	(void)param;
	avr->data[addr] = v;
	switch (v) {
	case 1: /* start: paint [floor, SP] then note the cycle */
		st.sp_at_start = stack_pointer(avr);
		if (st.floor && st.floor <= st.sp_at_start)
			memset(avr->data + st.floor, PAINT, st.sp_at_start - st.floor + 1);
		st.running = 1;
		st.start = avr->cycle;
		break;
	case 2: { /* stop */
		avr_cycle_count_t cycles = avr->cycle - st.start;
		unsigned stack = 0, room = 0;
		if (st.floor && st.floor <= st.sp_at_start) {
			room = (unsigned)(st.sp_at_start - st.floor + 1);
			uint16_t a = st.floor;
			while (a <= st.sp_at_start && avr->data[a] == PAINT)
				a++;
			stack = a <= st.sp_at_start ? (unsigned)(st.sp_at_start - a + 1) : 0;
		}
		if (!st.running)
			fprintf(stderr, "harness: stop without start\n");
		st.running = 0;
		if (st.trace)
			trace_word(0xFFFFFFFFu);
		/* An uplink's UART owns stdout: its counts go with its log. */
		fprintf(st.uart ? stderr : stdout, "C %" PRIu64 " %u %u\n", (uint64_t)cycles, stack, room);
		break;
	}
	case 3:
		fputc(avr->data[GPIOR1], st.uart ? stderr : stdout);
		break;
	case 4:
		st.floor = (uint16_t)(avr->data[GPIOR1] | (avr->data[GPIOR2] << 8));
		break;
	case 5:
		st.exited = 1;
		st.status = avr->data[GPIOR1];
		break;
	case 6:
		save_eeprom(avr);
		break;
	default:
		fprintf(stderr, "harness: unknown command %u\n", v);
	}
}

int main(int argc, char **argv)
{
	const char *mcu = "atmega1284p";
	const char *path = NULL;
	uint32_t freq = 8000000;
	uint64_t max_cycles = 20000000000ULL;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--mcu") && i + 1 < argc)
			mcu = argv[++i];
		else if (!strcmp(argv[i], "--freq") && i + 1 < argc)
			freq = (uint32_t)strtoul(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--max-cycles") && i + 1 < argc)
			max_cycles = strtoull(argv[++i], NULL, 10);
		else if (!strcmp(argv[i], "--uart")) {
			/* stdout carries the UART alone: whatever else would print
			 * there (simavr's loader says what it loaded) goes to stderr. */
			st.uart = dup(1);
			dup2(2, 1);
		}
		else if (!strcmp(argv[i], "--eeprom") && i + 1 < argc)
			st.eeprom = argv[++i];
		else if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
			st.trace = fopen(argv[++i], "wb");
			if (!st.trace) {
				fprintf(stderr, "harness: cannot write %s\n", argv[i]);
				return 4;
			}
		}
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else {
			fprintf(stderr, "usage: %s [--mcu NAME] [--freq HZ] [--max-cycles N] [--uart] [--eeprom FILE] [--trace FILE] firmware.elf\n", argv[0]);
			return 4;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: %s [--mcu NAME] [--freq HZ] [--max-cycles N] [--uart] [--eeprom FILE] [--trace FILE] firmware.elf\n", argv[0]);
		return 4;
	}

	elf_firmware_t fw;
	memset(&fw, 0, sizeof fw);
	if (elf_read_firmware(path, &fw) != 0) {
		fprintf(stderr, "harness: cannot read ELF %s\n", path);
		return 4;
	}
	avr_t *avr = avr_make_mcu_by_name(mcu);
	if (!avr) {
		fprintf(stderr, "harness: simavr does not know MCU %s\n", mcu);
		return 4;
	}
	avr_init(avr);
	avr->log = LOG_ERROR;
	fw.frequency = freq;
	avr_load_firmware(avr, &fw);
	avr_register_io_write(avr, GPIOR0, on_command, NULL);
	if (st.eeprom)
		load_eeprom(avr);
	if (st.uart) {
		uint32_t flags = 0;
		avr_ioctl(avr, AVR_IOCTL_UART_GET_FLAGS('0'), &flags);
		flags &= ~AVR_UART_FLAG_STDIO;
		avr_ioctl(avr, AVR_IOCTL_UART_SET_FLAGS('0'), &flags);
		avr_irq_register_notify(avr_io_getirq(avr, AVR_IOCTL_UART_GETIRQ('0'), UART_IRQ_OUTPUT), on_uart_byte, NULL);
	}

	int state = cpu_Running;
	while (!st.exited && state != cpu_Done && state != cpu_Crashed) {
		if (st.trace && st.running)
			trace_step(avr);
		state = avr_run(avr);
		if (avr->cycle > max_cycles) {
			fflush(stdout);
			fprintf(stderr, "harness: no exit after %" PRIu64 " cycles\n", max_cycles);
			return 3;
		}
	}
	fflush(stdout);
	if (st.trace && fclose(st.trace) != 0) {
		fprintf(stderr, "harness: cannot finish the trace\n");
		return 3;
	}
	if (!st.exited) {
		fprintf(stderr, "harness: firmware stopped without exit (state %d, pc 0x%x)\n", state, avr->pc);
		return 3;
	}
	avr_terminate(avr);
	return st.status;
}
