//! The fixed newstyle handshake as a state machine: the caller feeds the
//! bytes it received and sends the bytes it is given, until the client goes
//! to transmission or leaves.
//!
//! Options: `NBD_OPT_GO`, `NBD_OPT_INFO` (export size and flags, block sizes,
//! name and description on request), `NBD_OPT_LIST`, `NBD_OPT_ABORT`,
//! `NBD_OPT_EXPORT_NAME`; every other option gets `NBD_REP_ERR_UNSUP`
//! (structured replies and TLS among them: replies are simple). The one
//! export is named by the server; the empty name means it too.

use super::proto::*;

/// The export a server offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Export {
    /// Its name.
    pub name: String,
    /// A line for humans (`nbdinfo` shows it).
    pub description: String,
    /// Bytes.
    pub size: u64,
    /// Transmission flags.
    pub flags: u16,
    /// Smallest, preferred and largest request, bytes.
    pub block_sizes: (u32, u32, u32),
}

/// What the caller does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Send what was written, then feed more bytes.
    NeedMore,
    /// Send what was written; the transmission phase starts.
    Transmission,
    /// Send what was written, then close: the client aborted.
    Close,
}

/// Why the server hangs up during the handshake.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum HandshakeError {
    /// Client flags the server does not know (the protocol says: close).
    #[error("unknown client flags {0:#x}")]
    ClientFlags(u32),
    /// An option without the `IHAVEOPT` magic.
    #[error("bad option magic {0:#018x}")]
    OptionMagic(u64),
    /// Option data longer than any option needs.
    #[error("option {option} with {length} bytes of data: more than {MAX_OPTION_DATA}")]
    OptionTooLong {
        /// The option.
        option: u32,
        /// Its data length.
        length: u32,
    },
    /// `NBD_OPT_EXPORT_NAME` with a name the server does not export
    /// (the protocol says: close).
    #[error("no export named {0:?}")]
    UnknownExport(String),
}

/// The most option data accepted: a 4096-byte name and many information
/// requests fit.
pub const MAX_OPTION_DATA: u32 = 16 * 1024;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    ClientFlags,
    Options,
    Done,
}

/// One connection's handshake.
#[derive(Clone, Debug)]
pub struct Handshake<'a> {
    export: &'a Export,
    state: State,
    no_zeroes: bool,
}

impl<'a> Handshake<'a> {
    /// A handshake offering `export`; write [`Handshake::greeting`] first.
    pub fn new(export: &'a Export) -> Self {
        Handshake {
            export,
            state: State::ClientFlags,
            no_zeroes: false,
        }
    }

    /// The server's first 18 bytes.
    pub fn greeting(out: &mut Vec<u8>) {
        out.extend_from_slice(&NBDMAGIC.to_be_bytes());
        out.extend_from_slice(&IHAVEOPT.to_be_bytes());
        out.extend_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
    }

    /// Takes one message from the front of `input`, writing the replies to
    /// `out`; returns the bytes consumed (0 when a whole message is not
    /// there yet) and what to do next.
    ///
    /// # Errors
    /// [`HandshakeError`]: send what was written, then close.
    pub fn step(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(usize, Step), HandshakeError> {
        match self.state {
            State::Done => Ok((0, Step::Transmission)),
            State::ClientFlags => {
                let Some(b) = input.get(..4) else {
                    return Ok((0, Step::NeedMore));
                };
                let flags = u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
                if flags & !(FLAG_C_FIXED_NEWSTYLE | FLAG_C_NO_ZEROES) != 0 {
                    return Err(HandshakeError::ClientFlags(flags));
                }
                self.no_zeroes = flags & FLAG_C_NO_ZEROES != 0;
                self.state = State::Options;
                Ok((4, Step::NeedMore))
            }
            State::Options => {
                let Some(h) = input.get(..16) else {
                    return Ok((0, Step::NeedMore));
                };
                let magic = u64::from_be_bytes(h[0..8].try_into().unwrap_or_default());
                if magic != IHAVEOPT {
                    return Err(HandshakeError::OptionMagic(magic));
                }
                let option = u32::from_be_bytes([h[8], h[9], h[10], h[11]]);
                let length = u32::from_be_bytes([h[12], h[13], h[14], h[15]]);
                if length > MAX_OPTION_DATA {
                    return Err(HandshakeError::OptionTooLong { option, length });
                }
                let Some(data) = input.get(16..16 + length as usize) else {
                    return Ok((0, Step::NeedMore));
                };
                let step = self.option(option, data, out)?;
                if step == Step::Transmission {
                    self.state = State::Done;
                }
                Ok((16 + length as usize, step))
            }
        }
    }

    fn option(
        &mut self,
        option: u32,
        data: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Step, HandshakeError> {
        let e = self.export;
        match option {
            OPT_EXPORT_NAME => {
                let name = String::from_utf8_lossy(data);
                if !self.names_export(data) {
                    return Err(HandshakeError::UnknownExport(name.into_owned()));
                }
                out.extend_from_slice(&e.size.to_be_bytes());
                out.extend_from_slice(&e.flags.to_be_bytes());
                if !self.no_zeroes {
                    out.extend_from_slice(&[0u8; 124]);
                }
                Ok(Step::Transmission)
            }
            OPT_ABORT => {
                reply(out, option, REP_ACK, &[]);
                Ok(Step::Close)
            }
            OPT_LIST => {
                if !data.is_empty() {
                    reply(out, option, REP_ERR_INVALID, b"NBD_OPT_LIST takes no data");
                    return Ok(Step::NeedMore);
                }
                let mut server = Vec::with_capacity(4 + e.name.len() + e.description.len());
                server.extend_from_slice(&(e.name.len() as u32).to_be_bytes());
                server.extend_from_slice(e.name.as_bytes());
                server.extend_from_slice(e.description.as_bytes());
                reply(out, option, REP_SERVER, &server);
                reply(out, option, REP_ACK, &[]);
                Ok(Step::NeedMore)
            }
            OPT_INFO | OPT_GO => self.info(option, data, out),
            _ => {
                reply(out, option, REP_ERR_UNSUP, b"option not supported");
                Ok(Step::NeedMore)
            }
        }
    }

    fn names_export(&self, name: &[u8]) -> bool {
        name.is_empty() || name == self.export.name.as_bytes()
    }

    /// `NBD_OPT_INFO` and `NBD_OPT_GO`: name length, name, count of
    /// information requests, the requests.
    fn info(
        &mut self,
        option: u32,
        data: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<Step, HandshakeError> {
        let parsed = data.get(..4).and_then(|n| {
            let len = u32::from_be_bytes([n[0], n[1], n[2], n[3]]) as usize;
            let name = data.get(4..4 + len)?;
            let count = data.get(4 + len..6 + len)?;
            let count = u16::from_be_bytes([count[0], count[1]]) as usize;
            let requests = data.get(6 + len..)?;
            (requests.len() == 2 * count).then_some((name, requests))
        });
        let Some((name, requests)) = parsed else {
            reply(
                out,
                option,
                REP_ERR_INVALID,
                b"malformed information request",
            );
            return Ok(Step::NeedMore);
        };
        if !self.names_export(name) {
            reply(out, option, REP_ERR_UNKNOWN, b"no such export");
            return Ok(Step::NeedMore);
        }
        let e = self.export;
        let mut info = Vec::with_capacity(12);
        info.extend_from_slice(&INFO_EXPORT.to_be_bytes());
        info.extend_from_slice(&e.size.to_be_bytes());
        info.extend_from_slice(&e.flags.to_be_bytes());
        reply(out, option, REP_INFO, &info);
        // Block sizes are sent whether asked for or not: the server takes
        // any alignment, so a client that ignores them loses nothing.
        let (min, preferred, max) = e.block_sizes;
        let mut sizes = Vec::with_capacity(14);
        sizes.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
        for v in [min, preferred, max] {
            sizes.extend_from_slice(&v.to_be_bytes());
        }
        reply(out, option, REP_INFO, &sizes);
        for pair in requests.chunks_exact(2) {
            let (kind, text) = match u16::from_be_bytes([pair[0], pair[1]]) {
                INFO_NAME => (INFO_NAME, e.name.as_bytes()),
                INFO_DESCRIPTION => (INFO_DESCRIPTION, e.description.as_bytes()),
                _ => continue,
            };
            let mut body = Vec::with_capacity(2 + text.len());
            body.extend_from_slice(&kind.to_be_bytes());
            body.extend_from_slice(text);
            reply(out, option, REP_INFO, &body);
        }
        reply(out, option, REP_ACK, &[]);
        Ok(if option == OPT_GO {
            Step::Transmission
        } else {
            Step::NeedMore
        })
    }
}

/// Appends an option reply.
fn reply(out: &mut Vec<u8>, option: u32, kind: u32, data: &[u8]) {
    out.extend_from_slice(&OPTION_REPLY_MAGIC.to_be_bytes());
    out.extend_from_slice(&option.to_be_bytes());
    out.extend_from_slice(&kind.to_be_bytes());
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(data);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn export() -> Export {
        Export {
            name: "disk".into(),
            description: "hp97560".into(),
            size: 1 << 30,
            flags: FLAG_HAS_FLAGS | FLAG_SEND_FLUSH,
            block_sizes: (1, 4096, 1 << 25),
        }
    }

    fn option(code: u32, data: &[u8]) -> Vec<u8> {
        let mut o = IHAVEOPT.to_be_bytes().to_vec();
        o.extend_from_slice(&code.to_be_bytes());
        o.extend_from_slice(&(data.len() as u32).to_be_bytes());
        o.extend_from_slice(data);
        o
    }

    fn info_request(name: &str, infos: &[u16]) -> Vec<u8> {
        let mut d = (name.len() as u32).to_be_bytes().to_vec();
        d.extend_from_slice(name.as_bytes());
        d.extend_from_slice(&(infos.len() as u16).to_be_bytes());
        for i in infos {
            d.extend_from_slice(&i.to_be_bytes());
        }
        d
    }

    /// Runs the handshake over `input`; returns the output, the last step
    /// and the bytes left.
    fn run(input: &[u8]) -> (Vec<u8>, Result<Step, HandshakeError>, usize) {
        let e = export();
        let mut h = Handshake::new(&e);
        let mut out = Vec::new();
        let mut at = 0;
        loop {
            match h.step(&input[at..], &mut out) {
                Ok((0, Step::NeedMore)) => return (out, Ok(Step::NeedMore), input.len() - at),
                Ok((n, Step::NeedMore)) => at += n,
                Ok((n, step)) => return (out, Ok(step), input.len() - at - n),
                Err(e) => return (out, Err(e), input.len() - at),
            }
        }
    }

    /// The reply types in `out`, in order.
    fn reply_types(out: &[u8]) -> Vec<u32> {
        let mut types = Vec::new();
        let mut at = 0;
        while at + 20 <= out.len() {
            assert_eq!(out[at..at + 8], OPTION_REPLY_MAGIC.to_be_bytes());
            types.push(u32::from_be_bytes(
                out[at + 12..at + 16].try_into().unwrap(),
            ));
            at += 20 + u32::from_be_bytes(out[at + 16..at + 20].try_into().unwrap()) as usize;
        }
        types
    }

    #[test]
    fn go_after_list_and_info_enters_transmission() {
        let mut input = 3u32.to_be_bytes().to_vec();
        input.extend(option(OPT_LIST, &[]));
        input.extend(option(OPT_INFO, &info_request("disk", &[INFO_DESCRIPTION])));
        input.extend(option(OPT_GO, &info_request("", &[])));
        input.extend_from_slice(b"rest");
        let (out, step, left) = run(&input);
        assert_eq!(step, Ok(Step::Transmission));
        assert_eq!(left, 4, "bytes after GO belong to the transmission");
        assert_eq!(
            reply_types(&out),
            [
                REP_SERVER, REP_ACK, REP_INFO, REP_INFO, REP_INFO, REP_ACK, REP_INFO, REP_INFO,
                REP_ACK
            ]
        );
    }

    #[test]
    fn export_name_answers_size_and_flags_with_or_without_zeroes() {
        for (flags, len) in [(FLAG_C_FIXED_NEWSTYLE, 8 + 2 + 124), (3, 10)] {
            let mut input = flags.to_be_bytes().to_vec();
            input.extend(option(OPT_EXPORT_NAME, b"disk"));
            let (out, step, _) = run(&input);
            assert_eq!(step, Ok(Step::Transmission));
            assert_eq!(out.len(), len);
            assert_eq!(out[..8], (1u64 << 30).to_be_bytes());
        }
    }

    #[test]
    fn bad_options_get_error_replies_and_bad_framing_closes() {
        let mut input = 1u32.to_be_bytes().to_vec();
        input.extend(option(8, &[])); // structured replies: not supported
        input.extend(option(99, b"xyz"));
        input.extend(option(OPT_LIST, b"x"));
        input.extend(option(OPT_GO, &info_request("other", &[])));
        input.extend(option(OPT_INFO, &[0, 0, 0, 9, b'd']));
        input.extend(option(OPT_ABORT, &[]));
        let (out, step, _) = run(&input);
        assert_eq!(step, Ok(Step::Close));
        assert_eq!(
            reply_types(&out),
            [
                REP_ERR_UNSUP,
                REP_ERR_UNSUP,
                REP_ERR_INVALID,
                REP_ERR_UNKNOWN,
                REP_ERR_INVALID,
                REP_ACK
            ]
        );
        assert!(matches!(
            run(&[0, 0, 0, 4]).1,
            Err(HandshakeError::ClientFlags(4))
        ));
        let mut bad = 1u32.to_be_bytes().to_vec();
        bad.extend_from_slice(&[0u8; 16]);
        assert!(matches!(run(&bad).1, Err(HandshakeError::OptionMagic(0))));
        let mut long = 1u32.to_be_bytes().to_vec();
        long.extend_from_slice(&IHAVEOPT.to_be_bytes());
        long.extend_from_slice(&OPT_GO.to_be_bytes());
        long.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(
            run(&long).1,
            Err(HandshakeError::OptionTooLong { .. })
        ));
        let mut unknown = 1u32.to_be_bytes().to_vec();
        unknown.extend(option(OPT_EXPORT_NAME, b"nope"));
        assert!(matches!(
            run(&unknown).1,
            Err(HandshakeError::UnknownExport(_))
        ));
    }

    #[test]
    fn a_message_split_anywhere_waits_for_its_end() {
        let mut input = 1u32.to_be_bytes().to_vec();
        input.extend(option(OPT_GO, &info_request("disk", &[INFO_NAME])));
        let whole = run(&input).0;
        for cut in 0..input.len() {
            let e = export();
            let mut h = Handshake::new(&e);
            let mut out = Vec::new();
            let mut buf = input[..cut].to_vec();
            let mut rest = input[cut..].to_vec();
            let mut done = false;
            while !done {
                match h.step(&buf, &mut out).unwrap() {
                    (0, Step::NeedMore) => buf.append(&mut rest),
                    (n, Step::NeedMore) => {
                        buf.drain(..n);
                    }
                    (_, step) => {
                        assert_eq!(step, Step::Transmission);
                        done = true;
                    }
                }
            }
            assert_eq!(out, whole, "cut at {cut}");
        }
    }
}
