//! The warnings of a diagnosis: what reading the log noticed (LNK1120 counts, several links,
//! encodings, cut lines, limits) and chain libraries not found.

use super::{ResolvedSymbol, SearchContext};
use crate::index::discover;
use crate::read::linklog::LogStats;
use crate::read::symbols::LinkFailure;

/// What the reader and the resolution warn about: LNK1120 counts that disagree, several links,
/// an incomplete list, encodings, cut lines and records, capped symbols, demangler warnings,
/// chain libraries not found.
pub(super) fn failure_warnings(
    failure: &LinkFailure,
    symbols: &[ResolvedSymbol],
    unresolved: usize,
    chain: &Option<Vec<String>>,
    context: Option<&SearchContext<'_>>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    count_warnings(failure, unresolved, &mut warnings);
    encoding_warnings(&failure.stats, &mut warnings);
    limit_warnings(failure, &mut warnings);
    for s in symbols {
        if let Some(w) = &s.symbol.warning {
            warnings.push(format!("{}: {w}", s.symbol.name()));
        }
    }
    if let Some(c) = context {
        for name in chain.iter().flatten() {
            if discover::find_library(c.dirs, name).is_none() {
                warnings.push(format!(
                    "{name} (default-library chain) was not found in the directories searched"
                ));
            }
        }
    }

    warnings
}

/// LNK1120 counts that disagree with the symbols read, several links in one log, and lld-link's
/// error limit.
fn count_warnings(failure: &LinkFailure, unresolved: usize, warnings: &mut Vec<String>) {
    for count in &failure.lnk1120_counts {
        if *count as usize != unresolved && failure.lnk1120_counts.len() == 1 {
            warnings.push(format!(
                "LNK1120 reports {count} unresolved externals but the log shows {unresolved} distinct symbols: {}",
                if (*count as usize) > unresolved {
                    "the log is an excerpt, or some errors were cut"
                } else {
                    "the log holds more than one link"
                }
            ));
        }
    }
    if failure.lnk1120_counts.len() > 1 {
        warnings.push(format!(
            "the log holds {} links (LNK1120 counts {:?}); their symbols are reported together",
            failure.lnk1120_counts.len(),
            failure.lnk1120_counts
        ));
    }
    if failure.incomplete {
        warnings.push(
            "lld-link stopped after its error limit: the list is incomplete (relink with /errorlimit:0)".into(),
        );
    }
}

/// A log that changes encoding, decodes to mostly U+FFFD, or to mostly CJK ideographs.
fn encoding_warnings(stats: &LogStats, warnings: &mut Vec<String>) {
    if !stats.encoding_regions.is_empty() {
        let regions: Vec<String> = stats
            .encoding_regions
            .iter()
            .map(|e| {
                serde_json::to_value(e)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            })
            .collect();
        warnings.push(format!(
            "the log changes encoding ({}): text was appended in another encoding; each part was read in its own",
            regions.join(", then ")
        ));
    }
    if stats.replacement_characters >= 16 && stats.replacement_characters * 6 > stats.bytes {
        warnings.push(format!(
            "the log decodes to mostly U+FFFD ({} replaced characters in {} bytes): it is probably in \
             an encoding lnkfix does not read (re-save it as UTF-8 or UTF-16)",
            stats.replacement_characters, stats.bytes
        ));
    }
    if stats.mostly_cjk {
        warnings.push(
            "the log decodes as UTF-16 to mostly CJK ideographs: if it is not in a CJK language, it is \
             probably not UTF-16 (re-save it as UTF-8)"
                .into(),
        );
    }
}

/// What the reading limits cut: long lines, symbols past `--max-symbols`, records on cut lines.
fn limit_warnings(failure: &LinkFailure, warnings: &mut Vec<String>) {
    if failure.stats.truncated_lines > 0 {
        warnings.push(format!(
            "{} lines were longer than the limit and were cut (--max-line-bytes)",
            failure.stats.truncated_lines
        ));
    }
    if failure.records_past_max_symbols > 0 {
        warnings.push(format!(
            "only the first {} distinct symbols were kept (--max-symbols); {} records of further \
             symbols were counted, not read: the list is incomplete",
            failure.max_symbols, failure.records_past_max_symbols
        ));
    }
    if failure.stats.cut_records > 0 {
        warnings.push(format!(
            "{} cut lines held a link error past the limit: records may be missing (raise --max-line-bytes)",
            failure.stats.cut_records
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::resolve::{diagnose, DiagnoseOptions};
    use crate::rules::RuleBook;

    fn warnings_of(log: &str) -> Vec<String> {
        let failure = crate::read::symbols::collect(
            std::io::Cursor::new(log.as_bytes().to_vec()),
            Default::default(),
        )
        .unwrap();
        diagnose(failure, &RuleBook::builtin(), &DiagnoseOptions::default()).warnings
    }

    /// LNK1120 counts every unresolved name, those another problem explains (here a name of the
    /// CRT before 2015) included: no warning when the log shows them all.
    #[test]
    fn the_lnk1120_count_includes_names_another_problem_explains() {
        let log = "a.obj : error LNK2019: unresolved external symbol __iob_func referenced in function f\n\
                   a.obj : error LNK2019: unresolved external symbol my_helper referenced in function f\n\
                   app.exe : fatal error LNK1120: 2 unresolved externals\n";
        let warnings = warnings_of(log);
        assert!(
            !warnings.iter().any(|w| w.contains("LNK1120 reports")),
            "{warnings:?}"
        );
        let cut = log.replace("2 unresolved", "5 unresolved");
        assert!(
            warnings_of(&cut)
                .iter()
                .any(|w| w.contains("LNK1120 reports 5 unresolved externals but the log shows 2")),
            "{:?}",
            warnings_of(&cut)
        );
    }
}

#[cfg(test)]
mod eaten_underscores {
    use crate::resolve::{diagnose, DiagnoseOptions};
    use crate::rules::RuleBook;

    /// `__std_search_1` after a Markdown renderer ate its underscores is answered as itself, with
    /// a warning; a name that is nobody's with `__` either stays unknown.
    #[test]
    fn a_name_markdown_shortened_is_read_whole() {
        let log = "app.obj : error LNK2019: unresolved external symbol std_search_1 referenced in function f\n\
                   app.obj : error LNK2019: unresolved external symbol my_search_1 referenced in function f\n";
        let failure = crate::read::symbols::collect(
            std::io::Cursor::new(log.as_bytes().to_vec()),
            Default::default(),
        )
        .unwrap();
        let d = diagnose(failure, &RuleBook::builtin(), &DiagnoseOptions::default());
        assert_eq!(d.symbols[0].symbol.name(), "std_search_1");
        assert_eq!(d.symbols[0].symbol.lookup_name(), "__std_search_1");
        assert_eq!(d.symbols[0].family, "cxx-stdlib");
        assert!(
            d.warnings
                .iter()
                .any(|w| w.contains("read as __std_search_1")),
            "{:?}",
            d.warnings
        );
        assert_eq!(d.symbols[1].family, "unknown");
    }
}
