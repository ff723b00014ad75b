//! The Mosquitto guard: the broker accepts connections on its loopback port while the
//! guard lives, and is gone (port closed) once it is dropped.

use std::net::TcpStream;

use ciphermeter_testkit::Mosquitto;

#[test]
fn broker_listens_on_loopback_until_dropped() {
    let Some(broker) = Mosquitto::start() else {
        return;
    };
    let port = broker.port();
    assert!(TcpStream::connect(("127.0.0.1", port)).is_ok());
    assert_eq!(broker.url("a/b"), format!("mqtt://127.0.0.1:{port}/a/b"));
    drop(broker);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}
