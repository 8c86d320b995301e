//! Local timestamps (`YYYY-MM-DDThh:mm:ss.SSS`, PEO query, D-31) read in the service's time zone
//! (`--time-zone`: `UTC` or a fixed offset such as `+01:00`) and turned into the UTC text the
//! service stores, so that they compare with stored timestamps as text; and that text itself
//! (`format_millis`, also what `storage::now_utc` writes).

use std::{fmt, str::FromStr};

/// The time zone local timestamps are read in: a fixed offset from UTC.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TimeZone {
    /// Minutes east of UTC.
    minutes: i32,
}

impl FromStr for TimeZone {
    type Err = String;

    fn from_str(text: &str) -> Result<TimeZone, String> {
        if text == "UTC" || text == "Z" {
            return Ok(TimeZone::default());
        }
        let refuse =
            || format!("'{text}' is not a time zone: give UTC or an offset such as +01:00");
        let (sign, rest) = match text.as_bytes().first() {
            Some(b'+') => (1, &text[1..]),
            Some(b'-') => (-1, &text[1..]),
            _ => return Err(refuse()),
        };
        let (hours, minutes) = rest.split_once(':').ok_or_else(refuse)?;
        let number = |part: &str, limit: i32| {
            (part.len() == 2 && part.bytes().all(|byte| byte.is_ascii_digit()))
                .then(|| part.parse::<i32>().ok())
                .flatten()
                .filter(|value| *value <= limit)
        };
        match (number(hours, 14), number(minutes, 59)) {
            (Some(hours), Some(minutes)) => Ok(TimeZone {
                minutes: sign * (hours * 60 + minutes),
            }),
            _ => Err(refuse()),
        }
    }
}

impl fmt::Display for TimeZone {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.minutes == 0 {
            return f.write_str("UTC");
        }
        let sign = if self.minutes < 0 { '-' } else { '+' };
        let minutes = self.minutes.abs();
        write!(f, "{sign}{:02}:{:02}", minutes / 60, minutes % 60)
    }
}

impl TimeZone {
    /// The UTC timestamp (`2024-01-01T00:00:00.000Z`) of a local timestamp in this zone; `None`
    /// when the text names no real time (the format itself is the document's pattern). Times
    /// beyond the years 0000 to 9999 once moved to UTC are held at those ends.
    pub fn to_utc(self, local: &str) -> Option<String> {
        let bytes = local.as_bytes();
        if bytes.len() != 23 {
            return None;
        }
        let field = |from: usize, to: usize| local.get(from..to)?.parse::<i64>().ok();
        let (year, month, day) = (field(0, 4)?, field(5, 7)?, field(8, 10)?);
        let (hour, minute, second, milli) = (
            field(11, 13)?,
            field(14, 16)?,
            field(17, 19)?,
            field(20, 23)?,
        );
        if !(1..=12).contains(&month)
            || day < 1
            || day > days_in_month(year, month)
            || hour > 23
            || minute > 59
            || second > 59
        {
            return None;
        }
        let local_millis =
            ((days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second)
                * 1000)
                + milli;
        let utc = local_millis - i64::from(self.minutes) * 60_000;
        let lowest = days_from_civil(0, 1, 1) * 86_400_000;
        let highest = days_from_civil(10_000, 1, 1) * 86_400_000 - 1;
        Some(format_millis(utc.clamp(lowest, highest)))
    }
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let yoe = year - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The civil date of days since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// Whether a text is a UTC time exactly as the service writes it (`2024-01-10T08:00:00.000Z`),
/// so that it compares with stored times as text (a token's `expiresAt` in a bootstrap document).
pub(crate) fn is_utc_millis(text: &str) -> bool {
    text.strip_suffix('Z')
        .and_then(|local| TimeZone::default().to_utc(local))
        .is_some_and(|utc| utc == text)
}

/// The UTC text (`2024-01-10T08:00:00.000Z`) of milliseconds since 1970-01-01.
pub(crate) fn format_millis(millis: i64) -> String {
    let (days, rest) = (millis.div_euclid(86_400_000), millis.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rest / 3_600_000,
        rest / 60_000 % 60,
        rest / 1000 % 60,
        rest % 1000
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_times_become_utc_in_the_configured_zone() {
        let utc = TimeZone::default();
        assert_eq!(
            utc.to_utc("2024-01-01T00:00:00.000").as_deref(),
            Some("2024-01-01T00:00:00.000Z")
        );
        let berlin: TimeZone = "+01:00".parse().expect("an offset");
        assert_eq!(
            berlin.to_utc("2024-01-01T00:30:00.250").as_deref(),
            Some("2023-12-31T23:30:00.250Z")
        );
        let west: TimeZone = "-05:30".parse().expect("an offset");
        assert_eq!(
            west.to_utc("2024-02-29T23:59:59.999").as_deref(),
            Some("2024-03-01T05:29:59.999Z")
        );
        assert_eq!(west.to_string(), "-05:30");
        assert_eq!(
            berlin.to_utc("0000-01-01T00:00:00.000").as_deref(),
            Some("0000-01-01T00:00:00.000Z")
        );
    }

    #[test]
    fn impossible_times_and_zones_are_refused() {
        let utc = TimeZone::default();
        for text in [
            "2023-02-29T00:00:00.000",
            "2024-13-01T00:00:00.000",
            "2024-04-31T00:00:00.000",
            "2024-01-01T24:00:00.000",
            "2024-01-01T00:60:00.000",
            "2024-01-01T00:00:60.000",
            "2024-01-01T00:00:00.00",
        ] {
            assert_eq!(utc.to_utc(text), None, "{text}");
        }
        for zone in ["CET", "+1:00", "+15:00", "01:00", "+01:60"] {
            assert!(zone.parse::<TimeZone>().is_err(), "{zone}");
        }
    }
}
