//! SCHC compression's CPU on a Cortex-M device, under QEMU: the reading's
//! OSCORE plaintext compressed by the inner rule (RFC 8824 §7.2), and the
//! OSCORE request it travels in compressed by the outer rule, each in a
//! region the host finds in QEMU's execution log (crates/mcu `schc_probe`,
//! its instruction mix priced by crates/mcu `cycles`). crates/schc runs as a
//! device runs it: no std, a bump allocator that each region starts afresh.
//!
//! Output (semihosting): `H rules <heap bytes>` (the rule set, kept), `H
//! <region> <heap bytes>` per region, `B <region> <bytes in> <bytes out>`,
//! then exit 0; any failure says `F <why>` and exits 1.

#![no_std]
#![no_main]

extern crate alloc;

use core::alloc::{GlobalAlloc, Layout};
use core::arch::asm;
use core::cell::UnsafeCell;
use core::hint::black_box;

use alloc::vec;
use schc::Bits;
use schc::rule::{Action, Direction, Entry, FieldId, Length, Matching, Nature, Rule, RuleSet};
use seal::oscore::coap::{self, CoapOption, Message, MessageType};

/// The reading's length: study 003's chain:10 in JSON (docs/schc.md).
const READING_LEN: usize = 216;
/// The known-answer request's sequence number and kid (`seal::oscore::reading::known_answer`).
const SEQUENCE: u8 = 20;
const KID: u8 = 0x25;
/// The tag of AES-CCM-16-64-128: its bytes ride after the ciphertext.
const TAG_LEN: usize = 8;

const HEAP_BYTES: usize = 8 * 1024;

/// A bump allocator: allocation moves a pointer, freeing does nothing but
/// grow the last block in place; each region starts again where it began.
struct Bump {
    heap: UnsafeCell<[u8; HEAP_BYTES]>,
    next: UnsafeCell<usize>,
    peak: UnsafeCell<usize>,
}

// SAFETY: one core, no interrupts use the heap.
unsafe impl Sync for Bump {}

#[global_allocator]
static HEAP: Bump = Bump {
    heap: UnsafeCell::new([0; HEAP_BYTES]),
    next: UnsafeCell::new(0),
    peak: UnsafeCell::new(0),
};

unsafe impl GlobalAlloc for Bump {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: single-threaded; the offsets stay inside `heap`.
        unsafe {
            let base = self.heap.get() as *mut u8;
            let next = &mut *self.next.get();
            let start = (base as usize + *next).next_multiple_of(layout.align()) - base as usize;
            let end = start + layout.size();
            if end > HEAP_BYTES {
                return core::ptr::null_mut();
            }
            *next = end;
            let peak = &mut *self.peak.get();
            *peak = (*peak).max(end);
            base.add(start)
        }
    }

    unsafe fn dealloc(&self, _ptr: *mut u8, _layout: Layout) {}

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as in `alloc`; the last block grows where it is.
        unsafe {
            let base = self.heap.get() as *mut u8;
            let next = &mut *self.next.get();
            let start = ptr as usize - base as usize;
            if start + layout.size() == *next && start + new_size <= HEAP_BYTES {
                *next = start + new_size;
                let peak = &mut *self.peak.get();
                *peak = (*peak).max(*next);
                return ptr;
            }
            let new = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
            if !new.is_null() {
                core::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            }
            new
        }
    }
}

impl Bump {
    fn used(&self) -> usize {
        // SAFETY: single-threaded.
        unsafe { *self.next.get() }
    }

    /// Frees everything allocated since `at` (the region's results are dropped).
    fn reset(&self, at: usize) {
        // SAFETY: single-threaded; nothing allocated after `at` is alive.
        unsafe {
            *self.next.get() = at;
            *self.peak.get() = at;
        }
    }

    fn peak(&self) -> usize {
        // SAFETY: single-threaded.
        unsafe { *self.peak.get() }
    }
}

/// ARM semihosting call (BKPT 0xAB in Thumb state).
fn semihost(op: u32, arg: usize) -> usize {
    let r: usize;
    // SAFETY: QEMU runs with -semihosting; the call reads `arg` as documented.
    unsafe { asm!("bkpt 0xAB", inout("r0") op as usize => r, in("r1") arg, options(nostack)) };
    r
}

fn write(bytes: &[u8]) {
    let mut line = [0u8; 97];
    for chunk in bytes.chunks(96) {
        line[..chunk.len()].copy_from_slice(chunk);
        line[chunk.len()] = 0;
        semihost(0x04, line.as_ptr() as usize); // SYS_WRITE0
    }
}

fn number(mut n: usize) {
    let mut digits = [0u8; 10];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    write(&digits[i..]);
}

fn exit(code: u8) -> ! {
    // SYS_EXIT with ADP_Stopped_ApplicationExit (status 0) or RunTimeErrorUnknown.
    let reason = if code == 0 { 0x20026 } else { 0x20023 };
    semihost(0x18, reason);
    loop {
        // SAFETY: waits for an interrupt that never comes: QEMU has exited.
        unsafe { asm!("wfi", options(nomem, nostack)) };
    }
}

fn fail(why: &str) -> ! {
    write(b"F ");
    write(why.as_bytes());
    write(b"\n");
    exit(1)
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo) -> ! {
    write(b"F panic");
    if let Some(at) = info.location() {
        write(b" at ");
        write(at.file().as_bytes());
        write(b":");
        number(at.line() as usize);
    }
    write(b"\n");
    exit(1)
}

/// A region's boundary: a `nop` whose address the non-allocated section
/// `.ciphermeter.marks` records, as the firmware's timer samples are; the host
/// counts what runs between a start and the next stop. Memory may not move
/// across it (no `nomem`).
#[inline(always)]
fn mark() {
    // SAFETY: a nop, and a word in a section no code reads.
    unsafe {
        asm!(
            "7:",
            "nop",
            ".pushsection .ciphermeter.marks,\"\",%progbits",
            ".word 7b",
            ".popsection",
            options(nostack, preserves_flags),
        )
    };
}

/// Runs `f` in a measured region with the heap as it was before; reports the
/// heap it took (the peak above where it started) and frees it after.
#[inline(never)]
fn region(name: &str, f: impl FnOnce() -> usize) -> usize {
    let at = HEAP.used();
    HEAP.reset(at);
    mark();
    let n = f();
    mark();
    let heap = HEAP.peak() - at;
    HEAP.reset(at);
    write(b"H ");
    write(name.as_bytes());
    write(b" ");
    number(heap);
    write(b"\n");
    n
}

fn sizes(name: &str, bytes_in: usize, bytes_out: usize) {
    write(b"B ");
    write(name.as_bytes());
    write(b" ");
    number(bytes_in);
    write(b" ");
    number(bytes_out);
    write(b"\n");
}

/// A rule's bits: `len` bits of `bytes` (build.rs writes the rules with it).
fn bits(bytes: &[u8], len: usize) -> Bits {
    Bits::from_bytes(bytes).slice(0, len)
}

#[cortex_m_rt::entry]
fn main() -> ! {
    let rules = RuleSet::new(include!(concat!(env!("OUT_DIR"), "/rules.rs")))
        .unwrap_or_else(|_| fail("the rules do not load"));
    write(b"H rules ");
    number(HEAP.used());
    write(b"\n");
    // A JSON reading of chain:10's length.
    let reading: alloc::vec::Vec<u8> = (0..READING_LEN)
        .map(|i| b"{\"t\":21.5,\"id\":7},"[i % 18])
        .collect();
    let options = [
        CoapOption {
            number: coap::option::URI_PATH,
            value: b"readings",
        },
        CoapOption {
            number: coap::option::CONTENT_FORMAT,
            value: &[50],
        },
    ];
    let plaintext = schc::coap::write_plaintext(coap::code::POST, &options, &reading)
        .unwrap_or_else(|_| fail("the plaintext"));

    // Calibration: a region with nothing in it (the marks' own instructions).
    region("empty", || black_box(0));

    let inner = region("inner", || {
        let c = schc::inner::compress(&rules, black_box(&plaintext), Direction::Up);
        c.map_or(0, |c| black_box(c.to_bytes()).len())
    });
    let compressed = schc::inner::compress(&rules, &plaintext, Direction::Up)
        .unwrap_or_else(|_| fail("inner compression"))
        .to_bytes();
    if inner != compressed.len() || compressed[0] != 110 {
        fail("inner compression is not rule 110's");
    }
    sizes("inner", plaintext.len(), inner);

    // The request the compressed plaintext travels in (sequence 20, kid 0x25):
    // the ciphertext is as long as the compressed plaintext, then the tag.
    let mut ciphertext = compressed.clone();
    ciphertext.extend_from_slice(&[0; TAG_LEN]);
    let oscore = [0x09, SEQUENCE, KID];
    let option = [CoapOption {
        number: coap::option::OSCORE,
        value: &oscore,
    }];
    let message = Message {
        mtype: MessageType::NonConfirmable,
        code: coap::code::POST,
        message_id: u16::from(SEQUENCE),
        token: &[SEQUENCE],
        options: &option,
        payload: &ciphertext,
    };
    let mut request = vec![0u8; 16 + ciphertext.len()];
    let len = coap::encode(&message, &mut request).unwrap_or_else(|_| fail("the request"));
    request.truncate(len);

    let outer = region("outer", || {
        let c = schc::compress(&rules, black_box(&request), Direction::Up);
        c.map_or(0, |c| black_box(c.to_bytes()).len())
    });
    if outer == 0 || outer >= request.len() {
        fail("outer compression");
    }
    sizes("outer", request.len(), outer);
    exit(0)
}
