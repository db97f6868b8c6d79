//! [`DiskSpec`]: a serializable description of a disk in human units (ms,
//! RPM, bytes), and spec files that override a preset field by field.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{CacheSpec, DiskError, DiskModel, GeometrySpec, SeekSpec, presets};

/// Where the rotational latency of a request comes from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RotationSpec {
    /// The spindle turns continuously at `rpm` from angle 0 at time 0; the
    /// latency is the time from the end of the seek until the first sector of
    /// the request comes under the head. Needs `rpm`.
    Tracked,
    /// Drawn uniformly on [0, `max_ms`] for each request (Chen & Towsley:
    /// U[0, 16.7 ms]); without `max_ms`, on [0, one revolution at `rpm`].
    Random {
        /// Longest latency, ms.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        max_ms: Option<f64>,
    },
    /// No rotational latency.
    None,
}

/// How long the data transfer of a request takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "kebab-case", deny_unknown_fields)]
pub enum TransferSpec {
    /// From the geometry: each block takes a revolution divided by the
    /// sectors on its track; crossing to the next track costs a head switch
    /// (next surface) or a one-cylinder seek (next cylinder) plus the wait
    /// for that track's first block, which the skews keep short. Needs `rpm`.
    Geometry,
    /// The same time for every request, whatever its length (Chen & Towsley:
    /// 0.8 ms; IBM 3330 in Towsley, Chen & Yu: 2 ms).
    Constant {
        /// Milliseconds per request.
        ms: f64,
    },
    /// Bytes at a fixed rate (Lo, Ivy: 1 MB/s for the HP 7935 and HP 7937).
    Rate {
        /// Bytes per second.
        bytes_per_s: f64,
    },
    /// The whole service is one exponential draw with rate μ per second, as
    /// the analytic models of Towsley, Chen & Yu assume (μ = 45/s); it is
    /// reported as transfer time.
    Exponential {
        /// μ, services per second.
        rate_per_s: f64,
    },
}

/// A disk: geometry, mechanics and overheads, in human units.
///
/// Presets produce one ([`presets::preset`]); [`DiskModel::from_spec`] checks
/// it and builds the model.
///
/// A spec file ([`DiskSpec::from_file`]) is TOML or JSON. It is either a
/// whole spec, or names a preset and changes some of its fields, each at the
/// place it has in the spec:
///
/// ```toml
/// preset = "hp97560"
/// rpm = 5400
/// controller_overhead_ms = 0.5
///
/// [geometry]
/// cylinders = 2000
/// ```
///
/// `preset` may also name a DiskSim disk description, `preset =
/// "disksim:drive.parv"` (a path relative to the spec file), whose fields
/// the rest of the file overrides in the same way (see
/// [`from_disksim`](super::from_disksim)).
///
/// The override is merged into the preset table by table; a field the spec
/// does not have is an error that names it, never silently ignored. Changing
/// the kind of a tagged section (`seek.curve`, `rotation.mode`,
/// `transfer.mode`) replaces the whole section, since the fields of the old
/// kind mean nothing to the new one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiskSpec {
    /// Short name, for reports.
    pub name: String,
    /// Cylinders, surfaces, sectors, zones and skews.
    pub geometry: GeometrySpec,
    /// Spindle speed, revolutions per minute; needed by tracked rotation,
    /// geometric transfer and random rotation without `max_ms`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rpm: Option<f64>,
    /// Seek time as a function of distance.
    pub seek: SeekSpec,
    /// Rotational latency.
    pub rotation: RotationSpec,
    /// Data transfer time.
    pub transfer: TransferSpec,
    /// Time to switch from one surface's head to another's, ms: charged when
    /// a request starts on another surface of the arm's cylinder, and when a
    /// geometric transfer moves on to the next track of a cylinder.
    #[serde(default)]
    pub head_switch_ms: f64,
    /// Controller overhead, ms per request, spent before the arm moves. With
    /// a cache, on top of the cache's own overheads (DiskSim's per-request
    /// overhead).
    #[serde(default)]
    pub controller_overhead_ms: f64,
    /// The drive's on-board cache and the controller around it: buffer
    /// segments, read-ahead, write-back, overheads by kind of request, the
    /// host bus. Without one (the presets, and any spec that does not name
    /// it) every request goes to the media and pays
    /// `controller_overhead_ms` alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache: Option<CacheSpec>,
}

/// The text format of a spec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpecFormat {
    /// TOML.
    Toml,
    /// JSON.
    Json,
}

/// Names of the fields that tell the variants of tagged sections apart.
const TAGS: [&str; 2] = ["curve", "mode"];

/// The key of a spec file that names the preset it overrides.
const PRESET_KEY: &str = "preset";

/// A `preset` value naming a DiskSim description rather than a preset:
/// `preset = "disksim:FILE.parv"` (see [`super::from_disksim`]).
const DISKSIM_PREFIX: &str = "disksim:";

impl DiskSpec {
    /// Whether the time a seek takes depends on how far the arm moves: not
    /// on a disk of one cylinder, without seeks, or with seeks drawn at
    /// random whatever the distance (the models of Towsley, Chen & Yu). A
    /// policy ordering requests by cylinder gains nothing on such a disk.
    pub fn seek_depends_on_distance(&self) -> bool {
        self.geometry.cylinders > 1
            && matches!(
                self.seek,
                SeekSpec::SqrtLinear { .. } | SeekSpec::Table { .. }
            )
    }

    /// Whether a request's positioning time (seek and rotational latency)
    /// depends on where the arm and the platter are: the seek does
    /// ([`seek_depends_on_distance`](Self::seek_depends_on_distance)), or the
    /// rotation is tracked. A policy ordering requests by positioning time
    /// gains nothing on a disk where it does not.
    pub fn positioning_depends_on_position(&self) -> bool {
        self.seek_depends_on_distance() || matches!(self.rotation, RotationSpec::Tracked)
    }

    /// Reads a spec file: `.toml` or `.json`, a whole spec or a preset with
    /// overrides (see [`DiskSpec`]). The spec is checked as
    /// [`DiskModel::from_spec`] would.
    ///
    /// # Errors
    /// [`DiskError::Io`] and [`DiskError::UnknownFormat`] naming the file;
    /// any other error wrapped in [`DiskError::InFile`], naming the file and
    /// the field.
    pub fn from_file(path: impl AsRef<Path>) -> Result<DiskSpec, DiskError> {
        let path = path.as_ref();
        let format = match path.extension().and_then(|e| e.to_str()) {
            Some(e) if e.eq_ignore_ascii_case("toml") => SpecFormat::Toml,
            Some(e) if e.eq_ignore_ascii_case("json") => SpecFormat::Json,
            _ => {
                return Err(DiskError::UnknownFormat {
                    path: path.to_path_buf(),
                });
            }
        };
        let text = crate::text_input::read_text(path).map_err(|source| DiskError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        DiskSpec::parse_in(&text, format, path.parent()).map_err(|e| DiskError::InFile {
            path: path.to_path_buf(),
            source: Box::new(e),
        })
    }

    /// Parses spec text, as [`DiskSpec::from_file`] does for a file.
    ///
    /// # Errors
    /// [`DiskError::Syntax`] for malformed text, [`DiskError::UnknownPreset`],
    /// [`DiskError::Field`] for unknown, missing or mistyped fields, and the
    /// errors of [`DiskModel::from_spec`] for values out of their domain.
    pub fn parse(text: &str, format: SpecFormat) -> Result<DiskSpec, DiskError> {
        DiskSpec::parse_in(text, format, None)
    }

    /// [`DiskSpec::parse`], with a relative `disksim:` path in `preset`
    /// taken from `dir` (the spec file's directory) rather than the working
    /// directory.
    fn parse_in(text: &str, format: SpecFormat, dir: Option<&Path>) -> Result<DiskSpec, DiskError> {
        let syntax = |message: String| DiskError::Syntax { message };
        let value: Value = match format {
            SpecFormat::Toml => {
                let table: toml::Table = toml::from_str(text).map_err(|e| syntax(e.to_string()))?;
                // JSON has no NaN or ∞: converted, they would become nulls,
                // which read as "absent" and bring a default in.
                refuse_non_finite(&toml::Value::Table(table.clone()), "")?;
                serde_json::to_value(table).map_err(|e| syntax(e.to_string()))?
            }
            SpecFormat::Json => {
                let value: Value = serde_json::from_str(text).map_err(|e| syntax(e.to_string()))?;
                refuse_null(&value, "")?;
                value
            }
        };
        let Value::Object(mut fields) = value else {
            return Err(syntax("a spec must be a table of fields".into()));
        };
        match fields.remove(PRESET_KEY) {
            None => DiskSpec::checked(Value::Object(fields)),
            Some(Value::String(name)) => {
                let base = match name.strip_prefix(DISKSIM_PREFIX) {
                    Some(file) => super::from_disksim(dir.unwrap_or(Path::new("")).join(file))?,
                    None => presets::preset(&name)?,
                };
                base.with_overrides(&Value::Object(fields))
            }
            Some(other) => Err(DiskError::Field {
                field: PRESET_KEY.into(),
                message: format!("expected a preset name, found {other}"),
            }),
        }
    }

    /// This spec with the fields of `overrides` (a JSON object laid out like
    /// the spec) replacing its own, checked as [`DiskModel::from_spec`] would.
    ///
    /// # Errors
    /// [`DiskError::Field`] for an unknown field or a value of the wrong
    /// type, naming it; the errors of [`DiskModel::from_spec`] otherwise.
    pub fn with_overrides(&self, overrides: &Value) -> Result<DiskSpec, DiskError> {
        let mut merged = serde_json::to_value(self).map_err(|e| DiskError::Syntax {
            message: e.to_string(),
        })?;
        merge(&mut merged, overrides);
        DiskSpec::checked(merged)
    }

    /// Deserializes a spec, naming the failing field, and checks its values.
    fn checked(value: Value) -> Result<DiskSpec, DiskError> {
        let spec: DiskSpec =
            serde_path_to_error::deserialize(value).map_err(|e| DiskError::Field {
                field: e.path().to_string(),
                message: e.into_inner().to_string(),
            })?;
        DiskModel::from_spec(&spec)?;
        Ok(spec)
    }
}

/// `path` and `key` joined as a field's path (`geometry.cylinders`,
/// `zones[2]`).
fn field_path(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else if key.starts_with('[') {
        format!("{path}{key}")
    } else {
        format!("{path}.{key}")
    }
}

/// Refuses a NaN or infinite number anywhere in a TOML spec, naming its
/// field.
fn refuse_non_finite(value: &toml::Value, path: &str) -> Result<(), DiskError> {
    match value {
        toml::Value::Float(x) if !x.is_finite() => Err(DiskError::Field {
            field: path.to_string(),
            message: format!("{x} is not a finite number"),
        }),
        toml::Value::Table(table) => table
            .iter()
            .try_for_each(|(k, v)| refuse_non_finite(v, &field_path(path, k))),
        toml::Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| refuse_non_finite(v, &field_path(path, &format!("[{i}]")))),
        _ => Ok(()),
    }
}

/// Refuses a `null` anywhere in a JSON spec, naming its field: a field is
/// given a value or left out (a null would bring its default in).
fn refuse_null(value: &Value, path: &str) -> Result<(), DiskError> {
    match value {
        Value::Null => Err(DiskError::Field {
            field: path.to_string(),
            message: "null: give a value or leave the field out".to_string(),
        }),
        Value::Object(map) => map
            .iter()
            .try_for_each(|(k, v)| refuse_null(v, &field_path(path, k))),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .try_for_each(|(i, v)| refuse_null(v, &field_path(path, &format!("[{i}]")))),
        _ => Ok(()),
    }
}

/// Merges `over` into `base`: tables field by field, anything else (and a
/// tagged table whose tag changes) replaced whole.
fn merge(base: &mut Value, over: &Value) {
    match (base, over) {
        (Value::Object(base), Value::Object(over)) if !changes_tag(base, over) => {
            for (key, value) in over {
                match base.get_mut(key) {
                    Some(slot) => merge(slot, value),
                    None => {
                        base.insert(key.clone(), value.clone());
                    }
                }
            }
        }
        (base, over) => *base = over.clone(),
    }
}

fn changes_tag(base: &Map<String, Value>, over: &Map<String, Value>) -> bool {
    TAGS.iter()
        .any(|tag| matches!((base.get(*tag), over.get(*tag)), (Some(old), Some(new)) if old != new))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A scratch file ending in `name` (its extension picks the format),
    /// removed when dropped.
    fn write(name: &str, text: &str) -> tempfile::TempPath {
        let path = tempfile::Builder::new()
            .prefix("disk-emu-spec-")
            .suffix(&format!("-{name}"))
            .tempfile()
            .unwrap()
            .into_temp_path();
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn every_preset_round_trips_through_json_and_toml() {
        for (name, _) in presets::PRESETS {
            let spec = presets::preset(name).unwrap();
            let json = serde_json::to_string(&spec).unwrap();
            assert_eq!(
                DiskSpec::parse(&json, SpecFormat::Json).unwrap(),
                spec,
                "{name}"
            );
            let toml = toml::to_string(&spec).unwrap();
            assert_eq!(
                DiskSpec::parse(&toml, SpecFormat::Toml).unwrap(),
                spec,
                "{name}\n{toml}"
            );
        }
    }

    #[test]
    fn nan_and_infinity_are_refused_by_field_before_any_default() {
        for (text, field) in [
            (
                "preset = \"hp97560\"\n[geometry]\ntrack_skew = nan\n",
                "geometry.track_skew",
            ),
            ("preset = \"hp97560\"\nrpm = inf\n", "rpm"),
            (
                "preset = \"hp97560\"\nhead_switch_ms = nan\n",
                "head_switch_ms",
            ),
        ] {
            let e = DiskSpec::parse(text, SpecFormat::Toml)
                .unwrap_err()
                .to_string();
            assert!(
                e.contains(&format!("`{field}`")) && e.contains("not a finite number"),
                "{e}"
            );
        }
        let e = DiskSpec::parse(
            "{\"preset\": \"hp97560\", \"geometry\": {\"track_skew\": null}}",
            SpecFormat::Json,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`geometry.track_skew`") && e.contains("null"),
            "{e}"
        );
    }

    #[test]
    fn a_geometry_far_past_real_drives_is_refused_before_it_allocates() {
        let e = DiskSpec::parse(
            "preset = \"hp97560\"\n[geometry]\ncylinders = 400000000\n",
            SpecFormat::Toml,
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("`geometry.cylinders` = 400000000: at most 1000000"),
            "{e}"
        );
    }

    #[test]
    fn a_toml_override_changes_the_fields_it_names_and_nothing_else() {
        let path = write(
            "faster.toml",
            "preset = \"hp97560\"\nrpm = 5400\ncontroller_overhead_ms = 0.5\n\n[seek.long]\nb_ms = 0.006\n",
        );
        let spec = DiskSpec::from_file(&path).unwrap();
        let mut expected = presets::hp97560();
        expected.rpm = Some(5400.0);
        expected.controller_overhead_ms = 0.5;
        let SeekSpec::SqrtLinear {
            long: Some(long), ..
        } = &mut expected.seek
        else {
            unreachable!()
        };
        long.b_ms = 0.006;
        assert_eq!(spec, expected);
        let model = DiskModel::from_spec(&spec).unwrap();
        assert_eq!(model.revolution(), Some(11_111_111));
        assert_eq!(model.overhead(), 500_000);
    }

    #[test]
    fn a_json_override_may_switch_a_section_to_another_kind() {
        let path = write(
            "table.json",
            r#"{ "preset": "chen-towsley-91", "seek": { "curve": "table", "points": [[1, 3.0], [999, 20.0]] } }"#,
        );
        let spec = DiskSpec::from_file(&path).unwrap();
        assert_eq!(
            spec.seek,
            SeekSpec::Table {
                points: vec![(1, 3.0), (999, 20.0)]
            }
        );
        assert_eq!(spec.geometry, presets::chen_towsley_91().geometry);
    }

    #[test]
    fn an_unknown_field_is_an_error_naming_the_file_and_the_field() {
        let path = write("typo.toml", "preset = \"hp97560\"\nrmp = 5400\n");
        let err = DiskSpec::from_file(&path).unwrap_err();
        let DiskError::InFile { path: file, source } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(file.as_path(), &*path);
        assert!(matches!(**source, DiskError::Field { .. }), "{source:?}");
        let message = err.to_string();
        assert!(
            message.starts_with(&path.display().to_string()),
            "{message}"
        );
        assert!(message.contains("unknown field `rmp`"), "{message}");

        let nested = write(
            "nested.toml",
            "preset = \"hp97560\"\n[geometry]\ncylinder = 10\n",
        );
        let message = DiskSpec::from_file(&nested).unwrap_err().to_string();
        assert!(message.contains("field `geometry"), "{message}");
        assert!(message.contains("unknown field `cylinder`"), "{message}");
    }

    #[test]
    fn a_bad_value_is_an_error_naming_the_field() {
        let mistyped = write(
            "mistyped.toml",
            "preset = \"hp97560\"\n[geometry]\ncylinders = \"many\"\n",
        );
        let message = DiskSpec::from_file(&mistyped).unwrap_err().to_string();
        assert!(message.contains("field `geometry.cylinders`"), "{message}");
        assert!(message.contains("invalid type"), "{message}");

        let negative = write("negative.json", r#"{ "preset": "hp97560", "rpm": -5 }"#);
        let err = DiskSpec::from_file(&negative).unwrap_err();
        assert!(
            matches!(&err, DiskError::InFile { source, .. }
                if matches!(&**source, DiskError::InvalidParameter { field, .. } if field == "rpm")),
            "{err:?}"
        );
        assert!(
            err.to_string()
                .ends_with("`rpm` = -5: a positive, finite number of revolutions per minute")
        );

        let zero = write(
            "zero.toml",
            "preset = \"ibm3330\"\n[geometry]\ncylinders = 0\n",
        );
        let err = DiskSpec::from_file(&zero).unwrap_err();
        assert!(
            err.to_string()
                .ends_with("`geometry.cylinders` is 0: a disk needs at least one"),
            "{err}"
        );

        let p_s = write(
            "p_s.toml",
            "preset = \"ibm3330\"\n[seek]\nsequential_probability = 2\n",
        );
        let message = DiskSpec::from_file(&p_s).unwrap_err().to_string();
        assert!(
            message.contains("`seek.sequential_probability` = 2"),
            "{message}"
        );
    }

    #[test]
    fn malformed_files_unknown_presets_and_formats_are_refused() {
        let broken = write("broken.toml", "preset = \"hp97560\"\nrpm = \n");
        let err = DiskSpec::from_file(&broken).unwrap_err();
        assert!(
            matches!(&err, DiskError::InFile { source, .. } if matches!(**source, DiskError::Syntax { .. })),
            "{err:?}"
        );
        let unknown = write("unknown.json", r#"{ "preset": "hp9999" }"#);
        let message = DiskSpec::from_file(&unknown).unwrap_err().to_string();
        assert!(
            message.contains("unknown disk preset `hp9999`"),
            "{message}"
        );
        assert!(message.contains("hp97560"), "{message}");
        let yaml = write("disk.yaml", "preset: hp97560\n");
        assert!(matches!(
            DiskSpec::from_file(&yaml),
            Err(DiskError::UnknownFormat { .. })
        ));
        let missing = std::env::temp_dir().join("disk-emu-no-such-spec.toml");
        assert!(matches!(
            DiskSpec::from_file(&missing),
            Err(DiskError::Io { .. })
        ));
    }

    #[test]
    fn a_whole_spec_needs_every_required_field() {
        let message = DiskSpec::parse("name = \"x\"\n", SpecFormat::Toml)
            .unwrap_err()
            .to_string();
        assert!(message.contains("missing field `geometry`"), "{message}");
        let spec = DiskSpec::parse(
            r#"
            name = "tiny"
            rpm = 6000
            head_switch_ms = 1.0
            geometry = { cylinders = 100, surfaces = 2, sectors_per_track = 50, track_skew = 5 }
            seek = { curve = "sqrt-linear", a_ms = 1.0, b_ms = 0.1 }
            rotation = { mode = "tracked" }
            transfer = { mode = "geometry" }
            "#,
            SpecFormat::Toml,
        )
        .unwrap();
        assert_eq!(spec.geometry.sector_bytes, 512);
        assert_eq!(spec.controller_overhead_ms, 0.0);
        assert_eq!(
            DiskModel::from_spec(&spec).unwrap().capacity_blocks(),
            10_000
        );
    }

    #[test]
    fn with_overrides_merges_tables_and_replaces_retagged_sections() {
        let base = presets::hp97560();
        let spec = base
            .with_overrides(
                &json!({ "geometry": { "track_skew": 9 }, "rotation": { "mode": "random" } }),
            )
            .unwrap();
        assert_eq!(spec.geometry.track_skew, 9);
        assert_eq!(spec.geometry.cylinders, 1962);
        assert_eq!(spec.rotation, RotationSpec::Random { max_ms: None });
        let err = base
            .with_overrides(&json!({ "rotation": { "mode": "random", "max": 3 } }))
            .unwrap_err();
        assert!(err.to_string().contains("unknown field `max`"), "{err}");
    }
}
