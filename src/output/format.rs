//! The output formats: one vocabulary for every command's `--format`. Which of them a command
//! writes is the command's own: every report is text or JSON; the CI formats (GitHub workflow
//! commands, SARIF) are for the commands whose reports have findings on log lines (`diagnose`,
//! `triage`). A leaf: the stages that render (the index, the reports) and the commands read it.

/// How a report is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Format {
    /// For people.
    #[default]
    Text,
    /// For tools: one JSON document in the documented schema.
    Json,
    /// GitHub Actions workflow commands: one annotation per finding, on its log line.
    Github,
    /// SARIF 2.1.0, for code-scanning services and editor viewers.
    Sarif,
}

impl Format {
    /// Every format, in the order help lists them.
    pub const ALL: [Format; 4] = [Format::Text, Format::Json, Format::Github, Format::Sarif];

    /// Its name on the command line (`sarif`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Github => "github",
            Format::Sarif => "sarif",
        }
    }

    /// The format named `name` (as [`Format::name`] writes it).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
        }
        assert_eq!(Format::from_name("Text"), None);
        assert_eq!(Format::default(), Format::Text);
    }
}
