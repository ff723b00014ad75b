//! The page's entry points, without wasm-bindgen: the page copies the
//! request's UTF-8 into memory from `alloc`, calls `answer`, and reads the
//! answer's length (4 bytes, little-endian) and bytes at the pointer it
//! returns, then frees both.

use std::alloc::{Layout, alloc as raw_alloc, dealloc};

fn layout(len: usize) -> Layout {
    Layout::from_size_align(len.max(1), 4).expect("a page-sized buffer")
}

#[unsafe(no_mangle)]
pub extern "C" fn alloc(len: usize) -> *mut u8 {
    // SAFETY: the layout has a non-zero size.
    unsafe { raw_alloc(layout(len)) }
}

/// # Safety
/// `ptr` came from [`alloc`] with the same `len`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller's contract.
    unsafe { dealloc(ptr, layout(len)) }
}

/// Copies `out` into a buffer of `4 + n` bytes: its length, then its bytes.
fn handed(out: String) -> *mut u8 {
    let n = out.len();
    let buf = alloc(4 + n);
    // SAFETY: `buf` holds 4 + n bytes.
    unsafe {
        std::ptr::copy_nonoverlapping((n as u32).to_le_bytes().as_ptr(), buf, 4);
        std::ptr::copy_nonoverlapping(out.as_ptr(), buf.add(4), n);
    }
    buf
}

/// The text at `ptr..ptr+len`, or why not.
///
/// # Safety
/// `ptr..ptr+len` is memory from [`alloc`].
unsafe fn text<'a>(ptr: *const u8, len: usize) -> Result<&'a str, String> {
    // SAFETY: the caller's contract.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    std::str::from_utf8(bytes).map_err(|_| r#"{"error":"the request is not UTF-8"}"#.to_string())
}

/// The form's names (`crate::answer::choices_json`) for a JSON list of
/// profile files' texts; the result as [`answer`]'s.
///
/// # Safety
/// As [`answer`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn choices(ptr: *const u8, len: usize) -> *mut u8 {
    // SAFETY: the caller's contract.
    handed(unsafe { text(ptr, len) }.map_or_else(|e| e, crate::answer::choices_json))
}

/// Answers the JSON request at `ptr..ptr+len`; returns a buffer of
/// `4 + n` bytes (length, then the answer's JSON) to free with `free`.
///
/// # Safety
/// `ptr..ptr+len` is memory from [`alloc`] holding the request.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn answer(ptr: *const u8, len: usize) -> *mut u8 {
    // SAFETY: the caller's contract.
    handed(unsafe { text(ptr, len) }.map_or_else(|e| e, crate::answer_json))
}
