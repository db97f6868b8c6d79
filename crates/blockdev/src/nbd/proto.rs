//! The NBD wire format: magic numbers, flags, the request header and its
//! checks, the simple reply. Sans-IO: bytes in, values out.

use std::fmt;

/// The server's first word (`NBDMAGIC`).
pub const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
/// Newstyle negotiation, and every option a client sends (`IHAVEOPT`).
pub const IHAVEOPT: u64 = 0x4948_4156_454f_5054;
/// The first word of an option reply.
pub const OPTION_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
/// The first word of a transmission request.
pub const REQUEST_MAGIC: u32 = 0x2560_9513;
/// The first word of a simple reply.
pub const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

/// Handshake flags (server): fixed newstyle, and the 124 zero bytes may be left out.
pub const FLAG_FIXED_NEWSTYLE: u16 = 1 << 0;
/// See [`FLAG_FIXED_NEWSTYLE`].
pub const FLAG_NO_ZEROES: u16 = 1 << 1;
/// Client flags: the client speaks fixed newstyle.
pub const FLAG_C_FIXED_NEWSTYLE: u32 = 1 << 0;
/// Client flags: leave out the 124 zero bytes after `NBD_OPT_EXPORT_NAME`.
pub const FLAG_C_NO_ZEROES: u32 = 1 << 1;

/// Options.
pub const OPT_EXPORT_NAME: u32 = 1;
/// See [`OPT_EXPORT_NAME`].
pub const OPT_ABORT: u32 = 2;
/// See [`OPT_EXPORT_NAME`].
pub const OPT_LIST: u32 = 3;
/// See [`OPT_EXPORT_NAME`].
pub const OPT_INFO: u32 = 6;
/// See [`OPT_EXPORT_NAME`].
pub const OPT_GO: u32 = 7;

/// Option replies.
pub const REP_ACK: u32 = 1;
/// See [`REP_ACK`].
pub const REP_SERVER: u32 = 2;
/// See [`REP_ACK`].
pub const REP_INFO: u32 = 3;
/// See [`REP_ACK`].
pub const REP_ERR_UNSUP: u32 = (1 << 31) + 1;
/// See [`REP_ACK`].
pub const REP_ERR_INVALID: u32 = (1 << 31) + 3;
/// See [`REP_ACK`].
pub const REP_ERR_UNKNOWN: u32 = (1 << 31) + 6;

/// Information types of `NBD_REP_INFO`.
pub const INFO_EXPORT: u16 = 0;
/// See [`INFO_EXPORT`].
pub const INFO_NAME: u16 = 1;
/// See [`INFO_EXPORT`].
pub const INFO_DESCRIPTION: u16 = 2;
/// See [`INFO_EXPORT`].
pub const INFO_BLOCK_SIZE: u16 = 3;

/// Transmission flags.
pub const FLAG_HAS_FLAGS: u16 = 1 << 0;
/// See [`FLAG_HAS_FLAGS`].
pub const FLAG_SEND_FLUSH: u16 = 1 << 2;
/// See [`FLAG_HAS_FLAGS`].
pub const FLAG_SEND_FUA: u16 = 1 << 3;
/// See [`FLAG_HAS_FLAGS`].
pub const FLAG_ROTATIONAL: u16 = 1 << 4;
/// See [`FLAG_HAS_FLAGS`].
pub const FLAG_SEND_TRIM: u16 = 1 << 5;
/// See [`FLAG_HAS_FLAGS`].
pub const FLAG_SEND_WRITE_ZEROES: u16 = 1 << 6;
/// See [`FLAG_HAS_FLAGS`].
pub const FLAG_CAN_MULTI_CONN: u16 = 1 << 8;

/// Commands.
pub const CMD_READ: u16 = 0;
/// See [`CMD_READ`].
pub const CMD_WRITE: u16 = 1;
/// See [`CMD_READ`].
pub const CMD_DISC: u16 = 2;
/// See [`CMD_READ`].
pub const CMD_FLUSH: u16 = 3;
/// See [`CMD_READ`].
pub const CMD_TRIM: u16 = 4;
/// See [`CMD_READ`].
pub const CMD_WRITE_ZEROES: u16 = 6;

/// Command flags.
pub const CMD_FLAG_FUA: u16 = 1 << 0;
/// See [`CMD_FLAG_FUA`].
pub const CMD_FLAG_NO_HOLE: u16 = 1 << 1;

/// Bytes of a request header.
pub const REQUEST_LEN: usize = 28;
/// Bytes of a simple reply header.
pub const REPLY_LEN: usize = 16;

/// The error values of a reply.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Errno {
    /// Operation not permitted.
    Perm = 1,
    /// Input/output error: a media error, a failed disk.
    Io = 5,
    /// Invalid argument: unknown command or flag, zero length, a read past the end.
    Inval = 22,
    /// No space left on device: a write past the end.
    NoSpc = 28,
    /// Value too large: a request over the maximum payload.
    Overflow = 75,
    /// The server is shutting down.
    Shutdown = 108,
}

impl fmt::Display for Errno {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self {
            Errno::Perm => "EPERM",
            Errno::Io => "EIO",
            Errno::Inval => "EINVAL",
            Errno::NoSpc => "ENOSPC",
            Errno::Overflow => "EOVERFLOW",
            Errno::Shutdown => "ESHUTDOWN",
        };
        f.write_str(name)
    }
}

/// A request header as sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestHeader {
    /// Command flags.
    pub flags: u16,
    /// Command.
    pub kind: u16,
    /// The client's handle, echoed in the reply.
    pub handle: u64,
    /// Byte offset.
    pub offset: u64,
    /// Byte length (of the payload, for a write).
    pub length: u32,
}

impl RequestHeader {
    /// Bytes of payload that follow the header on the wire.
    pub fn payload(&self) -> u32 {
        if self.kind == CMD_WRITE {
            self.length
        } else {
            0
        }
    }

    /// The header's 28 bytes.
    pub fn encode(&self) -> [u8; REQUEST_LEN] {
        let mut b = [0u8; REQUEST_LEN];
        b[0..4].copy_from_slice(&REQUEST_MAGIC.to_be_bytes());
        b[4..6].copy_from_slice(&self.flags.to_be_bytes());
        b[6..8].copy_from_slice(&self.kind.to_be_bytes());
        b[8..16].copy_from_slice(&self.handle.to_be_bytes());
        b[16..24].copy_from_slice(&self.offset.to_be_bytes());
        b[24..28].copy_from_slice(&self.length.to_be_bytes());
        b
    }
}

/// A request the server cannot frame: the connection must close.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("bad request magic {0:#010x}: the stream is out of step, closing")]
pub struct BadMagic(pub u32);

/// Reads a request header from the front of `buf`; `None` until 28 bytes
/// are there.
///
/// # Errors
/// [`BadMagic`] when the first word is not the request magic.
pub fn decode_request(buf: &[u8]) -> Result<Option<RequestHeader>, BadMagic> {
    let Some(b) = buf.get(..REQUEST_LEN) else {
        return Ok(None);
    };
    let magic = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    if magic != REQUEST_MAGIC {
        return Err(BadMagic(magic));
    }
    let u64_at = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i..i + 8]);
        u64::from_be_bytes(w)
    };
    Ok(Some(RequestHeader {
        flags: u16::from_be_bytes([b[4], b[5]]),
        kind: u16::from_be_bytes([b[6], b[7]]),
        handle: u64_at(8),
        offset: u64_at(16),
        length: u32::from_be_bytes([b[24], b[25], b[26], b[27]]),
    }))
}

/// A checked request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Read `len` bytes at `offset`.
    Read {
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u32,
    },
    /// Write the payload at `offset`.
    Write {
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u32,
        /// Durable before the reply.
        fua: bool,
    },
    /// Write zeroes.
    WriteZeroes {
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u32,
        /// Durable before the reply.
        fua: bool,
    },
    /// A hint that the range is no longer needed.
    Trim {
        /// Byte offset.
        offset: u64,
        /// Bytes.
        len: u32,
    },
    /// Every write replied to before is durable before the reply.
    Flush,
    /// The client is leaving: finish what is in flight, then close.
    Disconnect,
}

/// What an export accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Bytes of the export.
    pub size: u64,
    /// The largest read or write payload.
    pub max_payload: u32,
}

/// Checks a request against the export, in the order the protocol's
/// errors are chosen: an unknown command, a flag the command does not
/// take, a zero length, an oversize payload, a range past the end.
///
/// # Errors
/// The [`Errno`] the reply carries.
pub fn check(h: &RequestHeader, limits: &Limits) -> Result<Command, Errno> {
    let allowed = match h.kind {
        CMD_READ | CMD_FLUSH => CMD_FLAG_FUA,
        CMD_WRITE | CMD_TRIM => CMD_FLAG_FUA,
        CMD_WRITE_ZEROES => CMD_FLAG_FUA | CMD_FLAG_NO_HOLE,
        CMD_DISC => 0,
        _ => return Err(Errno::Inval),
    };
    if h.flags & !allowed != 0 {
        return Err(Errno::Inval);
    }
    let fua = h.flags & CMD_FLAG_FUA != 0;
    let (offset, len) = (h.offset, h.length);
    match h.kind {
        CMD_DISC => return Ok(Command::Disconnect),
        CMD_FLUSH if offset == 0 && len == 0 => return Ok(Command::Flush),
        CMD_FLUSH => return Err(Errno::Inval),
        _ => {}
    }
    if len == 0 {
        return Err(Errno::Inval);
    }
    if matches!(h.kind, CMD_READ | CMD_WRITE) && len > limits.max_payload {
        return Err(Errno::Overflow);
    }
    let past_end = offset
        .checked_add(u64::from(len))
        .is_none_or(|end| end > limits.size);
    if past_end {
        return Err(if h.kind == CMD_WRITE {
            Errno::NoSpc
        } else {
            Errno::Inval
        });
    }
    Ok(match h.kind {
        CMD_READ => Command::Read { offset, len },
        CMD_WRITE => Command::Write { offset, len, fua },
        CMD_TRIM => Command::Trim { offset, len },
        _ => Command::WriteZeroes { offset, len, fua },
    })
}

/// Appends a simple reply header to `out` (a read's data follows it).
pub fn encode_reply(out: &mut Vec<u8>, handle: u64, error: Option<Errno>) {
    out.extend_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&error.map_or(0, |e| e as u32).to_be_bytes());
    out.extend_from_slice(&handle.to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        size: 1 << 20,
        max_payload: 1 << 16,
    };

    fn header(kind: u16, flags: u16, offset: u64, length: u32) -> RequestHeader {
        RequestHeader {
            flags,
            kind,
            handle: 0xfeed,
            offset,
            length,
        }
    }

    #[test]
    fn a_header_round_trips_and_waits_for_its_bytes() {
        let h = header(CMD_WRITE, CMD_FLAG_FUA, 4096, 512);
        let bytes = h.encode();
        assert_eq!(decode_request(&bytes), Ok(Some(h)));
        assert_eq!(decode_request(&bytes[..27]), Ok(None));
        let mut bad = bytes;
        bad[0] ^= 1;
        assert!(decode_request(&bad).is_err());
        assert_eq!(h.payload(), 512);
        assert_eq!(header(CMD_READ, 0, 0, 512).payload(), 0);
    }

    #[test]
    fn requests_get_the_errors_the_protocol_names() {
        let c = |kind, flags, offset, len| check(&header(kind, flags, offset, len), &LIMITS);
        assert_eq!(
            c(CMD_READ, 0, 0, 512),
            Ok(Command::Read {
                offset: 0,
                len: 512
            })
        );
        assert_eq!(
            c(CMD_WRITE, CMD_FLAG_FUA, 512, 512),
            Ok(Command::Write {
                offset: 512,
                len: 512,
                fua: true
            })
        );
        assert_eq!(c(CMD_FLUSH, 0, 0, 0), Ok(Command::Flush));
        assert_eq!(c(CMD_DISC, 0, 0, 0), Ok(Command::Disconnect));
        // Unknown command, unknown or misplaced flag.
        assert_eq!(c(9, 0, 0, 512), Err(Errno::Inval));
        assert_eq!(c(5, 0, 0, 512), Err(Errno::Inval));
        assert_eq!(c(CMD_READ, 1 << 7, 0, 512), Err(Errno::Inval));
        assert_eq!(c(CMD_READ, CMD_FLAG_NO_HOLE, 0, 512), Err(Errno::Inval));
        // Zero length, oversize, past the end (and past 2^64).
        assert_eq!(c(CMD_READ, 0, 0, 0), Err(Errno::Inval));
        assert_eq!(c(CMD_WRITE, 0, 0, 1 << 17), Err(Errno::Overflow));
        assert_eq!(c(CMD_READ, 0, (1 << 20) - 511, 512), Err(Errno::Inval));
        assert_eq!(c(CMD_WRITE, 0, 1 << 20, 1), Err(Errno::NoSpc));
        assert_eq!(c(CMD_READ, 0, u64::MAX, 2), Err(Errno::Inval));
        assert_eq!(c(CMD_FLUSH, 0, 1, 0), Err(Errno::Inval));
        // Zeroes and trims are not payloads: only the export bounds them.
        assert!(c(CMD_WRITE_ZEROES, CMD_FLAG_NO_HOLE, 0, 1 << 20).is_ok());
        assert_eq!(c(CMD_TRIM, 0, 0, (1 << 20) + 1), Err(Errno::Inval));
    }

    #[test]
    fn a_reply_is_magic_error_handle() {
        let mut out = Vec::new();
        encode_reply(&mut out, 7, Some(Errno::Io));
        assert_eq!(
            out,
            [0x67, 0x44, 0x66, 0x98, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 7]
        );
    }
}
