//! The harness waits for a page that answers from another thread: a worker's
//! 2-second timer, which Chromium's virtual time alone does not wait for
//! (`--dump-dom` dumps such a page unanswered at once).

use std::time::Duration;

const PAGE: &str = r#"<!doctype html><html><body><script>
const w = new Worker(URL.createObjectURL(new Blob(["setTimeout(() => postMessage(location.hash), 2000)"])));
w.onmessage = () => {
  const p = document.createElement("p");
  p.id = "done";
  p.textContent = decodeURIComponent(location.hash.slice(1));
  document.body.append(p);
};
</script></body></html>"#;

#[test]
fn a_page_answering_from_a_worker_is_waited_for_and_its_fragment_arrives() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, PAGE).unwrap();
    let fragment = r#"{"ask": "a b/c"}"#;
    let answered = ciphermeter_testkit::chromium::answered(
        &page,
        fragment,
        "#done",
        "800,600",
        &dir.path().join("profile"),
        None,
        Duration::from_secs(120),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert!(
        answered
            .dom
            .contains(r#"<p id="done">{"ask": "a b/c"}</p>"#),
        "{}",
        answered.dom
    );
}

#[test]
fn a_page_that_never_answers_is_reported_after_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("page.html");
    std::fs::write(&page, "<!doctype html><p>nothing</p>").unwrap();
    let started = std::time::Instant::now();
    let err = ciphermeter_testkit::chromium::answered(
        &page,
        "",
        "#done",
        "800,600",
        &dir.path().join("profile"),
        None,
        Duration::from_secs(3),
    )
    .err()
    .expect("a page that never answers was taken as answered");
    assert!(err.contains("did not answer"), "{err}");
    // Held until the limit, not let go at once.
    assert!(started.elapsed() >= Duration::from_secs(3), "{err}");
}
