//! Exact durations: a rational number of microseconds, so sums of many packets never drift.

use std::fmt;
use std::ops::Add;

use num_rational::Ratio;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Micros(Ratio<u64>);

impl Micros {
    pub const ZERO: Micros = Micros(Ratio::new_raw(0, 1));

    pub fn new(us: Ratio<u64>) -> Self {
        Micros(us)
    }

    pub fn from_us(us: u64) -> Self {
        Micros(Ratio::from_integer(us))
    }

    pub fn from_ms(ms: u64) -> Self {
        Micros(Ratio::from_integer(ms * 1000))
    }

    /// The time `bits` take at `bits_per_second`.
    pub fn for_bits(bits: u64, bits_per_second: u64) -> Self {
        Micros(Ratio::new(bits * 1_000_000, bits_per_second))
    }

    pub fn ratio(self) -> Ratio<u64> {
        self.0
    }

    pub fn scale(self, by: Ratio<u64>) -> Self {
        Micros(self.0 * by)
    }

    pub fn times(self, n: u64) -> Self {
        Micros(self.0 * n)
    }

    pub fn as_ms(self) -> f64 {
        *self.0.numer() as f64 / *self.0.denom() as f64 / 1000.0
    }

    pub fn as_secs(self) -> f64 {
        self.as_ms() / 1000.0
    }

    pub fn is_whole_us(self) -> bool {
        self.0.is_integer()
    }
}

impl Add for Micros {
    type Output = Micros;
    fn add(self, rhs: Micros) -> Micros {
        Micros(self.0 + rhs.0)
    }
}

impl std::iter::Sum for Micros {
    fn sum<I: Iterator<Item = Micros>>(iter: I) -> Micros {
        iter.fold(Micros::ZERO, |a, b| a + b)
    }
}

impl fmt::Display for Micros {
    /// Milliseconds with three decimals (exact when the value is whole microseconds).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Round half up to whole microseconds, then print ms.nnn.
        let us = (self.0 * 2 + Ratio::from_integer(1)) / 2;
        let us = us.floor().to_integer();
        write!(f, "{}.{:03} ms", us / 1000, us % 1000)
    }
}
