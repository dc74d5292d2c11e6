//! Digests: SHA-256 of a line's exact bytes (the hash chain) and of a graph document in RFC 8785
//! canonical form (the `graph_digest`), both written `sha256:` + 64 lowercase hex digits; and a
//! run's task key, the digest of its header `input` in that form.
//!
//! Canonical JSON comes from `serde_jcs` 0.2, which sorts object members by their UTF-16 code
//! units and formats numbers as ECMAScript does (`ryu-js`); the tests below pin it to the RFC's
//! own examples.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// A raw SHA-256.
pub type Hash = [u8; 32];

pub fn sha256(bytes: &[u8]) -> Hash {
    Sha256::digest(bytes).into()
}

/// `sha256:` + lowercase hex.
pub fn format_hash(hash: &Hash) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(7 + 64);
    s.push_str("sha256:");
    for b in hash {
        s.push(HEX[(b >> 4) as usize] as char);
        s.push(HEX[(b & 15) as usize] as char);
    }
    s
}

/// Is `text` a digest as traces write them: `sha256:` and 64 lowercase hex digits?
pub fn is_sha256(text: &str) -> bool {
    text.strip_prefix("sha256:").is_some_and(|h| {
        h.len() == 64
            && h.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

/// Does `text` spell `hash` (`sha256:` + lowercase hex)? Compares without allocating.
pub fn hash_matches(text: &str, hash: &Hash) -> bool {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let Some(hex) = text.strip_prefix("sha256:") else {
        return false;
    };
    let hex = hex.as_bytes();
    if hex.len() != 64 {
        return false;
    }
    hash.iter().enumerate().all(|(i, b)| {
        hex.get(2 * i) == Some(&HEX[(b >> 4) as usize])
            && hex.get(2 * i + 1) == Some(&HEX[(b & 15) as usize])
    })
}

/// RFC 8785 canonical bytes of a JSON value.
pub fn canonical_json(value: &Value) -> Result<Vec<u8>, serde_json::Error> {
    serde_jcs::to_vec(value)
}

/// The `graph_digest` of a graph document: SHA-256 of its canonical form.
pub fn graph_digest(document: &Value) -> Result<String, serde_json::Error> {
    Ok(format_hash(&sha256(&canonical_json(document)?)))
}

/// The task key of a run (SPEC §4.3): `sha256:` + the SHA-256 of the RFC 8785 form of its header
/// `input`, so the same task recorded by two graph versions has the same key.
pub fn task_key(input: &Value) -> String {
    // A parsed JSON value always has a canonical form; the fallback only keeps this total.
    let bytes = canonical_json(input).unwrap_or_else(|_| input.to_string().into_bytes());
    format_hash(&sha256(&bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(text: &str) -> String {
        let v: Value = serde_json::from_str(text).unwrap();
        String::from_utf8(canonical_json(&v).unwrap()).unwrap()
    }

    #[test]
    fn rfc8785_section_3_2_2_example() {
        let input = r#"{
          "numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],
          "string": "\u20ac$\u000F\u000aA'\u0042\u0022\u005c\\\"\/",
          "literals": [null, true, false]
        }"#;
        assert_eq!(
            canon(input),
            "{\"literals\":[null,true,false],\"numbers\":[333333333.3333333,1e+30,4.5,0.002,1e-27],\
             \"string\":\"€$\\u000f\\nA'B\\\"\\\\\\\\\\\"/\"}"
        );
    }

    #[test]
    fn rfc8785_section_3_2_3_sorts_by_utf16() {
        let input = r#"{
          "\u20ac": "Euro Sign", "\r": "Carriage Return", "\ufb33": "Hebrew Letter Dalet With Dagesh",
          "1": "One", "\ud83d\ude00": "Emoji: Grinning Face", "\u0080": "Control",
          "\u00f6": "Latin Small Letter O With Diaeresis"
        }"#;
        let keys: Vec<String> = {
            let out = canon(input);
            let v: serde_json::Map<String, Value> = serde_json::from_str(&out).unwrap();
            v.keys().cloned().collect()
        };
        assert_eq!(
            keys,
            [
                "\r",
                "1",
                "\u{80}",
                "\u{f6}",
                "\u{20ac}",
                "\u{1f600}",
                "\u{fb33}"
            ]
        );
    }

    #[test]
    fn rfc8785_appendix_b_numbers() {
        let cases: &[(u64, &str)] = &[
            (0x0000000000000000, "0"),
            (0x8000000000000000, "0"),
            (0x0000000000000001, "5e-324"),
            (0x8000000000000001, "-5e-324"),
            (0x7fefffffffffffff, "1.7976931348623157e+308"),
            (0xffefffffffffffff, "-1.7976931348623157e+308"),
            (0x4340000000000000, "9007199254740992"),
            (0xc340000000000000, "-9007199254740992"),
            (0x4430000000000000, "295147905179352830000"),
            (0x44b52d02c7e14af5, "9.999999999999997e+22"),
            (0x44b52d02c7e14af6, "1e+23"),
            (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
            (0x444b1ae4d6e2ef4e, "999999999999999700000"),
            (0x444b1ae4d6e2ef4f, "999999999999999900000"),
            (0x444b1ae4d6e2ef50, "1e+21"),
            (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
            (0x3eb0c6f7a0b5ed8d, "0.000001"),
            (0x41b3de4355555553, "333333333.3333332"),
            (0x41b3de4355555554, "333333333.33333325"),
            (0x41b3de4355555555, "333333333.3333333"),
            (0x41b3de4355555556, "333333333.3333334"),
            (0x41b3de4355555557, "333333333.33333343"),
            (0xbecbf647612f3696, "-0.0000033333333333333333"),
            (0x43143ff3c1cb0959, "1424953923781206.2"),
        ];
        for &(bits, want) in cases {
            let v = Value::from(f64::from_bits(bits));
            let got = String::from_utf8(canonical_json(&v).unwrap()).unwrap();
            assert_eq!(got, want, "bits {bits:#018x}");
        }
    }

    #[test]
    fn integers_are_written_as_ecmascript_numbers() {
        assert_eq!(canon("[1, -0, 100, 1.0, 1e2]"), "[1,0,100,1,100]");
    }

    #[test]
    fn digest_ignores_layout_and_key_order() {
        let a: Value = serde_json::from_str(r#"{"b": 1, "a": [1.50, "x"]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":[1.5,"x"],"b":1}"#).unwrap();
        assert_eq!(graph_digest(&a).unwrap(), graph_digest(&b).unwrap());
        let h = sha256(b"abc");
        assert_eq!(
            format_hash(&h),
            "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(hash_matches(&format_hash(&h), &h));
        assert!(!hash_matches("sha256:00", &h));
    }
}
