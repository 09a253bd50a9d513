//! Small vector maths the families' scene builders share. It imports nothing of the crate, so
//! every family's `mesh` module can use it.

/// `v` scaled to unit length, computed in f64 and stored as f32; `None` when its length is not
/// finite or not above 1e-12 (a zero or broken normal).
pub fn unit(v: [f64; 3]) -> Option<[f32; 3]> {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (len.is_finite() && len > 1e-12).then(|| v.map(|c| (c / len) as f32))
}

/// [`unit`] of a stored f32 vector.
pub fn unit_f32(v: [f32; 3]) -> Option<[f32; 3]> {
    unit(v.map(f64::from))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(unit([0.0, 3.0, 4.0]), Some([0.0, 0.6, 0.8]));
        assert_eq!(unit_f32([0.0, 0.0, -2.0]), Some([0.0, 0.0, -1.0]));
        assert_eq!(unit([0.0; 3]), None);
        assert_eq!(unit([f64::NAN, 0.0, 1.0]), None);
        assert_eq!(unit([f64::INFINITY, 0.0, 1.0]), None);
    }
}
