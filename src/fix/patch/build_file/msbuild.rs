//! MSBuild: `<AdditionalDependencies>`, `<AdditionalLibraryDirectories>` (in `<Link>`) and
//! `<RuntimeLibrary>` (in `<ClCompile>`) of a `.vcxproj`'s `ItemDefinitionGroup` for the failing
//! `Configuration|Platform`, or of every one when the configuration is not known.
//!
//! Read with `quick-xml` (a real XML parser) for the elements and their byte positions; the edit
//! splices text at those positions, so everything outside it stays byte for byte (BOM, CRLF,
//! indentation, comments). Decisions:
//! - An existing `AdditionalDependencies` is extended (the missing libraries put first), never
//!   doubled; a new one ends with `%(AdditionalDependencies)` so the inherited ones stay.
//! - New elements take the indentation of their siblings and the file's line ending.
//! - Values are XML-escaped and MSBuild-escaped (`%` `$` `@` as `%25` `%24` `%40`); a `;` in a
//!   value (MSBuild's item separator) is refused.
//! - Runtime: the flavour's `RuntimeLibrary` for the failing configuration; when every
//!   configuration is edited, each gets the debug or release form of the flavour by whether its
//!   configuration's name says Debug.

use std::path::{Path, PathBuf};

use quick_xml::events::Event;
use quick_xml::Reader;

use super::{BuildChange, BuildEditError, EditOutcome, FileEdit, LocateInput, Place};
use crate::read::build_system::BuildSystem;
use crate::rules::Flavour;

/// An element's positions.
#[derive(Debug, Clone, Default)]
struct Element {
    /// Offset of its `<`.
    start: usize,
    /// Offset just after its start tag.
    open_end: usize,
    /// Offset of its end tag's `<` (equal to `open_end` for `<x/>`).
    close_start: usize,
    /// Written `<x/>`.
    empty: bool,
}

/// A child whose text is read (`AdditionalDependencies`, ...).
#[derive(Debug, Clone)]
struct Setting {
    name: String,
    element: Element,
    text: String,
}

/// One `ItemDefinitionGroup`.
#[derive(Debug, Clone, Default)]
struct Group {
    /// `Release|x64`, from its Condition; `None` for an unconditional group.
    configuration: Option<String>,
    element: Element,
    link: Option<(Element, Vec<Setting>)>,
    compile: Option<(Element, Vec<Setting>)>,
}

fn unparsable(path: &Path, reason: String) -> BuildEditError {
    BuildEditError::Unparsable {
        path: path.to_path_buf(),
        format: "MSBuild XML",
        reason,
    }
}

/// `'$(Configuration)|$(Platform)'=='Release|x64'` → `Release|x64`.
fn condition_configuration(condition: &str) -> Option<String> {
    let (_, value) = condition.split_once("==")?;
    let value = value.trim().trim_matches(|c| c == '\'' || c == '"').trim();
    (!value.is_empty()).then(|| value.to_string())
}

/// Every `ItemDefinitionGroup` of the project, with positions relative to `text`.
/// Kept whole because it is one loop over the reader's events, each arm filing one kind of event.
fn groups(path: &Path, text: &str) -> Result<Vec<Group>, BuildEditError> {
    let mut reader = Reader::from_str(text);
    let mut found = Vec::new();
    let mut stack: Vec<(String, Element)> = Vec::new();
    let mut current: Option<Group> = None;
    let mut section: Option<(Element, Vec<Setting>)> = None;
    let mut setting_text = String::new();
    loop {
        let start = reader.buffer_position() as usize;
        let event = reader.read_event().map_err(|e| {
            let at = reader.error_position() as usize;
            let line = 1 + text[..at.min(text.len())].matches('\n').count();
            unparsable(path, format!("line {line}: {e}"))
        })?;
        let end = reader.buffer_position() as usize;
        match event {
            Event::Start(ref tag) | Event::Empty(ref tag) => {
                let empty = matches!(event, Event::Empty(_));
                let name = tag.local_name().as_ref().to_string();
                let element = Element {
                    start,
                    open_end: end,
                    close_start: end,
                    empty,
                };
                if name == "ItemDefinitionGroup" && stack.len() == 1 {
                    let condition = tag
                        .attributes()
                        .flatten()
                        .find(|a| a.key.local_name().as_ref() == "Condition")
                        .map(|a| a.value.to_string());
                    current = Some(Group {
                        configuration: condition.as_deref().and_then(condition_configuration),
                        element: element.clone(),
                        ..Group::default()
                    });
                } else if current.is_some()
                    && stack.len() == 2
                    && (name == "Link" || name == "ClCompile")
                {
                    section = Some((element.clone(), Vec::new()));
                }
                setting_text.clear();
                if empty {
                    close(
                        &name,
                        element,
                        &mut stack,
                        &mut current,
                        &mut section,
                        &mut found,
                        "",
                    );
                } else {
                    stack.push((name, element));
                }
            }
            Event::Text(ref t) => setting_text.push_str(t.as_ref()),
            Event::GeneralRef(ref r) => {
                setting_text.push('&');
                setting_text.push_str(r.as_ref());
                setting_text.push(';');
            }
            Event::End(_) => {
                let Some((name, mut element)) = stack.pop() else {
                    return Err(unparsable(path, "an end tag without its start".into()));
                };
                element.close_start = start;
                let text = std::mem::take(&mut setting_text);
                close(
                    &name,
                    element,
                    &mut stack,
                    &mut current,
                    &mut section,
                    &mut found,
                    &text,
                );
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(unparsable(path, format!("<{}> never ends", stack[0].0)));
    }
    Ok(found)
}

/// Files an element that just ended into the group being read.
fn close(
    name: &str,
    element: Element,
    stack: &mut [(String, Element)],
    current: &mut Option<Group>,
    section: &mut Option<(Element, Vec<Setting>)>,
    found: &mut Vec<Group>,
    text: &str,
) {
    match stack.len() {
        1 if name == "ItemDefinitionGroup" => {
            if let Some(mut group) = current.take() {
                group.element = element;
                found.push(group);
            }
        }
        2 if name == "Link" || name == "ClCompile" => {
            if let (Some(group), Some((_, settings))) = (current.as_mut(), section.take()) {
                let entry = Some((element, settings));
                if name == "Link" {
                    group.link = entry;
                } else {
                    group.compile = entry;
                }
            }
        }
        3 => {
            if let Some((_, settings)) = section.as_mut() {
                settings.push(Setting {
                    name: name.to_string(),
                    element,
                    text: text.to_string(),
                });
            }
        }
        _ => {}
    }
}

fn same_item(written: &str, wanted: &str) -> bool {
    let norm = |s: &str| {
        let lower = s.trim().trim_end_matches(['\\', '/']).to_ascii_lowercase();
        lower.strip_suffix(".lib").unwrap_or(&lower).to_string()
    };
    norm(written) == norm(wanted)
}

/// A value for an MSBuild item list, or why it cannot be one.
fn msbuild_value(path: &Path, value: &str) -> Result<String, BuildEditError> {
    if value.contains(';') || value.chars().any(char::is_control) {
        return Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: format!("{value:?} holds a ';' or a control character, which an MSBuild item list cannot take"),
        });
    }
    let mut out = String::new();
    for c in value.chars() {
        match c {
            '%' => out.push_str("%25"),
            '$' => out.push_str("%24"),
            '@' => out.push_str("%40"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    Ok(out)
}

fn runtime_name(flavour: Flavour) -> &'static str {
    match flavour {
        Flavour::Static => "MultiThreaded",
        Flavour::StaticDebug => "MultiThreadedDebug",
        Flavour::Dynamic => "MultiThreadedDLL",
        Flavour::DynamicDebug => "MultiThreadedDebugDLL",
    }
}

/// A text insertion.
struct Splice {
    at: usize,
    replace_to: usize,
    text: String,
}

/// Layout facts of the file: its line ending and indentation.
struct Layout<'a> {
    text: &'a str,
    ending: &'static str,
}

impl Layout<'_> {
    fn indent_at(&self, at: usize) -> &str {
        let line = self.text[..at].rfind('\n').map_or(0, |p| p + 1);
        let lead = &self.text[line..at];
        if lead.trim().is_empty() {
            lead
        } else {
            ""
        }
    }

    /// Where to insert a new last child of `element`: the start of its end tag's line when
    /// only indentation precedes the end tag, else the end tag itself.
    fn before_close(&self, element: &Element) -> (usize, bool) {
        let line = self.text[..element.close_start]
            .rfind('\n')
            .map_or(0, |p| p + 1);
        if self.text[line..element.close_start].trim().is_empty() {
            (line, true)
        } else {
            (element.close_start, false)
        }
    }

    /// Lines `children` as new last children of `element`, indented one step below it.
    fn append(&self, element: &Element, step: &str, children: &[String]) -> Splice {
        let indent = format!("{}{step}", self.indent_at(element.start));
        let (at, at_line_start) = self.before_close(element);
        let mut text = String::new();
        if !at_line_start {
            text.push_str(self.ending);
        }
        for child in children {
            text.push_str(&format!("{indent}{child}{}", self.ending));
        }
        if !at_line_start {
            text.push_str(self.indent_at(element.start));
        }
        Splice {
            at,
            replace_to: at,
            text,
        }
    }
}

/// Edits a `.vcxproj` for every configuration (see [`edit_configuration`]).
pub fn edit(
    path: &Path,
    source: &[u8],
    _target: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    edit_configuration(path, source, None, change)
}

/// Edits a `.vcxproj`: the `ItemDefinitionGroup` of `configuration` (`Release|x64`, or
/// `Release` for every platform), or every one when `None`. Refuses, listing the project's
/// configurations, when none matches.
pub fn edit_configuration(
    path: &Path,
    source: &[u8],
    configuration: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    let bom = if source.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let text = std::str::from_utf8(&source[bom..])
        .map_err(|e| unparsable(path, format!("not UTF-8 at byte {}", bom + e.valid_up_to())))?;
    let all = groups(path, text)?;
    let chosen = choose(path, &all, configuration)?;
    let layout = Layout {
        text,
        ending: if text.contains("\r\n") { "\r\n" } else { "\n" },
    };
    let mut splices = Vec::new();
    let mut said = Vec::new();
    for group in &chosen {
        group_splices(
            path,
            &layout,
            group,
            configuration.is_some(),
            change,
            &mut splices,
            &mut said,
        )?;
    }
    if splices.is_empty() {
        return Ok(EditOutcome::AlreadyDone);
    }
    splices.sort_by_key(|s| s.at);
    let mut after = source[..bom].to_vec();
    let mut at = 0;
    for splice in &splices {
        after.extend_from_slice(&text.as_bytes()[at..splice.at]);
        after.extend_from_slice(splice.text.as_bytes());
        at = splice.replace_to;
    }
    after.extend_from_slice(&text.as_bytes()[at..]);
    let names: Vec<String> = chosen
        .iter()
        .map(|g| {
            g.configuration
                .clone()
                .unwrap_or_else(|| "(unconditional)".into())
        })
        .collect();
    let scope = match configuration {
        Some(_) => names.join(", "),
        None => format!(
            "every configuration, as the failing one is not known ({})",
            names.join(", ")
        ),
    };
    said.dedup();
    Ok(EditOutcome::Edited(FileEdit {
        system: BuildSystem::Msbuild,
        path: path.to_path_buf(),
        before: source.to_vec(),
        after,
        target: path.file_stem().map(|s| s.to_string_lossy().into_owned()),
        configuration: configuration.map(|_| names.join(", ")),
        description: format!("{}: {scope}", said.join("; ")),
    }))
}

fn choose<'g>(
    path: &Path,
    all: &'g [Group],
    configuration: Option<&str>,
) -> Result<Vec<&'g Group>, BuildEditError> {
    if all.is_empty() {
        return Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: "the project has no ItemDefinitionGroup to put link settings in".into(),
        });
    }
    let conditioned: Vec<&Group> = all.iter().filter(|g| g.configuration.is_some()).collect();
    let Some(wanted) = configuration else {
        return Ok(all.iter().collect());
    };
    if conditioned.is_empty() {
        return Ok(all.iter().collect());
    }
    let matches = |g: &&Group| {
        let have = g.configuration.as_deref().unwrap_or("");
        have.eq_ignore_ascii_case(wanted)
            || (!wanted.contains('|')
                && have
                    .split('|')
                    .next()
                    .is_some_and(|c| c.eq_ignore_ascii_case(wanted)))
    };
    let chosen: Vec<&Group> = conditioned.into_iter().filter(matches).collect();
    if chosen.is_empty() {
        return Err(BuildEditError::TargetNotFound {
            path: path.to_path_buf(),
            target: format!("configuration {wanted}"),
            candidates: all.iter().filter_map(|g| g.configuration.clone()).collect(),
        });
    }
    Ok(chosen)
}

/// The indentation step of the file: a group's first child's indentation minus the group's.
fn step(layout: &Layout<'_>, group: &Group) -> String {
    let outer = layout.indent_at(group.element.start);
    let inner = group
        .link
        .as_ref()
        .or(group.compile.as_ref())
        .map(|(e, _)| layout.indent_at(e.start));
    match inner.and_then(|i| i.strip_prefix(outer)) {
        Some(step) if !step.is_empty() => step.to_string(),
        _ => "  ".to_string(),
    }
}

/// The splices one group needs. Long because it is the two `<Link>` lists and the runtime,
/// each found, compared and written in the same few steps.
#[allow(clippy::too_many_arguments)]
fn group_splices(
    path: &Path,
    layout: &Layout<'_>,
    group: &Group,
    one_configuration: bool,
    change: &BuildChange,
    splices: &mut Vec<Splice>,
    said: &mut Vec<String>,
) -> Result<(), BuildEditError> {
    let step = step(layout, group);
    let mut link_children = Vec::new();
    for (name, wanted, inherit) in [
        (
            "AdditionalDependencies",
            &change.libraries,
            "%(AdditionalDependencies)",
        ),
        (
            "AdditionalLibraryDirectories",
            &change.library_dirs,
            "%(AdditionalLibraryDirectories)",
        ),
    ] {
        let existing = group
            .link
            .as_ref()
            .and_then(|(_, s)| s.iter().find(|s| s.name == name));
        let missing: Vec<String> = wanted
            .iter()
            .filter(|w| existing.is_none_or(|e| !e.text.split(';').any(|item| same_item(item, w))))
            .map(|w| msbuild_value(path, w))
            .collect::<Result<_, _>>()?;
        if missing.is_empty() {
            continue;
        }
        said.push(format!("{name} += {}", missing.join(";")));
        match existing {
            Some(setting) if !setting.element.empty => splices.push(Splice {
                at: setting.element.open_end,
                replace_to: setting.element.open_end,
                text: format!("{};", missing.join(";")),
            }),
            _ => link_children.push(format!("<{name}>{};{inherit}</{name}>", missing.join(";"))),
        }
    }
    section(
        path,
        layout,
        group,
        "Link",
        &group.link,
        &step,
        link_children,
        splices,
    )?;
    let Some(flavour) = change.runtime else {
        return Ok(());
    };
    let flavour = if one_configuration {
        flavour
    } else {
        let debug = group
            .configuration
            .as_deref()
            .is_some_and(|c| c.to_ascii_lowercase().contains("debug"));
        Flavour::from_parts(flavour.is_dynamic(), debug)
    };
    let value = runtime_name(flavour);
    let existing = group
        .compile
        .as_ref()
        .and_then(|(_, s)| s.iter().find(|s| s.name == "RuntimeLibrary"));
    let mut compile_children = Vec::new();
    match existing {
        Some(setting) if setting.text.trim() == value => {}
        Some(setting) if !setting.element.empty => {
            said.push(format!("RuntimeLibrary {value}"));
            splices.push(Splice {
                at: setting.element.open_end,
                replace_to: setting.element.close_start,
                text: value.to_string(),
            });
        }
        _ => {
            said.push(format!("RuntimeLibrary {value}"));
            compile_children.push(format!("<RuntimeLibrary>{value}</RuntimeLibrary>"));
        }
    }
    section(
        path,
        layout,
        group,
        "ClCompile",
        &group.compile,
        &step,
        compile_children,
        splices,
    )
}

/// Adds `children` to the group's `<Link>` or `<ClCompile>`, creating it when missing.
#[allow(clippy::too_many_arguments)]
fn section(
    path: &Path,
    layout: &Layout<'_>,
    group: &Group,
    name: &str,
    existing: &Option<(Element, Vec<Setting>)>,
    step: &str,
    children: Vec<String>,
    splices: &mut Vec<Splice>,
) -> Result<(), BuildEditError> {
    if children.is_empty() {
        return Ok(());
    }
    match existing {
        Some((element, _)) if element.empty => Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: format!("an empty <{name} /> element: write it as <{name}></{name}> first"),
        }),
        Some((element, _)) => {
            splices.push(layout.append(element, step, &children));
            Ok(())
        }
        None => {
            let mut lines = vec![format!("<{name}>")];
            lines.extend(children.iter().map(|c| format!("{step}{c}")));
            lines.push(format!("</{name}>"));
            splices.push(layout.append(&group.element, step, &lines));
            Ok(())
        }
    }
}

/// Finds the failing project from the `[C:\...\x.vcxproj]` suffix MSBuild puts on the failed
/// link's error lines, and its `Configuration|Platform` from the log.
/// A log recognised as another build system's (CMake, node-gyp and meson generate `.vcxproj`
/// files and run MSBuild) is left to that system: its generated projects are rewritten at the
/// next configure.
pub fn locate(input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    if input
        .recognised
        .is_some_and(|r| r.kind != BuildSystem::Msbuild)
    {
        return Ok(None);
    }
    let projects = failed_projects(input.log);
    let project = match projects.as_slice() {
        [] => return Ok(None),
        [one] => one.clone(),
        _ => {
            return Err(BuildEditError::Ambiguous {
                path: PathBuf::from(
                    input
                        .log_path
                        .map_or("the log".into(), |p| p.display().to_string()),
                ),
                candidates: projects,
            })
        }
    };
    Ok(Some(Place {
        system: BuildSystem::Msbuild,
        file: local_file(input, &project),
        target: Some(
            project
                .rsplit(['\\', '/'])
                .next()
                .unwrap_or(&project)
                .trim_end_matches(".vcxproj")
                .to_string(),
        ),
        configuration: configuration(input.log),
        evidence: format!("the [{project}] suffix of the failed link's lines"),
    }))
}

/// The `[C:\\...\\x.vcxproj]` suffixes of the log's link error lines, each once, in order.
pub fn failed_projects(log: &str) -> Vec<String> {
    let mut projects: Vec<String> = Vec::new();
    for line in log.lines() {
        let line = line.trim_end();
        if !(line.contains("LNK") || line.contains("error")) {
            continue;
        }
        let Some(open) = line.rfind('[') else {
            continue;
        };
        let Some(project) = line[open + 1..].strip_suffix(']') else {
            continue;
        };
        if project.to_ascii_lowercase().ends_with(".vcxproj")
            && !projects.iter().any(|p| p == project)
        {
            projects.push(project.to_string());
        }
    }
    projects
}

/// The project file on this machine: the path as the log names it, else its file name in
/// `--build-dir` or beside the log.
fn local_file(input: &LocateInput<'_>, project: &str) -> PathBuf {
    let as_named = PathBuf::from(project);
    if as_named.is_file() {
        return as_named;
    }
    let name = project.rsplit(['\\', '/']).next().unwrap_or(project);
    let log_dir = input.log_path.and_then(Path::parent);
    [input.build_dir, log_dir]
        .into_iter()
        .flatten()
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
        .unwrap_or(as_named)
}

/// The failing `Configuration|Platform`: Visual Studio's `Configuration: Release x64` header,
/// else an output path `\x64\Release\` on a link line.
fn configuration(log: &str) -> Option<String> {
    for line in log.lines() {
        if let Some((_, rest)) = line.split_once("Configuration: ") {
            let words: Vec<&str> = rest.split_whitespace().take(2).collect();
            if let [config, platform] = words.as_slice() {
                return Some(format!(
                    "{config}|{}",
                    platform.trim_end_matches(['-', ','])
                ));
            }
        }
    }
    const PLATFORMS: [&str; 4] = ["x64", "Win32", "ARM64", "ARM"];
    for line in log.lines() {
        let parts: Vec<&str> = line.split(['\\', '/']).collect();
        for pair in parts.windows(3) {
            let platform = PLATFORMS.iter().find(|p| p.eq_ignore_ascii_case(pair[0]));
            let config = pair[1];
            if let Some(platform) = platform {
                if !config.is_empty()
                    && config
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_')
                {
                    return Some(format!("{config}|{platform}"));
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests;
