//! SARIF 2.1.0, the OASIS standard that code-scanning services and editor viewers import: one
//! log, one run, the rules seen and one result per finding, files as RFC 3986 URIs.

use std::io::{self, Write};

use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use serde_json::json;

use super::Annotations;

/// Writes one SARIF 2.1.0 log with one run: the rules seen, one result per annotation, and with
/// `--verify` an invocation whose `verification` property holds the verdict.
pub fn write_sarif(report: &Annotations, out: &mut dyn Write) -> io::Result<()> {
    let annotations = &report.findings;
    let mut rules: Vec<&str> = Vec::new();
    for a in annotations {
        if !rules.contains(&a.rule_id.as_str()) {
            rules.push(&a.rule_id);
        }
    }
    let results: Vec<serde_json::Value> = annotations
        .iter()
        .map(|a| {
            let mut result = json!({
                "ruleId": a.rule_id,
                "ruleIndex": rules.iter().position(|r| *r == a.rule_id).unwrap_or(0),
                "level": a.level.sarif(),
                "message": { "text": format!("{}: {}", a.title, a.message) },
            });
            if let Some(file) = &a.file {
                let mut location = json!({ "artifactLocation": { "uri": file_uri(file) } });
                if let Some(line) = a.line {
                    location["region"] = json!({ "startLine": line });
                }
                result["locations"] = json!([{ "physicalLocation": location }]);
            }
            result
        })
        .collect();
    let mut log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "lnkfix",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules.iter().map(|id| json!({
                    "id": id,
                    "shortDescription": { "text": rule_description(id) },
                })).collect::<Vec<_>>(),
            }},
            "results": results,
        }],
    });
    if let Some(verdict) = &report.verification {
        log["runs"][0]["invocations"] = json!([{
            "executionSuccessful": true,
            "properties": { "verification": verdict },
        }]);
    }
    crate::output::terminal::write_json(&log, out)
}

/// Everything but RFC 3986's unreserved characters, its sub-delimiters and `@` is
/// percent-encoded in a path segment; so is `:`, which in a relative reference's first segment
/// would read as a scheme (`a:b.log`).
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~')
    .remove(b'!')
    .remove(b'$')
    .remove(b'&')
    .remove(b'\'')
    .remove(b'(')
    .remove(b')')
    .remove(b'*')
    .remove(b'+')
    .remove(b',')
    .remove(b';')
    .remove(b'=')
    .remove(b'@');

/// `/`-separated segments, each percent-encoded (UTF-8 for letters beyond ASCII).
fn encode_segments(path: &str) -> String {
    path.split('/')
        .map(|segment| utf8_percent_encode(segment, SEGMENT).to_string())
        .collect::<Vec<_>>()
        .join("/")
}

/// The SARIF `uri` of a log path, as RFC 3986 wants it, whatever system lnkfix runs on (a log
/// made on Windows is often read on Linux): a Windows drive path (`C:\x.log`, `C:/x.log`) is
/// `file:///C:/x.log`, a UNC path (`\\host\share\x.log`) `file://host/share/x.log`, an
/// absolute POSIX path `file:///...`, and a relative path a relative reference; backslashes are
/// separators, every segment percent-encoded. The `url` crate follows the WHATWG URL standard
/// instead: it leaves `[ ] | ^` raw in a path (not allowed by RFC 3986, so a `uri-reference`
/// validator refuses them) and writes a drive path only when it runs on Windows.
fn file_uri(path: &str) -> String {
    let path = path.replace('\\', "/");
    let bytes = path.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if drive && (bytes.len() == 2 || bytes[2] == b'/') {
        let rest = path[2..].trim_start_matches('/');
        return format!("file:///{}:/{}", &path[..1], encode_segments(rest));
    }
    if let Some(unc) = path.strip_prefix("//") {
        let (host, rest) = unc.split_once('/').unwrap_or((unc, ""));
        return format!("file://{}/{}", encode_segments(host), encode_segments(rest));
    }
    if let Some(absolute) = path.strip_prefix('/') {
        return format!("file:///{}", encode_segments(absolute));
    }
    encode_segments(&path)
}

/// The short description of a SARIF rule.
fn rule_description(id: &str) -> String {
    match id {
        "unresolved-symbol" => {
            "An unresolved external symbol and the library that provides it".into()
        }
        "link-flags" => "The linker arguments that fix the link".into(),
        "warning" => "A problem worth knowing about the log or the libraries".into(),
        "problem/duplicate-symbol" => "A name defined twice, and which definition to keep".into(),
        "problem/crt-mismatch" => "Objects and libraries built for different C runtimes".into(),
        "problem/machine-mismatch" => "A module built for another machine than the link".into(),
        "problem/cannot-open" => "A file the linker cannot open, and why".into(),
        "problem/toolset-mismatch" => {
            "Code built by another Visual C++ toolset than the libraries linked".into()
        }
        "problem/entry-point" => "The entry point or the subsystem is wrong".into(),
        "verification" => "Whether the failed link succeeds when run again with the flags \
                           (--verify)"
            .into(),
        "problem/ltcg-mismatch" => {
            "Link-time code generation across compiler versions (/GL objects, LLVM bitcode)".into()
        }
        "problem/image-too-large" => "An image or static library over its size limit".into(),
        "problem/tool-missing" => {
            "A tool the linker runs (rc.exe, cvtres.exe, mt.exe) cannot be started".into()
        }
        "problem/tool-failed" => {
            "A tool the linker runs (rc.exe, mt.exe, cvtres.exe, MIDL) started and failed".into()
        }
        "problem/dllimport-mismatch" => {
            "A library declared __declspec(dllimport) while its static library is linked".into()
        }
        "problem/pdb" => "The program database cannot be read or written".into(),
        "problem/corrupt-input" => {
            "An input that is no valid object or library for this linker".into()
        }
        "problem/other" => "Another link failure: mismatched #pragma detect_mismatch values, the \
                            linker's internal error, a warning turned into an error, and the \
                            other fatal errors of the catalogue"
            .into(),
        other => match other.strip_prefix("triage/") {
            Some(row) => format!("Triage row {row}"),
            None => format!("lnkfix finding {other}"),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_kind_has_its_own_rule_description() {
        assert!(rule_description("problem/other").starts_with("Another link failure"));
        assert_eq!(
            rule_description("triage/compile-arch"),
            "Triage row compile-arch"
        );
        for id in [
            "problem/other",
            "problem/crt-mismatch",
            "problem/ltcg-mismatch",
            "problem/image-too-large",
            "problem/tool-missing",
            "problem/tool-failed",
            "problem/dllimport-mismatch",
            "problem/pdb",
            "problem/corrupt-input",
            "unresolved-symbol",
        ] {
            assert!(!rule_description(id).contains("Triage"), "{id}");
        }
    }

    #[test]
    fn uris_are_rfc_3986_file_uris_or_relative_references() {
        assert_eq!(file_uri("logs\\my build.log"), "logs/my%20build.log");
        assert_eq!(file_uri("C:\\x.log"), "file:///C:/x.log");
        assert_eq!(file_uri("C:/build/x.log"), "file:///C:/build/x.log");
        assert_eq!(
            file_uri("\\\\server\\share\\x.log"),
            "file://server/share/x.log"
        );
        assert_eq!(file_uri("/tmp/b#1/x?.log"), "file:///tmp/b%231/x%3F.log");
        assert_eq!(file_uri("a:b.log"), "a%3Ab.log");
        assert_eq!(
            file_uri("[]{}|^`<>\"%.log"),
            "%5B%5D%7B%7D%7C%5E%60%3C%3E%22%25.log"
        );
        assert_eq!(file_uri("journal/été.log"), "journal/%C3%A9t%C3%A9.log");
    }
}
