//! Preview pictures (`bspkit::render`): every builder sample map and every corpus map renders to
//! a picture that is not blank (enough of it covered, not one flat colour) and is the same bytes
//! when drawn twice, in each view. A map whose scene has no drawn triangle (every surface sky,
//! nodraw, trigger, clip or tool, or no faces at all: a few corpus test maps) must give a picture
//! with nothing drawn on it.

use crate::common;

use bspkit::render::{render_map, RenderOptions, Rendered, View};
use bspkit::Bsp;

/// Share of the picture that must be covered by the map, for every view but `spawn` (which may
/// look at a wall, at the sky, or — in test maps that are a brush in the void — at nothing).
const MIN_COVERAGE: f64 = 0.05;
/// Least standard deviation of the pixels' channel values (0..255): a flat picture is below it.
const MIN_DEVIATION: f64 = 3.0;

fn render(bsp: &Bsp, view: View, size: u32) -> Rendered {
    let name = bsp.path().map(|p| p.display().to_string()).unwrap_or_else(|| bsp.branch().id.to_string());
    render_map(bsp, &RenderOptions { view, size, ..Default::default() }).unwrap_or_else(|e| panic!("{name}: {view:?}: {e}"))
}

/// Render `bsp` in every view twice; check the pictures. Returns the iso picture's coverage and
/// deviation and whether the scene had anything to draw.
fn check(name: &str, bsp: &Bsp, size: u32) -> (f64, f64, bool) {
    let mut iso = (0.0, 0.0, false);
    for view in View::ALL {
        let a = render(bsp, view, size);
        let b = render(bsp, view, size);
        assert_eq!(a.frame, b.frame, "{name}: {view:?} differs between two runs");
        assert_eq!(a.frame.to_png().unwrap(), b.frame.to_png().unwrap(), "{name}: {view:?} PNG bytes differ");
        assert_eq!(a.frame.width.max(a.frame.height), size, "{name}: {view:?} size");
        let (cov, dev) = (a.frame.coverage(), a.frame.deviation());
        if a.drawn_triangles == 0 {
            assert_eq!(a.frame.covered, 0, "{name}: {view:?}: nothing to draw, yet pixels were drawn");
            assert!(a.warnings.iter().any(|w| w.starts_with("nothing to draw")), "{name}: no warning");
        } else if a.view != View::Spawn {
            assert!(cov >= MIN_COVERAGE, "{name}: {view:?} covers {:.1}% of the picture", cov * 100.0);
            assert!(dev >= MIN_DEVIATION, "{name}: {view:?} is flat (deviation {dev:.2})");
        }
        if view == View::Iso {
            iso = (cov, dev, a.drawn_triangles > 0);
        }
    }
    iso
}

#[test]
fn builder_samples_render() {
    for (name, bytes) in bspkit::build::samples() {
        let bsp = Bsp::from_bytes(&bytes).unwrap();
        let (cov, dev, any) = check(name, &bsp, 96);
        assert!(any, "{name}: the sample map has nothing to draw");
        eprintln!("{name}: iso coverage {:.1}%, deviation {dev:.1}", cov * 100.0);
    }
}

#[test]
fn sizes_out_of_range_are_errors() {
    let bytes = bspkit::build::sample_quake1();
    let bsp = Bsp::from_bytes(&bytes).unwrap();
    let err = render_map(&bsp, &RenderOptions { size: bspkit::render::MAX_SIZE + 1, ..Default::default() }).unwrap_err();
    assert_eq!(err.kind.name(), "limit_exceeded");
}

#[test]
fn every_corpus_map_renders() {
    let Some(corpus) = common::corpus("every_corpus_map_renders") else { return };
    let maps = common::maps(&corpus);
    assert!(maps.len() >= 50, "only {} maps in the corpus", maps.len());
    // The maps are independent cases: on every core.
    let drawn: usize = common::par_map(&maps, |m| {
        let name = m.path.display().to_string();
        let bsp = Bsp::open(&m.path).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (cov, dev, any) = check(&name, &bsp, 160);
        eprintln!("{name}: iso coverage {:.1}%, deviation {dev:.1}{}", cov * 100.0, if any { "" } else { " (nothing to draw)" });
        any as usize
    })
    .into_iter()
    .sum();
    // The corpus's maps without drawable geometry are a handful of tool test maps.
    assert!(drawn * 10 >= maps.len() * 9, "only {drawn} of {} corpus maps have anything to draw", maps.len());
}

/// Least share of a 512-pixel picture in the default view that a corpus map with drawn faces
/// must cover (pixels not of the background colour): the "recognisable" bar.
const MIN_DEFAULT_COVERAGE: f64 = 0.20;

/// Every corpus map with drawn faces, rendered as `bsp render` does by default (iso, 512 px),
/// covers at least a fifth of the picture: the camera frames the playable area (far skybox
/// islands and stray brushes left out) and fits what is drawn, not the box's empty corners.
/// Coverage is counted here from the pixels (not the background colour), independently of the
/// rasterizer's own count. The figures are printed; docs/render-coverage.md records them.
#[test]
fn corpus_renders_cover_a_fifth_of_the_frame() {
    let Some(corpus) = common::corpus("corpus_renders_cover_a_fifth_of_the_frame") else { return };
    let bg = bspkit::render::BACKGROUND;
    let mut low = Vec::new();
    let mut drawn = 0;
    // Every corpus map opens (every_corpus_map_renders); the default renders (iso, 512 px) are
    // shared with the budget test.
    let renders = common::default_renders(&corpus);
    assert_eq!(renders.len(), common::maps(&corpus).len(), "a corpus map did not open");
    for (name, r) in renders {
        let r = r.as_ref().unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((r.view, r.frame.width.max(r.frame.height)), (View::Iso, 512), "{name}");
        if r.drawn_triangles == 0 {
            eprintln!("{name}: nothing to draw");
            continue;
        }
        drawn += 1;
        let px = r.frame.rgb.chunks_exact(3).filter(|p| *p != bg).count();
        let share = px as f64 / (r.frame.width as f64 * r.frame.height as f64);
        eprintln!("{name}: {:.1}% of {}×{} covered ({} lit faces)", share * 100.0, r.frame.width, r.frame.height, r.lit_faces);
        if share < MIN_DEFAULT_COVERAGE {
            low.push(format!("{name}: {:.1}%", share * 100.0));
        }
    }
    assert!(drawn >= 45, "only {drawn} corpus maps with drawn faces");
    assert!(low.is_empty(), "renders covering less than {}% of the frame: {low:?}", MIN_DEFAULT_COVERAGE * 100.0);
}
