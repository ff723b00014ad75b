/*
 * ciphermeter's QEMU plugin for the constant-time check (crates/mcu `ct`).
 * For every instruction executed inside a measured region it writes the
 * instruction's address as a little-endian u32, and after it, for each memory
 * access the instruction makes, the escape word 0xFFFFFFFE and the address.
 * 0xFFFFFFFF ends a region. A region starts at an instruction whose address
 * is a mark (the timer sample, which counts) and ends at the next mark (which
 * does not), as crates/mcu/src/cycles/trace.rs reads QEMU's log.
 *
 * Arguments: trace=FILE, marks=HEX[:HEX...].
 *
 * For the operands of variable-latency instructions (UDIV) and the flags of
 * the instructions in IT blocks, which plugins cannot read, the host runs
 * QEMU again with its CPU log filtered to those instructions and
 * `watch=HEX[:HEX...] index=FILE` here instead of trace=:
 * the plugin numbers every execution of a watched instruction, in a region or
 * not, and writes the numbers of those inside each region, END after each,
 * and at exit ESCAPE and how many ran, so the host can find each in the log.
 * An instruction an IT block skips is counted too: QEMU calls its callback
 * before the condition's test, so it is in the trace and in the index.
 *
 * QEMU 7.2 ships no plugin header to build against, so the few entry points
 * used here are declared below as QEMU's plugin API (version 1) defines them.
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
typedef void (*atexit_cb_t)(qemu_plugin_id_t id, void *userdata);
enum { CB_NO_REGS = 0 };
enum { MEM_RW = 3 };
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, insn_cb_t cb, int flags, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn, mem_cb_t cb, int flags, int rw, void *userdata);
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, tb_trans_cb_t cb);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, atexit_cb_t cb, void *userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define ESCAPE 0xFFFFFFFEu
#define END 0xFFFFFFFFu
#define MAX_MARKS 256
#define MAX_WATCHED 4096
/* Set in an instruction's callback data (its address, which is even) when
 * it is watched: decided once, when it is translated. */
#define WATCHED 1u

static FILE *trace;
static FILE *index_file;
static uint32_t marks[MAX_MARKS];
static int n_marks;
static uint32_t watched[MAX_WATCHED];
static int n_watched;
static uint32_t watched_ran;
static int in_region;
/* The last instruction seen: a timer read under -icount can be rewound and
 * run again (QEMU's I/O recompile), which must not end the region it began. */
static uint32_t last_pc = END;

static void put_to(FILE *f, uint32_t w)
{
	uint8_t b[4] = { (uint8_t)w, (uint8_t)(w >> 8), (uint8_t)(w >> 16), (uint8_t)(w >> 24) };
	if (f)
		fwrite(b, 1, 4, f);
}

static void put(uint32_t w)
{
	put_to(trace, w);
}

static int is_in(const uint32_t *list, int n, uint32_t pc)
{
	for (int i = 0; i < n; i++)
		if (list[i] == pc)
			return 1;
	return 0;
}

static int is_mark(uint32_t pc)
{
	return is_in(marks, n_marks, pc);
}

/* Reads at most max of HEX[:HEX...] into list; returns how many, or -1 if
 * there are more. */
static int read_list(char *p, uint32_t *list, int max)
{
	int n = 0;
	for (; *p; p++) {
		if (n == max)
			return -1;
		list[n++] = (uint32_t)strtoul(p, &p, 16) & ~1u;
		if (*p != ':')
			break;
	}
	return n;
}

static void on_insn(unsigned int vcpu, void *userdata)
{
	(void)vcpu;
	uint32_t pc = (uint32_t)(uintptr_t)userdata & ~WATCHED;
	int is_watched = (uint32_t)(uintptr_t)userdata & WATCHED;
	int again = pc == last_pc;
	last_pc = pc;
	if (is_mark(pc) && !again) {
		if (in_region) {
			put(END);
			put_to(index_file, END);
			in_region = 0;
			return;
		}
		in_region = 1;
	}
	if (in_region && !again)
		put(pc);
	if (is_watched && !again) {
		if (in_region)
			put_to(index_file, watched_ran);
		watched_ran++;
	}
}

static void on_mem(unsigned int vcpu, qemu_plugin_meminfo_t info, uint64_t vaddr, void *userdata)
{
	(void)vcpu;
	(void)info;
	(void)userdata;
	if (in_region) {
		put(ESCAPE);
		put((uint32_t)vaddr);
	}
}

static void on_tb(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	(void)id;
	size_t n = qemu_plugin_tb_n_insns(tb);
	for (size_t i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint32_t pc = (uint32_t)qemu_plugin_insn_vaddr(insn) & ~1u;
		if (is_in(watched, n_watched, pc))
			pc |= WATCHED;
		qemu_plugin_register_vcpu_insn_exec_cb(insn, on_insn, CB_NO_REGS, (void *)(uintptr_t)pc);
		if (trace)
			qemu_plugin_register_vcpu_mem_cb(insn, on_mem, CB_NO_REGS, MEM_RW, NULL);
	}
}

static void on_qemu_exit(qemu_plugin_id_t id, void *userdata)
{
	(void)id;
	(void)userdata;
	if (trace && fclose(trace) != 0)
		fprintf(stderr, "ct-trace: cannot finish the trace\n");
	trace = NULL;
	put_to(index_file, ESCAPE);
	put_to(index_file, watched_ran);
	if (index_file && fclose(index_file) != 0)
		fprintf(stderr, "ct-trace: cannot finish the index\n");
	index_file = NULL;
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id, const void *info, int argc, char **argv)
{
	(void)info;
	for (int i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "trace=", 6)) {
			trace = fopen(argv[i] + 6, "wb");
		} else if (!strncmp(argv[i], "index=", 6)) {
			index_file = fopen(argv[i] + 6, "wb");
		} else if (!strncmp(argv[i], "marks=", 6)) {
			n_marks = read_list(argv[i] + 6, marks, MAX_MARKS);
		} else if (!strncmp(argv[i], "watch=", 6)) {
			n_watched = read_list(argv[i] + 6, watched, MAX_WATCHED);
		} else {
			fprintf(stderr, "ct-trace: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if ((!trace && !index_file) || n_marks <= 0 || n_watched < 0 || (index_file && n_watched == 0)) {
		fprintf(stderr, "ct-trace: needs marks=HEX[:HEX...] (at most %d) and trace=FILE, or index=FILE and watch=HEX[:HEX...] (at most %d)\n", MAX_MARKS, MAX_WATCHED);
		return -1;
	}
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_tb);
	qemu_plugin_register_atexit_cb(id, on_qemu_exit, NULL);
	return 0;
}
