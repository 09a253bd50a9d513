//! Typed, zero-copy view of a Genesis3D level, and [`Geometry`], the faces with everything an
//! exporter needs to turn them into meshes (corner positions, colours, texture coordinates,
//! normals, textures and their 8-bit texels with palettes).

use super::lumps::*;
use super::records::*;
use crate::bsp::Bsp;
use crate::error::{Error, Result};

/// Typed access to a Genesis3D level's chunks. A chunk the file lacks reads as empty.
///
/// ```
/// # fn main() -> Result<(), bspkit::Error> {
/// use bspkit::branches::genesis3d;
/// let bytes = bspkit::build::BspBuilder::new(&genesis3d::GENESIS3D).lump(genesis3d::CHUNK_MODELS, vec![0u8; 80]).build();
/// let bsp = bspkit::Bsp::from_bytes(&bytes)?;
/// let view = genesis3d::View::new(&bsp)?;
/// assert_eq!(view.models()?.len(), 1);
/// assert_eq!(view.header()?.map(|h| h.version.get()), Some(15));
/// # Ok(()) }
/// ```
pub struct View<'a> {
    bsp: &'a Bsp<'a>,
}

impl<'a> View<'a> {
    pub fn new(bsp: &'a Bsp<'a>) -> Result<Self> {
        if bsp.branch() != &GENESIS3D {
            return Err(Error::malformed(format!("not a Genesis3D level (branch {})", bsp.branch().id)));
        }
        Ok(View { bsp })
    }

    pub fn bsp(&self) -> &'a Bsp<'a> {
        self.bsp
    }

    /// The `GBSP` header (chunk 0), if the level has one.
    pub fn header(&self) -> Result<Option<&'a Header>> {
        Ok(self.bsp.records::<Header>(CHUNK_HEADER)?.first())
    }
    pub fn models(&self) -> Result<&'a [Model]> {
        self.bsp.records(CHUNK_MODELS)
    }
    pub fn nodes(&self) -> Result<&'a [Node]> {
        self.bsp.records(CHUNK_NODES)
    }
    pub fn bnodes(&self) -> Result<&'a [BNode]> {
        self.bsp.records(CHUNK_BNODES)
    }
    pub fn leafs(&self) -> Result<&'a [Leaf]> {
        self.bsp.records(CHUNK_LEAFS)
    }
    pub fn clusters(&self) -> Result<&'a [Cluster]> {
        self.bsp.records(CHUNK_CLUSTERS)
    }
    pub fn areas(&self) -> Result<&'a [Area]> {
        self.bsp.records(CHUNK_AREAS)
    }
    pub fn area_portals(&self) -> Result<&'a [AreaPortal]> {
        self.bsp.records(CHUNK_AREA_PORTALS)
    }
    pub fn leaf_sides(&self) -> Result<&'a [LeafSide]> {
        self.bsp.records(CHUNK_LEAF_SIDES)
    }
    pub fn portals(&self) -> Result<&'a [Portal]> {
        self.bsp.records(CHUNK_PORTALS)
    }
    pub fn planes(&self) -> Result<&'a [Plane]> {
        self.bsp.records(CHUNK_PLANES)
    }
    pub fn faces(&self) -> Result<&'a [Face]> {
        self.bsp.records(CHUNK_FACES)
    }
    pub fn leaf_faces(&self) -> Result<&'a [Index]> {
        self.bsp.records(CHUNK_LEAF_FACES)
    }
    /// Face corners: indices into [`View::verts`], each face a run of them.
    pub fn vert_index(&self) -> Result<&'a [Index]> {
        self.bsp.records(CHUNK_VERT_INDEX)
    }
    pub fn verts(&self) -> Result<&'a [Vertex]> {
        self.bsp.records(CHUNK_VERTS)
    }
    /// One colour per [`View::vert_index`] entry.
    pub fn rgb_verts(&self) -> Result<&'a [RgbVertex]> {
        self.bsp.records(CHUNK_RGB_VERTS)
    }
    pub fn texinfo(&self) -> Result<&'a [TexInfo]> {
        self.bsp.records(CHUNK_TEXINFO)
    }
    pub fn textures(&self) -> Result<&'a [Texture]> {
        self.bsp.records(CHUNK_TEXTURES)
    }
    /// 8-bit texels of every texture ([`Texture::offset`]).
    pub fn tex_data(&self) -> Result<&'a [u8]> {
        self.bsp.lump(CHUNK_TEXDATA)
    }
    pub fn light_data(&self) -> Result<&'a [u8]> {
        self.bsp.lump(CHUNK_LIGHTDATA)
    }
    pub fn vis_data(&self) -> Result<&'a [u8]> {
        self.bsp.lump(CHUNK_VISDATA)
    }
    pub fn sky(&self) -> Result<Option<&'a SkyData>> {
        Ok(self.bsp.records::<SkyData>(CHUNK_SKYDATA)?.first())
    }
    pub fn palettes(&self) -> Result<&'a [Palette]> {
        self.bsp.records(CHUNK_PALETTES)
    }
    /// The model motions: text, `Genesis_Motion_File v1.0` then one motion per moving model.
    pub fn motions(&self) -> Result<&'a [u8]> {
        self.bsp.lump(CHUNK_MOTIONS)
    }

    /// The PVS row of a cluster: one bit per cluster of the world model (`Vis.cpp`), or
    /// `None` when the cluster has no row (offset −1) or the row leaves VISDATA.
    pub fn vis_row(&self, cluster: usize) -> Result<Option<&'a [u8]>> {
        let clusters = self.clusters()?;
        let Some(c) = clusters.get(cluster) else { return Ok(None) };
        let Ok(ofs) = usize::try_from(c.vis_offset.get()) else { return Ok(None) };
        let world = self.models()?.first().map(|m| m.num_clusters.get().max(0) as usize).unwrap_or(clusters.len());
        Ok(self.vis_data()?.get(ofs..ofs.saturating_add(vis_row_bytes(world))))
    }

    /// The faces with their vertices, colours, texture axes and textures, for exporters.
    pub fn geometry(&self) -> Result<Geometry<'a>> {
        Ok(Geometry {
            faces: self.faces()?,
            planes: self.planes()?,
            vert_index: self.vert_index()?,
            verts: self.verts()?,
            rgb_verts: self.rgb_verts()?,
            texinfo: self.texinfo()?,
            textures: self.textures()?,
            tex_data: self.tex_data()?,
            palettes: self.palettes()?,
            light_data: self.light_data()?,
            models: self.models()?,
        })
    }
}

/// A Genesis3D (Y-up) vector in the Z-up frame of the scene model and the lightmap mapping:
/// a quarter turn about X, `(x, y, z)` → `(x, −z, y)` (see [`super::mesh`]); in any precision
/// (the decompile turns `f64` positions, planes and texture axes).
pub fn to_z_up<T: Copy + std::ops::Neg<Output = T>>(v: [T; 3]) -> [T; 3] {
    [v[0], -v[2], v[1]]
}

/// One corner of a face polygon.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Corner {
    /// VERTS index of the position.
    pub vertex: usize,
    pub position: [f32; 3],
    /// RGB_VERTS colour of the corner (0–255 per channel), when the level has one.
    pub color: Option<[f32; 3]>,
    /// Texture coordinates in texels ([`TexInfo::texel`]); divide by the texture size for UVs.
    pub texel: [f32; 2],
}

/// The slices a mesh exporter reads, taken once; each face is a convex polygon (fan it from
/// its first corner into triangles). References are checked on access: a bad index is an
/// error naming the face, never a panic.
#[derive(Debug, Clone, Copy)]
pub struct Geometry<'a> {
    pub faces: &'a [Face],
    pub planes: &'a [Plane],
    pub vert_index: &'a [Index],
    pub verts: &'a [Vertex],
    pub rgb_verts: &'a [RgbVertex],
    pub texinfo: &'a [TexInfo],
    pub textures: &'a [Texture],
    pub tex_data: &'a [u8],
    pub palettes: &'a [Palette],
    pub light_data: &'a [u8],
    pub models: &'a [Model],
}

fn bad(face: usize, what: String) -> Error {
    Error::malformed(format!("face {face}: {what}")).in_lump(format!("{CHUNK_FACES} (FACES)"))
}

impl<'a> Geometry<'a> {
    fn face(&self, face: usize) -> Result<&'a Face> {
        self.faces.get(face).ok_or_else(|| bad(face, format!("no such face (count {})", self.faces.len())))
    }

    /// The face's texture axes.
    pub fn texinfo(&self, face: usize) -> Result<&'a TexInfo> {
        let t = self.face(face)?.texinfo.get();
        usize::try_from(t).ok().and_then(|t| self.texinfo.get(t)).ok_or_else(|| bad(face, format!("texinfo {t} is outside TEXINFO")))
    }

    /// The face's texture (name, size, texels), if its texinfo names one that exists.
    pub fn texture(&self, face: usize) -> Result<Option<&'a Texture>> {
        let t = self.texinfo(face)?.texture.get();
        Ok(usize::try_from(t).ok().and_then(|t| self.textures.get(t)))
    }

    /// The face's outward normal: its plane's, reversed when `plane_side` is 1.
    pub fn normal(&self, face: usize) -> Result<[f32; 3]> {
        let f = self.face(face)?;
        let p = f.plane.get();
        let plane =
            usize::try_from(p).ok().and_then(|p| self.planes.get(p)).ok_or_else(|| bad(face, format!("plane {p} is outside PLANES")))?;
        let n = plane.normal.map(|c| c.get());
        Ok(if f.plane_side.get() != 0 { n.map(|c| -c) } else { n })
    }

    /// The face's corners in order, without allocating.
    pub fn corners(&self, face: usize) -> Result<impl Iterator<Item = Result<Corner>> + 'a> {
        let f = self.face(face)?;
        let (first, n) = (f.first_vert.get(), f.num_verts.get());
        let range = usize::try_from(first)
            .ok()
            .zip(usize::try_from(n).ok())
            .and_then(|(a, n)| Some(a..a.checked_add(n)?))
            .filter(|r| r.end <= self.vert_index.len())
            .ok_or_else(|| bad(face, format!("corners {first}+{n} are outside VERT_INDEX (count {})", self.vert_index.len())))?;
        let tex = *self.texinfo(face)?;
        let (verts, rgb, index) = (self.verts, self.rgb_verts, self.vert_index);
        Ok(range.map(move |k| {
            let v = index[k].get();
            let vertex =
                usize::try_from(v).ok().filter(|&v| v < verts.len()).ok_or_else(|| bad(face, format!("vertex {v} is outside VERTS")))?;
            let position = verts[vertex].point.map(|c| c.get());
            Ok(Corner { vertex, position, color: rgb.get(k).map(|c| c.rgb.map(|x| x.get())), texel: tex.texel(position) })
        }))
    }

    /// A texture's first mip level: `width × height` palette indices, and its palette.
    pub fn texels(&self, texture: &Texture) -> Option<(&'a [u8], &'a Palette)> {
        let (w, h, ofs) = (
            usize::try_from(texture.width.get()).ok()?,
            usize::try_from(texture.height.get()).ok()?,
            usize::try_from(texture.offset.get()).ok()?,
        );
        let pixels = self.tex_data.get(ofs..ofs.checked_add(w.checked_mul(h)?)?)?;
        let palette = self.palettes.get(usize::try_from(texture.palette.get()).ok()?)?;
        Some((pixels, palette))
    }

    /// A face's lightmaps: `light_width × light_height` RGB texels per light type, after the
    /// flag byte at `light_offset`; `None` for an unlit face or data outside LIGHTDATA.
    pub fn lightmaps(&self, face: usize) -> Result<Option<&'a [u8]>> {
        let f = self.face(face)?;
        let Ok(ofs) = usize::try_from(f.light_offset.get()) else { return Ok(None) };
        let len = usize::try_from(f.light_bytes()).unwrap_or(usize::MAX);
        Ok(self.light_data.get(ofs..ofs.saturating_add(len)).map(|d| &d[1.min(d.len())..]))
    }

    /// The faces of a model (model 0 is the world), as a range of face indices.
    pub fn model_faces(&self, model: usize) -> Option<std::ops::Range<usize>> {
        let m = self.models.get(model)?;
        let first = usize::try_from(m.first_face.get()).ok()?;
        let end = first.checked_add(usize::try_from(m.num_faces.get()).ok()?)?;
        (end <= self.faces.len()).then_some(first..end)
    }
}
