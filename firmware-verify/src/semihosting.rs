//! ARM semihosting: text to QEMU's stdout and the exit status.

use core::arch::asm;

/// A semihosting call (BKPT 0xAB in Thumb state).
fn semihost(op: u32, arg: usize) -> usize {
    let r: usize;
    // SAFETY: QEMU runs with -semihosting; the call reads `arg` as documented.
    unsafe { asm!("bkpt 0xAB", inout("r0") op as usize => r, in("r1") arg, options(nostack)) };
    r
}

pub fn write(bytes: &[u8]) {
    let mut line = [0u8; 97];
    for chunk in bytes.chunks(96) {
        line[..chunk.len()].copy_from_slice(chunk);
        line[chunk.len()] = 0;
        semihost(0x04, line.as_ptr() as usize); // SYS_WRITE0
    }
}

pub fn number(mut n: usize) {
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

pub fn exit(code: u8) -> ! {
    // SYS_EXIT with ADP_Stopped_ApplicationExit (status 0) or RunTimeErrorUnknown.
    let reason = if code == 0 { 0x20026 } else { 0x20023 };
    semihost(0x18, reason);
    loop {
        // SAFETY: waits for an interrupt that never comes: QEMU has exited.
        unsafe { asm!("wfi", options(nomem, nostack)) };
    }
}

pub fn fail(why: &str) -> ! {
    write(b"F ");
    write(why.as_bytes());
    write(b"\n");
    exit(1)
}
