//! A real engine loads converted Quake 1 maps: Debian's `darkplaces-server` started on each
//! corpus BSP29 / BSP2 / 2PSB map, and on that map converted to each of the other two
//! containers, in a game folder the test writes (a `progs.dat` made here, nothing else), spawns
//! the server on it without an error, and its entity list as the engine parsed it matches the
//! map's. Skips (with a note) when the server is not installed (`.ci/run` installs it). The
//! maps' Hexen II form (`--to hexen2`) is started too: DarkPlaces does not read that model
//! layout, and the test asserts it refuses each one (which engine loads which form, README).
//!
//! Why not `quakespasm` as well: it reads loose files in sub-folders (`maps/NAME.bsp`) only when
//! the game is "registered" (id's `gfx/pop.lmp`, which is id's data), and any `.pak` other than
//! id's own marks the game "modified", which it refuses unregistered; so it cannot load a map
//! from a game folder with nothing of id's in it.
//!
//! The `progs.dat` (QuakeC's compiled form, version 6; the layout from the Quake source's
//! `pr_comp.h` / `progdefs.h`, facts only): a header of 15 `i32`s, then statements (`u16` op,
//! three `i16` operands), global and field definitions (`u16` type, `u16` offset, `i32` name),
//! functions (36 bytes each), the string table and the globals. Engines read the system globals
//! (`globalvars_t`: 28 reserved slots, then `self` … `SetChangeParms`) and the entity fields
//! (`entvars_t`: `modelindex` … `noise3`, 105 four-byte slots) at fixed offsets, so the
//! definitions here follow that order exactly and the header carries `progdefs.h`'s CRC (5927);
//! every function, including one per classname in the map and one per function a map's key
//! names, is a single `DONE`. DarkPlaces itself looks fields and globals up by name (swapping
//! `origin` and `oldorigin` here still passes), so what it checks is the names, types and sizes;
//! the fixed order matters to engines built on id's C structs, which none here can run.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::common;

use bspkit::convert::{self, ConvertOptions, Lzma};
use bspkit::Bsp;

// QuakeC definition types (pr_comp.h `etype_t`).
const EV_STRING: u16 = 1;
const EV_FLOAT: u16 = 2;
const EV_VECTOR: u16 = 3;
const EV_ENTITY: u16 = 4;
const EV_FUNCTION: u16 = 6;

/// `globalvars_t` after its 28 reserved slots (return value and parameters), in order.
const GLOBALS: &[(&str, u16)] = &[
    ("self", EV_ENTITY),
    ("other", EV_ENTITY),
    ("world", EV_ENTITY),
    ("time", EV_FLOAT),
    ("frametime", EV_FLOAT),
    ("force_retouch", EV_FLOAT),
    ("mapname", EV_STRING),
    ("deathmatch", EV_FLOAT),
    ("coop", EV_FLOAT),
    ("teamplay", EV_FLOAT),
    ("serverflags", EV_FLOAT),
    ("total_secrets", EV_FLOAT),
    ("total_monsters", EV_FLOAT),
    ("found_secrets", EV_FLOAT),
    ("killed_monsters", EV_FLOAT),
    ("parm1", EV_FLOAT),
    ("parm2", EV_FLOAT),
    ("parm3", EV_FLOAT),
    ("parm4", EV_FLOAT),
    ("parm5", EV_FLOAT),
    ("parm6", EV_FLOAT),
    ("parm7", EV_FLOAT),
    ("parm8", EV_FLOAT),
    ("parm9", EV_FLOAT),
    ("parm10", EV_FLOAT),
    ("parm11", EV_FLOAT),
    ("parm12", EV_FLOAT),
    ("parm13", EV_FLOAT),
    ("parm14", EV_FLOAT),
    ("parm15", EV_FLOAT),
    ("parm16", EV_FLOAT),
    ("v_forward", EV_VECTOR),
    ("v_up", EV_VECTOR),
    ("v_right", EV_VECTOR),
    ("trace_allsolid", EV_FLOAT),
    ("trace_startsolid", EV_FLOAT),
    ("trace_fraction", EV_FLOAT),
    ("trace_endpos", EV_VECTOR),
    ("trace_plane_normal", EV_VECTOR),
    ("trace_plane_dist", EV_FLOAT),
    ("trace_ent", EV_ENTITY),
    ("trace_inopen", EV_FLOAT),
    ("trace_inwater", EV_FLOAT),
    ("msg_entity", EV_ENTITY),
    ("main", EV_FUNCTION),
    ("StartFrame", EV_FUNCTION),
    ("PlayerPreThink", EV_FUNCTION),
    ("PlayerPostThink", EV_FUNCTION),
    ("ClientKill", EV_FUNCTION),
    ("ClientConnect", EV_FUNCTION),
    ("PutClientInServer", EV_FUNCTION),
    ("ClientDisconnect", EV_FUNCTION),
    ("SetNewParms", EV_FUNCTION),
    ("SetChangeParms", EV_FUNCTION),
];

/// `entvars_t`, in order.
const FIELDS: &[(&str, u16)] = &[
    ("modelindex", EV_FLOAT),
    ("absmin", EV_VECTOR),
    ("absmax", EV_VECTOR),
    ("ltime", EV_FLOAT),
    ("movetype", EV_FLOAT),
    ("solid", EV_FLOAT),
    ("origin", EV_VECTOR),
    ("oldorigin", EV_VECTOR),
    ("velocity", EV_VECTOR),
    ("angles", EV_VECTOR),
    ("avelocity", EV_VECTOR),
    ("punchangle", EV_VECTOR),
    ("classname", EV_STRING),
    ("model", EV_STRING),
    ("frame", EV_FLOAT),
    ("skin", EV_FLOAT),
    ("effects", EV_FLOAT),
    ("mins", EV_VECTOR),
    ("maxs", EV_VECTOR),
    ("size", EV_VECTOR),
    ("touch", EV_FUNCTION),
    ("use", EV_FUNCTION),
    ("think", EV_FUNCTION),
    ("blocked", EV_FUNCTION),
    ("nextthink", EV_FLOAT),
    ("groundentity", EV_ENTITY),
    ("health", EV_FLOAT),
    ("frags", EV_FLOAT),
    ("weapon", EV_FLOAT),
    ("weaponmodel", EV_STRING),
    ("weaponframe", EV_FLOAT),
    ("currentammo", EV_FLOAT),
    ("ammo_shells", EV_FLOAT),
    ("ammo_nails", EV_FLOAT),
    ("ammo_rockets", EV_FLOAT),
    ("ammo_cells", EV_FLOAT),
    ("items", EV_FLOAT),
    ("takedamage", EV_FLOAT),
    ("chain", EV_ENTITY),
    ("deadflag", EV_FLOAT),
    ("view_ofs", EV_VECTOR),
    ("button0", EV_FLOAT),
    ("button1", EV_FLOAT),
    ("button2", EV_FLOAT),
    ("impulse", EV_FLOAT),
    ("fixangle", EV_FLOAT),
    ("v_angle", EV_VECTOR),
    ("idealpitch", EV_FLOAT),
    ("netname", EV_STRING),
    ("enemy", EV_ENTITY),
    ("flags", EV_FLOAT),
    ("colormap", EV_FLOAT),
    ("team", EV_FLOAT),
    ("max_health", EV_FLOAT),
    ("teleport_time", EV_FLOAT),
    ("armortype", EV_FLOAT),
    ("armorvalue", EV_FLOAT),
    ("waterlevel", EV_FLOAT),
    ("watertype", EV_FLOAT),
    ("ideal_yaw", EV_FLOAT),
    ("yaw_speed", EV_FLOAT),
    ("aiment", EV_ENTITY),
    ("goalentity", EV_ENTITY),
    ("spawnflags", EV_FLOAT),
    ("target", EV_STRING),
    ("targetname", EV_STRING),
    ("dmg_take", EV_FLOAT),
    ("dmg_save", EV_FLOAT),
    ("dmg_inflictor", EV_ENTITY),
    ("owner", EV_ENTITY),
    ("movedir", EV_VECTOR),
    ("message", EV_STRING),
    ("sounds", EV_FLOAT),
    ("noise", EV_STRING),
    ("noise1", EV_STRING),
    ("noise2", EV_STRING),
    ("noise3", EV_STRING),
];

fn slots(ty: u16) -> u16 {
    if ty == EV_VECTOR {
        3
    } else {
        1
    }
}

/// A `progs.dat` whose system globals and entity fields sit where the engine expects them, with a
/// function doing nothing for each system entry point and each of `names`.
fn progs(names: &BTreeSet<String>) -> Vec<u8> {
    let mut strings = vec![0u8];
    let mut string = |s: &str| {
        let at = strings.len() as i32;
        strings.extend_from_slice(s.as_bytes());
        strings.push(0);
        at
    };
    // Function 0 is the null function; the others are numbered from 1.
    let mut functions: Vec<String> = GLOBALS.iter().filter(|g| g.1 == EV_FUNCTION).map(|g| g.0.to_string()).collect();
    functions.extend(names.iter().filter(|c| !functions.contains(c)).cloned().collect::<Vec<_>>());
    let number = |name: &str| functions.iter().position(|f| f == name).map_or(0, |i| i as i32 + 1);

    let def = |ty: u16, ofs: u16, name: i32| {
        let mut d = Vec::with_capacity(8);
        d.extend_from_slice(&ty.to_le_bytes());
        d.extend_from_slice(&ofs.to_le_bytes());
        d.extend_from_slice(&name.to_le_bytes());
        d
    };
    let (mut globaldefs, mut globals, mut n_globaldefs) = (Vec::new(), vec![0i32; 28], 0);
    for &(name, ty) in GLOBALS {
        globaldefs.extend(def(ty, globals.len() as u16, string(name)));
        n_globaldefs += 1;
        globals.push(if ty == EV_FUNCTION { number(name) } else { 0 });
        globals.resize(globals.len() + slots(ty) as usize - 1, 0);
    }
    // A real compiler also names each vector's components (`origin_x` …); engines look a few up.
    let (mut fielddefs, mut n_fielddefs, mut entity_slots) = (Vec::new(), 0, 0u16);
    for &(name, ty) in FIELDS {
        fielddefs.extend(def(ty, entity_slots, string(name)));
        n_fielddefs += 1;
        if ty == EV_VECTOR {
            for (k, c) in ["_x", "_y", "_z"].iter().enumerate() {
                fielddefs.extend(def(EV_FLOAT, entity_slots + k as u16, string(&format!("{name}{c}"))));
                n_fielddefs += 1;
            }
        }
        entity_slots += slots(ty);
    }
    assert_eq!((globals.len(), entity_slots), (92, 105), "globalvars_t and entvars_t sizes");
    // Statement 0 is never run (a function's first statement is 1); statement 1 is `DONE` (op 0).
    let statements = [0u8; 16];
    let file = string("bspkit_engine_test.qc");
    let mut funcs = vec![0u8; 36];
    for f in &functions {
        let name = string(f);
        // first_statement, parm_start, locals, profile, s_name, s_file, numparms, parm_size[8]
        for v in [1, globals.len() as i32, 0, 0, name, file, 0] {
            funcs.extend_from_slice(&v.to_le_bytes());
        }
        funcs.extend_from_slice(&[0u8; 8]);
    }
    let globals_bytes: Vec<u8> = globals.iter().flat_map(|g| g.to_le_bytes()).collect();
    let sections: [(&[u8], usize); 6] = [
        (&statements, 2),
        (&globaldefs, n_globaldefs),
        (&fielddefs, n_fielddefs),
        (&funcs, functions.len() + 1),
        (&strings, strings.len()),
        (&globals_bytes, globals.len()),
    ];
    let mut header: Vec<i32> = vec![6, 5927];
    let mut body = Vec::new();
    for (bytes, count) in sections {
        header.push(60 + body.len() as i32);
        header.push(count as i32);
        body.extend_from_slice(bytes);
    }
    header.push(entity_slots as i32);
    let mut out: Vec<u8> = header.iter().flat_map(|v| v.to_le_bytes()).collect();
    out.extend(body);
    out
}

pub(crate) fn server() -> Option<PathBuf> {
    common::game_server("darkplaces-server")
}

/// Run the dedicated server on `base/id1/maps/NAME.bsp`, print the entities it spawned, quit;
/// return its log.
fn run(server: &Path, base: &Path, name: &str) -> String {
    // A port of its own per test process, so parallel runs do not meet (the server listens even
    // with nobody to serve).
    let port = (27_000 + std::process::id() % 2000).to_string();
    let child = Command::new(server)
        .env("HOME", base)
        .args(["-nohome", "-basedir"])
        .arg(base)
        .args(["-port", &port, "+developer", "1", "+skill", "1", "+map", name, "+prvm_edicts", "server", "+quit"])
        .current_dir(base)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start darkplaces-server");
    common::log_within(child, name)
}

/// What the engine did with the map: `Ok(parsed, inhibited)` entity counts when it spawned the
/// server on it without an error, else the reason.
fn spawned(log: &str, name: &str) -> Result<(usize, usize), String> {
    let bad = ["Host_Error", "wrong version", "unknown/unsupported", "Couldn't load map", "ERROR", "crash", "No spawn function"];
    if let Some(l) = log.lines().find(|l| bad.iter().any(|b| l.contains(b))) {
        return Err(format!("error line: {l}"));
    }
    if !log.contains(&format!("SpawnServer: {name}")) || !log.lines().any(|l| l == "Server spawned.") {
        return Err("no \"Server spawned.\"".into());
    }
    // "server: N new entities parsed, M new inhibited, ..."
    let l = log.lines().find(|l| l.starts_with("server: ") && l.contains(" new entities parsed, ")).ok_or("no entity count")?;
    let nums: Vec<usize> = l.split(|c: char| !c.is_ascii_digit()).filter_map(|w| w.parse().ok()).collect();
    Ok((nums[0], nums[1]))
}

/// (classname, origin) of every edict `prvm_edicts server` printed with a classname.
fn engine_entities(log: &str) -> Vec<(String, [f64; 3])> {
    let mut out = Vec::new();
    let mut cur: Option<(Option<String>, [f64; 3])> = None;
    let flush = |cur: &mut Option<(Option<String>, [f64; 3])>, out: &mut Vec<(String, [f64; 3])>| {
        if let Some((Some(c), o)) = cur.take() {
            out.push((c, o));
        }
    };
    for l in log.lines() {
        if l.starts_with("server EDICT ") {
            flush(&mut cur, &mut out);
            cur = Some((None, [0.0; 3]));
        } else if let Some((class, origin)) = cur.as_mut() {
            let mut kv = l.splitn(2, ' ');
            let (k, v) = (kv.next().unwrap_or(""), kv.next().unwrap_or("").trim());
            match k {
                "classname" => *class = Some(v.to_string()),
                "origin" => *origin = vector(v.trim_matches('\'')),
                _ => {}
            }
        }
    }
    flush(&mut cur, &mut out);
    out
}

fn vector(s: &str) -> [f64; 3] {
    let v: Vec<f64> = s.split_whitespace().filter_map(|w| w.parse().ok()).collect();
    [v.first().copied().unwrap_or(0.0), v.get(1).copied().unwrap_or(0.0), v.get(2).copied().unwrap_or(0.0)]
}

/// (classname, origin) of every entity in the map, and the functions the progs must have: one
/// per classname (the spawn functions) and each value of a function field (`"use"
/// "barrel_explode"`: the engine refuses a map naming a function the progs lacks).
fn map_entities(bsp: &Bsp) -> (Vec<(String, [f64; 3])>, BTreeSet<String>) {
    let ents = bsp.entities().unwrap();
    let list: Vec<(String, [f64; 3])> =
        ents.iter().filter_map(|e| Some((e.classname()?.to_string(), e.get("origin").map_or([0.0; 3], |o| vector(&o))))).collect();
    let mut functions: BTreeSet<String> = list.iter().map(|e| e.0.clone()).collect();
    for e in ents.iter() {
        for (k, v) in e.iter() {
            if FIELDS.iter().any(|&(f, ty)| f == k && ty == EV_FUNCTION) {
                functions.insert(v.to_string());
            }
        }
    }
    (list, functions)
}

/// A folder removed when the test ends (passed or not).
struct TempDir(PathBuf);
impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

fn to(id: &str) -> ConvertOptions {
    ConvertOptions { to: bspkit::branches::by_id(id).unwrap(), endian: None, lzma: Lzma::Auto, static_props: None }
}

/// Load `bytes` as `maps/NAME.bsp` with a progs made for its entities; the engine's entities
/// must be the map's (less those the engine's skill rule inhibits).
pub(crate) fn load(server: &Path, base: &Path, name: &str, bytes: &[u8]) -> Result<(), String> {
    let bsp = Bsp::from_bytes(bytes).map_err(|e| e.to_string())?;
    let (mine, functions) = map_entities(&bsp);
    std::fs::write(base.join("id1/progs.dat"), progs(&functions)).unwrap();
    std::fs::write(base.join(format!("id1/maps/{name}.bsp")), bytes).unwrap();
    let log = run(server, base, name);
    let (parsed, inhibited) = spawned(&log, name).map_err(|e| format!("{e}\n{log}"))?;
    if parsed != mine.len() {
        return Err(format!("engine parsed {parsed} entities, the map has {}\n{log}", mine.len()));
    }
    // Each entity the engine kept, with its origin read through the progs' field layout, is one
    // of the map's.
    let theirs = engine_entities(&log);
    if theirs.len() != parsed - inhibited {
        return Err(format!("{} edicts with a classname, expected {parsed} - {inhibited}\n{log}", theirs.len()));
    }
    let mut left = mine.clone();
    for (c, o) in &theirs {
        let Some(i) = left.iter().position(|(mc, mo)| mc == c && (0..3).all(|k| (mo[k] - o[k]).abs() < 1e-3)) else {
            return Err(format!("engine entity {c} at {o:?} is not in the map\n{log}"));
        };
        left.swap_remove(i);
    }
    Ok(())
}

/// Every corpus Quake 1 container map (BSP29, BSP2, 2PSB) loads in darkplaces-server as it is
/// (the control) and converted to each other container, through BSP29 → BSP2 → 2PSB → BSP29;
/// a map with a version the engine does not know is refused (so the check can fail).
#[test]
fn darkplaces_server_loads_converted_quake1_maps() {
    let Some(corpus) = common::corpus("darkplaces_server_loads_converted_quake1_maps") else { return };
    let Some(server) = server() else {
        eprintln!("darkplaces_server_loads_converted_quake1_maps: SKIPPED (darkplaces-server is not installed)");
        return;
    };
    let base = TempDir(std::env::temp_dir().join(format!("bspkit-darkplaces-{}", std::process::id())));
    std::fs::create_dir_all(base.0.join("id1/maps")).unwrap();
    let (mut loads, mut maps, mut refused) = (0, 0, Vec::new());
    let mut hexen2: Vec<(String, Result<(), String>)> = Vec::new();
    for (k, m) in common::maps_in(&corpus, "quake1").iter().enumerate() {
        let data = std::fs::read(&m.path).unwrap();
        let bsp = Bsp::from_bytes(&data).unwrap();
        let first = bsp.branch().id;
        if !convert::quake1::BRANCHES.contains(&first) {
            continue;
        }
        maps += 1;
        let file = m.path.file_name().unwrap().to_string_lossy().to_string();
        load(&server, &base.0, &format!("bspkit_raw{k}"), &data).unwrap_or_else(|e| panic!("{file} ({first}, as it is): {e}"));
        loads += 1;
        // Round the ring of containers starting after the map's own.
        let ring = ["quake1", "bsp2", "2psb"];
        let at = ring.iter().position(|&b| b == first).unwrap();
        let mut cur = data.clone();
        for step in 1..=3 {
            let id = ring[(at + step) % 3];
            let from = Bsp::from_bytes(&cur).unwrap();
            if from.branch().id == id {
                continue;
            }
            match convert::prepare(&from, &to(id), true) {
                Ok(c) => cur = c.bytes,
                // A map too big for a 16-bit container is refused before anything is written;
                // the ring goes on from the map as it is.
                Err(e) if matches!(e.kind, bspkit::error::ErrorKind::Unsupported(_)) && id != "bsp2" => {
                    refused.push(format!("{file} -> {id}: {e}"));
                    continue;
                }
                Err(e) => panic!("{file} -> {id}: {e}"),
            }
            load(&server, &base.0, &format!("bspkit_conv{k}_{id}"), &cur).unwrap_or_else(|e| panic!("{file} -> {id}: {e}"));
            loads += 1;
        }
        assert!(Bsp::from_bytes(&cur).unwrap().branch().id == first);
        assert!(cur == data, "{file}: around the ring, byte-identical");
        // The Hexen II model layout (eight hull head nodes): DarkPlaces does not read it.
        let bsp = Bsp::from_bytes(&data).unwrap();
        let h2 = convert::prepare(&bsp, &to("hexen2"), false).unwrap_or_else(|e| panic!("{file} -> hexen2: {e}")).bytes;
        hexen2.push((file.clone(), load(&server, &base.0, &format!("bspkit_h2_{k}"), &h2)));
    }
    // DarkPlaces reads Quake's 64-byte model records only: the Hexen II layout (80 bytes, eight
    // head nodes) stops it ("funny lump size" where the lump is not a multiple of 64; where it
    // is, the misread models keep the server from spawning). So no Debian engine here proves the
    // Hexen II conversions; they are proven by their round trips (convert_siblings.rs).
    for (file, r) in &hexen2 {
        let why = r.as_ref().expect_err(&format!("{file}: DarkPlaces loaded a Hexen II map")).lines().next().unwrap_or("");
        eprintln!("hexen2 form of {file} not loaded: {why}");
    }
    assert_eq!(hexen2.len(), maps);
    eprintln!("darkplaces_server_loads_converted_quake1_maps: {maps} maps, {loads} loads; refused: {refused:?}");
    assert!(maps >= 11, "{maps} Quake 1 container maps in the corpus");

    // The control the other way: a version the engine does not know is not loaded.
    let data = std::fs::read(&common::maps_in(&corpus, "quake1")[0].path).unwrap();
    let mut bad = data.clone();
    bad[0..4].copy_from_slice(&28i32.to_le_bytes());
    std::fs::write(base.0.join("id1/maps/bspkit_bad.bsp"), &bad).unwrap();
    let log = run(&server, &base.0, "bspkit_bad");
    assert!(spawned(&log, "bspkit_bad").is_err() && log.contains("Couldn't load map"), "{log}");
}
