//! Times for `--since`: RFC 3339 in and out (UTC), through jiff, which refuses impossible dates
//! (`2026-02-31`) instead of rolling them over.

use std::time::{SystemTime, UNIX_EPOCH};

use super::TriageError;

/// Formats a time as RFC 3339 in UTC, to the second (`2026-11-30T12:00:01Z`).
pub fn format_rfc3339(time: SystemTime) -> String {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64) - i64::from(e.duration().subsec_nanos() > 0),
    };
    match jiff::Timestamp::from_second(seconds) {
        Ok(t) => t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string(),
        Err(_) => format!("@{seconds}"),
    }
}

/// Parses `--since`: RFC 3339 with a zone (`2026-11-30T12:00:00Z`, `2026-11-30 13:00:00+01:00`,
/// fractions allowed) or `@SECONDS` since the Unix epoch. A time without a zone is refused: the
/// log's modification time is absolute, and guessing the zone would make the check wrong.
pub fn parse_time(text: &str) -> Result<SystemTime, TriageError> {
    let bad = |why: &str| TriageError::Time {
        text: text.to_string(),
        message: why.to_string(),
    };
    let t = text.trim();
    if let Some(seconds) = t.strip_prefix('@') {
        if seconds.is_empty() || !seconds.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad(
                "expected @ followed by a whole number of seconds since 1970-01-01",
            ));
        }
        // The same range as a written date (years 1970 to 9999): a larger count is refused,
        // never added to the clock, where it would overflow.
        let timestamp = seconds
            .parse::<i64>()
            .ok()
            .and_then(|s| jiff::Timestamp::from_second(s).ok())
            .ok_or_else(|| bad("the number of seconds is too large: the latest is @253402207200 (9999-12-30T22:00:00Z)"))?;
        return Ok(SystemTime::from(timestamp));
    }
    if t.len() >= 19
        && !t.as_bytes()[19..]
            .iter()
            .any(|b| matches!(b, b'Z' | b'z' | b'+' | b'-'))
    {
        return Err(bad(
            "the time has no zone: add Z (UTC) or an offset such as +01:00",
        ));
    }
    let timestamp: jiff::Timestamp = t.parse().map_err(|e: jiff::Error| {
        bad(&format!(
            "expected YYYY-MM-DDTHH:MM:SS followed by Z or +HH:MM ({e})"
        ))
    })?;
    Ok(SystemTime::from(timestamp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_zones() {
        let t = parse_time("2026-11-30T12:00:01Z").unwrap();
        assert_eq!(format_rfc3339(t), "2026-11-30T12:00:01Z");
        assert_eq!(parse_time("2026-11-30 13:00:01+01:00").unwrap(), t);
        assert_eq!(parse_time("2026-11-30T07:00:01-0500").unwrap(), t);
        let secs = t.duration_since(UNIX_EPOCH).unwrap().as_secs();
        assert_eq!(parse_time(&format!("@{secs}")).unwrap(), t);
        assert!(
            parse_time("2026-11-30T12:00:00.5Z").unwrap()
                > parse_time("2026-11-30T12:00:00Z").unwrap()
        );
        assert_eq!(format_rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        assert_eq!(
            format_rfc3339(parse_time("2000-02-29T23:59:59Z").unwrap()),
            "2000-02-29T23:59:59Z"
        );
    }

    #[test]
    fn refusals() {
        for bad in [
            "2026-11-30T12:00:00",
            "yesterday",
            "2026-13-01T00:00:00Z",
            "@x",
            "",
            "2026-11-30T12:00:00+1:00",
            "2026-11-30T12:00:00+0é0",
            "2026-11-30T12:00:00+éé",
            // Impossible dates are refused, not rolled over into the next month.
            "2026-02-31T00:00:00Z",
            "2026-02-29T00:00:00Z",
            "2026-04-31T12:00:00+02:00",
            "2026-11-30T24:00:01Z",
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
        // Counts past the clock's range are refused with a message, never added (which panics).
        for huge in [
            "@18446744073709551615",
            "@9223372036854775807",
            "@253402207201",
            "@99999999999999999999999",
        ] {
            let message = parse_time(huge).unwrap_err().to_string();
            assert!(message.contains("too large"), "{huge}: {message}");
        }
        for negative in ["@-1", "@-18446744073709551615", "@+5", "@ 5"] {
            let message = parse_time(negative).unwrap_err().to_string();
            assert!(message.contains("whole number"), "{negative}: {message}");
        }
        assert_eq!(
            format_rfc3339(parse_time("@253402207200").unwrap()),
            "9999-12-30T22:00:00Z"
        );
        let message = parse_time("2026-11-30T12:00:00").unwrap_err().to_string();
        assert!(message.contains("no zone"), "{message}");
    }
}
