//! Backends beyond RustCrypto, added to the entries they cover so that users
//! can see how much the implementation matters: ring with the `native` cargo
//! feature (the workspace's default), OpenSSL (the system libssl) with
//! `openssl`, AWS-LC with `aws-lc`.

#[cfg(feature = "aws-lc")]
mod aws_lc;
#[cfg(feature = "openssl")]
mod openssl;
#[cfg(feature = "native")]
mod ring;

use crate::registry::Builder;

pub(crate) fn register(b: &mut Builder) {
    #[cfg(feature = "native")]
    ring::register(b);
    #[cfg(feature = "openssl")]
    openssl::register(b);
    #[cfg(feature = "aws-lc")]
    aws_lc::register(b);
}
