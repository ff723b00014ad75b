//! The guard starts a real cluster that answers on loopback, and stops it on drop.

use std::net::TcpStream;

use ciphermeter_testkit::Postgres;

#[test]
fn a_cluster_answers_and_is_gone_after_drop() {
    let Some(pg) = Postgres::start() else { return };
    let url = pg.create_database("kit");
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let row = client
        .query_one("SELECT 6 * 7, current_database()", &[])
        .unwrap();
    assert_eq!(row.get::<_, i32>(0), 42);
    assert_eq!(row.get::<_, String>(1), "kit");
    drop(client);
    let port = pg.port();
    drop(pg);
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}
