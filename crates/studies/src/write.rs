//! `out!` writes one line to a String, as `println!` does to standard output:
//! the studies render text without printing, so the CLI and tests decide where
//! it goes.

#[macro_export]
macro_rules! out {
    ($o:expr) => {
        $o.push('\n')
    };
    ($o:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($o, $($arg)*);
    }};
}

#[macro_export]
macro_rules! put {
    ($o:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = write!($o, $($arg)*);
    }};
}
