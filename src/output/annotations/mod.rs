//! Findings as CI systems and editors read them: GitHub Actions workflow commands
//! (`::error file=...,line=...,title=...::message`) and SARIF 2.1.0 (the OASIS standard that
//! code-scanning services and editor viewers import). `diagnose` and `triage` turn their reports
//! into [`Annotation`]s; one module per format writes them (`github`, `sarif`), the only places
//! that know the formats.

mod github;
mod sarif;

pub use github::{write_github, GITHUB_SHOWN};
pub use sarif::write_sarif;

use crate::commands::triage::{Stage, TriageReport};
use crate::fix::verify::Verification;
use crate::resolve::{Diagnosis, ResolvedSymbol};

/// How serious a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    /// The build fails because of it.
    Error,
    /// Worth fixing.
    Warning,
    /// For information (a cascade, the link flags to add).
    Notice,
}

impl Level {
    fn github(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "notice",
        }
    }

    fn sarif(self) -> &'static str {
        match self {
            Level::Error => "error",
            Level::Warning => "warning",
            Level::Notice => "note",
        }
    }
}

/// One finding, located in the log it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Annotation {
    /// A stable identifier of the kind of finding (`unresolved-symbol`, `triage/<row>`).
    pub rule_id: String,
    /// Its level.
    pub level: Level,
    /// The log file (`None` for standard input).
    pub file: Option<String>,
    /// 1-based line in the log.
    pub line: Option<u64>,
    /// A short title.
    pub title: String,
    /// The message: what it is and what to do.
    pub message: String,
}

/// The file a report is about, when it is a file (not standard input).
fn log_file(log: &str) -> Option<String> {
    (log != "-" && !log.is_empty()).then(|| log.to_string())
}

/// A report's findings for the CI formats, with the `--verify` verdict when there is one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Annotations {
    /// Every finding, in the report's order (the verdict first).
    pub findings: Vec<Annotation>,
    /// The verdict, which SARIF also carries as a property of the run's invocation.
    pub verification: Option<VerifyVerdict>,
}

/// What `--verify` found, as the CI formats carry it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct VerifyVerdict {
    /// The link succeeded with the flags.
    pub verified: bool,
    /// How many runs were made (0: none could be; the flags were then not tried).
    pub rounds: u32,
    /// The round that succeeded.
    pub verified_round: Option<u32>,
    /// The flags the last run appended (verified ones when `verified`).
    pub flags: Vec<String>,
    /// One line: VERIFIED or NOT VERIFIED, and why.
    pub summary: String,
}

impl VerifyVerdict {
    /// The verdict of a verification.
    pub fn of(v: &Verification) -> VerifyVerdict {
        let summary = if v.ok {
            format!(
                "VERIFIED in round {} of {}: the link succeeds {}",
                v.verified_round.unwrap_or(v.rounds),
                v.rounds,
                if v.flags.is_empty() {
                    "as it is"
                } else {
                    "with the flags"
                }
            )
        } else if v.rounds == 0 {
            format!(
                "NOT VERIFIED: no link was run: {}",
                v.error.as_deref().unwrap_or("unknown reason")
            )
        } else {
            let still: Vec<&str> = v
                .remaining
                .iter()
                .take(3)
                .map(|r| r.text.as_str())
                .collect();
            format!(
                "NOT VERIFIED after {} round{}: the link still fails with the flags (still: {})",
                v.rounds,
                if v.rounds == 1 { "" } else { "s" },
                still.join("; ")
            )
        };
        VerifyVerdict {
            verified: v.ok,
            rounds: v.rounds,
            verified_round: v.verified_round,
            flags: v.flags.clone(),
            summary,
        }
    }

    /// The flags were run and the link still failed: they must not be advised.
    fn flags_failed(&self) -> bool {
        !self.verified && self.rounds > 0
    }

    fn annotation(&self, file: Option<String>) -> Annotation {
        let mut message = self.summary.clone();
        if !self.flags.is_empty() {
            let verb = if self.verified { "verified" } else { "tried" };
            message.push_str(&format!("; flags {verb}: {}", self.flags.join(" ")));
        }
        Annotation {
            rule_id: "verification".into(),
            level: if self.verified {
                Level::Notice
            } else {
                Level::Error
            },
            file,
            line: None,
            title: if self.verified {
                "VERIFIED".into()
            } else {
                "NOT VERIFIED".into()
            },
            message,
        }
    }
}

/// With `--verify`, the verdict first; one annotation per problem other than unresolved symbols
/// (at its first evidence line, rule `problem/<kind>`), one per unresolved symbol (at the line it
/// was first reported), one per warning, and a notice with the linker arguments to add: the
/// verified ones, and none when the flags were run and the link still failed (the symbols then
/// say their library was tried, not "link it").
pub fn from_diagnosis(diagnosis: &Diagnosis, verification: Option<&Verification>) -> Annotations {
    with_verdict(diagnosis, verification.map(VerifyVerdict::of))
}

/// [`from_diagnosis`] with the verdict already drawn.
fn with_verdict(diagnosis: &Diagnosis, verdict: Option<VerifyVerdict>) -> Annotations {
    let failed = verdict.as_ref().is_some_and(VerifyVerdict::flags_failed);
    let file = log_file(&diagnosis.log);
    let mut out: Vec<Annotation> = verdict.iter().map(|v| v.annotation(file.clone())).collect();
    out.extend(problem_annotations(diagnosis, &file));
    out.extend(
        diagnosis
            .symbols
            .iter()
            .map(|s| symbol_annotation(s, &file, failed)),
    );
    for warning in &diagnosis.warnings {
        out.push(Annotation {
            rule_id: "warning".into(),
            level: Level::Warning,
            file: file.clone(),
            line: None,
            title: "lnkfix warning".into(),
            message: warning.clone(),
        });
    }
    let flags = match &verdict {
        Some(v) if v.verified => Some((&v.flags, "append to the link command (verified)")),
        Some(v) if v.flags_failed() => None,
        _ => Some((&diagnosis.link_flags, "append to the link command")),
    };
    if let Some((flags, what)) = flags.filter(|(flags, _)| !flags.is_empty()) {
        out.push(Annotation {
            rule_id: "link-flags".into(),
            level: Level::Notice,
            file: file.clone(),
            line: None,
            title: diagnosis.verdict.summary.clone(),
            message: format!("{what}: {}", flags.join(" ")),
        });
    }
    Annotations {
        findings: out,
        verification: verdict,
    }
}

/// One error per problem other than unresolved symbols, at its first evidence line.
fn problem_annotations(diagnosis: &Diagnosis, file: &Option<String>) -> Vec<Annotation> {
    diagnosis
        .problems
        .iter()
        .filter(|p| p.kind != crate::problems::ProblemKind::Unresolved)
        .map(|p| {
            let mut message = format!("{}; fix: {}", p.cause, p.fix);
            if let Some(warning) = &p.warning {
                message.push_str(&format!("; warning: {warning}"));
            }
            if !p.subjects.is_empty() {
                message.push_str(&format!("; involved: {}", p.subjects.join(", ")));
            }
            Annotation {
                rule_id: format!("problem/{}", p.kind),
                level: Level::Error,
                file: file.clone(),
                line: p.lines.first().copied(),
                title: format!("{}: {}", p.kind.title(), p.summary),
                message,
            }
        })
        .collect()
}

/// One error for an unresolved symbol, at the line it was first reported, with its library;
/// `tried`: the flags were run and still failed, so the library is not advised.
fn symbol_annotation(s: &ResolvedSymbol, file: &Option<String>, tried: bool) -> Annotation {
    let answer = match (&s.library, s.libraries_by_flavour()) {
        (Some(library), _) if tried => format!(
            "{library} ({}) was tried with the other flags and the link still fails",
            s.family
        ),
        (Some(library), _) => format!("link {library} ({})", s.family),
        (None, Some(by)) => {
            let each: Vec<String> = by
                .iter()
                .map(|(f, l)| format!("{} {l}", f.compiler_option()))
                .collect();
            format!("link, by CRT flavour: {}", each.join(", "))
        }
        (None, None) => format!("no library known ({})", s.family),
    };
    let mut message = format!("{}: {answer}", s.symbol.demangled());
    if let Some(note) = &s.match_note {
        message.push_str(&format!("; {note}"));
    }
    Annotation {
        rule_id: "unresolved-symbol".into(),
        level: Level::Error,
        file: file.clone(),
        line: Some(s.symbol.first_line).filter(|l| *l > 0),
        title: format!("unresolved external symbol {}", s.symbol.name()),
        message,
    }
}

/// The root-cause lines as errors (their cause and the one fix), cascades as notices.
pub fn from_triage(report: &TriageReport) -> Annotations {
    let file = log_file(&report.log);
    let rule = report.rule.clone().unwrap_or_else(|| "unknown".into());
    let level = match report.stage {
        Stage::Success => Level::Notice,
        _ => Level::Error,
    };
    let mut out: Vec<Annotation> = report
        .evidence
        .iter()
        .map(|e| Annotation {
            rule_id: format!("triage/{rule}"),
            level,
            file: file.clone(),
            line: Some(e.line),
            title: format!("{} stage: {}", report.stage, report.cause),
            message: format!("fix: {}; then check: {}", report.fix, report.follow_up),
        })
        .collect();
    if out.is_empty() {
        out.push(Annotation {
            rule_id: format!("triage/{rule}"),
            level,
            file: file.clone(),
            line: None,
            title: format!("{} stage: {}", report.stage, report.cause),
            message: format!("fix: {}", report.fix),
        });
    }
    for seen in &report.cascades_ignored {
        out.push(Annotation {
            rule_id: format!("triage/{}", seen.rule),
            level: Level::Notice,
            file: file.clone(),
            line: Some(seen.line),
            title: "cascade: a symptom of the root error".into(),
            message: seen.text.clone(),
        });
    }
    Annotations {
        findings: out,
        verification: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn github_commands_escape_their_parts() {
        let a = Annotation {
            rule_id: "x".into(),
            level: Level::Error,
            file: Some("C:\\b,d.log".into()),
            line: Some(7),
            title: "a: b".into(),
            message: "50% done\nnext".into(),
        };
        let mut out = Vec::new();
        write_github(&[a], &mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "::error file=C%3A\\b%2Cd.log,line=7,title=a%3A b::50%25 done%0Anext\n"
        );
    }

    fn annotation(level: Level, message: &str) -> Annotation {
        Annotation {
            rule_id: "x".into(),
            level,
            file: Some("build.log".into()),
            line: Some(1),
            title: "t".into(),
            message: message.into(),
        }
    }

    fn github(annotations: &[Annotation]) -> String {
        let mut out = Vec::new();
        write_github(annotations, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn github_controls_are_shown_escaped_as_in_the_text_report() {
        let text = github(&[annotation(
            Level::Error,
            "bel\x07 bs\x08 vt\x0b ff\x0c del\x7f rlo\u{202e} lri\u{2066} esc\x1b[31m cr\r",
        )]);
        assert_eq!(
            text,
            "::error file=build.log,line=1,title=t::bel\\x07 bs\\x08 vt\\x0b ff\\x0c \
             del\\x7f rlo\\u{202e} lri\\u{2066} esc\\x1b[31m cr\\x0d\n"
        );
    }

    #[test]
    fn github_shows_ten_problems_then_one_summary() {
        let mut all: Vec<Annotation> = (0..25)
            .map(|i| annotation(Level::Error, &format!("e{i}")))
            .collect();
        all.push(annotation(Level::Warning, "w"));
        all.push(annotation(Level::Notice, "flags"));
        let text = github(&all);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 12, "{text}");
        assert!(
            lines[..10].iter().all(|l| l.starts_with("::error ")),
            "{text}"
        );
        assert!(lines[9].ends_with("::e9"), "{text}");
        assert!(lines[10].ends_with("::flags"), "the notice stays: {text}");
        assert!(
            lines[11].starts_with("::notice file=build.log,title=16 more findings::16 more errors and warnings and 0 more notices"),
            "{text}"
        );
        assert!(lines[11].contains("--format json"), "{text}");

        let few = github(&all[..10]);
        assert_eq!(few.lines().count(), 10, "ten fit: no summary: {few}");

        let notices: Vec<Annotation> = (0..12)
            .map(|i| annotation(Level::Notice, &format!("n{i}")))
            .collect();
        let text = github(&notices);
        assert_eq!(text.lines().count(), 10, "{text}");
        assert!(
            text.lines()
                .last()
                .unwrap()
                .contains("0 more errors and warnings and 3 more notices"),
            "{text}"
        );
    }

    /// The bundled example's diagnosis (45 unresolved symbols, no libraries searched).
    fn example() -> Diagnosis {
        let env = crate::commands::app::Environment {
            var: &|_| None,
            progress: None,
        };
        let request = crate::commands::app::DiagnoseRequest {
            log: "examples/tvm-ffi-hip-lld-link.log".into(),
            ..Default::default()
        };
        crate::commands::app::diagnose(&request, &env)
            .unwrap()
            .diagnosis
    }

    fn verdict(verified: bool, rounds: u32, flags: &[String]) -> VerifyVerdict {
        VerifyVerdict {
            verified,
            rounds,
            verified_round: verified.then_some(rounds),
            flags: flags.to_vec(),
            summary: if verified {
                "VERIFIED ..."
            } else {
                "NOT VERIFIED ..."
            }
            .into(),
        }
    }

    fn sarif(annotations: &Annotations) -> serde_json::Value {
        let mut out = Vec::new();
        write_sarif(annotations, &mut out).unwrap();
        serde_json::from_slice(&out).unwrap()
    }

    #[test]
    fn a_failed_verification_is_an_error_and_its_flags_are_never_advised() {
        let diagnosis = example();
        let flags = diagnosis.link_flags.clone();
        assert!(flags.iter().any(|f| f == "amdhip64.lib"), "{flags:?}");
        let failed = with_verdict(&diagnosis, Some(verdict(false, 1, &flags)));
        let text = github(&failed.findings);
        let first = text.lines().next().unwrap();
        assert!(
            first
                .starts_with("::error file=examples/tvm-ffi-hip-lld-link.log,title=NOT VERIFIED::"),
            "{text}"
        );
        assert!(!text.contains("append to the link command"), "{text}");
        assert!(!text.contains("link amdhip64.lib"), "{text}");
        assert!(
            text.contains("amdhip64.lib (hip-runtime) was tried with the other flags and the link still fails"),
            "{text}"
        );
        let log = sarif(&failed);
        let run = &log["runs"][0];
        assert_eq!(
            run["invocations"][0]["properties"]["verification"]["verified"],
            false
        );
        assert_eq!(run["results"][0]["ruleId"], "verification");
        assert_eq!(run["results"][0]["level"], "error");
        let all = run["results"].to_string();
        assert!(!all.contains("append to the link command"), "{all}");
    }

    #[test]
    fn a_verified_fix_is_a_notice_with_the_verified_flags() {
        let diagnosis = example();
        let verified_flags = vec!["amdhip64.lib".to_owned(), "msvcrt.lib".to_owned()];
        let verified = with_verdict(&diagnosis, Some(verdict(true, 2, &verified_flags)));
        let text = github(&verified.findings);
        assert!(
            text.lines().any(|l| l
                .starts_with("::notice file=examples/tvm-ffi-hip-lld-link.log,title=VERIFIED::")),
            "{text}"
        );
        assert!(
            text.contains("::append to the link command (verified): amdhip64.lib msvcrt.lib\n"),
            "{text}"
        );
        let log = sarif(&verified);
        let run = &log["runs"][0];
        assert_eq!(run["invocations"][0]["executionSuccessful"], true);
        let property = &run["invocations"][0]["properties"]["verification"];
        assert_eq!(property["verified"], true);
        assert_eq!(property["verified_round"], 2);
        assert_eq!(run["results"][0]["level"], "note");

        // A verification that could not run tried no flag: the answer is still advised.
        let not_run = with_verdict(&diagnosis, Some(verdict(false, 0, &[])));
        let text = github(&not_run.findings);
        assert!(text.starts_with("::error "), "{text}");
        assert!(text.contains("append to the link command: "), "{text}");
        // Without --verify: no verdict, no invocation.
        let plain = with_verdict(&diagnosis, None);
        assert_eq!(plain.findings, from_diagnosis(&diagnosis, None).findings);
        assert!(sarif(&plain)["runs"][0].get("invocations").is_none());
    }
}
