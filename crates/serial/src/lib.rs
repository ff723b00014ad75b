//! Serial devices and pseudo-terminals: raw 8N1, no echo, no line editing.
//! Shared by the live link (crates/live: radios, senders, the gateway's
//! serial input) and the boards `mcu --board --serial` reads.

use std::fs::{File, OpenOptions};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::poll::{PollFd, PollFlags, PollTimeout, poll};
use nix::sys::termios::{self, BaudRate, ControlFlags, SetArg, SpecialCharacterIndices};

/// Why a port cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SerialError {
    /// What the user asked for is wrong (a baud rate no UART has).
    #[error("{0}")]
    Usage(String),
    /// The machine failed: the device cannot be opened or set up.
    #[error("{0}")]
    Io(String),
}

impl SerialError {
    fn io(context: impl std::fmt::Display, err: impl std::fmt::Display) -> Self {
        SerialError::Io(format!("{context}: {err}"))
    }

    pub fn is_usage(&self) -> bool {
        matches!(self, SerialError::Usage(_))
    }
}

/// Opens a serial device or pty slave for reading and writing, in raw mode.
/// `baud` is set when given (a pty ignores it; a real UART needs it).
pub fn open_serial(path: &Path, baud: Option<u32>) -> Result<File, SerialError> {
    if let Some(b) = baud {
        baud_rate(b)?;
    }
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(libc::O_NOCTTY)
        .open(path)
        .map_err(|e| SerialError::io(path.display(), e))?;
    make_raw(&file, baud).map_err(|e| match e {
        SerialError::Io(m) => SerialError::Io(format!("{}: {m}", path.display())),
        other => other,
    })?;
    Ok(file)
}

/// Raw mode: bytes pass unchanged, reads return as soon as one byte is there.
pub fn make_raw(fd: impl AsFd, baud: Option<u32>) -> Result<(), SerialError> {
    let mut t =
        termios::tcgetattr(&fd).map_err(|e| SerialError::io("not a terminal (tcgetattr)", e))?;
    termios::cfmakeraw(&mut t);
    t.control_flags |= ControlFlags::CLOCAL | ControlFlags::CREAD;
    t.control_chars[SpecialCharacterIndices::VMIN as usize] = 1;
    t.control_chars[SpecialCharacterIndices::VTIME as usize] = 0;
    if let Some(b) = baud {
        termios::cfsetspeed(&mut t, baud_rate(b)?).map_err(|e| SerialError::io("cfsetspeed", e))?;
    }
    termios::tcsetattr(&fd, SetArg::TCSANOW, &t).map_err(|e| SerialError::io("tcsetattr", e))
}

fn baud_rate(baud: u32) -> Result<BaudRate, SerialError> {
    use BaudRate::*;
    Ok(match baud {
        1200 => B1200,
        2400 => B2400,
        4800 => B4800,
        9600 => B9600,
        19200 => B19200,
        38400 => B38400,
        57600 => B57600,
        115200 => B115200,
        230400 => B230400,
        460800 => B460800,
        500000 => B500000,
        921600 => B921600,
        1000000 => B1000000,
        2000000 => B2000000,
        _ => {
            return Err(SerialError::Usage(format!(
                "baud {baud} is not a standard rate (use 9600, 19200, 38400, 57600, 115200, 230400, ...)"
            )));
        }
    })
}

/// Waits until `fd` is readable or `timeout` passes; true when readable.
pub fn wait_readable(fd: impl AsFd, timeout: Duration) -> Result<bool, SerialError> {
    wait_for(fd, PollFlags::POLLIN, timeout)
}

/// Waits until `fd` takes a write or `timeout` passes; true when it does.
pub fn wait_writable(fd: impl AsFd, timeout: Duration) -> Result<bool, SerialError> {
    wait_for(fd, PollFlags::POLLOUT, timeout)
}

fn wait_for(fd: impl AsFd, flags: PollFlags, timeout: Duration) -> Result<bool, SerialError> {
    let ms = timeout.as_millis().min(60_000) as u16;
    let mut fds = [PollFd::new(fd.as_fd(), flags)];
    match poll(&mut fds, PollTimeout::from(ms)) {
        Ok(0) => Ok(false),
        Ok(_) => Ok(true),
        Err(nix::errno::Errno::EINTR) => Ok(false),
        Err(e) => Err(SerialError::io("poll", e)),
    }
}

/// One pseudo-terminal: the master end (the emulator's side) and the slave's path
/// (what a program opens as if it were a serial port).
pub struct Pty {
    pub master: File,
    /// Kept open so the pty survives clients that open and close the slave.
    _slave: OwnedFd,
    pub path: PathBuf,
}

impl Pty {
    pub fn open() -> Result<Pty, SerialError> {
        let pair = nix::pty::openpty(None, None).map_err(|e| SerialError::io("openpty", e))?;
        // Raw before anyone writes: a cooked slave would echo our output back to us.
        make_raw(&pair.slave, None)?;
        let path = nix::unistd::ttyname(&pair.slave).map_err(|e| SerialError::io("ttyname", e))?;
        Ok(Pty {
            master: File::from(pair.master),
            _slave: pair.slave,
            path,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::{Read, Write};

    #[test]
    fn pty_passes_bytes_unchanged_both_ways() {
        let mut pty = Pty::open().unwrap();
        let mut slave = open_serial(&pty.path, Some(115_200)).unwrap();
        let bytes: Vec<u8> = (0u8..=255).collect();
        slave.write_all(&bytes).unwrap();
        let mut got = vec![0u8; 256];
        pty.master.read_exact(&mut got).unwrap();
        assert_eq!(got, bytes);
        pty.master.write_all(b"\r\n\x03\x04").unwrap();
        let mut back = [0u8; 4];
        assert!(wait_readable(&slave, Duration::from_secs(2)).unwrap());
        slave.read_exact(&mut back).unwrap();
        assert_eq!(&back, b"\r\n\x03\x04");
    }

    #[test]
    fn odd_baud_is_a_usage_error() {
        assert!(baud_rate(12345).unwrap_err().is_usage());
    }
}
