//! Which implementation of an algorithm a build measures: RustCrypto's crate
//! (no `impl-*` feature), ours in crates/primitives (`impl-ciphermeter`), or
//! a C library's (`impl-mbedtls`, `impl-monocypher`, `crate::clib`).
//!
//! `pick!` names an algorithm's type for each implementation that has it, in
//! this order: `rustcrypto` (`Missing` where it has none), `ciphermeter`,
//! `mbedtls`, `monocypher`. Only the
//! chosen type is resolved, so the other crates need not be in the build.
//! The runner asks only for the pairs it lists (crates/mcu
//! `algorithms::implementations`); any other is a compile error here.

#[cfg(not(any(
    feature = "impl-ciphermeter",
    feature = "impl-mbedtls",
    feature = "impl-monocypher"
)))]
#[allow(unused_macros)] // a build with no algorithm (identity, message-none)
macro_rules! pick {
    (rustcrypto: $r:ty $(, $other:ident: $o:ty)* $(,)?) => {
        $r
    };
}

#[cfg(feature = "impl-ciphermeter")]
#[allow(unused_macros)]
macro_rules! pick {
    (rustcrypto: $r:ty, ciphermeter: $c:ty $(, $other:ident: $o:ty)* $(,)?) => {
        $c
    };
    ($($t:tt)*) => {
        compile_error!("this algorithm has no ciphermeter implementation")
    };
}

#[cfg(feature = "impl-mbedtls")]
#[allow(unused_macros)]
macro_rules! pick {
    (rustcrypto: $r:ty $(, ciphermeter: $c:ty)?, mbedtls: $m:ty $(, monocypher: $o:ty)? $(,)?) => {
        $m
    };
    ($($t:tt)*) => {
        compile_error!("this algorithm has no Mbed TLS implementation")
    };
}

#[cfg(feature = "impl-monocypher")]
#[allow(unused_macros)]
macro_rules! pick {
    (rustcrypto: $r:ty $(, ciphermeter: $c:ty)? $(, mbedtls: $m:ty)?, monocypher: $o:ty $(,)?) => {
        $o
    };
    ($($t:tt)*) => {
        compile_error!("this algorithm has no Monocypher implementation")
    };
}

pub(crate) use pick;
