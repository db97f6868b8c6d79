//! One client: the handshake, then requests read, checked, handed to the
//! engine and answered, many in flight at once.
//!
//! The connection's task reads as many requests as have arrived, hands
//! each to the engine (a request the engine completes at once, as on the
//! zero-latency disk, is answered in the same pass), gathers every reply
//! ready and writes them in one go. Replies the engine's clock thread
//! completes later reach the task through a channel. A request the protocol
//! refuses is answered here, its payload skipped; a malformed header, which
//! leaves the stream out of step, closes the connection; so does a client
//! that goes away, whose requests in flight finish in the engine unheard.

use std::sync::Arc;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use super::handshake::{Handshake, HandshakeError, Step};
use super::proto::{BadMagic, Command, REQUEST_LEN, check, decode_request, encode_reply};
use crate::engine::{Emulated, Reply};
use crate::server::Shared;

/// Requests one connection may have in flight before it stops reading.
pub const MAX_IN_FLIGHT: usize = 256;
/// Bytes read at a time.
const READ_CHUNK: usize = 64 * 1024;
/// Buffers grown past this by a large request are given back when idle.
const KEEP: usize = 1 << 20;

/// Why a connection ended other than by the client's choice.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    /// The socket failed.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The handshake broke the protocol.
    #[error("handshake: {0}")]
    Handshake(#[from] HandshakeError),
    /// A request header without the magic.
    #[error(transparent)]
    Framing(#[from] BadMagic),
}

/// Serves one client until it leaves.
///
/// # Errors
/// [`ConnectionError`]: a socket error or a protocol violation (after which
/// the connection is closed; other connections are not affected).
pub async fn serve<S, D>(mut stream: S, shared: Arc<Shared<D>>) -> Result<(), ConnectionError>
where
    S: AsyncRead + AsyncWrite + Unpin,
    D: Emulated,
{
    let mut rbuf = BytesMut::with_capacity(4096);
    if !handshake(&mut stream, &mut rbuf, &shared).await? {
        return Ok(());
    }
    let limits = shared.limits;
    let (tx, mut rx) = mpsc::unbounded_channel::<Reply>();
    let mut wbuf: Vec<u8> = Vec::with_capacity(4096);
    let mut in_flight = 0usize;
    let mut disconnecting = false;
    // Payload bytes of a refused write still to be read and dropped.
    let mut skip = 0u64;
    loop {
        while !disconnecting && in_flight < MAX_IN_FLIGHT {
            if skip > 0 {
                let n = skip.min(rbuf.len() as u64);
                rbuf.advance(n as usize);
                skip -= n;
                if skip > 0 {
                    break;
                }
            }
            let Some(h) = decode_request(&rbuf)? else {
                break;
            };
            match check(&h, &limits) {
                Err(errno) => {
                    rbuf.advance(REQUEST_LEN);
                    skip = u64::from(h.payload());
                    encode_reply(&mut wbuf, h.handle, Some(errno));
                }
                Ok(Command::Disconnect) => {
                    rbuf.advance(REQUEST_LEN);
                    disconnecting = true;
                }
                Ok(cmd) => {
                    let payload = h.payload() as usize;
                    if rbuf.len() < REQUEST_LEN + payload {
                        rbuf.reserve(REQUEST_LEN + payload - rbuf.len());
                        break;
                    }
                    rbuf.advance(REQUEST_LEN);
                    let data = (payload > 0).then(|| rbuf.split_to(payload).freeze());
                    in_flight += 1;
                    shared.request(&tx, h.handle, cmd, data);
                }
            }
        }
        while let Ok(reply) = rx.try_recv() {
            in_flight -= 1;
            encode(&mut wbuf, reply);
        }
        if !wbuf.is_empty() {
            stream.write_all(&wbuf).await?;
            wbuf.clear();
            wbuf.shrink_to(KEEP);
            continue;
        }
        if disconnecting && in_flight == 0 {
            stream.shutdown().await?;
            return Ok(());
        }
        let can_read = !disconnecting && in_flight < MAX_IN_FLIGHT;
        if can_read && rbuf.capacity() - rbuf.len() < REQUEST_LEN {
            if rbuf.is_empty() && rbuf.capacity() > KEEP {
                rbuf = BytesMut::with_capacity(READ_CHUNK);
            } else {
                rbuf.reserve(READ_CHUNK);
            }
        }
        tokio::select! {
            read = stream.read_buf(&mut rbuf), if can_read => {
                if read? == 0 {
                    // The client went away, maybe in the middle of a request.
                    return Ok(());
                }
            }
            Some(reply) = rx.recv() => {
                in_flight -= 1;
                encode(&mut wbuf, reply);
            }
        }
    }
}

/// Runs the handshake; `false` if the client left (or aborted) before the
/// transmission phase.
async fn handshake<S, D>(
    stream: &mut S,
    rbuf: &mut BytesMut,
    shared: &Shared<D>,
) -> Result<bool, ConnectionError>
where
    S: AsyncRead + AsyncWrite + Unpin,
    D: Emulated,
{
    let mut out = Vec::with_capacity(256);
    Handshake::greeting(&mut out);
    stream.write_all(&out).await?;
    out.clear();
    let mut hs = Handshake::new(&shared.export);
    loop {
        let stepped = hs.step(rbuf, &mut out);
        if !out.is_empty() {
            stream.write_all(&out).await?;
            out.clear();
        }
        let (used, step) = stepped?;
        rbuf.advance(used);
        match step {
            Step::Transmission => return Ok(true),
            Step::Close => return Ok(false),
            Step::NeedMore if used > 0 => {}
            Step::NeedMore => {
                rbuf.reserve(4096);
                if stream.read_buf(rbuf).await? == 0 {
                    return Ok(false);
                }
            }
        }
    }
}

fn encode(wbuf: &mut Vec<u8>, reply: Reply) {
    match reply.result {
        Ok(data) => {
            encode_reply(wbuf, reply.handle, None);
            if let Some(d) = data {
                wbuf.extend_from_slice(&d);
            }
        }
        Err(e) => encode_reply(wbuf, reply.handle, Some(e)),
    }
}
