//! The interval estimators `compare` uses (SPEC §6.3), as pure functions of counts and moments:
//! Wilson's score interval for one proportion, Newcombe's hybrid score interval (his method 10)
//! for the difference of two independent proportions, Welch's t interval for the difference of
//! two means (Welch–Satterthwaite degrees of freedom) and the one-sample t interval. Quantiles
//! come from `statrs` (the normal and Student's t inverse CDFs), never from hand-written special
//! functions. Every function returns `None` rather than a NaN when its inputs leave the
//! estimate undefined (no observations, too few for a variance).

use statrs::distribution::{ContinuousCDF, Normal};

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

/// The upper tail probability `α/2 = (1 − confidence)/2` of a two-sided interval, computed from
/// `1 − confidence` (exact for a confidence of at least 0.5) rather than as `1 − (1 + c)/2`: at
/// a confidence of 1 − 10⁻¹² the latter keeps only four significant digits of the tail.
fn upper_tail(confidence: f64) -> f64 {
    (1.0 - confidence) / 2.0
}

/// The two-sided standard normal quantile for `confidence` (0.95 → 1.959964…); `None` outside
/// (0, 1). Computed from the upper tail probability, so it stays accurate to confidences of
/// 1 − 10⁻¹² and beyond.
pub fn z_quantile(confidence: f64) -> Option<f64> {
    if !valid(confidence) {
        return None;
    }
    let normal = Normal::new(0.0, 1.0).ok()?;
    let z = -normal.inverse_cdf(upper_tail(confidence));
    z.is_finite().then_some(z)
}

/// Degrees of freedom from which Student's t quantile is computed by its asymptotic expansion in
/// the normal quantile (Abramowitz and Stegun 26.7.5, four terms): there the first omitted term
/// is below 10⁻¹⁵ of the quantile even at a confidence of 1 − 10⁻¹², while the incomplete beta
/// function behind the exact tail needs ever more terms of its continued fraction as the
/// degrees of freedom grow.
pub const EXPANSION_DF: f64 = 1e5;

/// The two-sided Student's t quantile with `df` degrees of freedom (real-valued, as Welch's are):
/// the `t` with `P(T > t) = (1 − confidence)/2`.
///
/// Below [`EXPANSION_DF`] it solves `P(T > t) = p` on the exact tail
/// `P(T > t) = I_{df/(df+t²)}(df/2, 1/2) / 2` (statrs' regularized incomplete beta), by Newton's
/// method on `ln P` in `ln t`, kept inside a bracket that bisection falls back to. statrs' own
/// inverse CDF, through its inverse incomplete beta, is accurate to 10⁻⁶ only up to about 0.999
/// and gave an interval 27 times too narrow at 1 − 10⁻¹⁰; this one agrees with scipy's `t.isf` to
/// 10⁻⁹ up to 1 − 10⁻¹² (the test table).
pub fn t_quantile(confidence: f64, df: f64) -> Option<f64> {
    if !valid(confidence) || df.is_nan() || df <= 0.0 {
        return None;
    }
    if df >= EXPANSION_DF {
        let z = z_quantile(confidence)?;
        return Some(t_expansion(z, df));
    }
    let p = upper_tail(confidence);
    let t = solve_upper_tail(p, df)?;
    t.is_finite().then_some(t)
}

/// Abramowitz and Stegun 26.7.5: `t = z + g1/ν + g2/ν² + g3/ν³ + g4/ν⁴` (Fisher–Cornish).
fn t_expansion(z: f64, df: f64) -> f64 {
    let z2 = z * z;
    let g1 = (z2 + 1.0) * z / 4.0;
    let g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    let g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    let g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df
}

/// `ln P(T > t)` for `t ≥ 0`, from the regularized incomplete beta function.
fn ln_upper_tail(t: f64, df: f64) -> Option<f64> {
    // t² over df + t² without overflow for a huge t: x = 1 / (1 + (t/√df)²).
    let r = t / df.sqrt();
    let x = 1.0 / (1.0 + r * r);
    let i = statrs::function::beta::checked_beta_reg(df / 2.0, 0.5, x).ok()?;
    Some((0.5 * i).ln())
}

/// `ln f(t)`, the log density of Student's t with `df` degrees of freedom.
fn ln_density(t: f64, df: f64) -> f64 {
    use statrs::function::gamma::ln_gamma;
    let r = t / df.sqrt();
    ln_gamma((df + 1.0) / 2.0)
        - ln_gamma(df / 2.0)
        - 0.5 * (df * std::f64::consts::PI).ln()
        - (df + 1.0) / 2.0 * (r * r).ln_1p()
}

/// The `t > 0` with `P(T > t) = p`, for `0 < p < 1/2`: Newton on `g(u) = ln P(T > eᵘ) − ln p`
/// (nearly linear in `u` for a heavy tail, gently curved for a light one), with `g'(u) =
/// −t f(t) / P(T > t)`, each step kept inside a bracket `[lo, hi]` on `u` and replaced by
/// bisection when it would leave it.
fn solve_upper_tail(p: f64, df: f64) -> Option<f64> {
    if !(p > 0.0 && p < 0.5) {
        return None;
    }
    let target = p.ln();
    let g = |u: f64| ln_upper_tail(u.exp(), df).map(|l| l - target);
    // A start from the normal quantile, then a bracket by steps of e.
    let start = -Normal::new(0.0, 1.0).ok()?.inverse_cdf(p);
    let mut u = start.max(1e-3).ln();
    let mut gu = g(u)?;
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    for _ in 0..2000 {
        if gu > 0.0 {
            lo = u;
        } else {
            hi = u;
        }
        if lo.is_finite() && hi.is_finite() {
            break;
        }
        u += if gu > 0.0 { 1.0 } else { -1.0 };
        if u.abs() > 700.0 {
            return None;
        }
        gu = g(u)?;
    }
    if !(lo.is_finite() && hi.is_finite()) {
        return None;
    }
    for _ in 0..200 {
        if gu == 0.0 {
            return Some(u.exp());
        }
        let t = u.exp();
        let ln_q = gu + target;
        let slope = -(t.ln() + ln_density(t, df) - ln_q).exp();
        let newton = u - gu / slope;
        let next = if slope.is_finite() && slope < 0.0 && newton > lo && newton < hi {
            newton
        } else {
            0.5 * (lo + hi)
        };
        if (next - u).abs() <= 1e-15 * u.abs().max(1.0) || hi - lo <= 1e-15 * u.abs().max(1.0) {
            return Some(next.exp());
        }
        u = next;
        gu = g(u)?;
        if gu > 0.0 {
            lo = u;
        } else {
            hi = u;
        }
    }
    Some(u.exp())
}

/// Wilson's score interval for `successes` out of `n` at normal quantile `z` (Wilson 1927;
/// Newcombe 1998a, method 3). It stays inside [0, 1] and is proper even at 0/n and n/n.
pub fn wilson(successes: u64, n: u64, z: f64) -> Option<Interval> {
    if n == 0 || successes > n {
        return None;
    }
    wilson_effective(successes as f64 / n as f64, n as f64, z)
}

/// Newcombe's hybrid score interval (1998b, method 10) for `p1 − p2`, from each proportion's
/// Wilson interval: `[d − √((p1−l1)² + (u2−p2)²), d + √((u1−p1)² + (p2−l2)²)]`.
pub fn newcombe(s1: u64, n1: u64, s2: u64, n2: u64, z: f64) -> Option<Interval> {
    if n1 == 0 || n2 == 0 || s1 > n1 || s2 > n2 {
        return None;
    }
    newcombe_effective(
        s1 as f64 / n1 as f64,
        n1 as f64,
        s2 as f64 / n2 as f64,
        n2 as f64,
        z,
    )
}

/// Wilson's interval for a proportion `p` observed with an effective sample size `n` (not
/// necessarily whole): the score interval with `n` in place of the count (Kish's effective
/// sample size, as survey statistics use it for clustered samples). At `p` = 0 or 1 the bound
/// is exactly the end point; rounding must not push it past.
pub fn wilson_effective(p: f64, n: f64, z: f64) -> Option<Interval> {
    if n.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        || !(0.0..=1.0).contains(&p)
        || !z.is_finite()
    {
        return None;
    }
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z / denominator * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt();
    let low = if p == 0.0 {
        0.0
    } else {
        (centre - half).max(0.0)
    };
    let high = if p == 1.0 {
        1.0
    } else {
        (centre + half).min(1.0)
    };
    Some(Interval { low, high })
}

/// Newcombe's hybrid score interval for `p1 − p2` from effective sample sizes (see
/// [`wilson_effective`]).
pub fn newcombe_effective(p1: f64, n1: f64, p2: f64, n2: f64, z: f64) -> Option<Interval> {
    let w1 = wilson_effective(p1, n1, z)?;
    let w2 = wilson_effective(p2, n2, z)?;
    let d = p1 - p2;
    let low = d - ((p1 - w1.low).powi(2) + (w2.high - p2).powi(2)).sqrt();
    let high = d + ((w1.high - p1).powi(2) + (p2 - w2.low).powi(2)).sqrt();
    Some(Interval { low, high })
}

/// A failure rate whose steps come in runs: `errors / steps` over `runs` runs that ran the
/// primitive, with the per-run sums Σe², Σs², Σe·s. Steps of one run are correlated (a run that
/// loops on a failing patch contributes ten failures), so the run is the unit: the effective
/// sample size is `steps / deff`, the design effect `deff` being the ratio of the ratio
/// estimator's cluster-robust (delta-method) variance, `n/(n−1) · Σ(eᵢ − R·sᵢ)² / S²`, to the
/// binomial `R(1−R)/S`, at least 1. At a rate of 0 or 1 the variance says nothing about the
/// correlation, and every run counts once (effective size = runs). The result always lies
/// between the runs and the steps.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClusteredRate {
    pub rate: f64,
    pub effective_n: f64,
}

impl ClusteredRate {
    pub fn new(
        errors: u64,
        steps: u64,
        runs: u64,
        errors_sq: u128,
        steps_sq: u128,
        errors_steps: u128,
    ) -> Option<ClusteredRate> {
        if steps == 0 || runs == 0 || errors > steps {
            return None;
        }
        let (e, s, n) = (errors as f64, steps as f64, runs as f64);
        let rate = e / s;
        let floor = n.min(s);
        let effective_n = if errors == 0 || errors == steps || runs < 2 {
            floor
        } else {
            // Σ(eᵢ − R sᵢ)² = Σe² − 2RΣes + R²Σs², never below 0 however it rounds.
            let residual = (errors_sq as f64 - 2.0 * rate * errors_steps as f64
                + rate * rate * steps_sq as f64)
                .max(0.0);
            let clustered = n / (n - 1.0) * residual / (s * s);
            let binomial = rate * (1.0 - rate) / s;
            let deff = (clustered / binomial).max(1.0);
            (s / deff).clamp(floor, s)
        };
        Some(ClusteredRate { rate, effective_n })
    }

    pub fn interval(&self, z: f64) -> Option<Interval> {
        wilson_effective(self.rate, self.effective_n, z)
    }
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
    /// Sums no sample can have (`nΣx² < (Σx)²`, a negative variance) give no variance rather
    /// than a clamped 0: the summary reader refuses them, and nothing here invents a figure.
    pub fn from_sums(n: u64, sum: u128, sum_sq: u128) -> Option<Moments> {
        if n == 0 {
            return None;
        }
        let n128 = u128::from(n);
        let mean = sum as f64 / n as f64;
        let variance = if n < 2 {
            None
        } else {
            let exact = n128
                .checked_mul(sum_sq)
                .and_then(|a| sum.checked_mul(sum).map(|b| (a, b)));
            match exact {
                Some((a, b)) => a
                    .checked_sub(b)
                    .map(|d| d as f64 / (n as f64 * (n as f64 - 1.0))),
                None => {
                    let n_f = n as f64;
                    let v = (sum_sq as f64 - (sum as f64).powi(2) / n_f) / (n_f - 1.0);
                    (v >= 0.0).then_some(v)
                }
            }
        };
        Some(Moments { n, mean, variance })
    }

    /// From observations (tests, and the per-task differences of `paired_success`).
    pub fn from_values(values: &[f64]) -> Option<Moments> {
        if values.is_empty() {
            return None;
        }
        // Equal observations have exactly their value as mean and zero variance (a sum divided
        // back can miss it by a rounding, which would widen a point interval by 10⁻¹⁷).
        if values.iter().all(|&x| x == values[0]) {
            return Some(Moments {
                n: values.len() as u64,
                mean: values[0],
                variance: (values.len() >= 2).then_some(0.0),
            });
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
        // Past EXPANSION_DF the expansion: t(0.975; 10⁵) = 1.959988 (tables), and the normal
        // quantile in the limit.
        close(t_quantile(0.95, 1e5).unwrap(), 1.959_988, 1e-6);
        close(t_quantile(0.95, f64::INFINITY).unwrap(), z95(), 1e-12);
        assert_eq!(t_quantile(0.95, 0.0), None);
    }

    /// `(confidence, df, t)` with `t` = `scipy.stats.t.isf((1 - confidence) / 2, df)` (and
    /// `scipy.stats.norm.isf` for an infinite df), computed once with scipy 1.17.1 (CPython
    /// 3.11) as `float(stats.t.isf((1 - c) / 2, df))` over the grid below: an external oracle. scipy's
    /// `t.interval` computes its upper end as `t.ppf((1 + c)/2)`, which at 1 − 10⁻¹² rounds
    /// the tail to four digits (its two ends then differ by 10⁻⁴ relative at df = 1); its lower
    /// end, `t.ppf((1 − c)/2)`, is `−isf` exactly.
    #[rustfmt::skip]
    const SCIPY_T_ISF: &[(f64, f64, f64)] = &[
        (0.5, f64::INFINITY, 0.6744897501960817),
        (0.5, 1.0, 1.0000000000000002),
        (0.5, 1.5, 0.8725946625415716),
        (0.5, 2.0, 0.8164965809277261),
        (0.5, 3.0, 0.7648923284043444),
        (0.5, 5.0, 0.7266868438004226),
        (0.5, 9.0, 0.7027221467513264),
        (0.5, 17.776, 0.6885417410285548),
        (0.5, 30.0, 0.6827556933212927),
        (0.5, 100.0, 0.6769510430114717),
        (0.5, 1000.0, 0.6747351646070093),
        (0.5, 10000.0, 0.6745142844835927),
        (0.5, 99999.0, 0.6744922035778262),
        (0.5, 100000.0, 0.674492203553292),
        (0.5, 1000000.0, 0.6744899955310875),
        (0.5, 10000000.0, 0.6744897747295749),
        (0.5, 1000000000.0, 0.6744897504414163),
        (0.8, f64::INFINITY, 1.2815515655446004),
        (0.8, 1.0, 3.0776835371752544),
        (0.8, 1.5, 2.1963984175655376),
        (0.8, 2.0, 1.8856180831641272),
        (0.8, 3.0, 1.637744353696209),
        (0.8, 5.0, 1.4758840488244815),
        (0.8, 9.0, 1.3830287383966329),
        (0.8, 17.776, 1.3310300250172817),
        (0.8, 30.0, 1.3104150253913955),
        (0.8, 100.0, 1.290074761346516),
        (0.8, 1000.0, 1.2823987214609247),
        (0.8, 10000.0, 1.2816362297304775),
        (0.8, 99999.0, 1.2815600315340214),
        (0.8, 100000.0, 1.2815600314493614),
        (0.8, 1000000.0, 1.281552412129939),
        (0.8, 10000000.0, 1.2815516502030833),
        (0.8, 1000000000.0, 1.2815515663911852),
        (0.95, f64::INFINITY, 1.959963984540054),
        (0.95, 1.0, 12.706204736174694),
        (0.95, 1.5, 6.016663104427929),
        (0.95, 2.0, 4.302652729749462),
        (0.95, 3.0, 3.1824463052837078),
        (0.95, 5.0, 2.5705818356363146),
        (0.95, 9.0, 2.262157162798205),
        (0.95, 17.776, 2.102821310380221),
        (0.95, 30.0, 2.0422724563012378),
        (0.95, 100.0, 1.9839715185235518),
        (0.95, 1000.0, 1.9623390808264083),
        (0.95, 10000.0, 1.960201239890626),
        (0.95, 99999.0, 1.9599877077718442),
        (0.95, 100000.0, 1.9599877075346095),
        (0.95, 1000000.0, 1.959966356814107),
        (0.95, 10000000.0, 1.959964221767205),
        (0.95, 1000000000.0, 1.959963986912325),
        (0.99, f64::INFINITY, 2.5758293035489004),
        (0.99, 1.0, 63.656741162871526),
        (0.99, 1.5, 17.820310514462804),
        (0.99, 2.0, 9.924843200918287),
        (0.99, 3.0, 5.840909309733355),
        (0.99, 5.0, 4.032142983555228),
        (0.99, 9.0, 3.249835541592126),
        (0.99, 17.776, 2.8826598665420695),
        (0.99, 30.0, 2.7499956535672254),
        (0.99, 100.0, 2.6258905214380173),
        (0.99, 1000.0, 2.580754698065951),
        (0.99, 10000.0, 2.5763210466685282),
        (0.99, 99999.0, 2.575878470400052),
        (0.99, 100000.0, 2.575878469908375),
        (0.99, 1000000.0, 2.5758342201053344),
        (0.99, 10000000.0, 2.5758297952037488),
        (0.99, 1000000000.0, 2.5758293084654484),
        (0.999, f64::INFINITY, 3.2905267314918945),
        (0.999, 1.0, 636.619248768719),
        (0.999, 1.5, 82.84744670365757),
        (0.999, 2.0, 31.599054576443606),
        (0.999, 3.0, 12.923978636687476),
        (0.999, 5.0, 6.868826625881109),
        (0.999, 9.0, 4.780912585931138),
        (0.999, 17.776, 3.9308938973440046),
        (0.999, 30.0, 3.6459586350420214),
        (0.999, 100.0, 3.3904913111642294),
        (0.999, 1000.0, 3.300282648423913),
        (0.999, 10000.0, 3.2914999659416044),
        (0.999, 99999.0, 3.2906240323849176),
        (0.999, 100000.0, 3.290624031411882),
        (0.999, 1000000.0, 3.290536461248691),
        (0.999, 10000000.0, 3.2905277044652217),
        (0.999, 1000000000.0, 3.2905267412216253),
        (0.999999, f64::INFINITY, 4.8916384756929325),
        (0.999999, 1.0, 636619.7723487513),
        (0.999999, 1.5, 8285.391194866204),
        (0.999999, 2.0, 999.9992499854659),
        (0.999999, 3.0, 130.1545895571102),
        (0.999999, 5.0, 28.478473462819565),
        (0.999999, 9.0, 11.636782027289474),
        (0.999999, 17.776, 7.271881916075928),
        (0.999999, 30.0, 6.119075620373899),
        (0.999999, 100.0, 5.213727574223293),
        (0.999999, 1000.0, 4.922289523423825),
        (0.999999, 10000.0, 4.894688616309937),
        (0.999999, 99999.0, 4.891943343758298),
        (0.999999, 100000.0, 4.891943340709452),
        (0.999999, 1000000.0, 4.891668960704727),
        (0.999999, 10000000.0, 4.891641524179213),
        (0.999999, 1000000000.0, 4.891638506177778),
        (0.99999999, f64::INFINITY, 5.730728867384048),
        (0.99999999, 1.0, 63661976.916872025),
        (0.99999999, 1.5, 178503.34290251572),
        (0.99999999, 2.0, 9999.999899876202),
        (0.99999999, 3.0, 604.164894806676),
        (0.99999999, 5.0, 71.69350269771228),
        (0.99999999, 9.0, 19.782179054089767),
        (0.99999999, 17.776, 10.005430657161897),
        (0.99999999, 30.0, 7.820264652757624),
        (0.99999999, 100.0, 6.252890431347757),
        (0.99999999, 1000.0, 5.77956800313005),
        (0.99999999, 10000.0, 5.735580780137423),
        (0.99999999, 99999.0, 5.731213745200461),
        (0.99999999, 100000.0, 5.731213740351329),
        (0.99999999, 1000000.0, 5.7307773514993885),
        (0.99999999, 10000000.0, 5.730733715763772),
        (0.99999999, 1000000000.0, 5.730728915867811),
        (0.9999999999, f64::INFINITY, 6.466951074732418),
        (0.9999999999, 1.0, 6366197196.934296),
        (0.9999999999, 1.5, 3845737.7431736467),
        (0.9999999999, 2.0, 99999.99585548171),
        (0.9999999999, 3.0, 2804.293747996736),
        (0.9999999999, 5.0, 180.14909786675685),
        (0.9999999999, 9.0, 33.2186539469655),
        (0.9999999999, 17.776, 13.396199500808374),
        (0.9999999999, 30.0, 9.667351727614871),
        (0.9999999999, 100.0, 7.227187039610757),
        (0.9999999999, 1000.0, 6.536820817131027),
        (0.9999999999, 10000.0, 6.473880529443402),
        (0.9999999999, 99999.0, 6.467643455755529),
        (0.9999999999, 100000.0, 6.467643448831085),
        (0.9999999999, 1000000.0, 6.467020306432366),
        (0.9999999999, 10000000.0, 6.466957997845318),
        (0.9999999999, 1000000000.0, 6.4669511439634855),
        (0.999999999999, f64::INFINITY, 7.130509892879273),
        (0.999999999999, 1.0, 636633855803.5593),
        (0.999999999999, 1.5, 82855134.53339706),
        (0.999999999999, 2.0, 1000011.0610428281),
        (0.999999999999, 3.0, 13016.476782874552),
        (0.999999999999, 5.0, 452.5412265910898),
        (0.999999999999, 9.0, 55.543581303263984),
        (0.999999999999, 17.776, 17.68357363867234),
        (0.999999999999, 30.0, 11.72201888681061),
        (0.999999999999, 100.0, 8.165533278169526),
        (0.999999999999, 1000.0, 7.223957750518743),
        (0.999999999999, 10000.0, 7.139761992691772),
        (0.999999999999, 99999.0, 7.131434192644411),
        (0.999999999999, 100000.0, 7.131434183400391),
        (0.999999999999, 1000000.0, 7.130602312744139),
        (0.999999999999, 10000000.0, 7.130519134773893),
        (0.999999999999, 1000000000.0, 7.130509985298117),
    ];

    #[test]
    fn t_quantiles_agree_with_scipy_to_the_far_tail() {
        for &(confidence, df, want) in SCIPY_T_ISF {
            let got = if df.is_infinite() {
                z_quantile(confidence)
            } else {
                t_quantile(confidence, df)
            }
            .unwrap_or_else(|| panic!("no quantile at {confidence}, df {df}"));
            let relative = (got - want).abs() / want;
            assert!(
                relative <= 1e-9,
                "confidence {confidence}, df {df}: {got} vs scipy's {want} ({relative:e} relative)"
            );
        }
        // The table does reach the far tail.
        assert!(SCIPY_T_ISF.iter().any(|&(c, _, _)| c == 1.0 - 1e-12));
    }

    /// The case: at 1 − 10⁻¹⁰ statrs' inverse t CDF gave a Welch interval 27 times too
    /// narrow. scipy 1.17.1, `ttest_ind(SLEEP_1, SLEEP_2, equal_var=False).confidence_interval(c)`
    /// (df = 17.776473516178488): at 0.95 (−3.3654832307117104, 0.20548323071171137); at
    /// 1 − 10⁻¹⁰ (−12.954336473604368, 9.794336473604368); at 1 − 10⁻¹² (−16.594536110601407,
    /// 13.4344372931717) — its upper end there comes from `ppf((1 + c)/2)`, whose tail is rounded
    /// to four digits, so only its lower end is the exact one.
    #[test]
    fn welch_in_the_far_tail_matches_scipy() {
        let a = Moments::from_values(&SLEEP_1).unwrap();
        let b = Moments::from_values(&SLEEP_2).unwrap();
        let relative = |got: f64, want: f64| (got - want).abs() / want.abs();
        let i = welch(&a, &b, 0.95).unwrap();
        assert!(relative(i.low, -3.3654832307117104) < 1e-9);
        assert!(relative(i.high, 0.20548323071171137) < 1e-8);
        let i = welch(&a, &b, 1.0 - 1e-10).unwrap();
        assert!(relative(i.low, -12.954336473604368) < 1e-9, "{i:?}");
        assert!(relative(i.high, 9.794336473604368) < 1e-9, "{i:?}");
        let i = welch(&a, &b, 1.0 - 1e-12).unwrap();
        assert!(relative(i.low, -16.594536110601407) < 1e-9, "{i:?}");
        assert!(relative(i.high, 13.4344372931717) < 1e-5, "{i:?}");
    }
}
