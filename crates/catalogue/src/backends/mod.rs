//! Backends beyond RustCrypto, added to the entries they cover so that users
//! can see how much the implementation matters: ring always, OpenSSL (the
//! system libssl) with the `openssl` cargo feature, AWS-LC with `aws-lc`.

#[cfg(feature = "aws-lc")]
mod aws_lc;
#[cfg(feature = "openssl")]
mod openssl;
mod ring;

use crate::registry::Builder;

pub(crate) fn register(b: &mut Builder) {
    ring::register(b);
    #[cfg(feature = "openssl")]
    openssl::register(b);
    #[cfg(feature = "aws-lc")]
    aws_lc::register(b);
}
