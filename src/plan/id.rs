//! A plan's id: the hash of its normalized request and its catalog.

use sha2::{Digest, Sha256};

use super::request::PlanRequest;

/// SHA-256 over the normalized request's JSON and the catalog hash; 32 hex characters.
pub fn plan_id(normalized: &PlanRequest, catalog_sha256: &str) -> String {
    thread_local! {
        /// The JSON of the last request hashed on this thread, its capacity kept for the next
        /// (a request is ~1.5 KB: a sweep point then neither allocates nor feeds the hash a
        /// token at a time).
        static TEXT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let mut h = Sha256::new();
    // Serialising a request to JSON cannot fail (its maps are keyed by strings or an enum, and
    // a non-finite float is written as `null`). Were it to, the id would hash the empty text
    // (`json::to_writer` leaves the buffer as it was) or, on the unbuffered path, the part
    // written so far: either way an id, no panic.
    let buffered = TEXT.with(|cell| {
        let Ok(mut text) = cell.try_borrow_mut() else {
            return false;
        };
        text.clear();
        let _ = crate::json::to_writer(&mut text, normalized);
        h.update(text.as_slice());
        // A very large request (thousands of price overrides) does not pin its buffer.
        if text.capacity() > 1 << 16 {
            *text = Vec::new();
        }
        true
    });
    if !buffered {
        let _ = serde_json::to_writer(Hashing(&mut h), normalized);
    }
    h.update(b"\n");
    h.update(catalog_sha256.as_bytes());
    hex_prefix(&h.finalize(), 16)
}

/// Feeds JSON to a hash as it is written: the same bytes as `to_vec`, no buffer (when the
/// thread's buffer is taken).
struct Hashing<'a>(&'a mut Sha256);

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first `n` bytes of `bytes` as lower-case hex (a plan id, an entity tag).
pub fn hex_prefix(bytes: &[u8], n: usize) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(n.saturating_mul(2));
    for &b in bytes.iter().take(n) {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}
