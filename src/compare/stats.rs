//! The interval estimators `compare` uses (SPEC §6.3), as pure functions of counts and moments:
//! Wilson's score interval for one proportion, Newcombe's hybrid score interval (his method 10)
//! for the difference of two independent proportions, Welch's t interval for the difference of
//! two means (Welch–Satterthwaite degrees of freedom) and the one-sample t interval. Quantiles
//! come from `statrs` (the normal and Student's t inverse CDFs), never from hand-written special
//! functions. Every function returns `None` rather than a NaN when its inputs leave the
//! estimate undefined (no observations, too few for a variance).

use statrs::distribution::{ContinuousCDF, Normal, StudentsT};

/// A closed interval `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    pub low: f64,
    pub high: f64,
}

impl Interval {
    /// The interval negated (the difference taken the other way round).
    pub fn negated(self) -> Interval {
        Interval {
            low: -self.high,
            high: -self.low,
        }
    }
}

fn valid(confidence: f64) -> bool {
    confidence > 0.0 && confidence < 1.0
}

/// The two-sided standard normal quantile for `confidence` (0.95 → 1.959964…); `None` outside
/// (0, 1).
pub fn z_quantile(confidence: f64) -> Option<f64> {
    if !valid(confidence) {
        return None;
    }
    let normal = Normal::new(0.0, 1.0).ok()?;
    Some(normal.inverse_cdf(1.0 - (1.0 - confidence) / 2.0))
}

/// Degrees of freedom from which the normal quantile stands in for Student's t: there the two
/// differ by less than 2.5e-5 at 95% (t ≈ z + (z³ + z)/(4 df)), while statrs' inverse t CDF,
/// computed through the inverse regularized beta, drifts (1.2e-4 off at 10⁶, far off at 10⁷).
pub const NORMAL_DF: f64 = 1e5;

/// The two-sided Student's t quantile with `df` degrees of freedom (real-valued, as Welch's are).
pub fn t_quantile(confidence: f64, df: f64) -> Option<f64> {
    if !valid(confidence) || df.is_nan() || df <= 0.0 {
        return None;
    }
    if df >= NORMAL_DF {
        return z_quantile(confidence);
    }
    let t = StudentsT::new(0.0, 1.0, df).ok()?;
    let q = t.inverse_cdf(1.0 - (1.0 - confidence) / 2.0);
    q.is_finite().then_some(q)
}

/// Wilson's score interval for `successes` out of `n` at normal quantile `z` (Wilson 1927;
/// Newcombe 1998a, method 3). It stays inside [0, 1] and is proper even at 0/n and n/n.
pub fn wilson(successes: u64, n: u64, z: f64) -> Option<Interval> {
    if n == 0 || successes > n || !z.is_finite() {
        return None;
    }
    let n_f = n as f64;
    let p = successes as f64 / n_f;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n_f;
    let centre = (p + z2 / (2.0 * n_f)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n_f + z2 / (4.0 * n_f * n_f)).sqrt();
    // At 0/n and n/n the bound is exactly the end point; rounding must not push it past.
    let low = if successes == 0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if successes == n {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    Some(Interval { low, high })
}

/// Newcombe's hybrid score interval (1998b, method 10) for `p1 − p2`, from each proportion's
/// Wilson interval: `[d − √((p1−l1)² + (u2−p2)²), d + √((u1−p1)² + (p2−l2)²)]`.
pub fn newcombe(s1: u64, n1: u64, s2: u64, n2: u64, z: f64) -> Option<Interval> {
    let w1 = wilson(s1, n1, z)?;
    let w2 = wilson(s2, n2, z)?;
    let p1 = s1 as f64 / n1 as f64;
    let p2 = s2 as f64 / n2 as f64;
    let d = p1 - p2;
    let low = d - ((p1 - w1.low).powi(2) + (w2.high - p2).powi(2)).sqrt();
    let high = d + ((w1.high - p1).powi(2) + (p2 - w2.low).powi(2)).sqrt();
    Some(Interval { low, high })
}

/// A sample described by its size, mean and (unbiased, n − 1) variance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Moments {
    pub n: u64,
    pub mean: f64,
    /// `None` for fewer than two observations.
    pub variance: Option<f64>,
}

impl Moments {
    /// From exact integer sums: `n`, Σx and Σx². The variance is computed as
    /// `(nΣx² − (Σx)²) / (n(n−1))` in integers where that fits, so equal samples give exactly 0.
    pub fn from_sums(n: u64, sum: u128, sum_sq: u128) -> Option<Moments> {
        if n == 0 {
            return None;
        }
        let n128 = u128::from(n);
        let mean = sum as f64 / n as f64;
        let variance = (n >= 2).then(|| {
            let exact = n128
                .checked_mul(sum_sq)
                .and_then(|a| sum.checked_mul(sum).map(|b| (a, b)));
            match exact {
                // Σx² ≥ (Σx)²/n always holds for real data; saturate a corrupt file at 0.
                Some((a, b)) => a.saturating_sub(b) as f64 / (n as f64 * (n as f64 - 1.0)),
                None => {
                    let n_f = n as f64;
                    ((sum_sq as f64 - (sum as f64).powi(2) / n_f) / (n_f - 1.0)).max(0.0)
                }
            }
        });
        Some(Moments { n, mean, variance })
    }

    /// From observations (tests, and the per-task differences of `paired_success`).
    pub fn from_values(values: &[f64]) -> Option<Moments> {
        if values.is_empty() {
            return None;
        }
        let n = values.len() as f64;
        let mean = values.iter().sum::<f64>() / n;
        let variance = (values.len() >= 2)
            .then(|| values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0));
        Some(Moments {
            n: values.len() as u64,
            mean,
            variance,
        })
    }

    /// Scale every observation by `k` (nano-USD → USD).
    pub fn scaled(self, k: f64) -> Moments {
        Moments {
            n: self.n,
            mean: self.mean * k,
            variance: self.variance.map(|v| v * k * k),
        }
    }
}

/// The one-sample t interval for the mean (df = n − 1); a sample with zero variance gives the
/// point interval at its mean.
pub fn t_interval(m: &Moments, confidence: f64) -> Option<Interval> {
    let variance = m.variance?;
    let se = (variance / m.n as f64).sqrt();
    if se == 0.0 {
        return Some(Interval {
            low: m.mean,
            high: m.mean,
        });
    }
    let t = t_quantile(confidence, m.n as f64 - 1.0)?;
    Some(Interval {
        low: m.mean - t * se,
        high: m.mean + t * se,
    })
}

/// Welch's t interval for `mean1 − mean2`, with the Welch–Satterthwaite degrees of freedom
/// `(v1/n1 + v2/n2)² / ((v1/n1)²/(n1−1) + (v2/n2)²/(n2−1))`. Both samples need two observations;
/// when both have zero variance the interval is the point difference.
pub fn welch(a: &Moments, b: &Moments, confidence: f64) -> Option<Interval> {
    let (va, vb) = (a.variance?, b.variance?);
    let d = a.mean - b.mean;
    let (qa, qb) = (va / a.n as f64, vb / b.n as f64);
    let se2 = qa + qb;
    if se2 == 0.0 {
        return Some(Interval { low: d, high: d });
    }
    let df = se2 * se2 / (qa * qa / (a.n as f64 - 1.0) + qb * qb / (b.n as f64 - 1.0));
    let t = t_quantile(confidence, df)?;
    let half = t * se2.sqrt();
    Some(Interval {
        low: d - half,
        high: d + half,
    })
}

/// Welch–Satterthwaite degrees of freedom (exposed for the tests against R's output).
pub fn welch_df(a: &Moments, b: &Moments) -> Option<f64> {
    let (qa, qb) = (a.variance? / a.n as f64, b.variance? / b.n as f64);
    let se2 = qa + qb;
    (se2 > 0.0).then(|| se2 * se2 / (qa * qa / (a.n as f64 - 1.0) + qb * qb / (b.n as f64 - 1.0)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn z95() -> f64 {
        z_quantile(0.95).unwrap()
    }

    fn close(actual: f64, expected: f64, tolerance: f64) {
        assert!(
            (actual - expected).abs() <= tolerance,
            "{actual} is not {expected} ± {tolerance}"
        );
    }

    fn interval(i: Option<Interval>, low: f64, high: f64, tolerance: f64) {
        let i = i.expect("an interval");
        close(i.low, low, tolerance);
        close(i.high, high, tolerance);
    }

    #[test]
    fn the_normal_quantile_is_the_tabled_one() {
        close(z95(), 1.959_963_985, 1e-8);
        close(z_quantile(0.99).unwrap(), 2.575_829_304, 1e-8);
        assert_eq!(z_quantile(1.0), None);
        assert_eq!(z_quantile(0.0), None);
        assert_eq!(z_quantile(f64::NAN), None);
    }

    /// Newcombe R. G. (1998a), "Two-sided confidence intervals for the single proportion:
    /// comparison of seven methods", Statistics in Medicine 17:857–872, Table I, method 3 (the
    /// Wilson score interval without continuity correction), 95%: 81/263 → 0.2553–0.3662,
    /// 15/148 → 0.0624–0.1605, 0/20 → 0–0.1611, 1/29 → 0.0061–0.1718.
    #[test]
    fn wilson_matches_newcombe_1998a_table_i() {
        let z = z95();
        interval(wilson(81, 263, z), 0.2553, 0.3662, 5e-5);
        interval(wilson(15, 148, z), 0.0624, 0.1605, 5e-5);
        interval(wilson(0, 20, z), 0.0, 0.1611, 5e-5);
        interval(wilson(1, 29, z), 0.0061, 0.1718, 5e-5);
    }

    #[test]
    fn wilson_is_proper_at_the_ends_and_undefined_without_runs() {
        let z = z95();
        // All successes: a real interval below 1, not the degenerate [1, 1] of the Wald interval.
        let all = wilson(10, 10, z).unwrap();
        assert_eq!(all.high, 1.0);
        close(all.low, 0.7225, 5e-5);
        assert!(all.low > 0.0 && all.low < 1.0);
        assert_eq!(wilson(0, 0, z), None);
        assert_eq!(wilson(3, 2, z), None);
    }

    /// Newcombe R. G. (1998b), "Interval estimation for the difference between independent
    /// proportions: comparison of eleven methods", Statistics in Medicine 17:873–890, Table II,
    /// method 10 (hybrid score, no continuity correction), 95%.
    #[test]
    fn newcombe_matches_newcombe_1998b_table_ii() {
        let z = z95();
        // (a) 56/70 − 48/80
        interval(newcombe(56, 70, 48, 80, z), 0.0524, 0.3339, 5e-5);
        // (b) 9/10 − 3/10
        interval(newcombe(9, 10, 3, 10, z), 0.1705, 0.8090, 5e-5);
        // (c) 6/7 − 2/7
        interval(newcombe(6, 7, 2, 7, z), 0.0582, 0.8062, 5e-5);
        // (d) 5/56 − 0/29
        interval(newcombe(5, 56, 0, 29, z), -0.0381, 0.1926, 5e-5);
        // (e) 0/10 − 0/20
        interval(newcombe(0, 10, 0, 20, z), -0.1611, 0.2775, 5e-5);
        // (f) 10/10 − 0/20
        interval(newcombe(10, 10, 0, 20, z), 0.6791, 1.0, 5e-5);
    }

    #[test]
    fn newcombe_swapped_is_negated() {
        let z = z95();
        let a = newcombe(56, 70, 48, 80, z).unwrap();
        let b = newcombe(48, 80, 56, 70, z).unwrap();
        assert_eq!(a.negated(), b);
        assert_eq!(newcombe(1, 0, 1, 1, z), None);
    }

    /// R's `sleep` data (Cushny and Peebles 1905, as in Student 1908): extra hours of sleep under
    /// two drugs, ten patients each.
    const SLEEP_1: [f64; 10] = [0.7, -1.6, -0.2, -1.2, -0.1, 3.4, 3.7, 0.8, 0.0, 2.0];
    const SLEEP_2: [f64; 10] = [1.9, 0.8, 1.1, 0.1, -0.1, 4.4, 5.5, 1.6, 4.6, 3.4];

    /// R 4.x, `t.test(extra ~ group, data = sleep)` (Welch by default) prints
    /// `t = -1.8608, df = 17.776, p-value = 0.07939` and the 95 percent confidence interval
    /// `-3.3654832  0.2054832` for mean(group 1) − mean(group 2) = 0.75 − 2.33.
    #[test]
    fn welch_matches_r_t_test_on_sleep() {
        let a = Moments::from_values(&SLEEP_1).unwrap();
        let b = Moments::from_values(&SLEEP_2).unwrap();
        close(a.mean, 0.75, 1e-12);
        close(b.mean, 2.33, 1e-12);
        close(welch_df(&a, &b).unwrap(), 17.776, 5e-4);
        interval(welch(&a, &b, 0.95), -3.365_483_2, 0.205_483_2, 1e-6);
        // Swapping the samples negates the interval.
        assert_eq!(
            welch(&b, &a, 0.95).unwrap(),
            welch(&a, &b, 0.95).unwrap().negated()
        );
    }

    /// R 4.x, `t.test(sleep$extra[11:20] - sleep$extra[1:10])` (one-sample, df = 9) prints
    /// `t = 4.0621, df = 9` and the 95 percent confidence interval `0.7001142 2.4598858` for
    /// the mean difference 1.58.
    #[test]
    fn t_interval_matches_r_t_test_on_sleep_differences() {
        let d: Vec<f64> = SLEEP_2.iter().zip(SLEEP_1).map(|(b, a)| b - a).collect();
        let m = Moments::from_values(&d).unwrap();
        close(m.mean, 1.58, 1e-12);
        interval(t_interval(&m, 0.95), 0.700_114_2, 2.459_885_8, 1e-6);
    }

    #[test]
    fn moments_from_integer_sums_match_the_values() {
        let xs = [3u64, 7, 7, 19, 4];
        let sum: u128 = xs.iter().map(|&x| u128::from(x)).sum();
        let sq: u128 = xs.iter().map(|&x| u128::from(x) * u128::from(x)).sum();
        let from_sums = Moments::from_sums(5, sum, sq).unwrap();
        let values: Vec<f64> = xs.iter().map(|&x| x as f64).collect();
        let from_values = Moments::from_values(&values).unwrap();
        close(from_sums.mean, from_values.mean, 1e-12);
        close(
            from_sums.variance.unwrap(),
            from_values.variance.unwrap(),
            1e-12,
        );
        // Equal observations: exactly zero variance; one observation: none.
        assert_eq!(Moments::from_sums(3, 30, 300).unwrap().variance, Some(0.0));
        assert_eq!(Moments::from_sums(1, 4, 16).unwrap().variance, None);
        assert_eq!(Moments::from_sums(0, 0, 0), None);
    }

    #[test]
    fn t_quantiles_match_the_tables_and_approach_the_normal() {
        // Student's t table: t(0.975; 9) = 2.262157, t(0.975; 1) = 12.706205.
        close(t_quantile(0.95, 9.0).unwrap(), 2.262_157, 1e-6);
        close(t_quantile(0.95, 1.0).unwrap(), 12.706_205, 1e-5);
        // t(0.975; 30) = 2.042272, t(0.975; 1000) = 1.962339 (tables).
        close(t_quantile(0.95, 30.0).unwrap(), 2.042_272, 1e-6);
        close(t_quantile(0.95, 1000.0).unwrap(), 1.962_339, 1e-6);
        // Past NORMAL_DF the normal quantile: within 2.5e-5 of t(0.975; 10⁵) = 1.959988.
        close(t_quantile(0.95, 1e5).unwrap(), 1.959_988, 2.5e-5);
        close(t_quantile(0.95, 1e7).unwrap(), z95(), 1e-12);
        close(t_quantile(0.95, f64::INFINITY).unwrap(), z95(), 1e-12);
        assert_eq!(t_quantile(0.95, 0.0), None);
    }
}
