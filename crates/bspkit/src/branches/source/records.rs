//! Source record types (source.md §7–§24), generic over the file's byte order: PC maps are
//! little-endian (`VBSP`), X360/PS3 maps big-endian (`PSBV`, source.md §1). Every struct is
//! `#[repr(C)]` with no implicit padding, so a lump is viewed in place with
//! [`crate::Bsp::records`]. Sizes are asserted in the tests at the bottom.
//!
//! Where a layout is not in the seeds it is marked with where the fact comes from:
//! "observed" (sizes seen in the corpus and in vbspinfo's Memory/Maxmem columns), or
//! bsp_tool's `branches/strata/strata.py` for the Strata Source v25 forms.

use zerocopy::byteorder::{ByteOrder, F32, I16, I32, U16, U32};

/// Three floats (`Vector`, source.md §1).
pub type Vec3<O> = [F32<O>; 3];

macro_rules! record {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        crate::schema::types::declare_record! { $(#[$m])* pub struct $name<O: ByteOrder> { $($(#[$fm])* pub $f: $t),* } }
    };
}

macro_rules! plain {
    ($(#[$m:meta])* $name:ident { $($(#[$fm:meta])* $f:ident : $t:ty),* $(,)? }) => {
        crate::schema::types::declare_record! { $(#[$m])* #[derive(PartialEq, Eq)] pub struct $name { $($(#[$fm])* pub $f: $t),* } }
    };
}

pub fn v3<O: ByteOrder>(v: &Vec3<O>) -> [f32; 3] {
    [v[0].get(), v[1].get(), v[2].get()]
}

record!(
    /// `dplane_t`, 20 bytes (§7.1).
    Plane { normal: Vec3<O>, dist: F32<O>, kind: I32<O> }
);
record!(
    /// A vertex / vertex normal / clip portal vertex / prim vertex, 12 bytes (§7.2).
    Vertex { pos: Vec3<O> }
);
record!(
    /// `dedge_t`, 4 bytes (§7.3).
    Edge { v: [U16<O>; 2] }
);
record!(
    /// Strata v25 edge: two u32 vertex indices, 8 bytes (bsp_tool strata.py; vbspinfo 360/45).
    Edge32 { v: [U32<O>; 2] }
);
record!(
    /// A surfedge, 4 bytes (§7.4): signed edge index, negative = reversed.
    Surfedge { edge: I32<O> }
);

impl<O: ByteOrder> Edge<O> {
    pub fn vertices(&self) -> [u32; 2] {
        [self.v[0].get() as u32, self.v[1].get() as u32]
    }
}
impl<O: ByteOrder> Edge32<O> {
    pub fn vertices(&self) -> [u32; 2] {
        [self.v[0].get(), self.v[1].get()]
    }
}

record!(
    /// `dface_t`, 56 bytes (§7.5); also original faces (§7.6) and HDR faces (lump 58, A15).
    Face {
        planenum: U16<O>,
        side: u8,
        on_node: u8,
        firstedge: I32<O>,
        numedges: I16<O>,
        texinfo: I16<O>,
        dispinfo: I16<O>,
        surface_fog_volume_id: I16<O>,
        styles: [u8; 4],
        lightofs: I32<O>,
        area: F32<O>,
        lightmap_mins: [I32<O>; 2],
        lightmap_size: [I32<O>; 2],
        orig_face: I32<O>,
        num_prims: U16<O>,
        first_prim_id: U16<O>,
        smoothing_groups: U32<O>,
    }
);
record!(
    /// VTMB (v17) `dface_bsp17_t`, 104 bytes, 8 light styles (§7.5).
    FaceVtmb {
        avg_light_color: [[u8; 4]; 8],
        planenum: U16<O>,
        side: u8,
        on_node: u8,
        firstedge: I32<O>,
        numedges: I16<O>,
        texinfo: I16<O>,
        dispinfo: I16<O>,
        surface_fog_volume_id: I16<O>,
        styles: [u8; 8],
        day: [u8; 8],
        night: [u8; 8],
        lightofs: I32<O>,
        area: F32<O>,
        lightmap_mins: [I32<O>; 2],
        lightmap_size: [I32<O>; 2],
        orig_face: I32<O>,
        smoothing_groups: U32<O>,
    }
);
record!(
    /// Strata v25 face, 72 bytes (bsp_tool strata.py `Face`; vbspinfo 1152/16). Two bytes of
    /// C alignment padding follow `on_node`. `prims`: bit 0 allows dynamic shadows, bits 1.. count.
    FaceStrata {
        planenum: U32<O>,
        side: u8,
        on_node: u8,
        pad: [u8; 2],
        firstedge: U32<O>,
        numedges: U32<O>,
        texinfo: I32<O>,
        dispinfo: I32<O>,
        surface_fog_volume_id: I32<O>,
        styles: [u8; 4],
        lightofs: I32<O>,
        area: F32<O>,
        lightmap_mins: [I32<O>; 2],
        lightmap_size: [I32<O>; 2],
        orig_face: I32<O>,
        prims: U32<O>,
        first_prim_id: U32<O>,
        smoothing_groups: U32<O>,
    }
);

record!(
    /// `dbrush_t`, 12 bytes (§8.1).
    Brush { firstside: I32<O>, numsides: I32<O>, contents: I32<O> }
);
record!(
    /// `dbrushside_t`, 8 bytes (§8.2). Bytes 6–7 are kept raw: `short bevel` before v21 and
    /// in L4D2, `u8 bevel, u8 thin` in other v21+ branches (open_questions.md A10).
    BrushSide { planenum: U16<O>, texinfo: I16<O>, dispinfo: I16<O>, bevel_thin: [u8; 2] }
);
impl<O: ByteOrder> BrushSide<O> {
    /// Bytes 6–7 as the pre-v21 / L4D2 `short bevel`.
    pub fn bevel_short(&self) -> i16 {
        zerocopy::byteorder::I16::<O>::from_bytes(self.bevel_thin).get()
    }
    /// Bytes 6–7 as the v21+ `u8 bevel, u8 thin` pair.
    pub fn bevel_thin(&self) -> (u8, u8) {
        (self.bevel_thin[0], self.bevel_thin[1])
    }
}

record!(
    /// Strata v25 brush side, 16 bytes (bsp_tool strata.py `BrushSide`; vbspinfo 576/36).
    BrushSideStrata { planenum: U32<O>, texinfo: I32<O>, dispinfo: I32<O>, bevel: u8, thin: u8, pad: I16<O> }
);

record!(
    /// `dnode_t`, 32 bytes (§9.1). Children ≥ 0 are nodes, < 0 leaves (`-1 - child`).
    Node {
        planenum: I32<O>,
        children: [I32<O>; 2],
        mins: [I16<O>; 3],
        maxs: [I16<O>; 3],
        firstface: U16<O>,
        numfaces: U16<O>,
        area: I16<O>,
        padding: I16<O>,
    }
);
record!(
    /// Strata v25 node, 48 bytes, float bounds (bsp_tool strata.py `Node`; vbspinfo 1296/27).
    NodeStrata {
        planenum: I32<O>,
        children: [I32<O>; 2],
        mins: Vec3<O>,
        maxs: Vec3<O>,
        firstface: U32<O>,
        numfaces: U32<O>,
        area: I16<O>,
        padding: I16<O>,
    }
);

plain!(
    /// `ColorRGBExp32`, 4 bytes (§19): linear colour = component × 2^exponent.
    ColorRGBExp32 { r: u8, g: u8, b: u8, exponent: i8 }
);
impl ColorRGBExp32 {
    pub fn linear(&self) -> [f32; 3] {
        let s = 2f32.powi(self.exponent as i32);
        [self.r as f32 * s, self.g as f32 * s, self.b as f32 * s]
    }
}
plain!(
    /// `CompressedLightCube`, 24 bytes (§20): one colour per axis direction.
    CompressedLightCube { color: [ColorRGBExp32; 6] }
);

record!(
    /// `dleaf_t` lump version 1 (v20+, VTMB), 32 bytes (§9.2). `area_flags`: low 9 bits area,
    /// high 7 bits flags (A18).
    Leaf {
        contents: I32<O>,
        cluster: I16<O>,
        area_flags: U16<O>,
        mins: [I16<O>; 3],
        maxs: [I16<O>; 3],
        firstleafface: U16<O>,
        numleaffaces: U16<O>,
        firstleafbrush: U16<O>,
        numleafbrushes: U16<O>,
        leaf_water_data_id: I16<O>,
        padding: I16<O>,
    }
);
record!(
    /// `dleaf_t` lump version 0 (v19 and older), 56 bytes, with the per-leaf light cube (§9.2).
    LeafV0 {
        contents: I32<O>,
        cluster: I16<O>,
        area_flags: U16<O>,
        mins: [I16<O>; 3],
        maxs: [I16<O>; 3],
        firstleafface: U16<O>,
        numleaffaces: U16<O>,
        firstleafbrush: U16<O>,
        numleafbrushes: U16<O>,
        leaf_water_data_id: I16<O>,
        ambient_lighting: CompressedLightCube,
        padding: I16<O>,
    }
);
record!(
    /// Strata v25 leaf (lump version 2), 56 bytes, float bounds; `area_flags`: 17 bits area,
    /// 15 bits flags (bsp_tool strata.py `Leaf`; vbspinfo 1624/29).
    LeafStrata {
        contents: I32<O>,
        cluster: I32<O>,
        area_flags: U32<O>,
        mins: Vec3<O>,
        maxs: Vec3<O>,
        firstleafface: U32<O>,
        numleaffaces: U32<O>,
        firstleafbrush: U32<O>,
        numleafbrushes: U32<O>,
        leaf_water_data_id: I32<O>,
    }
);
impl<O: ByteOrder> Leaf<O> {
    pub fn area(&self) -> u16 {
        self.area_flags.get() & 0x1ff
    }
    pub fn flags(&self) -> u16 {
        self.area_flags.get() >> 9
    }
}
impl<O: ByteOrder> LeafV0<O> {
    pub fn area(&self) -> u16 {
        self.area_flags.get() & 0x1ff
    }
}
impl<O: ByteOrder> LeafStrata<O> {
    pub fn area(&self) -> u32 {
        self.area_flags.get() & 0x1ffff
    }
}

record!(
    /// A leaf-face entry (lump 16), 2 bytes (§9.3).
    LeafFace { face: U16<O> }
);
record!(
    /// A leaf-brush entry (lump 17), 2 bytes (§9.3).
    LeafBrush { brush: U16<O> }
);
record!(
    /// A 32-bit index (Strata v25 leaf faces / leaf brushes / vertex normal indices / face IDs).
    Index32 { index: U32<O> }
);
record!(
    /// A 16-bit index (vertex normal indices lump 31, prim indices lump 39).
    Index16 { index: U16<O> }
);

record!(
    /// `texinfo_t`, 72 bytes (§10.1).
    TexInfo { texture_vecs: [[F32<O>; 4]; 2], lightmap_vecs: [[F32<O>; 4]; 2], flags: I32<O>, texdata: I32<O> }
);
record!(
    /// `dtexdata_t`, 32 bytes (§10.3).
    TexData {
        reflectivity: Vec3<O>,
        name_string_table_id: I32<O>,
        width: I32<O>,
        height: I32<O>,
        view_width: I32<O>,
        view_height: I32<O>,
    }
);
record!(
    /// A TexdataStringTable entry (lump 44), 4 bytes: byte offset into lump 43 (§10.4).
    StringTableEntry { offset: I32<O> }
);

record!(
    /// `dmodel_t`, 48 bytes (§11, A6).
    Model { mins: Vec3<O>, maxs: Vec3<O>, origin: Vec3<O>, headnode: I32<O>, firstface: I32<O>, numfaces: I32<O> }
);

record!(
    /// `CDispSubNeighbor`, 6 bytes (§15.1, background layout).
    DispSubNeighbor { neighbor: U16<O>, orientation: u8, span: u8, neighbor_span: u8, pad: u8 }
);
record!(
    /// `CDispNeighbor`, 12 bytes.
    DispNeighbor { sub: [DispSubNeighbor<O>; 2] }
);
record!(
    /// `CDispCornerNeighbors`, 10 bytes.
    DispCornerNeighbors { neighbors: [U16<O>; 4], count: u8, pad: u8 }
);
record!(
    /// `ddispinfo_t`, 176 bytes (§15.1).
    DispInfo {
        start_position: Vec3<O>,
        disp_vert_start: I32<O>,
        disp_tri_start: I32<O>,
        power: I32<O>,
        min_tess: I32<O>,
        smoothing_angle: F32<O>,
        contents: I32<O>,
        map_face: U16<O>,
        pad: [u8; 2],
        lightmap_alpha_start: I32<O>,
        lightmap_sample_position_start: I32<O>,
        edge_neighbors: [DispNeighbor<O>; 4],
        corner_neighbors: [DispCornerNeighbors<O>; 4],
        allowed_verts: [U32<O>; 10],
    }
);
record!(
    /// Strata v25 `ddispinfo_t`, 232 bytes; neighbour data kept raw (bsp_tool strata.py
    /// `DisplacementInfo`; vbspinfo Maxmem 60817408 / 262144).
    DispInfoStrata {
        start_position: Vec3<O>,
        disp_vert_start: I32<O>,
        disp_tri_start: I32<O>,
        power: I32<O>,
        min_tess: I32<O>,
        smoothing_angle: F32<O>,
        contents: I32<O>,
        map_face: U32<O>,
        lightmap_alpha_start: I32<O>,
        lightmap_sample_position_start: I32<O>,
        neighbors: [u8; 144],
        allowed_verts: [U32<O>; 10],
    }
);
record!(
    /// Dota 2 v23 `ddispinfo_t`, 184 bytes: Valve's record (§15.1) with an int of unknown use
    /// after `contents` and another after `lightmap_sample_position_start` (BSPSource's v23
    /// reader gives the order; the map proves each record before it is used, see
    /// [`super::view::View::disp_infos`]).
    DispInfoDotaV23 {
        start_position: Vec3<O>,
        disp_vert_start: I32<O>,
        disp_tri_start: I32<O>,
        power: I32<O>,
        min_tess: I32<O>,
        smoothing_angle: F32<O>,
        contents: I32<O>,
        unknown_after_contents: I32<O>,
        map_face: U16<O>,
        pad: [u8; 2],
        lightmap_alpha_start: I32<O>,
        lightmap_sample_position_start: I32<O>,
        unknown_after_samples: I32<O>,
        edge_neighbors: [DispNeighbor<O>; 4],
        corner_neighbors: [DispCornerNeighbors<O>; 4],
        allowed_verts: [U32<O>; 10],
    }
);
record!(
    /// Dota 2 v22 `ddispinfo_t`, 180 bytes: [`DispInfoDotaV23`] without the int after
    /// `contents` (BSPSource's v22 reader; proven per map as v23's).
    DispInfoDotaV22 {
        start_position: Vec3<O>,
        disp_vert_start: I32<O>,
        disp_tri_start: I32<O>,
        power: I32<O>,
        min_tess: I32<O>,
        smoothing_angle: F32<O>,
        contents: I32<O>,
        map_face: U16<O>,
        pad: [u8; 2],
        lightmap_alpha_start: I32<O>,
        lightmap_sample_position_start: I32<O>,
        unknown_after_samples: I32<O>,
        edge_neighbors: [DispNeighbor<O>; 4],
        corner_neighbors: [DispCornerNeighbors<O>; 4],
        allowed_verts: [U32<O>; 10],
    }
);
record!(
    /// Dota 2's per-vertex blend record (lump 63 `DISP_MULTIBLEND`), 80 bytes: one per
    /// displacement vertex (lump 33), in the same order. Fields as Hammer's `.vmf` names them
    /// (`multiblend`, `alphablend`, `multiblend_color_0..3`): checked against `dotatesting`'s
    /// source `.vmf` (Jay2645/DotaTesting `test.vmf`), whose 81 vertices' rows equal the lump's.
    DispMultiBlend { multiblend: [F32<O>; 4], alpha_blend: [F32<O>; 4], colors: [Vec3<O>; 4] }
);
record!(
    /// `dDispVert`, 20 bytes (§15.2).
    DispVert { vec: Vec3<O>, dist: F32<O>, alpha: F32<O> }
);
record!(
    /// `dDispTri`, 2 bytes (§15.3).
    DispTri { tags: U16<O> }
);

/// Vertices of a displacement of this power (§15.2).
pub fn disp_vert_count(power: i32) -> Option<usize> {
    (0..=8).contains(&power).then(|| ((1usize << power) + 1).pow(2))
}
/// Triangles of a displacement of this power (§15.2).
pub fn disp_tri_count(power: i32) -> Option<usize> {
    (0..=8).contains(&power).then(|| 2 * (1usize << power).pow(2))
}

record!(
    /// `dcubemapsample_t`, 16 bytes (§17, A7).
    Cubemap { origin: [I32<O>; 3], size: I32<O> }
);
record!(
    /// `doverlay_t`, 352 bytes (§18).
    Overlay {
        id: I32<O>,
        texinfo: I16<O>,
        face_count_and_render_order: U16<O>,
        ofaces: [I32<O>; 64],
        u: [F32<O>; 2],
        v: [F32<O>; 2],
        uv_points: [Vec3<O>; 4],
        origin: Vec3<O>,
        basis_normal: Vec3<O>,
    }
);
record!(
    /// Strata v25 overlay, 356 bytes (bsp_tool strata.py `Overlay`: i32 texinfo, 2 bytes of
    /// alignment after the face count; vbspinfo Maxmem 5832704 / 16384).
    OverlayStrata {
        id: I32<O>,
        texinfo: I32<O>,
        face_count_and_render_order: U16<O>,
        pad: [u8; 2],
        ofaces: [I32<O>; 64],
        u: [F32<O>; 2],
        v: [F32<O>; 2],
        uv_points: [Vec3<O>; 4],
        origin: Vec3<O>,
        basis_normal: Vec3<O>,
    }
);
impl<O: ByteOrder> Overlay<O> {
    /// `face_count = x & 0x3FFF` (§18).
    pub fn face_count(&self) -> usize {
        (self.face_count_and_render_order.get() & 0x3fff) as usize
    }
    pub fn render_order(&self) -> u16 {
        self.face_count_and_render_order.get() >> 14
    }
}
impl<O: ByteOrder> OverlayStrata<O> {
    pub fn face_count(&self) -> usize {
        (self.face_count_and_render_order.get() & 0x3fff) as usize
    }
}
record!(
    /// `dwateroverlay_t`, 1120 bytes (lump 50; `docs/format-notes/source_facts.md` §1): the
    /// `doverlay_t` fields (§18) with room for 256 faces instead of 64.
    WaterOverlay {
        id: I32<O>,
        texinfo: I16<O>,
        face_count_and_render_order: U16<O>,
        faces: [I32<O>; 256],
        u: [F32<O>; 2],
        v: [F32<O>; 2],
        uv_points: [Vec3<O>; 4],
        origin: Vec3<O>,
        basis_normal: Vec3<O>,
    }
);
impl<O: ByteOrder> WaterOverlay<O> {
    /// The low 14 bits, as in `doverlay_t` (the top 2 are the render order).
    pub fn face_count(&self) -> usize {
        (self.face_count_and_render_order.get() & 0x3fff) as usize
    }
}
record!(
    /// Overlay fade distances (lump 60), 8 bytes: one per overlay (observed: 16 bytes for the
    /// 2 overlays of tf2_test2).
    OverlayFade { min_dist: F32<O>, max_dist: F32<O> }
);

record!(
    /// `dworldlight_t` lump version 0, 88 bytes (§23).
    WorldLight {
        origin: Vec3<O>,
        intensity: Vec3<O>,
        normal: Vec3<O>,
        cluster: I32<O>,
        kind: I32<O>,
        style: I32<O>,
        stopdot: F32<O>,
        stopdot2: F32<O>,
        exponent: F32<O>,
        radius: F32<O>,
        constant_attn: F32<O>,
        linear_attn: F32<O>,
        quadratic_attn: F32<O>,
        flags: I32<O>,
        texinfo: I32<O>,
        owner: I32<O>,
    }
);
record!(
    /// `dworldlight_t` lump version 1, 100 bytes: a `shadow_cast_offset` vector after `normal`
    /// (observed: X360 shack 300 bytes / 3 lights, Strata 100 / 1; public readers of the
    /// version-1 lump put the vector at offset 36).
    WorldLightV1 {
        origin: Vec3<O>,
        intensity: Vec3<O>,
        normal: Vec3<O>,
        shadow_cast_offset: Vec3<O>,
        cluster: I32<O>,
        kind: I32<O>,
        style: I32<O>,
        stopdot: F32<O>,
        stopdot2: F32<O>,
        exponent: F32<O>,
        radius: F32<O>,
        constant_attn: F32<O>,
        linear_attn: F32<O>,
        quadratic_attn: F32<O>,
        flags: I32<O>,
        texinfo: I32<O>,
        owner: I32<O>,
    }
);

record!(
    /// `dleafambientindex_t`, 4 bytes (§20).
    LeafAmbientIndex { ambient_sample_count: U16<O>, first_ambient_sample: U16<O> }
);

plain!(
    /// Original-Xbox `dlightmappageinfo_t` (LIGHTMAP_PAGE_INFOS, 8 bytes; Valve's `bspfile.h`):
    /// the lightmap page, the offset `(s, t)` into it, a pad byte, the average colour used for
    /// run-time lighting.
    LightmapPageInfo { page: u8, offset: [u8; 2], pad: u8, avg_color: ColorRGBExp32 }
);
record!(
    /// Strata v25 leaf ambient index, 8 bytes (bsp_tool strata.py; vbspinfo 232/29).
    LeafAmbientIndex32 { ambient_sample_count: U32<O>, first_ambient_sample: U32<O> }
);
plain!(
    /// `dleafambientlighting_t`, 28 bytes (§20): a light cube and its position in the leaf.
    LeafAmbientLighting { cube: CompressedLightCube, x: u8, y: u8, z: u8, pad: u8 }
);

record!(
    /// `doccluderdata_t` lump version 0, 36 bytes (§21).
    OccluderDataV0 { flags: I32<O>, firstpoly: I32<O>, polycount: I32<O>, mins: Vec3<O>, maxs: Vec3<O> }
);
record!(
    /// `doccluderdata_t` lump version ≥ 1, 40 bytes (§21).
    OccluderData { flags: I32<O>, firstpoly: I32<O>, polycount: I32<O>, mins: Vec3<O>, maxs: Vec3<O>, area: I32<O> }
);
record!(
    /// `doccluderpolydata_t`, 12 bytes (§21).
    OccluderPoly { firstvertexindex: I32<O>, vertexcount: I32<O>, planenum: I32<O> }
);

record!(
    /// `dphysmodel_t`, 16 bytes (§22).
    PhysModelHeader { model_index: I32<O>, data_size: I32<O>, keydata_size: I32<O>, solid_count: I32<O> }
);

record!(
    /// Lump 59, 4 bytes: level-wide flags (vbspinfo prints them as "Level flags").
    MapFlags { level_flags: U32<O> }
);
record!(
    /// Lump 11 entry, 2 bytes: the Hammer face ID of each face (observed: one per face).
    FaceId { hammer_face_id: U16<O> }
);
record!(
    /// Lump 37 primitive ("waterstrip"), 10 bytes: vbspinfo Maxmem 327680 / 32768 (observed
    /// 200 bytes / 20 in tf2_test2). Type byte, one byte of alignment, four u16 fields.
    Primitive { kind: u8, pad: u8, first_index: U16<O>, index_count: U16<O>, first_vert: U16<O>, vert_count: U16<O> }
);
record!(
    /// Strata v25 primitive, 20 bytes (bsp_tool strata.py `Primitive`, C alignment after the type).
    PrimitiveStrata { kind: u8, pad: [u8; 3], first_index: U32<O>, index_count: U32<O>, first_vert: U32<O>, vert_count: U32<O> }
);
record!(
    /// Lump 36 entry, 12 bytes (vbspinfo Maxmem 393216 / 32768): water surface height, lowest
    /// point, surface texinfo.
    LeafWaterData { surface_z: F32<O>, min_z: F32<O>, surface_texinfo_id: I16<O>, pad: I16<O> }
);
record!(
    /// Lump 46 entry, 2 bytes per leaf (observed: one per leaf in every sample).
    LeafMinDistToWater { dist: U16<O> }
);
record!(
    /// Lump 21 `dareaportal_t`, 12 bytes.
    AreaPortal {
        portal_key: U16<O>,
        other_area: U16<O>,
        first_clip_portal_vert: U16<O>,
        num_clip_portal_verts: U16<O>,
        planenum: I32<O>,
    }
);
record!(
    /// Strata v25 area portal (lump version 1), 20 bytes: the same fields widened to 32 bits
    /// (bsp_tool strata.py uses vindictus69.AreaPortal; observed 20 bytes / 1 portal).
    AreaPortal32 {
        portal_key: U32<O>,
        other_area: U32<O>,
        first_clip_portal_vert: U32<O>,
        num_clip_portal_verts: U32<O>,
        planenum: I32<O>,
    }
);
record!(
    /// Lump 20 `darea_t`, 8 bytes (vbspinfo Maxmem 2048 / 256).
    Area { num_area_portals: I32<O>, first_area_portal: I32<O> }
);
record!(
    /// Strata v25 face brush list (lump 23), 8 bytes (bsp_tool strata.py `FaceBrushList`).
    FaceBrushList { num_face_brushes: U32<O>, first_face_brush: U32<O> }
);

// Dark Messiah of Might and Magic (VDC "BSP (Source)/Game-Specific", `texinfo_dm_t`,
// `dmodel_dm_t`, `dgamelump_dm_t`): PC-only, so little-endian records, declared once each with
// `declare_record!`. The inserted fields' meaning is not given; they are kept as stored.
crate::schema::types::declare_record! {
    /// `texinfo_dm_t`, 96 bytes: Valve's `texinfo_t` with 24 unknown bytes between
    /// `lightmapVecs` and `flags`.
    pub struct TexInfoDm {
        pub texture_vecs: [[F32<zerocopy::LittleEndian>; 4]; 2],
        pub lightmap_vecs: [[F32<zerocopy::LittleEndian>; 4]; 2],
        pub unknown: [u8; 24],
        pub flags: I32<zerocopy::LittleEndian>,
        pub texdata: I32<zerocopy::LittleEndian>,
    }
    /// `dmodel_dm_t`, 52 bytes: Valve's `dmodel_t` with one int (VDC: "always 0?") between
    /// `origin` and `headnode`.
    pub struct ModelDm {
        pub mins: [F32<zerocopy::LittleEndian>; 3],
        pub maxs: [F32<zerocopy::LittleEndian>; 3],
        pub origin: [F32<zerocopy::LittleEndian>; 3],
        pub unknown: I32<zerocopy::LittleEndian>,
        pub headnode: I32<zerocopy::LittleEndian>,
        pub firstface: I32<zerocopy::LittleEndian>,
        pub numfaces: I32<zerocopy::LittleEndian>,
    }
    /// `dgamelump_dm_t`, 20 bytes: Valve's `dgamelump_t` and one more int.
    pub struct GameLumpEntryDm {
        pub id: I32<zerocopy::LittleEndian>,
        pub flags: U16<zerocopy::LittleEndian>,
        pub version: U16<zerocopy::LittleEndian>,
        pub fileofs: I32<zerocopy::LittleEndian>,
        pub filelen: I32<zerocopy::LittleEndian>,
        pub unknown: I32<zerocopy::LittleEndian>,
    }
}

fn f32s<O: ByteOrder, const N: usize>(v: &[F32<zerocopy::LittleEndian>; N]) -> [F32<O>; N] {
    std::array::from_fn(|i| F32::new(v[i].get()))
}

impl TexInfoDm {
    /// Valve's `texinfo_t` with the same values (the 24 unknown bytes left out), for code that
    /// reads every branch's texinfo.
    pub fn to_valve<O: ByteOrder>(&self) -> TexInfo<O> {
        TexInfo {
            texture_vecs: [f32s(&self.texture_vecs[0]), f32s(&self.texture_vecs[1])],
            lightmap_vecs: [f32s(&self.lightmap_vecs[0]), f32s(&self.lightmap_vecs[1])],
            flags: I32::new(self.flags.get()),
            texdata: I32::new(self.texdata.get()),
        }
    }
}

impl ModelDm {
    /// Valve's `dmodel_t` with the same values (the unknown int left out).
    pub fn to_valve<O: ByteOrder>(&self) -> Model<O> {
        Model {
            mins: f32s(&self.mins),
            maxs: f32s(&self.maxs),
            origin: f32s(&self.origin),
            headnode: I32::new(self.headnode.get()),
            firstface: I32::new(self.firstface.get()),
            numfaces: I32::new(self.numfaces.get()),
        }
    }
}

// Vindictus (Nexon's Source fork; VDC "BSP (Source)/Game-Specific" lists it with "many
// modified structs" and gives no layouts). The forms below are the facts bsp_tool's
// `nexon/vindictus69.py` states (struct format strings); its face version 1 (72 bytes) is the
// same layout as Strata's [`FaceStrata`], which the `vindictus` branches read, so it is not
// declared twice. Widened fields are 32-bit where Valve's are 16-bit.
record!(
    /// Vindictus face, lump version 2, 76 bytes: the version-1 form ([`FaceStrata`]'s layout)
    /// with one more int after `surface_fog_volume_id` (meaning not given; kept as stored).
    FaceVinV2 {
        planenum: U32<O>,
        side: u8,
        on_node: u8,
        pad: [u8; 2],
        firstedge: U32<O>,
        numedges: U32<O>,
        texinfo: I32<O>,
        dispinfo: I32<O>,
        surface_fog_volume_id: I32<O>,
        unknown: I32<O>,
        styles: [u8; 4],
        lightofs: I32<O>,
        area: F32<O>,
        lightmap_mins: [I32<O>; 2],
        lightmap_size: [I32<O>; 2],
        orig_face: I32<O>,
        prims: U32<O>,
        first_prim_id: U32<O>,
        smoothing_groups: U32<O>,
    }
);
record!(
    /// Vindictus node, 48 bytes: every field a 32-bit int, integer bounds (no area field; the
    /// last int is padding).
    NodeVin {
        planenum: I32<O>,
        children: [I32<O>; 2],
        mins: [I32<O>; 3],
        maxs: [I32<O>; 3],
        firstface: I32<O>,
        numfaces: I32<O>,
        padding: I32<O>,
    }
);
record!(
    /// Vindictus leaf (lump version 1), 56 bytes: Valve's `dleaf_t` v1 fields widened to 32
    /// bits, integer bounds. The area/flags split of `area_flags` is not given; Valve's (low 9
    /// bits area) is assumed.
    LeafVin {
        contents: I32<O>,
        cluster: I32<O>,
        area_flags: U32<O>,
        mins: [I32<O>; 3],
        maxs: [I32<O>; 3],
        firstleafface: U32<O>,
        numleaffaces: U32<O>,
        firstleafbrush: U32<O>,
        numleafbrushes: U32<O>,
        leaf_water_data_id: I32<O>,
    }
);
impl<O: ByteOrder> LeafVin<O> {
    pub fn area(&self) -> u32 {
        self.area_flags.get() & 0x1ff
    }
}
record!(
    /// Vindictus brush side, 16 bytes: plane, texinfo, dispinfo and bevel as 32-bit ints.
    BrushSideVin { planenum: U32<O>, texinfo: I32<O>, dispinfo: I32<O>, bevel: I32<O> }
);
record!(
    /// Vindictus `ddispinfo_t`, 232 bytes: widened indices, the smoothing angle before an
    /// unknown int (where Valve has `minTess` first), neighbour data kept raw.
    DispInfoVin {
        start_position: Vec3<O>,
        disp_vert_start: I32<O>,
        disp_tri_start: I32<O>,
        power: I32<O>,
        smoothing_angle: F32<O>,
        unknown: I32<O>,
        contents: I32<O>,
        map_face: U32<O>,
        lightmap_alpha_start: I32<O>,
        lightmap_sample_position_start: I32<O>,
        neighbors: [u8; 144],
        allowed_verts: [U32<O>; 10],
    }
);
record!(
    /// Vindictus overlay, 356 bytes: an int texinfo and an int face count whose top 2 bits are
    /// the render order.
    OverlayVin {
        id: I32<O>,
        texinfo: I32<O>,
        face_count_and_render_order: U32<O>,
        ofaces: [I32<O>; 64],
        u: [F32<O>; 2],
        v: [F32<O>; 2],
        uv_points: [Vec3<O>; 4],
        origin: Vec3<O>,
        basis_normal: Vec3<O>,
    }
);
impl<O: ByteOrder> OverlayVin<O> {
    pub fn face_count(&self) -> usize {
        (self.face_count_and_render_order.get() & 0x3fff_ffff) as usize
    }
}

// Counter-Strike Online 2, 2018-onwards maps (`cso2_2018`): two records whose sizes alone are
// known (bsp_tool `nexon/cso2_2018.py`, from L-Leite's cso2-bsp-converter `src/bsptypes.hpp`);
// no source gives their fields, so each is one opaque byte array: counted, checked for whole
// records, rewritten as stored, never interpreted.
plain!(
    /// CSO2 2018 `ddispinfo_t`, 242 bytes ("10 bytes more than Vindictus"); fields not given.
    DispInfoCso2 { bytes: [u8; 242] }
);
plain!(
    /// CSO2 2018 `dcubemap_t`, 164 bytes; fields not given.
    CubemapCso2 { bytes: [u8; 164] }
);

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::size_of;
    use zerocopy::FromBytes;
    use zerocopy::{BigEndian as BE, LittleEndian as LE};

    #[test]
    fn record_sizes_match_the_spec() {
        // source.md §7.1, §7.2, §7.3, §7.4, §7.5
        assert_eq!(size_of::<Plane<LE>>(), 20);
        assert_eq!(size_of::<Vertex<LE>>(), 12);
        assert_eq!(size_of::<Edge<LE>>(), 4);
        assert_eq!(size_of::<Surfedge<LE>>(), 4);
        assert_eq!(size_of::<Face<LE>>(), 56);
        assert_eq!(size_of::<Face<BE>>(), 56);
        assert_eq!(size_of::<FaceVtmb<LE>>(), 104);
        // §8.1, §8.2, §9.1, §9.2, §9.3
        assert_eq!(size_of::<Brush<LE>>(), 12);
        assert_eq!(size_of::<BrushSide<LE>>(), 8);
        assert_eq!(size_of::<Node<LE>>(), 32);
        assert_eq!(size_of::<Leaf<LE>>(), 32);
        assert_eq!(size_of::<LeafV0<LE>>(), 56);
        assert_eq!(size_of::<LeafFace<LE>>(), 2);
        assert_eq!(size_of::<LeafBrush<LE>>(), 2);
        // §10.1, §10.3, §10.4, §11
        assert_eq!(size_of::<TexInfo<LE>>(), 72);
        assert_eq!(size_of::<TexInfoDm>(), 96);
        assert_eq!(size_of::<ModelDm>(), 52);
        assert_eq!(size_of::<GameLumpEntryDm>(), 20);
        // Vindictus (bsp_tool nexon/vindictus69.py format strings)
        assert_eq!(size_of::<FaceVinV2<LE>>(), 76);
        assert_eq!(size_of::<NodeVin<LE>>(), 48);
        assert_eq!(size_of::<LeafVin<LE>>(), 56);
        assert_eq!(size_of::<BrushSideVin<LE>>(), 16);
        assert_eq!(size_of::<DispInfoVin<LE>>(), 232);
        assert_eq!(size_of::<OverlayVin<LE>>(), 356);
        // CSO2 2018 (bsp_tool nexon/cso2_2018.py sizes)
        assert_eq!(size_of::<DispInfoCso2>(), 242);
        assert_eq!(size_of::<CubemapCso2>(), 164);
        assert_eq!(size_of::<TexData<LE>>(), 32);
        assert_eq!(size_of::<StringTableEntry<LE>>(), 4);
        assert_eq!(size_of::<Model<LE>>(), 48);
        // §15.1–§15.3, §17, §18
        assert_eq!(size_of::<DispNeighbor<LE>>(), 12);
        assert_eq!(size_of::<DispCornerNeighbors<LE>>(), 10);
        assert_eq!(size_of::<DispInfo<LE>>(), 176);
        // Dota 2 v23 / v22 (BSPSource's readers; dotatesting's lump is 184 bytes for one record)
        assert_eq!(size_of::<DispInfoDotaV23<LE>>(), 184);
        assert_eq!(size_of::<DispInfoDotaV22<LE>>(), 180);
        // dotatesting: lump 63 is 6,480 bytes for its 81 displacement vertices
        assert_eq!(size_of::<DispMultiBlend<LE>>(), 80);
        assert_eq!(size_of::<DispVert<LE>>(), 20);
        assert_eq!(size_of::<DispTri<LE>>(), 2);
        assert_eq!(size_of::<Cubemap<LE>>(), 16);
        assert_eq!(size_of::<Overlay<LE>>(), 352);
        // source_facts.md §1 (bspfile.h `dwateroverlay_t`)
        assert_eq!(size_of::<WaterOverlay<LE>>(), 1120);
        // §19, §20, §21, §22, §23
        assert_eq!(size_of::<ColorRGBExp32>(), 4);
        assert_eq!(size_of::<CompressedLightCube>(), 24);
        assert_eq!(size_of::<LeafAmbientIndex<LE>>(), 4);
        assert_eq!(size_of::<LeafAmbientLighting>(), 28);
        assert_eq!(size_of::<OccluderDataV0<LE>>(), 36);
        assert_eq!(size_of::<OccluderData<LE>>(), 40);
        assert_eq!(size_of::<OccluderPoly<LE>>(), 12);
        assert_eq!(size_of::<PhysModelHeader<LE>>(), 16);
        assert_eq!(size_of::<WorldLight<LE>>(), 88);
        assert_eq!(size_of::<WorldLightV1<LE>>(), 100);
        // §24 and vbspinfo Maxmem/Maxobjs ratios
        assert_eq!(size_of::<Primitive<LE>>(), 10);
        assert_eq!(size_of::<LeafWaterData<LE>>(), 12);
        assert_eq!(size_of::<AreaPortal<LE>>(), 12);
        assert_eq!(size_of::<Area<LE>>(), 8);
        assert_eq!(size_of::<OverlayFade<LE>>(), 8);
        // Strata v25 (bsp_tool strata.py, vbspinfo of momentum_mp_lobby)
        assert_eq!(size_of::<FaceStrata<LE>>(), 72);
        assert_eq!(size_of::<BrushSideStrata<LE>>(), 16);
        assert_eq!(size_of::<NodeStrata<LE>>(), 48);
        assert_eq!(size_of::<LeafStrata<LE>>(), 56);
        assert_eq!(size_of::<Edge32<LE>>(), 8);
        assert_eq!(size_of::<DispInfoStrata<LE>>(), 232);
        assert_eq!(size_of::<OverlayStrata<LE>>(), 356);
        assert_eq!(size_of::<PrimitiveStrata<LE>>(), 20);
        assert_eq!(size_of::<LeafAmbientIndex32<LE>>(), 8);
        assert_eq!(size_of::<AreaPortal32<LE>>(), 20);
        assert_eq!(size_of::<FaceBrushList<LE>>(), 8);
    }

    #[test]
    fn dota_dispinfo_fields_sit_where_bspsource_puts_them() {
        use std::mem::offset_of;
        // v23: the extra int at 36 moves MapFace to 40; the neighbours start at 56.
        assert_eq!(offset_of!(DispInfoDotaV23<LE>, unknown_after_contents), 36);
        assert_eq!(offset_of!(DispInfoDotaV23<LE>, map_face), 40);
        assert_eq!(offset_of!(DispInfoDotaV23<LE>, unknown_after_samples), 52);
        assert_eq!(offset_of!(DispInfoDotaV23<LE>, edge_neighbors), 56);
        assert_eq!(offset_of!(DispInfoDotaV23<LE>, allowed_verts), 144);
        // v22: Valve's offsets up to MapFace (36), then 4 bytes on from the extra int at 48.
        assert_eq!(offset_of!(DispInfoDotaV22<LE>, map_face), offset_of!(DispInfo<LE>, map_face));
        assert_eq!(offset_of!(DispInfoDotaV22<LE>, unknown_after_samples), 48);
        assert_eq!(offset_of!(DispInfoDotaV22<LE>, allowed_verts), 140);
    }

    #[test]
    fn big_endian_fields_read_big_endian() {
        let bytes = [0u8, 0, 0, 5, 0, 0, 0, 7, 0, 0, 0, 1];
        let b = Brush::<BE>::ref_from_bytes(&bytes).unwrap();
        assert_eq!((b.firstside.get(), b.numsides.get(), b.contents.get()), (5, 7, 1));
        let l = Brush::<LE>::ref_from_bytes(&bytes).unwrap();
        assert_eq!(l.firstside.get(), 5 << 24);
    }
}
