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
//! that goes away, whose requests still queued are cancelled (one in
//! service finishes in the engine unheard). The memory budget and the
//! timeouts are described at [`serve`].

use std::collections::HashMap;
use std::sync::Arc;

use bytes::{Buf, BytesMut};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::{OwnedSemaphorePermit, mpsc};

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
    /// The client took longer than its timeout.
    #[error("{0} timed out")]
    Timeout(&'static str),
}

/// Serves one client until it leaves.
///
/// The request data of every connection together stays within the
/// server's memory budget: before a request's payload is read (a write) or
/// handed to the engine (a read, whose reply it will fill), the connection
/// takes that many bytes of the budget, and gives them back once the reply
/// is written; while the budget is spent it reads nothing more, so clients
/// wait (back-pressure) rather than the server growing. A client that goes
/// away has its requests still queued cancelled; one silent for the idle
/// timeout, or that does not finish its handshake within the handshake
/// timeout, or that reads no reply for the idle timeout, is disconnected.
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
    let timeouts = shared.resources;
    match tokio::time::timeout(
        timeouts.handshake_timeout,
        handshake(&mut stream, &mut rbuf, &shared),
    )
    .await
    {
        Ok(Ok(true)) => {}
        Ok(Ok(false)) => return Ok(()),
        Ok(Err(e)) => return Err(e),
        Err(_) => return Err(ConnectionError::Timeout("the handshake")),
    }
    let (tx, rx) = mpsc::unbounded_channel::<Reply>();
    let result = transmission(&mut stream, rbuf, &shared, &tx, rx).await;
    // Whatever it still has queued, nobody will read.
    shared.with_engine(|e| e.cancel_for(&tx));
    result
}

/// The transmission phase (see [`serve`]).
async fn transmission<S, D>(
    stream: &mut S,
    mut rbuf: BytesMut,
    shared: &Arc<Shared<D>>,
    tx: &mpsc::UnboundedSender<Reply>,
    mut rx: mpsc::UnboundedReceiver<Reply>,
) -> Result<(), ConnectionError>
where
    S: AsyncRead + AsyncWrite + Unpin,
    D: Emulated,
{
    let limits = shared.limits;
    let budget = Arc::clone(&shared.budget);
    let idle = shared.resources.idle_timeout;
    let mut wbuf: Vec<u8> = Vec::with_capacity(4096);
    // The engine sees the connection's own numbers, unique while in flight
    // (a client may reuse its handles): each maps to the client's handle
    // and the budget its request holds.
    let mut tickets: HashMap<u64, (u64, Option<OwnedSemaphorePermit>)> = HashMap::new();
    let mut next_ticket = 0u64;
    // Budget taken for the request at the head of the buffer.
    let mut held: Option<OwnedSemaphorePermit> = None;
    // Bytes of budget the head request waits for.
    let mut wanted = 0u32;
    // Budget given back by replies written, dropped once they are sent.
    let mut sent: Vec<OwnedSemaphorePermit> = Vec::new();
    let mut disconnecting = false;
    // Payload bytes of a refused write still to be read and dropped.
    let mut skip = 0u64;
    loop {
        while !disconnecting && tickets.len() < MAX_IN_FLIGHT && wanted == 0 {
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
                    let cost = data_bytes(&cmd).min(shared.budget_bytes);
                    if held.is_none() && cost > 0 {
                        match Arc::clone(&budget).try_acquire_many_owned(cost) {
                            Ok(permit) => held = Some(permit),
                            Err(_) => {
                                wanted = cost;
                                break;
                            }
                        }
                    }
                    let payload = h.payload() as usize;
                    if rbuf.len() < REQUEST_LEN + payload {
                        rbuf.reserve(REQUEST_LEN + payload - rbuf.len());
                        break;
                    }
                    rbuf.advance(REQUEST_LEN);
                    let data = (payload > 0).then(|| rbuf.split_to(payload).freeze());
                    let ticket = next_ticket;
                    next_ticket += 1;
                    tickets.insert(ticket, (h.handle, held.take()));
                    shared.request(tx, ticket, cmd, data);
                }
            }
        }
        while let Ok(reply) = rx.try_recv() {
            encode(&mut wbuf, &mut tickets, &mut sent, reply);
        }
        if !wbuf.is_empty() {
            // A client that reads no reply for the idle timeout has gone.
            match tokio::time::timeout(idle, stream.write_all(&wbuf)).await {
                Ok(written) => written?,
                Err(_) => return Err(ConnectionError::Timeout("a client reading no replies")),
            }
            wbuf.clear();
            wbuf.shrink_to(KEEP);
            sent.clear();
            continue;
        }
        if disconnecting && tickets.is_empty() {
            stream.shutdown().await?;
            return Ok(());
        }
        let can_read = !disconnecting && tickets.len() < MAX_IN_FLIGHT && wanted == 0;
        if can_read && rbuf.capacity() - rbuf.len() < REQUEST_LEN {
            if rbuf.is_empty() && rbuf.capacity() > KEEP {
                rbuf = BytesMut::with_capacity(READ_CHUNK);
            } else {
                rbuf.reserve(READ_CHUNK);
            }
        }
        let quiet = tickets.is_empty() && wanted == 0;
        tokio::select! {
            read = stream.read_buf(&mut rbuf), if can_read => {
                if read? == 0 {
                    // The client went away, maybe in the middle of a request.
                    return Ok(());
                }
            }
            permit = Arc::clone(&budget).acquire_many_owned(wanted), if wanted > 0 => {
                // The semaphore is never closed.
                held = permit.ok();
                wanted = 0;
            }
            Some(reply) = rx.recv() => {
                encode(&mut wbuf, &mut tickets, &mut sent, reply);
            }
            () = tokio::time::sleep(idle), if quiet => {
                return Err(ConnectionError::Timeout("an idle client"));
            }
        }
    }
}

/// Bytes of data a request brings (a write) or will be answered with (a
/// read).
fn data_bytes(cmd: &Command) -> u32 {
    match *cmd {
        Command::Read { len, .. } | Command::Write { len, .. } => len,
        _ => 0,
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

/// Encodes `reply` under its client's handle; its budget is given back
/// once the bytes are sent.
fn encode(
    wbuf: &mut Vec<u8>,
    tickets: &mut HashMap<u64, (u64, Option<OwnedSemaphorePermit>)>,
    sent: &mut Vec<OwnedSemaphorePermit>,
    reply: Reply,
) {
    let Some((handle, permit)) = tickets.remove(&reply.handle) else {
        return;
    };
    sent.extend(permit);
    match reply.result {
        Ok(data) => {
            encode_reply(wbuf, handle, None);
            if let Some(d) = data {
                wbuf.extend_from_slice(&d);
            }
        }
        Err(e) => encode_reply(wbuf, handle, Some(e)),
    }
}
