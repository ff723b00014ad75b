/*
 * ciphermeter simavr harness: runs a firmware ELF on a simulated ATmega1284P
 * and counts exact CPU cycles between the firmware's start/stop markers.
 * C only because libsimavr is a C library; all analysis happens in Rust.
 *
 * Protocol (see firmware/src/platform/avr.rs): the firmware writes a command
 * to GPIOR0 (data address 0x3E) with arguments in GPIOR1/GPIOR2 (0x4A/0x4B):
 *   1 start region   2 stop region   3 put byte GPIOR1 on stdout
 *   4 stack floor = GPIOR2:GPIOR1    5 exit with status GPIOR1
 * At stop the harness prints "C <cycles> <stack bytes> <room>\n" where cycles is
 * avr->cycle(stop) - avr->cycle(start): it includes the marker cost, which
 * the calibration region measures (the host subtracts it).
 * At start the free SRAM between the floor and SP is painted; at stop the
 * lowest overwritten byte gives the region's peak stack; room is the painted
 * size, so a peak equal to it means the stack ran into the static data.
 *
 * Usage: harness [--mcu NAME] [--freq HZ] [--max-cycles N] firmware.elf
 * Exit status: the firmware's, 3 on a crash or when max cycles pass, 4 on
 * bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <inttypes.h>

#include <simavr/sim_avr.h>
#include <simavr/sim_elf.h>
#include <simavr/sim_io.h>

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
} st;

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
		printf("C %" PRIu64 " %u %u\n", (uint64_t)cycles, stack, room);
		break;
	}
	case 3:
		putchar(avr->data[GPIOR1]);
		break;
	case 4:
		st.floor = (uint16_t)(avr->data[GPIOR1] | (avr->data[GPIOR2] << 8));
		break;
	case 5:
		st.exited = 1;
		st.status = avr->data[GPIOR1];
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
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else {
			fprintf(stderr, "usage: %s [--mcu NAME] [--freq HZ] [--max-cycles N] firmware.elf\n", argv[0]);
			return 4;
		}
	}
	if (!path) {
		fprintf(stderr, "usage: %s [--mcu NAME] [--freq HZ] [--max-cycles N] firmware.elf\n", argv[0]);
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

	int state = cpu_Running;
	while (!st.exited && state != cpu_Done && state != cpu_Crashed) {
		state = avr_run(avr);
		if (avr->cycle > max_cycles) {
			fflush(stdout);
			fprintf(stderr, "harness: no exit after %" PRIu64 " cycles\n", max_cycles);
			return 3;
		}
	}
	fflush(stdout);
	if (!st.exited) {
		fprintf(stderr, "harness: firmware stopped without exit (state %d, pc 0x%x)\n", state, avr->pc);
		return 3;
	}
	avr_terminate(avr);
	return st.status;
}
