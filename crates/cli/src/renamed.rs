//! Flags renamed so that one name has one meaning everywhere (docs/flags.md):
//! the old spelling works for one more release, with a note on stderr.

/// The value given under the old spelling `was`, if any, said to be `now`'s.
pub fn old<T>(given: Option<T>, was: &str, now: &str) -> Option<T> {
    if given.is_some() {
        eprintln!("note: {was} is now {now}; {was} goes in the next release");
    }
    given
}
