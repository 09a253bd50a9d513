//! Where entities place brush models: one reading of the entity keys for every family whose
//! entities name their models (`"model" "*N"`, Genesis3D's `%Model%`).
//!
//! Families differ only in which entity uses which model (and the label its name carries) and
//! in what the keys mean, so those are the parameters: [`PlaceKeys`] says whether the single
//! `angle` key is a yaw (Quake 3, CoD4, Source: an entity's `angle` is its yaw) or not a
//! rotation at all (Quake 1/2: on doors, buttons and platforms it is the move direction,
//! `G_SetMovedir`), or whether the entity does not place the model (Genesis3D: its `origin` is
//! the pivot). This file imports no family and not [`crate::mesh`], so every family can use it
//! (and [`crate::mesh::scene`], whose [`Model::placed`](crate::mesh::scene::Model::placed) builds a model from a
//! [`Placement`]).

use std::collections::HashMap;

use crate::bsp::Bsp;
use crate::lumps::entities::{Entities, Entity};

/// What an entity's keys say about the brush model it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaceKeys {
    /// `origin`, and `angles` or else the single `angle` as a yaw (`0 angle 0`).
    OriginAnglesOrYaw,
    /// `origin` and `angles`; the single `angle` is a move direction, not a rotation.
    OriginAngles,
    /// Nothing: the model stays where it was compiled (its entity only names it).
    None,
}

/// Where an entity places a brush model (`"model" "*N"`).
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// Index of the entity in entity-lump order.
    pub entity: usize,
    /// `*N` and the entity's label, the model's display name (`world` for model 0).
    pub name: String,
    pub origin: [f32; 3],
    pub angles: [f32; 3],
}

/// Three numbers separated by white space; `None` unless there are exactly three and all are
/// finite.
pub fn parse_vec3(text: &str) -> Option<[f32; 3]> {
    let mut it = text.split_whitespace().map(|w| w.parse::<f32>().ok().filter(|v| v.is_finite()));
    let v = [it.next()??, it.next()??, it.next()??];
    it.next().is_none().then_some(v)
}

/// The model `*N` an entity's `model` key names, and its label: the classname and targetname
/// (the ones present and not empty, joined by a space). The usual `model_of` of [`placements`].
pub fn star_model(e: &Entity) -> Option<(u32, String)> {
    let n = e.get("model")?.strip_prefix('*')?.trim().parse().ok()?;
    let label = [e.classname(), e.get("targetname")].into_iter().flatten().filter(|s| !s.is_empty()).collect::<Vec<_>>().join(" ");
    Some((n, label))
}

/// The map's entities, or `None` with a warning saying brush models are not placed.
pub fn read_entities<'b>(bsp: &'b Bsp, warnings: &mut Vec<String>) -> Option<Entities<'b>> {
    match bsp.entities() {
        Ok(e) => Some(e),
        Err(e) => {
            warnings.push(format!("entities not read, brush models are not placed: {e}"));
            None
        }
    }
}

/// The placement of each brush model (keyed by model index, N ≥ 1) by the first entity that
/// uses it: `model_of` says which model an entity uses and the label its name carries
/// (`*N label`, or `*N` for an empty label); `keys` says how its keys place the model. The
/// world's entry (0) is the first `worldspawn`, named `world`, at zero. An `origin` / `angles`
/// that is not three numbers is taken as zero with a warning.
pub fn placements(
    entities: &[Entity],
    keys: PlaceKeys,
    warnings: &mut Vec<String>,
    model_of: impl Fn(&Entity) -> Option<(u32, String)>,
) -> HashMap<u32, Placement> {
    let mut out = HashMap::new();
    for (i, e) in entities.iter().enumerate() {
        if e.classname().as_deref() == Some("worldspawn") {
            out.entry(0).or_insert(Placement { entity: i, name: "world".into(), origin: [0.0; 3], angles: [0.0; 3] });
            continue;
        }
        let Some((m, label)) = model_of(e).filter(|(m, _)| *m != 0) else { continue };
        if out.contains_key(&m) {
            continue;
        }
        let mut vec3 = |key: &str| {
            let text = e.get(key)?;
            let v = parse_vec3(&text);
            if v.is_none() {
                warnings.push(format!("entity {i}: {key} \"{text}\" is not three numbers; taken as 0 0 0"));
            }
            Some(v.unwrap_or_default())
        };
        let (origin, angles) = match keys {
            PlaceKeys::None => ([0.0; 3], [0.0; 3]),
            PlaceKeys::OriginAngles => (vec3("origin").unwrap_or_default(), vec3("angles").unwrap_or_default()),
            PlaceKeys::OriginAnglesOrYaw => {
                let origin = vec3("origin").unwrap_or_default();
                let yaw = || e.get("angle").and_then(|s| s.trim().parse::<f32>().ok()).filter(|a| a.is_finite());
                (origin, vec3("angles").or_else(|| Some([0.0, yaw()?, 0.0])).unwrap_or_default())
            }
        };
        let name = if label.is_empty() { format!("*{m}") } else { format!("*{m} {label}") };
        out.insert(m, Placement { entity: i, name, origin, angles });
    }
    out
}

/// The placement of every brush model an entity names with `"model" "*N"`, by model index,
/// named `*N classname targetname` like every family's; the single `angle` key is not read
/// (Quake 1 / GoldSrc: on brush entities it is a movement direction). Bad `origin` / `angles`
/// text is zero.
pub fn brush_model_placements(entities: &Entities) -> HashMap<u32, Placement> {
    placements(&entities.list, PlaceKeys::OriginAngles, &mut Vec::new(), star_model)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vec3_text() {
        assert_eq!(parse_vec3(" 1 -2.5 3 "), Some([1.0, -2.5, 3.0]));
        assert_eq!(parse_vec3("1 2"), None);
        assert_eq!(parse_vec3("1 2 3 4"), None);
        assert_eq!(parse_vec3("1 nan 3"), None);
    }

    #[test]
    fn angle_key_per_policy() {
        let text = b"{\n\"classname\" \"worldspawn\"\n}\n{\n\"classname\" \"func_door\"\n\"model\" \"*1\"\n\"origin\" \"8 0 x\"\n\"angle\" \"90\"\n}\n{\n\"model\" \"*1\"\n}\n";
        let ents = crate::lumps::entities::parse(text).unwrap();
        let mut w = Vec::new();
        let yaw = placements(&ents.list, PlaceKeys::OriginAnglesOrYaw, &mut w, star_model);
        assert_eq!((yaw[&1].angles, yaw[&1].entity, yaw[&1].name.as_str()), ([0.0, 90.0, 0.0], 1, "*1 func_door"));
        assert_eq!((yaw[&0].entity, yaw[&0].name.as_str()), (0, "world"));
        assert_eq!(w.len(), 1, "{w:?}");
        let door = placements(&ents.list, PlaceKeys::OriginAngles, &mut w, star_model);
        assert_eq!(door[&1].angles, [0.0; 3]);
        assert_eq!(brush_model_placements(&ents)[&1].name, "*1 func_door");
    }
}
