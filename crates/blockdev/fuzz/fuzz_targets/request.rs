//! The transmission parser: any bytes, read as a stream of request headers
//! (and write payloads), are framed and checked without a panic, and a
//! header that decodes encodes back to the same bytes.
#![no_main]

use blockdev::nbd::proto::{REQUEST_LEN, check, decode_request, Limits};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits {
        size: 1 << 30,
        max_payload: 32 << 20,
    };
    let mut at = 0;
    while let Ok(Some(h)) = decode_request(&data[at..]) {
        assert_eq!(h.encode()[..], data[at..at + REQUEST_LEN]);
        let _ = check(&h, &limits);
        at += REQUEST_LEN + h.payload() as usize;
        if at >= data.len() {
            break;
        }
    }
});
