//! Where the `.hmesh` validators put what they find: below the container's validator and
//! the cluster LOD's, which both report into one.

use crate::Problem;

/// Collects problems, keeping at most a few per rule so a badly broken file cannot make
/// the report (or its memory) grow with the file.
#[derive(Default)]
pub(super) struct Sink {
    pub(super) problems: Vec<Problem>,
    per_rule: Vec<(&'static str, usize)>,
}

const REPORTS_PER_RULE: usize = 8;

impl Sink {
    fn report(
        &mut self,
        rule: &'static str,
        offset: Option<u64>,
        message: impl FnOnce() -> String,
    ) {
        let seen = match self.per_rule.iter_mut().find(|(r, _)| *r == rule) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.per_rule.push((rule, 1));
                1
            }
        };
        if seen <= REPORTS_PER_RULE {
            self.problems.push(Problem {
                offset,
                message: message(),
            });
        }
    }
    pub(super) fn at(&mut self, rule: &'static str, offset: u64, message: impl FnOnce() -> String) {
        self.report(rule, Some(offset), message);
    }
    pub(super) fn finish(mut self) -> Vec<Problem> {
        for (rule, n) in &self.per_rule {
            if *n > REPORTS_PER_RULE {
                self.problems.push(Problem::new(format!(
                    "{} more problems of the kind \"{rule}\" not listed",
                    n - REPORTS_PER_RULE
                )));
            }
        }
        self.problems
    }
}
