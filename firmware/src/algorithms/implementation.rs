//! Which implementation of an algorithm a build measures: RustCrypto's crate
//! (no `impl-*` feature), ours in crates/primitives (`impl-ciphermeter`), a
//! C library's (`impl-mbedtls`, `impl-monocypher`, `crate::clib`), or a
//! Cortex-M4 assembly-class crate's (`impl-p256-cortex-m4`, `impl-salty`).
//!
//! `pick!` names an algorithm's type for each implementation that has it,
//! `rustcrypto` first (`Missing` where it has none). Only the
//! chosen type is resolved, so the other crates need not be in the build.
//! The runner asks only for the pairs it lists (crates/mcu
//! `algorithms::implementations`); any other is a compile error here.

/// The type `pick!` names for one implementation: a muncher over the
/// `name: Type` pairs (`macro_rules!` cannot compare idents, so each
/// implementation has an arm that matches its own name).
macro_rules! pick_for {
    (rustcrypto; rustcrypto: $t:ty $(, $($rest:tt)*)?) => { $t };
    (ciphermeter; ciphermeter: $t:ty $(, $($rest:tt)*)?) => { $t };
    (mbedtls; mbedtls: $t:ty $(, $($rest:tt)*)?) => { $t };
    (monocypher; monocypher: $t:ty $(, $($rest:tt)*)?) => { $t };
    (p256_cortex_m4; p256_cortex_m4: $t:ty $(, $($rest:tt)*)?) => { $t };
    (salty; salty: $t:ty $(, $($rest:tt)*)?) => { $t };
    ($want:ident; $other:ident: $t:ty $(, $($rest:tt)*)?) => {
        $crate::algorithms::implementation::pick_for!($want; $($($rest)*)?)
    };
    ($want:ident;) => {
        compile_error!(concat!("this algorithm has no ", stringify!($want), " implementation"))
    };
}

pub(crate) use pick_for;

#[cfg(not(any(
    feature = "impl-ciphermeter",
    feature = "impl-mbedtls",
    feature = "impl-monocypher",
    feature = "impl-p256-cortex-m4",
    feature = "impl-salty"
)))]
#[allow(unused_macros)] // a build with no algorithm (identity, message-none)
macro_rules! pick {
    ($($pairs:tt)*) => { $crate::algorithms::implementation::pick_for!(rustcrypto; $($pairs)*) };
}

#[cfg(feature = "impl-ciphermeter")]
#[allow(unused_macros)]
macro_rules! pick {
    ($($pairs:tt)*) => { $crate::algorithms::implementation::pick_for!(ciphermeter; $($pairs)*) };
}

#[cfg(feature = "impl-mbedtls")]
#[allow(unused_macros)]
macro_rules! pick {
    ($($pairs:tt)*) => { $crate::algorithms::implementation::pick_for!(mbedtls; $($pairs)*) };
}

#[cfg(feature = "impl-monocypher")]
#[allow(unused_macros)]
macro_rules! pick {
    ($($pairs:tt)*) => { $crate::algorithms::implementation::pick_for!(monocypher; $($pairs)*) };
}

#[cfg(feature = "impl-p256-cortex-m4")]
#[allow(unused_macros)]
macro_rules! pick {
    ($($pairs:tt)*) => { $crate::algorithms::implementation::pick_for!(p256_cortex_m4; $($pairs)*) };
}

#[cfg(feature = "impl-salty")]
#[allow(unused_macros)]
macro_rules! pick {
    ($($pairs:tt)*) => { $crate::algorithms::implementation::pick_for!(salty; $($pairs)*) };
}

pub(crate) use pick;
