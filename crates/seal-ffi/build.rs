//! Refuses a C library build whose one scheme leaks on its target's core
//! (build/leaky.rs).

#[path = "build/leaky.rs"]
mod leaky;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it");
    let table = std::path::Path::new(&manifest).join("../../data/constant-time/leaks.tsv");
    println!("cargo:rerun-if-changed={}", table.display());
    println!("cargo:rerun-if-changed={}", leaky::TARGETS);
    for var in [
        "CIPHERMETER_SCHEME",
        "CIPHERMETER_BACKEND",
        "CIPHERMETER_ALLOW_LEAKY",
    ] {
        println!("cargo:rerun-if-env-changed={var}");
    }
    let tsv = std::fs::read_to_string(&table).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e} (scripts/ct-sweep writes it)",
            table.display()
        )
    });
    let triple = std::env::var("TARGET").expect("cargo sets it");
    let scheme = std::env::var("CIPHERMETER_SCHEME").ok();
    let backend = std::env::var("CIPHERMETER_BACKEND").unwrap_or_else(|_| "rustcrypto".into());
    let allow = std::env::var("CIPHERMETER_ALLOW_LEAKY").is_ok_and(|v| v == "1");
    match leaky::check(&tsv, &triple, scheme.as_deref(), &backend, allow) {
        Ok(warnings) => {
            for w in warnings {
                println!("cargo:warning={w}");
            }
        }
        Err(refusal) => {
            eprintln!("error: {refusal}");
            std::process::exit(2);
        }
    }
}
