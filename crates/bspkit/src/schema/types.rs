//! The field schema of a record struct: each field's name, byte offset and type, declared
//! once beside the struct by the family's `record!` macro (offsets from `core::mem::offset_of!`,
//! types from [`FieldType`]), so the description can never drift from the `#[repr(C)]` layout
//! the library reads. Bindings use it to name fields (`bspkit` for Python: record objects and
//! NumPy structured dtypes) without a second copy of any layout.
//!
//! This module is the bottom layer: record modules implement [`Record`] with it; the lookup
//! from a branch's lump to its schema is [`crate::schema::lump_schema`].

use std::marker::PhantomData;

use zerocopy::byteorder::{ByteOrder, Order, F32, F64, I16, I32, I64, U16, U32, U64};

/// A primitive stored value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    U8,
    I8,
    U16,
    I16,
    U32,
    I32,
    U64,
    I64,
    F32,
    F64,
}

impl Scalar {
    pub const fn size(self) -> usize {
        match self {
            Scalar::U8 | Scalar::I8 => 1,
            Scalar::U16 | Scalar::I16 => 2,
            Scalar::U32 | Scalar::I32 | Scalar::F32 => 4,
            Scalar::U64 | Scalar::I64 | Scalar::F64 => 8,
        }
    }
    /// NumPy's type code without byte order (`u1`, `i4`, `f4`, …).
    pub const fn code(self) -> &'static str {
        match self {
            Scalar::U8 => "u1",
            Scalar::I8 => "i1",
            Scalar::U16 => "u2",
            Scalar::I16 => "i2",
            Scalar::U32 => "u4",
            Scalar::I32 => "i4",
            Scalar::U64 => "u8",
            Scalar::I64 => "i8",
            Scalar::F32 => "f4",
            Scalar::F64 => "f8",
        }
    }
}

/// What one element of a field is.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A number stored in this byte order.
    Scalar { scalar: Scalar, big_endian: bool },
    /// A nested record (e.g. a later version's struct that starts with the earlier one).
    Record(&'static RecordSchema),
}

/// Most array dimensions a field may have (`[[F32; 4]; 2]` has two).
pub const MAX_DIMS: usize = 3;

/// A field's type: an element kind and array dimensions (outermost first; none for a single value).
#[derive(Debug, Clone, Copy)]
pub struct Type {
    pub kind: Kind,
    pub dims: [usize; MAX_DIMS],
    pub ndim: usize,
}

impl Type {
    pub const fn scalar(scalar: Scalar, big_endian: bool) -> Type {
        Type { kind: Kind::Scalar { scalar, big_endian }, dims: [0; MAX_DIMS], ndim: 0 }
    }
    /// Elements in the field (1 for a single value).
    pub const fn count(&self) -> usize {
        let mut n = 1;
        let mut i = 0;
        while i < self.ndim {
            n *= self.dims[i];
            i += 1;
        }
        n
    }
    /// Size of one element.
    pub const fn element_size(&self) -> usize {
        match self.kind {
            Kind::Scalar { scalar, .. } => scalar.size(),
            Kind::Record(r) => r.size,
        }
    }
    /// Bytes the field takes.
    pub const fn size(&self) -> usize {
        self.count() * self.element_size()
    }
    /// The array dimensions, outermost first.
    pub fn shape(&self) -> &[usize] {
        &self.dims[..self.ndim]
    }
}

/// One named field of a record.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    pub name: &'static str,
    /// Byte offset in the record.
    pub offset: usize,
    pub ty: Type,
}

/// The fields of one record struct, in declaration (= offset) order.
#[derive(Debug)]
pub struct RecordSchema {
    /// The Rust struct's name (`Plane`, `Face29`, …); `value` for a lump of plain values.
    pub name: &'static str,
    pub size: usize,
    pub fields: &'static [Field],
    /// A lump of plain values (surfedges, mark surfaces, indices): one unnamed field.
    pub plain: bool,
}

impl RecordSchema {
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// A type that can be a record field.
pub trait FieldType {
    const TYPE: Type;
}

/// A record struct with a schema.
pub trait Record {
    const SCHEMA: RecordSchema;
    /// The schema as a `'static` reference (also for generic records).
    fn schema() -> &'static RecordSchema {
        const { &Self::SCHEMA }
    }
}

impl FieldType for u8 {
    const TYPE: Type = Type::scalar(Scalar::U8, false);
}
impl FieldType for i8 {
    const TYPE: Type = Type::scalar(Scalar::I8, false);
}

const fn is_big<O: ByteOrder>() -> bool {
    matches!(O::ORDER, Order::BigEndian)
}

macro_rules! ordered {
    ($($t:ident => $s:ident),*) => {$(
        impl<O: ByteOrder> FieldType for $t<O> {
            const TYPE: Type = Type::scalar(Scalar::$s, is_big::<O>());
        }
    )*};
}
ordered!(U16 => U16, I16 => I16, U32 => U32, I32 => I32, U64 => U64, I64 => I64, F32 => F32, F64 => F64);

impl<T: FieldType, const N: usize> FieldType for [T; N] {
    const TYPE: Type = {
        let inner = T::TYPE;
        assert!(inner.ndim < MAX_DIMS, "record field has too many array dimensions");
        let mut dims = [0; MAX_DIMS];
        dims[0] = N;
        let mut i = 0;
        while i < inner.ndim {
            dims[i + 1] = inner.dims[i];
            i += 1;
        }
        Type { kind: inner.kind, dims, ndim: inner.ndim + 1 }
    };
}

/// A lump of plain values of type `T` (`Value<I32<LE>>` for surfedges).
pub struct Value<T>(PhantomData<T>);

impl<T: FieldType> Record for Value<T> {
    const SCHEMA: RecordSchema =
        RecordSchema { name: "value", size: T::TYPE.size(), fields: &[Field { name: "value", offset: 0, ty: T::TYPE }], plain: true };
}

/// The schema of `T` (shorthand for lump tables).
pub fn of<T: Record>() -> Option<&'static RecordSchema> {
    Some(T::schema())
}

/// Implement [`Record`] and [`FieldType`] for a struct from its field list (used by the
/// families' `record!` macros; generic structs give their parameters first:
/// `impl_record!([O: ByteOrder] Plane<O> { normal: Vec3<O>, dist: F32<O> })`).
macro_rules! impl_record {
    ([$($g:tt)*] $name:ident $(<$($p:ident),*>)? { $($f:ident : $t:ty),* $(,)? }) => {
        impl<$($g)*> $crate::schema::types::Record for $name $(<$($p),*>)? {
            const SCHEMA: $crate::schema::types::RecordSchema = $crate::schema::types::RecordSchema {
                name: stringify!($name),
                size: ::core::mem::size_of::<Self>(),
                fields: &[$($crate::schema::types::Field {
                    name: stringify!($f),
                    offset: ::core::mem::offset_of!(Self, $f),
                    ty: <$t as $crate::schema::types::FieldType>::TYPE,
                }),*],
                plain: false,
            };
        }
        impl<$($g)*> $crate::schema::types::FieldType for $name $(<$($p),*>)? {
            const TYPE: $crate::schema::types::Type = $crate::schema::types::Type {
                kind: $crate::schema::types::Kind::Record(const { &<Self as $crate::schema::types::Record>::SCHEMA }),
                dims: [0; $crate::schema::types::MAX_DIMS],
                ndim: 0,
            };
        }
    };
}
pub(crate) use impl_record;

/// Declare record structs once: each becomes a `#[repr(C)]` struct with the zero-copy derives
/// (`FromBytes`, `IntoBytes`, `Immutable`, `KnownLayout`, `Unaligned`) and its [`Record`] /
/// [`FieldType`] schema, both from the one field list, so a layout and its description cannot
/// drift and no field is written twice. Fields must be unaligned types (`u8`, `i8`,
/// zerocopy's byte-order types, arrays and other declared records); padding the C compiler
/// adds is spelled out as a byte-array field.
///
/// ```ignore
/// declare_record! {
///     /// `dsideequation_t`, 32 bytes.
///     pub struct SideEquation { pub s: [F32<LE>; 4], pub t: [F32<LE>; 4] }
/// }
/// ```
///
/// A struct generic over the file's byte order names its one parameter and bound (the bound in
/// scope at the call): `pub struct Plane<O: ByteOrder> { pub normal: [F32<O>; 3], … }`, with an
/// optional default (`<O: ByteOrder = LE>`, Respawn: `Plane` alone is the PC layout).
macro_rules! declare_record {
    ($($(#[$m:meta])* pub struct $name:ident $(<$p:ident : $b:ident $(= $d:ty)?>)? { $($(#[$fm:meta])* pub $f:ident : $t:ty),* $(,)? })+) => {$(
        $(#[$m])*
        #[repr(C)]
        #[derive(
            ::zerocopy::FromBytes, ::zerocopy::IntoBytes, ::zerocopy::Immutable, ::zerocopy::KnownLayout, ::zerocopy::Unaligned,
            Clone, Copy, Debug,
        )]
        pub struct $name $(<$p: $b $(= $d)?>)? { $($(#[$fm])* pub $f: $t,)* }
        $crate::schema::types::impl_record!([$($p: $b)?] $name $(<$p>)? { $($f: $t),* });
    )+};
}
pub(crate) use declare_record;
