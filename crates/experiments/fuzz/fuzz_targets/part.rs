//! Part files: any bytes are read as a part (header line, CBOR body) and,
//! when they read, merged alone and beside themselves, without a panic, a
//! hang or an allocation the input does not pay for. The first byte
//! chooses whether the header's length and digest are left as given or
//! made to match the body, so that the fuzzer gets past the checksum to
//! the header's fields, the body's records and the merge.
#![no_main]

use std::path::{Path, PathBuf};

use experiments::sharding::{Merged, Part};
use libfuzzer_sys::fuzz_target;

/// FNV-1a, 64 bits, as a part's header gives its body's digest.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// `input` with the header's `body_bytes` and `body_fnv1a` set to the
/// body's, where the header is a JSON object.
fn sealed(input: &[u8]) -> Option<Vec<u8>> {
    let end = input.iter().position(|&b| b == b'\n')?;
    let (header, body) = (&input[..end], &input[end + 1..]);
    let mut header: serde_json::Value = serde_json::from_slice(header).ok()?;
    let fields = header.as_object_mut()?;
    fields.insert("body_bytes".into(), body.len().into());
    fields.insert("body_fnv1a".into(), format!("{:016x}", fnv1a(body)).into());
    let mut out = serde_json::to_vec(&header).ok()?;
    out.push(b'\n');
    out.extend_from_slice(body);
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, input)) = data.split_first() else {
        return;
    };
    let bytes = match mode % 2 {
        0 => input.to_vec(),
        _ => sealed(input).unwrap_or_else(|| input.to_vec()),
    };
    let Ok(part) = Part::from_reader(bytes.as_slice(), Path::new("fuzz.part")) else {
        return;
    };
    let header = part.header();
    assert!(header.shard.count >= 1 && header.shard.index < header.shard.count);
    let a = PathBuf::from("a.part");
    let b = PathBuf::from("b.part");
    if let Ok(merged) = Merged::from_read(vec![(a.clone(), part.clone())]) {
        assert!(merged.points() <= header.points.len());
    }
    // The same shard twice: refused as a duplicate (or earlier).
    assert!(Merged::from_read(vec![(a, part.clone()), (b, part)]).is_err());
});
