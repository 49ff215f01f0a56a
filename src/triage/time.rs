//! Times for `--since`: RFC 3339 in and out (UTC), without a date-time dependency.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::TriageError;

/// Days since 1970-01-01 for a civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Formats a time as RFC 3339 in UTC, to the second (`2026-11-30T12:00:01Z`).
pub fn format_rfc3339(time: SystemTime) -> String {
    let seconds = match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        Err(e) => -(e.duration().as_secs() as i64),
    };
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
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
        let s: u64 = seconds
            .parse()
            .map_err(|_| bad("expected @ followed by seconds since 1970-01-01"))?;
        return Ok(UNIX_EPOCH + Duration::from_secs(s));
    }
    let b = t.as_bytes();
    let digits = |r: std::ops::Range<usize>| -> Result<i64, TriageError> {
        let s = t.get(r).ok_or_else(|| bad("too short"))?;
        if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad("expected YYYY-MM-DDTHH:MM:SS followed by Z or +HH:MM"));
        }
        s.parse().map_err(|_| bad("number out of range"))
    };
    if b.len() < 19 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't' | b' ') {
        return Err(bad("expected YYYY-MM-DDTHH:MM:SS followed by Z or +HH:MM"));
    }
    if b[13] != b':' || b[16] != b':' {
        return Err(bad("expected HH:MM:SS"));
    }
    let (year, month, day) = (digits(0..4)?, digits(5..7)?, digits(8..10)?);
    let (hour, minute, second) = (digits(11..13)?, digits(14..16)?, digits(17..19)?);
    if !(1..=12).contains(&month)
        || !(1..=31).contains(&day)
        || hour > 23
        || minute > 59
        || second > 60
    {
        return Err(bad("a field is out of range"));
    }
    let mut rest = &t[19..];
    let mut nanos = 0u32;
    if let Some(fraction) = rest.strip_prefix(['.', ',']) {
        let n = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if n == 0 {
            return Err(bad("empty fraction of a second"));
        }
        let kept = &fraction[..n.min(9)];
        nanos = kept.parse::<u32>().unwrap_or(0) * 10u32.pow(9 - kept.len() as u32);
        rest = &fraction[n..];
    }
    let offset_seconds = match rest {
        "Z" | "z" => 0,
        "" => {
            return Err(bad(
                "the time has no zone: add Z (UTC) or an offset such as +01:00",
            ))
        }
        _ => {
            let sign = match rest.as_bytes()[0] {
                b'+' => 1,
                b'-' => -1,
                _ => return Err(bad("expected Z or +HH:MM after the time")),
            };
            let zone = &rest[1..];
            if !zone.is_ascii() {
                return Err(bad("expected an offset as +HH:MM"));
            }
            let (h, m) = match zone.len() {
                5 if zone.as_bytes()[2] == b':' => (&zone[..2], &zone[3..]),
                4 => (&zone[..2], &zone[2..]),
                2 => (zone, "00"),
                _ => return Err(bad("expected an offset as +HH:MM")),
            };
            let h: i64 = h.parse().map_err(|_| bad("bad offset hours"))?;
            let m: i64 = m.parse().map_err(|_| bad("bad offset minutes"))?;
            if h > 23 || m > 59 {
                return Err(bad("offset out of range"));
            }
            sign * (h * 3600 + m * 60)
        }
    };
    let seconds = days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        - offset_seconds;
    if seconds < 0 {
        return Err(bad("before 1970"));
    }
    Ok(UNIX_EPOCH + Duration::new(seconds as u64, nanos))
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
        ] {
            assert!(parse_time(bad).is_err(), "{bad}");
        }
    }
}
