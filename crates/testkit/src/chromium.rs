//! Headless Chromium for the tests that open a page the binary wrote (the run
//! report, the explore page): found on PATH, with a profile of the test's
//! own and nothing that reaches the network.

use std::path::Path;
use std::process::Command;

/// `chromium --headless` with a window of `size` ("1200,4000") and its
/// profile in `profile`; the caller adds `--dump-dom` or `--screenshot` and
/// the URL. A test fails when Chromium is not installed.
pub fn headless(profile: &Path, size: &str) -> Command {
    let browser = ["chromium", "chromium-browser"]
        .iter()
        .find_map(|name| crate::on_path(name))
        .expect("chromium is not installed: run scripts/setup (Debian package `chromium`)");
    let mut cmd = Command::new(browser);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--window-size={size}"))
    .arg(format!("--user-data-dir={}", profile.display()));
    cmd
}

/// What a page drew once it had answered: its DOM as its own document
/// serialised it, and Chromium's log.
pub struct Answered {
    pub dom: String,
    pub log: String,
}

/// Opens `page` (a file) at `#fragment` (percent-encoded here) in headless
/// Chromium and returns its DOM once an element matches `ready` (a CSS
/// selector), also writing a screenshot of the window to `screenshot`.
///
/// Why a harness: a page that answers after async work (a WebAssembly compile
/// off the main thread) races Chromium's virtual time, which runs ahead while
/// the renderer waits on another thread; under load the DOM was dumped
/// before the answer. Here the page opens from disk in a frame of a harness
/// page (written into `profile`; `--allow-file-access-from-files` lets it
/// read the frame) that holds one fetch to a loopback port open while the page has
/// not answered: Chromium pauses virtual time while a fetch is pending (and
/// so the page's own timers wait too: a page that answers only after a timer
/// of its main thread is not held for). The wait is bounded by `limit` of real
/// time, then this returns the log; a browser still running a minute later is
/// killed.
pub fn answered(
    page: &Path,
    fragment: &str,
    ready: &str,
    size: &str,
    profile: &Path,
    screenshot: Option<&Path>,
    limit: std::time::Duration,
) -> Result<Answered, String> {
    let server = harness::Server::start(limit);
    let page = page
        .canonicalize()
        .map_err(|e| format!("{}: {e}", page.display()))?;
    let frame = format!("file://{}#{}", page.display(), percent_encode(fragment));
    // The harness is this call's own (beside its profile), and removed after.
    std::fs::create_dir_all(profile).map_err(|e| format!("{}: {e}", profile.display()))?;
    let harness = profile.join("harness.html");
    std::fs::write(&harness, harness::page(&frame, ready, &server.url()))
        .map_err(|e| format!("{}: {e}", harness.display()))?;
    let mut cmd = headless(profile, size);
    cmd.args([
        "--virtual-time-budget=30000",
        "--allow-file-access-from-files",
    ]);
    match screenshot {
        Some(png) => cmd.arg(format!("--screenshot={}", png.display())),
        None => cmd.arg("--dump-dom"),
    };
    let out = run_within(
        cmd.arg(format!("file://{}", harness.display())),
        limit + std::time::Duration::from_secs(60),
    );
    let _ = std::fs::remove_file(&harness);
    let out = out?;
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!("chromium failed: {log}"));
    }
    match server.finish() {
        Some(dom) => Ok(Answered { dom, log }),
        None => Err(format!(
            "the page did not answer ({ready} never matched) within {limit:?}; log:\n{log}"
        )),
    }
}

/// `cmd`'s output, or an error once it has run `limit` of real time (a
/// browser stuck in a page's script; it is killed).
fn run_within(
    cmd: &mut Command,
    limit: std::time::Duration,
) -> Result<std::process::Output, String> {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("chromium: {e}"))?;
    // Drained on their own threads, so a full pipe never stalls the browser.
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| format!("chromium: {e}"))? {
            Some(status) => break status,
            None if started.elapsed() > limit => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("chromium still ran after {limit:?}: killed"));
            }
            None => std::thread::sleep(std::time::Duration::from_millis(100)),
        }
    };
    Ok(std::process::Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    })
}

/// A child's pipe read to its end on a thread of its own.
fn drain<R: std::io::Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut bytes);
        }
        bytes
    })
}

/// `text` with everything but unreserved characters percent-encoded.
fn percent_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

mod harness {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    use std::thread::JoinHandle;
    use std::time::{Duration, Instant};

    /// A loopback HTTP/1.0 server of two routes: `/tick` (answered 50 ms
    /// later; refused once past the limit) and `POST /dom` (the page's DOM, kept).
    pub struct Server {
        port: u16,
        stop: Arc<AtomicBool>,
        dom: Arc<Mutex<Option<String>>>,
        accept: Option<JoinHandle<()>>,
    }

    struct Shared {
        deadline: Instant,
        dom: Arc<Mutex<Option<String>>>,
    }

    impl Server {
        pub fn start(limit: Duration) -> Server {
            let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
            let port = listener.local_addr().unwrap().port();
            let dom = Arc::new(Mutex::new(None));
            let shared = Arc::new(Shared {
                deadline: Instant::now() + limit,
                dom: dom.clone(),
            });
            let stop = Arc::new(AtomicBool::new(false));
            let stopping = stop.clone();
            let accept = std::thread::spawn(move || {
                for stream in listener.incoming() {
                    if stopping.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(stream) = stream else { continue };
                    let shared = shared.clone();
                    // One thread per connection: a preconnected socket that
                    // never sends a request must not hold up the others.
                    std::thread::spawn(move || {
                        let _ = serve(stream, &shared);
                    });
                }
            });
            Server {
                port,
                stop,
                dom,
                accept: Some(accept),
            }
        }

        pub fn url(&self) -> String {
            format!("http://127.0.0.1:{}", self.port)
        }

        /// Stops accepting and returns the DOM the harness posted, if it did.
        pub fn finish(mut self) -> Option<String> {
            self.shut();
            self.dom.lock().unwrap().take()
        }

        fn shut(&mut self) {
            // Once: a second poke could reach another server on a reused port.
            if self.accept.is_none() {
                return;
            }
            self.stop.store(true, Ordering::SeqCst);
            let _ = TcpStream::connect(("127.0.0.1", self.port));
            if let Some(t) = self.accept.take() {
                let _ = t.join();
            }
        }
    }

    impl Drop for Server {
        fn drop(&mut self) {
            self.shut();
        }
    }

    /// The harness: `frame` (a file URL) filling the window, and the script
    /// that holds a fetch to `server` open until `ready` matches in it.
    pub fn page(frame: &str, ready: &str, server: &str) -> String {
        format!(
            r#"<!doctype html><html><body style="margin:0">
<iframe id="page" src="{frame}" style="border:0;width:100vw;height:100vh"></iframe>
<script>
(async () => {{
  const ready = () => {{ const d = document.getElementById("page").contentDocument; return d && d.querySelector({ready:?}) ? d : null; }};
  while (!ready()) {{
    if (!(await fetch("{server}/tick")).ok) return;
  }}
  await fetch("{server}/dom", {{ method: "POST", body: ready().documentElement.outerHTML }});
}})();
</script></body></html>"#
        )
    }

    fn serve(stream: TcpStream, shared: &Shared) -> std::io::Result<()> {
        stream.set_read_timeout(Some(Duration::from_secs(30)))?;
        let mut reader = BufReader::new(stream.try_clone()?);
        let mut line = String::new();
        reader.read_line(&mut line)?;
        let mut words = line.split_whitespace();
        let (method, path) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        let mut length = 0;
        loop {
            let mut header = String::new();
            if reader.read_line(&mut header)? == 0 || header.trim().is_empty() {
                break;
            }
            if let Some((name, value)) = header.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let (status, kind, body): (&str, &str, &[u8]) = match (method, path) {
            ("GET", "/tick") => {
                std::thread::sleep(Duration::from_millis(50));
                if Instant::now() < shared.deadline {
                    ("200 OK", "text/plain", b"wait")
                } else {
                    ("410 Gone", "text/plain", b"past the limit")
                }
            }
            ("POST", "/dom") => {
                let mut body = vec![0; length];
                reader.read_exact(&mut body)?;
                *shared.dom.lock().unwrap() = Some(String::from_utf8_lossy(&body).into_owned());
                ("200 OK", "text/plain", b"kept")
            }
            _ => ("404 Not Found", "text/plain", b"no such route"),
        };
        let mut stream = stream;
        write!(
            stream,
            "HTTP/1.0 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nAccess-Control-Allow-Origin: *\r\nConnection: close\r\n\r\n",
            body.len()
        )?;
        stream.write_all(body)?;
        stream.flush()
    }
}
