//! UTC timestamps without a date library: RFC 3339 for logs, results and history,
//! a compact form for run ids.

use std::time::{SystemTime, UNIX_EPOCH};

/// `(year, month, day, hour, minute, second)` of `time` in UTC.
#[expect(
    clippy::cast_possible_wrap,
    clippy::cast_possible_truncation,
    clippy::cast_sign_loss,
    reason = "in range by construction: seconds since 1970 fit i64 for 292 billion years, \
              `rem` is in 0..86_400, `day` in 1..=31 and `month` in 1..=12"
)]
fn civil(time: SystemTime) -> (i64, u32, u32, u32, u32, u32) {
    let secs = time
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400) as u32;
    // Howard Hinnant's days_from_civil inverse.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day, rem / 3600, rem / 60 % 60, rem % 60)
}

/// `2025-01-14T10:15:41Z`.
pub fn rfc3339(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(time);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}Z")
}

/// `20250114T101541Z` (for run ids and file names).
pub fn compact(time: SystemTime) -> String {
    let (y, mo, d, h, mi, s) = civil(time);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

/// The current time in RFC 3339.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// Today's UTC date, `2025-01-14` (the date a new ADR is written on).
pub fn today() -> String {
    let (y, mo, d, ..) = civil(SystemTime::now());
    format!("{y:04}-{mo:02}-{d:02}")
}

/// The day of an RFC 3339 time (`2026-11-23T...` -> `2026-11-23`), or `unknown`.
pub fn day_of(time: &str) -> String {
    match time.get(..10) {
        Some(day) if day.as_bytes().get(4) == Some(&b'-') => day.to_owned(),
        _ => "unknown".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_dates() {
        assert_eq!(rfc3339(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_736_849_741);
        assert_eq!(rfc3339(t), "2025-01-14T10:15:41Z");
        assert_eq!(compact(t), "20250114T101541Z");
        let leap = UNIX_EPOCH + Duration::from_secs(951_825_600); // 2000-02-29T12:00:00Z
        assert_eq!(rfc3339(leap), "2000-02-29T12:00:00Z");
    }
}
