//! Packing face rectangles into atlas pages: shelves of rectangles sorted by height, every
//! rectangle grown by a border of `padding` texels on each side (filled with its edge texels by
//! the caller), so no two faces ever share a texel and bilinear filtering at a face's edge reads
//! only that face.

/// A face's place in the atlas: the page and the inner rectangle (the luxels, without the
/// padding around them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Placement {
    pub page: u32,
    pub x: u32,
    pub y: u32,
}

/// The packed layout: one placement per input size, and each page's size.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    pub placements: Vec<Placement>,
    pub pages: Vec<[u32; 2]>,
}

/// Pack rectangles of `sizes` (width, height) with `padding` on every side into pages at most
/// `max_side` wide and high. The page width is the smallest power of two whose square holds the
/// padded area (at least the widest rectangle), so a small map gets one small square-ish page.
/// Deterministic: equal inputs give equal layouts. Every padded size must be ≤ `max_side`.
pub fn pack(sizes: &[[u32; 2]], padding: u32, max_side: u32) -> Layout {
    let padded = |s: [u32; 2]| [s[0] + 2 * padding, s[1] + 2 * padding];
    let area: u64 = sizes.iter().map(|&s| padded(s)).map(|[w, h]| w as u64 * h as u64).sum();
    let widest = sizes.iter().map(|&s| padded(s)[0]).max().unwrap_or(1);
    let side = ((area as f64).sqrt().ceil() as u64).max(widest as u64).max(1);
    let width = side.next_power_of_two().min(max_side as u64) as u32;
    let mut order: Vec<u32> = (0..sizes.len() as u32).collect();
    // Tallest first, then widest; ties keep input order (sort is stable).
    order.sort_by(|&a, &b| {
        let (sa, sb) = (sizes[a as usize], sizes[b as usize]);
        sb[1].cmp(&sa[1]).then(sb[0].cmp(&sa[0]))
    });
    let mut layout = Layout { placements: vec![Placement { page: 0, x: 0, y: 0 }; sizes.len()], pages: Vec::new() };
    if sizes.is_empty() {
        return layout;
    }
    let (mut page, mut x, mut y, mut shelf) = (0u32, 0u32, 0u32, 0u32);
    let mut used_height = 0u32;
    for i in order {
        let [w, h] = padded(sizes[i as usize]);
        if x + w > width {
            y += shelf;
            x = 0;
            shelf = 0;
        }
        if y + h > max_side {
            layout.pages.push([width, used_height]);
            page += 1;
            x = 0;
            y = 0;
            shelf = 0;
            used_height = 0;
        }
        layout.placements[i as usize] = Placement { page, x: x + padding, y: y + padding };
        x += w;
        shelf = shelf.max(h);
        used_height = used_height.max(y + h);
    }
    layout.pages.push([width, used_height]);
    layout
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every padded rectangle lies inside its page and no two overlap.
    fn disjoint(sizes: &[[u32; 2]], l: &Layout, pad: u32) {
        let mut owner: Vec<Vec<i64>> = l.pages.iter().map(|p| vec![-1; (p[0] * p[1]) as usize]).collect();
        for (i, (s, p)) in sizes.iter().zip(&l.placements).enumerate() {
            let [pw, ph] = l.pages[p.page as usize];
            for y in p.y - pad..p.y + s[1] + pad {
                for x in p.x - pad..p.x + s[0] + pad {
                    assert!(x < pw && y < ph, "rectangle {i} leaves its page");
                    let o = &mut owner[p.page as usize][(y * pw + x) as usize];
                    assert_eq!(*o, -1, "texel ({x}, {y}) of page {} shared by {} and {i}", p.page, *o);
                    *o = i as i64;
                }
            }
        }
    }

    #[test]
    fn rectangles_are_disjoint_with_their_padding() {
        let sizes: Vec<[u32; 2]> = (0..500u32).map(|i| [1 + (i * 7) % 17, 1 + (i * 13) % 19]).collect();
        let l = pack(&sizes, 1, 4096);
        assert_eq!(l.pages.len(), 1);
        disjoint(&sizes, &l, 1);
        // A small page limit spreads them over several pages.
        let l = pack(&sizes, 1, 64);
        assert!(l.pages.len() > 1);
        disjoint(&sizes, &l, 1);
    }

    #[test]
    fn empty_input_gives_no_page() {
        assert!(pack(&[], 1, 4096).pages.is_empty());
    }
}
