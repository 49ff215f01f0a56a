//! Which of a log's link commands is the one that failed. "VERIFIED" is said only of that one:
//! a `make -j` log shows several targets' links, and re-running another target's (which links)
//! proves nothing about the failure.
//!
//! - When the log ties link commands to a failure (ninja's `FAILED:` block, CMake's `LINK:
//!   command "..." failed`), only those are candidates: the one whose block holds the log's first error,
//!   else the only distinct one.
//! - Otherwise every echoed link command is a candidate. When the linker's own failure names the
//!   image (`x.dll : fatal error LNK1120: ...`), the command writing that image is the one;
//!   else the only distinct command is.
//! - Anything else is ambiguous: verification is refused and the candidates are listed.

use super::command::{file_name, LinkCommand, Rejected};
use super::logscan::{Candidate, Shape};

/// A candidate of the log, parsed.
pub struct Parsed<'c> {
    /// The candidate.
    pub candidate: &'c Candidate,
    /// The command, or why it is not one that is re-run.
    pub result: Result<LinkCommand, Rejected>,
}

/// What [`choose`] decided.
#[derive(Debug, PartialEq, Eq)]
pub enum Choice {
    /// The command at this index of the parsed list is the failed link.
    One(usize),
    /// Several commands may be it: a list of them, for the report.
    Ambiguous(String),
    /// None of the candidates is a link command.
    None,
}

/// The image a command writes, by its file name (`/OUT:`, `-o`, `/Fe`, `--output=`), if named.
pub fn image_name(command: &LinkCommand) -> Option<String> {
    let words = command.words();
    let mut image = None;
    for (index, word) in words.iter().enumerate() {
        let parts: Vec<&str> = match word.strip_prefix("-Wl,") {
            Some(list) => list.split(',').collect(),
            None => vec![word],
        };
        for part in parts {
            let lower = part.to_ascii_lowercase();
            let prefix = ["/out:", "-out:", "--output=", "/fe:", "-fe:"]
                .iter()
                .find(|p| lower.starts_with(*p));
            if let Some(prefix) = prefix {
                image = Some(part[prefix.len()..].to_string());
            }
        }
        if matches!(*word, "-o" | "/Fe:" | "-Fe:") {
            image = words.get(index + 1).map(|w| w.to_string());
        }
    }
    image.map(|i| file_name(&i).to_ascii_lowercase())
}

fn tied(candidate: &Candidate) -> bool {
    candidate.shape != Shape::CommandLine
}

/// The failed link among `parsed` (in the order [`super::logscan::in_order`] gives: nearest
/// before the first error first); `failing_images` are the images the linker's failures name.
pub fn choose(
    parsed: &[Parsed<'_>],
    failing_images: &[String],
    first_error_line: Option<u64>,
) -> Choice {
    let any_tied = parsed.iter().any(|p| tied(p.candidate) && p.result.is_ok());
    let links: Vec<usize> = (0..parsed.len())
        .filter(|&i| parsed[i].result.is_ok() && (!any_tied || tied(parsed[i].candidate)))
        .collect();
    let command = |i: usize| parsed[i].result.as_ref().ok();
    let mut distinct: Vec<usize> = Vec::new();
    for &i in &links {
        if !distinct.iter().any(|&d| command(d) == command(i)) {
            distinct.push(i);
        }
    }
    match distinct.len() {
        0 => return Choice::None,
        1 => return Choice::One(distinct[0]),
        _ => {}
    }
    if any_tied {
        // The nearest before the first error comes first.
        let first = distinct[0];
        if first_error_line.is_some_and(|line| parsed[first].candidate.line <= line) {
            return Choice::One(first);
        }
    } else if !failing_images.is_empty() {
        let writes_failing = |i: &&usize| {
            command(**i)
                .and_then(image_name)
                .is_some_and(|image| failing_images.contains(&image))
        };
        let matching: Vec<&usize> = distinct.iter().filter(writes_failing).collect();
        if matching.len() == 1 {
            return Choice::One(*matching[0]);
        }
    }
    Choice::Ambiguous(list(parsed, &distinct))
}

/// The candidates, for the refusal: line and image, up to five.
fn list(parsed: &[Parsed<'_>], distinct: &[usize]) -> String {
    let mut sorted = distinct.to_vec();
    sorted.sort_by_key(|&i| parsed[i].candidate.line);
    let mut items: Vec<String> = sorted
        .iter()
        .take(5)
        .map(|&i| {
            let image = parsed[i].result.as_ref().ok().and_then(image_name);
            format!(
                "line {} ({})",
                parsed[i].candidate.line,
                image.map_or("names no image".to_string(), |i| format!("writes {i}"))
            )
        })
        .collect();
    if sorted.len() > 5 {
        items.push(format!("{} more", sorted.len() - 5));
    }
    format!(
        "the log shows {} different link commands and nothing ties the failure to one: {}; give the failed one with --link-command",
        sorted.len(),
        items.join(", ")
    )
}
