//! The binary's global allocator, mimalloc, and how soon it hands freed memory back.
//!
//! mimalloc instead of the system allocator: a crawl makes several small allocations per link,
//! and glibc's malloc/free took 40% of the CPU of a large folder check.
//!
//! By default mimalloc (v3) keeps freed memory for a second before returning it to the system.
//! A page body is freed as soon as its links are out, so on a site with multi-MB pages (the Rust
//! documentation has 51 pages over 1 MB, the largest 8.5 MB) those bodies piled up: a peak of
//! 137–149 MB there. Purging after 10 ms brings it to 116–119 MB at no measurable cost (wall
//! time ratio 1.005, median of 5 pairs); after 1 ms saved no more and cost 5%, after 100 ms
//! kept 125 MB.

use std::os::raw::{c_int, c_long};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `mi_option_purge_delay` in mimalloc's `mi_option_t` (mimalloc.h); `libmimalloc-sys` does
/// not name it. Its default in mimalloc v3 is 1,000 (ms), which the test below checks, so that
/// another mimalloc version with other numbers fails the test instead of setting another option.
const MI_OPTION_PURGE_DELAY: c_int = 15;

/// Milliseconds a freed span waits before it is returned to the system.
const PURGE_DELAY_MS: c_long = 10;

/// Sets the allocator's options; called first thing in `main`.
pub(crate) fn tune() {
    // SAFETY: `mi_option_set` only stores a number in mimalloc's option table; any value is
    // valid for this option, and mimalloc reads it when it next purges.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_option_number_is_the_purge_delay() {
        // SAFETY: reads mimalloc's option table.
        let default = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(
            default, 1000,
            "mimalloc v3's purge delay defaults to 1,000 ms"
        );
        tune();
        // SAFETY: as above.
        let set = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(set, PURGE_DELAY_MS);
    }
}
