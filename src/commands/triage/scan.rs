//! One pass over the log's lines: attempt boundaries (attempt markers, a `ninja: Entering
//! directory` seen again) and, per line, the first matching row, gathered per attempt into an
//! [`AttemptScan`] (the first root error, cascades, the success line, the archs on compile
//! command lines).

use regex::Regex;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;
use std::sync::OnceLock;

use super::arch;
use super::report::EvidenceLine;
use super::rows::{Analysis, RowBook, RowKind};
use super::TriageError;

/// One matched line.
#[derive(Debug, Clone)]
pub(super) struct Hit {
    pub(super) row: usize,
    pub(super) line: EvidenceLine,
    pub(super) captures: BTreeMap<String, String>,
    pub(super) context: Vec<EvidenceLine>,
}

/// What one attempt showed.
#[derive(Debug, Clone)]
pub(super) struct AttemptScan {
    pub(super) index: usize,
    pub(super) first_line: u64,
    pub(super) last_line: u64,
    pub(super) started_by: String,
    pub(super) first_root: Option<Hit>,
    pub(super) first_fallback: Option<Hit>,
    pub(super) first_success: Option<Hit>,
    /// Later root errors, one per row (for `also_seen`).
    pub(super) later: Vec<Hit>,
    pub(super) cascades: Vec<Hit>,
    pub(super) cascades_total: usize,
    /// Per context pattern (row, index): the last line that matched, in this attempt.
    pub(super) context_last: HashMap<(usize, usize), EvidenceLine>,
    pub(super) ninja_dirs: HashSet<String>,
    /// The last ninja progress count (`[k/N]`) of this attempt.
    pub(super) ninja_step: Option<u64>,
    /// Distinct archs on compile command lines, the first line of each.
    pub(super) offload: Vec<(String, Hit)>,
    /// Whether anything of interest was seen (an attempt marker only splits after content).
    pub(super) content: bool,
}

impl AttemptScan {
    pub(super) fn new(index: usize, first_line: u64, started_by: &str) -> AttemptScan {
        AttemptScan {
            index,
            first_line,
            last_line: first_line,
            started_by: started_by.to_string(),
            first_root: None,
            first_fallback: None,
            first_success: None,
            later: Vec::new(),
            cascades: Vec::new(),
            cascades_total: 0,
            context_last: HashMap::new(),
            ninja_dirs: HashSet::new(),
            ninja_step: None,
            offload: Vec::new(),
            content: false,
        }
    }

    pub(super) fn has_root(&self, facts: &arch::ArchFacts) -> bool {
        self.first_root.is_some() || self.wrong_arch(facts).is_some()
    }

    /// The first command line that builds for an arch other than the intended one.
    pub(super) fn wrong_arch(&self, facts: &arch::ArchFacts) -> Option<&Hit> {
        self.offload
            .iter()
            .filter(|(arch, _)| facts.is_wrong(arch))
            .map(|(_, hit)| hit)
            .min_by_key(|hit| hit.line.line)
    }

    pub(super) fn offload_lines(&self) -> Vec<(String, EvidenceLine)> {
        self.offload
            .iter()
            .map(|(arch, hit)| (arch.clone(), hit.line.clone()))
            .collect()
    }
}

/// Cascades and later errors kept per attempt.
const MAX_LISTED: usize = 20;
/// Longest evidence text kept.
const MAX_EVIDENCE_CHARS: usize = 600;

/// Shortens a long line around the matched range.
pub(super) fn excerpt(text: &str, range: std::ops::Range<usize>) -> String {
    if text.chars().count() <= MAX_EVIDENCE_CHARS {
        return text.to_string();
    }
    let floor = |mut i: usize| {
        while i > 0 && !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let head_end = floor(200.min(text.len()));
    let start = floor(range.start.saturating_sub(150).max(head_end));
    let end = floor((range.end + 150).min(text.len()));
    let mut out = text[..head_end].to_string();
    if start > head_end {
        out.push_str(" … ");
    }
    out.push_str(&text[start.max(head_end)..end.max(start.max(head_end))]);
    if end < text.len() {
        out.push_str(" …");
    }
    out
}

fn ninja_entering() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"ninja: Entering directory [`'](?P<dir>[^'`]+)'").expect("ninja pattern")
    })
}

/// The step of a ninja progress line (`[3/12] ...`).
fn ninja_step(text: &str) -> Option<u64> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?:^|[\s|])\[(?P<k>\d{1,6})/\d{1,6}\]\s").expect("ninja step pattern")
    });
    re.captures(text)?.name("k")?.as_str().parse().ok()
}

pub(super) struct Scanner<'a> {
    book: &'a RowBook,
    /// What the options and environment say about the arch (the log's own mention is folded in
    /// after the scan).
    facts: arch::ArchFacts,
    context_set: regex::RegexSet,
    context_owners: Vec<(usize, usize)>,
    pub(super) arch_facts_log: Option<Option<String>>,
    /// The GPU's arch the log shows, last mention ([`arch::device_arch_in_line`]).
    pub(super) device_arch_log: Option<String>,
    pub(super) current: AttemptScan,
    pub(super) last_with_root: Option<AttemptScan>,
    pub(super) attempts: usize,
    pub(super) arch_row: Option<usize>,
}

impl<'a> Scanner<'a> {
    pub(super) fn new(
        book: &'a RowBook,
        facts: arch::ArchFacts,
    ) -> Result<Scanner<'a>, TriageError> {
        let mut sources = Vec::new();
        let mut owners = Vec::new();
        for (r, row) in book.rows.iter().enumerate() {
            for (i, p) in row.row.context.iter().enumerate() {
                sources.push(super::rows::ascii_boundaries(p));
                owners.push((r, i));
            }
        }
        let context_set = regex::RegexSet::new(&sources).map_err(|e| TriageError::Rules {
            path: PathBuf::from("(all rows)"),
            message: format!("context patterns do not compile together: {e}"),
        })?;
        let arch_row = book
            .rows
            .iter()
            .position(|r| r.row.analysis == Some(Analysis::ArchMismatch));
        Ok(Scanner {
            book,
            facts,
            context_set,
            context_owners: owners,
            arch_facts_log: None,
            device_arch_log: None,
            current: AttemptScan::new(1, 1, "start-of-log"),
            last_with_root: None,
            attempts: 1,
            arch_row,
        })
    }

    fn start_attempt(&mut self, line: u64, started_by: &str) {
        self.attempts += 1;
        let next = AttemptScan::new(self.attempts, line, started_by);
        let finished = std::mem::replace(&mut self.current, next);
        if finished.has_root(&self.facts) {
            self.last_with_root = Some(finished);
        }
    }

    pub(super) fn piece(&mut self, number: u64, text: &str) {
        // Attempt boundaries first: the marker line belongs to the attempt it starts.
        if let Some(marker) = self.book.markers.iter().find(|(_, re)| re.is_match(text)) {
            if self.current.content {
                let id = marker.0.id.clone();
                self.start_attempt(number, &id);
            }
        } else if let Some(c) = ninja_entering().captures(text) {
            let dir = c["dir"].to_string();
            if self.current.ninja_dirs.contains(&dir) {
                self.start_attempt(number, "ninja-reentry");
            }
            self.current.ninja_dirs.insert(dir);
        } else if let Some(step) = ninja_step(text) {
            // ninja counts its steps from [1/N] on every run: a count that starts again after a
            // failed run is a relaunch (behind a supervisor that prints no banner). After a run
            // that failed nothing it is the next module of the same JIT run.
            let failed = self.current.first_root.is_some() || !self.current.cascades.is_empty();
            if step == 1 && self.current.ninja_step.is_some() && failed {
                self.start_attempt(number, "ninja-restart");
            }
            self.current.ninja_step = Some(step);
        }
        self.current.last_line = number;
        if let Some(value) = arch::variable_in_line(text) {
            // The last mention before the failure is the one in force.
            self.arch_facts_log = Some(value);
        }
        if let Some(device) = arch::device_arch_in_line(text) {
            self.device_arch_log = Some(device);
        }

        let matches = self.book.set.matches(text);
        if matches.matched_any() {
            // First matching row (in book order) wins on this line.
            let mut best: Option<(usize, usize)> = None;
            for i in matches.iter() {
                let owner = self.book.owners[i];
                if best.is_none_or(|b| owner < b) {
                    best = Some(owner);
                }
            }
            if let Some((row_index, pattern_index)) = best {
                self.hit(number, text, row_index, pattern_index);
            }
        }
        // Context lines are recorded after the row check: a line is not its own context.
        for i in self.context_set.matches(text).iter() {
            let owner = self.context_owners[i];
            self.current.context_last.insert(
                owner,
                EvidenceLine {
                    line: number,
                    text: excerpt(text, 0..0),
                    raisers: None,
                },
            );
        }
    }

    /// Records that line `number` matched pattern `pattern_index` of row `row_index`: the hit,
    /// its captures and context, filed under the current attempt by the row's kind. Long because
    /// it is one match with an arm per kind of row, each the few lines that kind keeps.
    fn hit(&mut self, number: u64, text: &str, row_index: usize, pattern_index: usize) {
        let compiled = &self.book.rows[row_index];
        let Some(m) = compiled.patterns[pattern_index].captures(text) else {
            return;
        };
        let whole = m.get(0).map_or(0..0, |g| g.range());
        let captures: BTreeMap<String, String> = compiled.patterns[pattern_index]
            .capture_names()
            .flatten()
            .filter_map(|n| m.name(n).map(|v| (n.to_string(), v.as_str().to_string())))
            .collect();
        let line = EvidenceLine {
            line: number,
            text: excerpt(text, whole),
            raisers: None,
        };
        let context = (0..compiled.context.len())
            .filter_map(|i| self.current.context_last.get(&(row_index, i)).cloned())
            .collect();
        let hit = Hit {
            row: row_index,
            line,
            captures,
            context,
        };
        let attempt = &mut self.current;
        match compiled.row.kind {
            RowKind::Cascade => {
                attempt.cascades_total += 1;
                if attempt.cascades.len() < MAX_LISTED {
                    attempt.cascades.push(hit);
                }
            }
            RowKind::Success => {
                attempt.content = true;
                if attempt.first_success.is_none() {
                    attempt.first_success = Some(hit);
                }
            }
            RowKind::Fallback => {
                attempt.content = true;
                if attempt.first_fallback.is_none() {
                    attempt.first_fallback = Some(hit);
                }
            }
            RowKind::Root => {
                attempt.content = true;
                match &attempt.first_root {
                    None => attempt.first_root = Some(hit),
                    // Later lines of the chosen row are the same error again; other rows are
                    // listed once each.
                    Some(first) if first.row == row_index => {}
                    Some(_) => {
                        if attempt.later.len() < MAX_LISTED
                            && !attempt.later.iter().any(|h| h.row == row_index)
                        {
                            attempt.later.push(hit);
                        }
                    }
                }
            }
            RowKind::Context => {
                attempt.content = true;
                if Some(row_index) == self.arch_row {
                    let arch = hit.captures.get("arch").cloned().unwrap_or_default();
                    let key = arch::processor(&arch);
                    if !attempt
                        .offload
                        .iter()
                        .any(|(a, _)| arch::processor(a) == key)
                    {
                        attempt.offload.push((arch, hit));
                    }
                } else if attempt.first_root.is_none() {
                    // A user's context row without an analysis behaves as a root.
                    attempt.first_root = Some(hit);
                }
            }
        }
        // Any matched line is content, cascades included: a worker restart after a cascade is a
        // boundary only when a marker says so.
        attempt.content = true;
    }
}
