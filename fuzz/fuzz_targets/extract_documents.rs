//! Fuzz target: arbitrary bytes → `extract_pdf` and `extract_office`: never a panic or a hang,
//! and every link they give is at a page or part numbered from 1, with a value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use linkpatrol::extract::{extract_office, extract_pdf};

fuzz_target!(|data: &[u8]| {
    let (pdf, _) = extract_pdf(data);
    let (office, _) = extract_office(data);
    for link in pdf.iter().chain(&office) {
        assert!(link.line >= 1 && link.column >= 1, "{link:?}");
        assert!(!link.value.trim().is_empty(), "{link:?}");
    }
});
