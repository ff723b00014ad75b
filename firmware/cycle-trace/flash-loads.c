/*
 * ciphermeter's QEMU plugin for the Cortex-M cycle estimate (crates/mcu
 * `cycles`): counts the data reads from flash inside each measured region.
 * QEMU's execution log, which the estimate reads, says which instructions
 * ran but not where a load pointed; a load from flash (a constant table, a
 * literal pool) waits for the flash on a part without a data cache, a load
 * from SRAM does not.
 *
 * A region starts at an instruction whose address is a mark (the timer
 * sample) and ends at the next mark, as crates/mcu/src/cycles/trace.rs reads
 * the log. At each region's end the plugin prints
 * `ciphermeter-flash-loads N CODE DATA` into QEMU's log (`-d plugin`), so the
 * counts reach the host in the same stream, in the regions' order: N reads
 * from flash, and the distinct 16-byte flash lines the region executed
 * (CODE) and read (DATA), which say whether a part's caches can hold it.
 *
 * Arguments: marks=HEX[:HEX...], flash_start=HEX (where the FLASH region
 * starts: footprints count lines from it), flash_end=HEX (reads from
 * flash_start up to it are flash).
 *
 * Kept apart from the constant-time plugin (ct-trace), whose source is part
 * of the verdicts' revision.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef void (*insn_cb_t)(unsigned int vcpu, void *userdata);
typedef void (*mem_cb_t)(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata);
typedef void (*tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);
enum { CB_NO_REGS = 0 };
/* Reads only (MEM_R) registers no callback in QEMU 7.2 here: take both and ask. */
enum { MEM_RW = 3 };
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, insn_cb_t cb, int flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb_t cb, int flags, int rw, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
void qemu_plugin_outs(const char *string);
_Bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define MAX_MARKS 256
#define NONE 0xFFFFFFFFu
/* Footprints are counted in 16-byte lines over the first 4 MiB of flash from
 * flash_start (the firmware's largest FLASH region; the AN505's starts at
 * 0x1000_0000); beyond it a line is not counted. */
#define LINE_SHIFT 4
#define LINES ((4u << 20) >> LINE_SHIFT)

static uint32_t marks[MAX_MARKS];
static int n_marks;
static uint32_t flash_start, flash_end;
static int in_region;
static uint64_t flash_loads;
static uint64_t code_lines, data_lines;
static uint8_t code_seen[LINES / 8], data_seen[LINES / 8];

/* Counts addr's line once per region. */
static void touch(uint8_t *seen, uint64_t *count, uint64_t addr)
{
	uint64_t line = (addr - flash_start) >> LINE_SHIFT;
	if (line >= LINES)
		return;
	uint8_t bit = (uint8_t)(1u << (line & 7));
	if (!(seen[line >> 3] & bit)) {
		seen[line >> 3] |= bit;
		(*count)++;
	}
}
/* A timer read under -icount can be rewound and run again (QEMU's I/O
 * recompile): the same mark seen twice in a row is one execution. */
static uint32_t last_pc = NONE;

static int is_mark(uint32_t pc)
{
	for (int i = 0; i < n_marks; i++)
		if (marks[i] == pc)
			return 1;
	return 0;
}

static void on_mark(unsigned int vcpu, void *userdata)
{
	(void)vcpu;
	uint32_t pc = (uint32_t)(uintptr_t)userdata;
	if (pc == last_pc)
		return;
	last_pc = pc;
	if (in_region) {
		char line[96];
		snprintf(line, sizeof line, "ciphermeter-flash-loads %llu %llu %llu\n", (unsigned long long)flash_loads,
			 (unsigned long long)code_lines, (unsigned long long)data_lines);
		qemu_plugin_outs(line);
		in_region = 0;
		return;
	}
	in_region = 1;
	flash_loads = code_lines = data_lines = 0;
	memset(code_seen, 0, sizeof code_seen);
	memset(data_seen, 0, sizeof data_seen);
	touch(code_seen, &code_lines, pc);
}

/* Any other instruction: a rewound mark may run again only right after itself. */
static void on_insn(unsigned int vcpu, void *userdata)
{
	(void)vcpu;
	last_pc = NONE;
	uint32_t pc = (uint32_t)(uintptr_t)userdata;
	if (in_region && pc >= flash_start && pc < flash_end)
		touch(code_seen, &code_lines, pc);
}

static void on_read(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
	(void)vcpu;
	(void)userdata;
	if (in_region && vaddr >= flash_start && vaddr < flash_end && !qemu_plugin_mem_is_store(info)) {
		flash_loads++;
		touch(data_seen, &data_lines, vaddr);
	}
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t pc = (uint32_t)qemu_plugin_insn_vaddr(insn) & ~1u;
		if (is_mark(pc))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_mark, CB_NO_REGS, (void *)(uintptr_t)pc);
		else
			qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, CB_NO_REGS, (void *)(uintptr_t)pc);
		qemu_plugin_register_vcpu_mem_cb(insn, on_read, CB_NO_REGS, MEM_RW, NULL);
	}
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "marks=", 6)) {
			char *p = argv[i] + 6;
			for (; *p; p++) {
				if (n_marks == MAX_MARKS) {
					n_marks = -1;
					break;
				}
				marks[n_marks++] = (uint32_t)strtoul(p, &p, 16) & ~1u;
				if (*p != ':')
					break;
			}
		} else if (!strncmp(argv[i], "flash_start=", 12)) {
			flash_start = (uint32_t)strtoul(argv[i] + 12, NULL, 16);
		} else if (!strncmp(argv[i], "flash_end=", 10)) {
			flash_end = (uint32_t)strtoul(argv[i] + 10, NULL, 16);
		} else {
			fprintf(stderr, "flash-loads: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (n_marks <= 0 || flash_end <= flash_start) {
		fprintf(stderr, "flash-loads: needs marks=HEX[:HEX...] (at most %d) and flash_end=HEX above flash_start=HEX\n",
			MAX_MARKS);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	return 0;
}
