//! The NBD protocol (fixed newstyle handshake, simple replies): its wire
//! format ([`proto`]) and handshake ([`handshake`]) as plain state
//! machines with their own tests and a fuzz target, and the tokio side
//! that serves one client ([`connection`]).
//!
//! Supported: options `GO`, `INFO`, `LIST`, `ABORT`, `EXPORT_NAME`;
//! commands `READ`, `WRITE`, `FLUSH`, `TRIM`, `WRITE_ZEROES`, `DISC`, with
//! `FUA` (and `NO_HOLE` on `WRITE_ZEROES`); TCP and Unix sockets, many
//! clients at once (`CAN_MULTI_CONN`: a flush on any connection covers
//! every write answered on all of them). Errors, as the protocol names
//! them: an unknown command or flag, a zero length, a read or trim past
//! the end, a flush with an offset or length: `EINVAL`; a write past the
//! end: `ENOSPC`; a read or write over the 32 MiB maximum payload:
//! `EOVERFLOW` (a refused write's payload is read and dropped, so the
//! stream stays in step); a media error or a failed disk: `EIO`. A header
//! without the request magic closes the connection.

#[cfg(feature = "server")]
pub mod connection;
pub mod handshake;
pub mod proto;

pub use handshake::{Export, Handshake, HandshakeError, Step};
pub use proto::{Command, Errno, Limits, RequestHeader};
