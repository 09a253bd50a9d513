//! Small vector maths the families' scene builders share. It imports nothing of the crate, so
//! every family's `mesh` module can use it.

/// `v` scaled to unit length, computed in f64 and stored as f32; `None` when its length is not
/// finite or not above 1e-12 (a zero or broken normal).
pub fn unit(v: [f64; 3]) -> Option<[f32; 3]> {
    let len = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (len.is_finite() && len > 1e-12).then(|| v.map(|c| (c / len) as f32))
}

/// [`unit()`] of a stored f32 vector.
pub fn unit_f32(v: [f32; 3]) -> Option<[f32; 3]> {
    unit(v.map(f64::from))
}

/// Newell's normal of a polygon: perpendicular to it, twice its area long, pointing to the side
/// from which its corners run counter-clockwise. Edges are summed in order, the closing one last.
pub fn newell(corners: impl IntoIterator<Item = [f64; 3]>) -> [f64; 3] {
    let term = |n: [f64; 3], a: [f64; 3], b: [f64; 3]| {
        [n[0] + (a[1] - b[1]) * (a[2] + b[2]), n[1] + (a[2] - b[2]) * (a[0] + b[0]), n[2] + (a[0] - b[0]) * (a[1] + b[1])]
    };
    // A `cycle` iterator for the closing edge costs a branch per step; the first corner is
    // kept instead.
    let mut it = corners.into_iter();
    let Some(first) = it.next() else { return [0.0; 3] };
    let (n, last) = it.fold(([0.0; 3], first), |(n, a), b| (term(n, a, b), b));
    term(n, last, first)
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
