//! The server: the engine shared by every connection, the clock thread that
//! completes requests when the model says, the listeners (NBD and control)
//! and the per-second statistics.
//!
//! **The clock thread** owns no state: it locks the engine, brings it to the
//! present (completing what is due), notes when it next has work, and
//! sleeps until then (`park_timeout`; a tokio timer would round to the
//! millisecond). It runs as a real-time thread (`SCHED_FIFO`) where the
//! server has the privilege, so that other processes' time slices do not
//! delay completions; otherwise it spins the last 200 µs before each event. A connection that gives the engine
//! earlier work wakes it. The time it sleeps towards is published under the
//! engine's lock, so no wake-up is lost.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::net::{TcpListener, UnixListener};
use tokio::sync::{Notify, Semaphore};

use crate::control;
use crate::engine::{Emulated, Engine, Replier};
use crate::io_stats::Summary;
use crate::launch::MAX_PAYLOAD;
use crate::nbd::{Command, Export, Limits, connection};

/// A clock thread of ordinary priority sleeps until this long before an
/// event, then spins: it wakes some tens of microseconds late (the timer
/// slack), more on a busy machine.
const SPIN: Duration = Duration::from_micros(200);

/// Makes the calling thread a real-time one (`SCHED_FIFO`, the lowest
/// priority): it then runs as soon as its timer fires, ahead of every
/// ordinary process, and its timers have no slack. Needs the privilege
/// (root, or `CAP_SYS_NICE`); returns how long to spin before an event:
/// nothing if it got it, [`SPIN`] if not.
fn real_time() -> Duration {
    use thread_priority::{
        RealtimeThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
        set_thread_priority_and_policy, thread_native_id,
    };
    let fifo = ThreadSchedulePolicy::Realtime(RealtimeThreadSchedulePolicy::Fifo);
    match set_thread_priority_and_policy(thread_native_id(), ThreadPriority::Min, fifo) {
        Ok(()) => Duration::ZERO,
        Err(_) => SPIN,
    }
}

/// What the server lets its clients hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Resources {
    /// Bytes of request data (write payloads read, read replies still to
    /// be sent) all connections together may hold; at least the largest
    /// payload ([`crate::MAX_PAYLOAD`]). Clients past it wait.
    pub request_memory: u64,
    /// A client that has not finished its handshake by then is
    /// disconnected.
    pub handshake_timeout: Duration,
    /// A client with nothing in flight that sends nothing for this long,
    /// or that reads none of its replies for this long, is disconnected.
    pub idle_timeout: Duration,
}

/// The default request memory: 256 MiB (eight of the largest requests).
pub const DEFAULT_REQUEST_MEMORY: u64 = 256 << 20;

impl Default for Resources {
    /// [`DEFAULT_REQUEST_MEMORY`], 10 s to shake hands, 10 minutes idle.
    fn default() -> Self {
        Resources {
            request_memory: DEFAULT_REQUEST_MEMORY,
            handshake_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(600),
        }
    }
}

/// Where the server listens.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Listen {
    /// A TCP address (`127.0.0.1:10809`).
    Tcp(std::net::SocketAddr),
    /// A Unix socket path (where nothing may be but a stale socket).
    Unix(PathBuf),
}

/// As a user wrote it: `127.0.0.1:10809`, or the socket's path.
impl std::fmt::Display for Listen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Listen::Tcp(addr) => write!(f, "{addr}"),
            Listen::Unix(path) => write!(f, "{}", path.display()),
        }
    }
}

/// What every connection shares.
pub struct Shared<D: Emulated> {
    engine: Mutex<Engine<D>>,
    /// The virtual time the clock thread sleeps towards (`u64::MAX`: none).
    armed: AtomicU64,
    clock_thread: OnceLock<std::thread::Thread>,
    /// The thread that syncs backing files for flushes, off the lock.
    sync_thread: OnceLock<std::thread::Thread>,
    stopping: AtomicBool,
    /// Asked to stop (by the control socket).
    pub(crate) shutdown: Notify,
    /// The export.
    pub export: Export,
    /// What a request may ask.
    pub limits: Limits,
    /// Print each second's statistics on stderr.
    live: bool,
    /// The request memory of all connections, in bytes.
    pub(crate) budget: Arc<Semaphore>,
    /// Its size, or `u32::MAX` if larger: no request takes more.
    pub(crate) budget_bytes: u32,
    /// The budget and the timeouts.
    pub(crate) resources: Resources,
}

impl<D: Emulated> Shared<D> {
    fn lock(&self) -> MutexGuard<'_, Engine<D>> {
        // A panic elsewhere never leaves the engine half-changed in a way
        // that matters more than stopping would: keep serving.
        self.engine
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `f` on the engine, then wakes the clock thread if the engine
    /// now has work before the time it sleeps towards.
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut Engine<D>) -> R) -> R {
        let mut engine = self.lock();
        let r = f(&mut engine);
        let wake = engine.next_wake();
        let sync = engine.wants_sync();
        let armed = self.armed.load(Ordering::Acquire);
        drop(engine);
        if wake.is_some_and(|t| t < armed)
            && let Some(t) = self.clock_thread.get()
        {
            t.unpark();
        }
        if sync {
            self.wake_sync();
        }
        r
    }

    fn wake_sync(&self) {
        if let Some(t) = self.sync_thread.get() {
            t.unpark();
        }
    }

    /// Syncs the backing files for the flushes the engine has made
    /// durable, without holding the engine, then answers them.
    fn sync_loop(&self) {
        while !self.stopping.load(Ordering::Acquire) {
            let batch = self.lock().take_syncs();
            match batch {
                Some(batch) => {
                    let result = batch.sync();
                    self.lock().synced(batch, result);
                }
                None => std::thread::park(),
            }
        }
    }

    /// Hands a connection's request to the engine.
    pub fn request(&self, reply: &Replier, handle: u64, cmd: Command, payload: Option<Bytes>) {
        self.with_engine(|e| e.request(reply, handle, cmd, payload));
    }

    fn clock_loop(&self) {
        let spin = real_time();
        while !self.stopping.load(Ordering::Acquire) {
            let (wake, clock) = {
                let mut e = self.lock();
                e.catch_up();
                let wake = e.next_wake();
                self.armed
                    .store(wake.unwrap_or(u64::MAX), Ordering::Release);
                if e.wants_sync() {
                    self.wake_sync();
                }
                (wake, e.clock())
            };
            match wake {
                Some(v) => {
                    let deadline = clock.wall(v);
                    let left = deadline.saturating_duration_since(Instant::now());
                    if left > spin {
                        // Back to the top once woken, early or not: the
                        // next event may have changed.
                        std::thread::park_timeout(left - spin);
                    } else {
                        while Instant::now() < deadline {
                            std::hint::spin_loop();
                        }
                    }
                }
                None => std::thread::park(),
            }
        }
    }

    fn stop_clock(&self) {
        self.stopping.store(true, Ordering::Release);
        if let Some(t) = self.clock_thread.get() {
            t.unpark();
        }
        self.wake_sync();
    }
}

/// How a server is reached and run.
#[derive(Clone, Debug)]
pub struct ServerConfig {
    /// The export.
    pub export: Export,
    /// What a request may ask.
    pub limits: Limits,
    /// Where clients connect.
    pub listen: Listen,
    /// The control socket, if any.
    pub control: Option<PathBuf>,
    /// Print each second's statistics on stderr.
    pub live: bool,
    /// Worker threads of the runtime.
    pub threads: usize,
    /// Stop cleanly on SIGINT and SIGTERM.
    pub signals: bool,
    /// The memory budget and the timeouts.
    pub resources: Resources,
}

/// A server running on its own threads, for the command line and tests.
pub struct Running<D: Emulated> {
    shared: Arc<Shared<D>>,
    stop: Arc<Notify>,
    thread: std::thread::JoinHandle<Result<Summary, ServeError>>,
    /// Where it listens (the port chosen, for a TCP port 0).
    pub listening: Listen,
}

/// Why the server stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// Binding or accepting failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why.
        source: std::io::Error,
    },
    /// The engine could not stop cleanly.
    #[error(transparent)]
    Engine(#[from] crate::engine::EngineError),
    /// The server thread panicked.
    #[error("the server thread panicked")]
    Panicked,
    /// A socket path that is taken, or both sockets at one path.
    #[error("{flag} {path}: {why}")]
    Socket {
        /// The option that named it.
        flag: &'static str,
        /// The path.
        path: PathBuf,
        /// What is in the way, and what to do.
        why: &'static str,
    },
}

/// Makes `path` free for a socket: nothing may be there but a socket no
/// server listens on any more (left by one that was killed), which is
/// removed. Anything else is left alone and refused.
fn claim_socket(flag: &'static str, path: &Path) -> Result<(), ServeError> {
    use std::os::unix::fs::FileTypeExt;
    let refuse = |why| ServeError::Socket {
        flag,
        path: path.to_path_buf(),
        why,
    };
    let io = |source| ServeError::Io {
        what: format!("{flag} {}", path.display()),
        source,
    };
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(e)),
        Ok(m) if m.file_type().is_socket() => match std::os::unix::net::UnixStream::connect(path) {
            Ok(_) => Err(refuse(
                "a server is listening there already; stop it or choose another path",
            )),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionRefused => {
                std::fs::remove_file(path).map_err(io)
            }
            Err(e) => Err(io(e)),
        },
        Ok(_) => Err(refuse(
            "something other than a socket is there; refusing to replace it (remove it or choose another path)",
        )),
    }
}

/// Whether two socket paths name the same place (before either exists).
fn same_place(a: &Path, b: &Path) -> bool {
    let absolute = |p: &Path| {
        let p = std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
        // The directory resolved (links, `..`) when it exists.
        match (p.parent(), p.file_name()) {
            (Some(dir), Some(name)) => dir
                .canonicalize()
                .map_or_else(|_| p.clone(), |d| d.join(name)),
            _ => p,
        }
    };
    absolute(a) == absolute(b)
}

impl<D: Emulated> Running<D> {
    /// Starts serving `engine` as `config` says; returns once the sockets
    /// are bound.
    ///
    /// # Errors
    /// [`ServeError::Io`] for a socket that cannot be bound.
    pub fn start(engine: Engine<D>, config: ServerConfig) -> Result<Running<D>, ServeError> {
        let ServerConfig {
            export,
            limits,
            listen,
            control,
            live,
            threads,
            signals,
            resources,
        } = config;
        let budget = usize::try_from(resources.request_memory)
            .unwrap_or(usize::MAX)
            .clamp(MAX_PAYLOAD as usize, Semaphore::MAX_PERMITS);
        let shared = Arc::new(Shared {
            engine: Mutex::new(engine),
            armed: AtomicU64::new(u64::MAX),
            clock_thread: OnceLock::new(),
            sync_thread: OnceLock::new(),
            stopping: AtomicBool::new(false),
            shutdown: Notify::new(),
            export,
            limits,
            live,
            budget: Arc::new(Semaphore::new(budget)),
            budget_bytes: u32::try_from(budget).unwrap_or(u32::MAX),
            resources,
        });
        let io = |what: String| move |source| ServeError::Io { what, source };
        // One thread: the thread waiting on the sockets runs the
        // connections itself, with no hand-over between threads.
        let mut builder = if threads <= 1 {
            tokio::runtime::Builder::new_current_thread()
        } else {
            let mut b = tokio::runtime::Builder::new_multi_thread();
            b.worker_threads(threads);
            b
        };
        let runtime = builder
            .enable_all()
            .build()
            .map_err(io("starting the runtime".into()))?;
        // Watched from before the sockets exist: a signal that comes as
        // soon as a client can connect still stops the server cleanly.
        let watched = signals.then(|| {
            let _guard = runtime.enter();
            Watched::new()
        });
        if let (Listen::Unix(socket), Some(control)) = (&listen, &control)
            && same_place(socket, control)
        {
            return Err(ServeError::Socket {
                flag: "--control",
                path: control.clone(),
                why: "the same path as --socket: give the control socket a path of its own",
            });
        }
        if let Some(path) = &control {
            claim_socket("--control", path)?;
        }
        let (listener, listening) = runtime.block_on(bind(&listen))?;
        let control_path = control.clone();
        let control = match control {
            Some(path) => {
                let _guard = runtime.enter();
                Some(
                    UnixListener::bind(&path)
                        .map_err(io(format!("binding the control socket {}", path.display())))?,
                )
            }
            None => None,
        };
        let clock = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("spindle-clock".into())
                .spawn(move || shared.clock_loop())
                .map_err(io("starting the clock thread".into()))?
        };
        // The clock thread's handle, for wake-ups; set before any request.
        let _ = shared.clock_thread.set(clock.thread().clone());
        let syncer = {
            let shared = Arc::clone(&shared);
            std::thread::Builder::new()
                .name("spindle-sync".into())
                .spawn(move || shared.sync_loop())
                .map_err(io("starting the sync thread".into()))?
        };
        let _ = shared.sync_thread.set(syncer.thread().clone());
        let stop = Arc::new(Notify::new());
        // The socket files this server made, removed when it stops.
        let sockets: Vec<PathBuf> = match &listening {
            Listen::Unix(path) => Some(path.clone()),
            Listen::Tcp(_) => None,
        }
        .into_iter()
        .chain(control_path)
        .collect();
        let thread = {
            let (shared, stop) = (Arc::clone(&shared), Arc::clone(&stop));
            std::thread::Builder::new()
                .name("spindle-serve".into())
                .spawn(move || {
                    let result =
                        runtime.block_on(run(Arc::clone(&shared), listener, control, async move {
                            match watched {
                                Some(watched) => tokio::select! {
                                    () = stop.notified() => {}
                                    () = watched.terminated() => {}
                                },
                                None => stop.notified().await,
                            }
                        }));
                    shared.stop_clock();
                    let _ = clock.join();
                    let _ = syncer.join();
                    runtime.shutdown_timeout(Duration::from_millis(100));
                    for path in &sockets {
                        let _ = std::fs::remove_file(path);
                    }
                    result
                })
                .map_err(io("starting the server thread".into()))?
        };
        Ok(Running {
            shared,
            stop,
            thread,
            listening,
        })
    }

    /// The engine, for a test's look inside.
    pub fn with_engine<R>(&self, f: impl FnOnce(&mut Engine<D>) -> R) -> R {
        self.shared.with_engine(f)
    }

    /// Waits until the server stops (a `shutdown` on the control socket, or
    /// [`Running::stop`] from another thread) and returns its statistics.
    ///
    /// # Errors
    /// [`ServeError`].
    pub fn wait(self) -> Result<Summary, ServeError> {
        self.thread.join().map_err(|_| ServeError::Panicked)?
    }

    /// A handle that stops the server from elsewhere (a signal handler).
    pub fn stopper(&self) -> Arc<Notify> {
        Arc::clone(&self.stop)
    }

    /// Stops the server cleanly and returns its statistics.
    ///
    /// # Errors
    /// [`ServeError`].
    pub fn stop(self) -> Result<Summary, ServeError> {
        self.stop.notify_one();
        self.wait()
    }
}

/// SIGINT and SIGTERM, watched (or not, if they cannot be).
struct Watched(Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>);

impl Watched {
    /// Watches from now on (in a runtime's context).
    fn new() -> Self {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(int), Ok(term)) => Watched(Some((int, term))),
            _ => Watched(None),
        }
    }

    /// SIGINT or SIGTERM (never, if they cannot be watched).
    async fn terminated(self) {
        match self.0 {
            Some((mut int, mut term)) => {
                tokio::select! {
                    _ = int.recv() => {}
                    _ = term.recv() => {}
                }
            }
            None => std::future::pending().await,
        }
    }
}

/// Either listener.
enum Listener {
    Tcp(TcpListener),
    Unix(UnixListener),
}

async fn bind(listen: &Listen) -> Result<(Listener, Listen), ServeError> {
    let io = |source| ServeError::Io {
        what: format!("binding {listen}"),
        source,
    };
    match listen {
        Listen::Tcp(addr) => {
            let l = TcpListener::bind(addr).await.map_err(io)?;
            let local = l.local_addr().map_err(io)?;
            Ok((Listener::Tcp(l), Listen::Tcp(local)))
        }
        Listen::Unix(path) => {
            claim_socket("--socket", path)?;
            let l = UnixListener::bind(path).map_err(io)?;
            Ok((Listener::Unix(l), listen.clone()))
        }
    }
}

/// Accepts clients until `stop` (or a `shutdown` on the control socket);
/// then stops the engine cleanly.
async fn run<D: Emulated>(
    shared: Arc<Shared<D>>,
    listener: Listener,
    control: Option<UnixListener>,
    stop: impl Future<Output = ()>,
) -> Result<Summary, ServeError> {
    if let Some(control) = control {
        tokio::spawn(control::listen(control, Arc::clone(&shared)));
    }
    tokio::spawn(tick(Arc::clone(&shared)));
    tokio::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            () = shared.shutdown.notified() => break,
            accepted = accept(&listener) => match accepted {
                Ok(conn) => spawn_connection(conn, Arc::clone(&shared)),
                Err(e) => {
                    // Out of descriptors, most likely: let some close.
                    say!("spindle serve: accept: {e}");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        }
    }
    shared.with_engine(|e| {
        e.shut_down()?;
        Ok(e.stats_mut().summary())
    })
}

/// An accepted client of either kind.
enum Conn {
    Tcp(tokio::net::TcpStream),
    Unix(tokio::net::UnixStream),
}

async fn accept(listener: &Listener) -> std::io::Result<Conn> {
    match listener {
        Listener::Tcp(l) => l.accept().await.map(|(s, _)| Conn::Tcp(s)),
        Listener::Unix(l) => l.accept().await.map(|(s, _)| Conn::Unix(s)),
    }
}

fn spawn_connection<D: Emulated>(conn: Conn, shared: Arc<Shared<D>>) {
    tokio::spawn(async move {
        let result = match conn {
            Conn::Tcp(s) => {
                let _ = s.set_nodelay(true);
                connection::serve(s, shared).await
            }
            Conn::Unix(s) => connection::serve(s, shared).await,
        };
        match result {
            // A client that left without a word has nothing to be told.
            Err(connection::ConnectionError::Io(e))
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::BrokenPipe | std::io::ErrorKind::ConnectionReset
                ) => {}
            Err(e) => say!("spindle serve: connection closed: {e}"),
            Ok(()) => {}
        }
    });
}

/// Closes each second's statistics, printing them if asked.
async fn tick<D: Emulated>(shared: Arc<Shared<D>>) {
    let mut interval = tokio::time::interval(Duration::from_secs(1));
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let report = shared.with_engine(|e| e.stats_mut().tick(Instant::now()));
        if let (true, Some(r)) = (shared.live, report) {
            say!(
                "{:>6.0} s  {:>8.0} IOPS  latency mean {:>8.3} ms p99 {:>8.3} ms  depth {:>6.1}  late p99 {:>6.3} ms{}",
                r.at_s + r.seconds,
                r.iops,
                r.mean_latency_ms.unwrap_or(0.0),
                r.p99_latency_ms.unwrap_or(0.0),
                r.mean_queue_depth.unwrap_or(0.0),
                r.p99_lateness_ms.unwrap_or(0.0),
                if r.errors > 0 {
                    format!("  {} errors", r.errors)
                } else {
                    String::new()
                },
            );
        }
    }
}
