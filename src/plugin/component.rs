//! One streaming pass over a plugin's bytes with `wasmparser`'s validator: the binary is parsed
//! and validated in place (no copy, no engine, nothing executed; function bodies are validated
//! as they come), and what the checks need is noted on the way: whether it is a component at
//! all, the first error with its byte offset, the top-level imports and exports, the
//! `primgraph:contract` sections at any depth (borrowed, never copied), and, from the
//! validator's type information at the end, the functions each imported instance declares and
//! whether `invoke` has the world's type.
//!
//! Bounds: nesting deeper than [`super::MAX_NESTING`] stops the pass (the validator bounds the
//! number of modules and components, types and functions itself); the memory used is the
//! validator's type tables, not the size of the bytes.

use super::world::{self, Shape};
use wasmparser::component_types::{ComponentDefinedType, ComponentEntityType, ComponentValType};
use wasmparser::types::Types;
use wasmparser::{
    ComponentExternalKind, ComponentTypeRef, Encoding, FuncValidatorAllocations, Parser, Payload,
    PrimitiveValType, ValidPayload, Validator, WasmFeatures,
};

/// What the bytes are, as far as the header tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryKind {
    /// Not WebAssembly, or cut before the header's end.
    NotWasm,
    /// A core module (SPEC §9.7 wants a component).
    CoreModule,
    Component,
}

/// Why the pass stopped early: the first error, located.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadFailure {
    pub message: String,
    /// Byte offset in the plugin.
    pub offset: u64,
}

/// One top-level import.
#[derive(Debug, Clone)]
pub struct Import {
    /// The full name (`primgraph:primitive/network@1.0.0`).
    pub name: String,
    pub offset: u64,
    /// Whether it imports an instance (an interface), as the world's imports all do.
    pub is_instance: bool,
    /// Whether it imports a type: the world's own records (`step`, `failure`, …) are imported
    /// so by the component model's standard encoding of a world (`wit-component` does it).
    pub is_type: bool,
    /// For an instance: the names of the functions its type declares (from the validator).
    pub functions: Vec<String>,
}

/// One top-level export.
#[derive(Debug, Clone)]
pub struct Export {
    pub name: String,
    pub offset: u64,
    pub kind: ComponentExternalKind,
}

/// One `primgraph:contract` custom section: its bytes, borrowed from the plugin.
#[derive(Debug, Clone, Copy)]
pub struct ContractSection<'a> {
    pub data: &'a [u8],
    /// Offset of `data` in the plugin.
    pub offset: u64,
    /// 0 at the component's top level, 1 in a module or component nested in it, …
    pub depth: usize,
}

/// Everything the checks read of one plugin.
#[derive(Debug, Clone)]
pub struct ComponentRead<'a> {
    pub kind: BinaryKind,
    /// Set when the bytes are not a valid component (or nest too deep): nothing below is
    /// complete then.
    pub failure: Option<ReadFailure>,
    pub imports: Vec<Import>,
    pub exports: Vec<Export>,
    pub contracts: Vec<ContractSection<'a>>,
    /// `invoke`'s type against the world's: `None` when it matches or there is no `invoke`
    /// function; else what was found.
    pub invoke_mismatch: Option<String>,
}

/// Read `bytes` as a component, in one pass.
pub fn read(bytes: &[u8]) -> ComponentRead<'_> {
    let mut read = ComponentRead {
        kind: BinaryKind::NotWasm,
        failure: None,
        imports: Vec::new(),
        exports: Vec::new(),
        contracts: Vec::new(),
        invoke_mismatch: None,
    };
    if !bytes.starts_with(b"\0asm") || bytes.len() < 8 {
        read.failure = Some(ReadFailure {
            message: "not a WebAssembly binary (it does not start with the 8-byte `\\0asm` header)"
                .into(),
            offset: 0,
        });
        return read;
    }
    let features = WasmFeatures::default();
    let mut validator = Validator::new_with_features(features);
    let mut allocations = FuncValidatorAllocations::default();
    let mut depth = 0usize;
    let mut parser = Parser::new(0);
    parser.set_features(features);
    let fail = |read: &mut ComponentRead, message: String, offset: u64| {
        read.failure = Some(ReadFailure { message, offset });
    };
    for payload in parser.parse_all(bytes) {
        let payload = match payload {
            Ok(payload) => payload,
            Err(e) => {
                fail(&mut read, e.message().to_string(), e.offset());
                break;
            }
        };
        let at_top_end = matches!(payload, Payload::End(_)) && depth == 0;
        match &payload {
            Payload::Version { encoding, .. } if depth == 0 => {
                read.kind = match encoding {
                    Encoding::Module => BinaryKind::CoreModule,
                    Encoding::Component => BinaryKind::Component,
                };
                if read.kind == BinaryKind::CoreModule {
                    return read;
                }
            }
            Payload::ModuleSection {
                unchecked_range, ..
            }
            | Payload::ComponentSection {
                unchecked_range, ..
            } => {
                depth += 1;
                if depth > super::MAX_NESTING {
                    fail(
                        &mut read,
                        format!(
                            "modules and components nested deeper than {} levels",
                            super::MAX_NESTING
                        ),
                        unchecked_range.start,
                    );
                    break;
                }
            }
            Payload::ComponentImportSection(section) if depth == 0 => {
                for import in section.clone().into_iter_with_offsets() {
                    let Ok((offset, import)) = import else {
                        break; // the validator reports it, located
                    };
                    read.imports.push(Import {
                        name: import.name.full_name().into_owned(),
                        offset,
                        is_instance: matches!(import.ty, ComponentTypeRef::Instance(_)),
                        is_type: matches!(import.ty, ComponentTypeRef::Type(_)),
                        functions: Vec::new(),
                    });
                }
            }
            Payload::ComponentExportSection(section) if depth == 0 => {
                for export in section.clone().into_iter_with_offsets() {
                    let Ok((offset, export)) = export else {
                        break;
                    };
                    read.exports.push(Export {
                        name: export.name.full_name().into_owned(),
                        offset,
                        kind: export.kind,
                    });
                }
            }
            Payload::CustomSection(section) if section.name() == super::CONTRACT_SECTION => {
                read.contracts.push(ContractSection {
                    data: section.data(),
                    offset: section.data_offset(),
                    depth,
                });
            }
            Payload::End(_) => depth = depth.saturating_sub(1),
            _ => {}
        }
        match validator.payload(&payload) {
            Ok(ValidPayload::Func(func, body)) => {
                let mut func = func.into_validator(allocations);
                let result = func.validate(&body);
                allocations = func.into_allocations();
                if let Err(e) = result {
                    fail(&mut read, e.message().to_string(), e.offset());
                    break;
                }
            }
            Ok(ValidPayload::End(types)) if at_top_end => {
                note_types(&mut read, &types);
            }
            Ok(_) => {}
            Err(e) => {
                fail(&mut read, e.message().to_string(), e.offset());
                break;
            }
        }
    }
    if read.failure.is_some() {
        read.imports.clear();
        read.exports.clear();
    }
    read
}

/// From the validator's type information of the whole component: the functions of each
/// imported instance, and `invoke`'s type against the world's.
fn note_types(read: &mut ComponentRead, types: &Types) {
    for import in &mut read.imports {
        let Some(item) = types.component_item_for_import(&import.name) else {
            continue;
        };
        if let ComponentEntityType::Instance(id) = item.ty {
            import.functions = types[id]
                .exports
                .iter()
                .filter(|(_, item)| matches!(item.ty, ComponentEntityType::Func(_)))
                .map(|(name, _)| name.clone())
                .collect();
        }
    }
    let Some(item) = types.component_item_for_export(world::INVOKE) else {
        return;
    };
    let ComponentEntityType::Func(id) = item.ty else {
        return;
    };
    let func = &types[id];
    let params_match = func.params.len() == world::INVOKE_PARAMS.len()
        && func
            .params
            .iter()
            .zip(world::INVOKE_PARAMS)
            .all(|((name, ty), (want, shape))| {
                name.as_str() == *want && fits(types, *ty, shape, 0)
            });
    let result_matches = func
        .result
        .is_some_and(|ty| fits(types, ty, &world::INVOKE_RESULT, 0));
    if !(params_match && result_matches && !func.async_) {
        let params: Vec<String> = func
            .params
            .iter()
            .map(|(name, ty)| format!("{name}: {}", describe(types, *ty, 0)))
            .collect();
        let result = func
            .result
            .map(|ty| format!(" -> {}", describe(types, ty, 0)))
            .unwrap_or_default();
        let asynchronous = if func.async_ { "async " } else { "" };
        read.invoke_mismatch = Some(format!("{asynchronous}func({}){result}", params.join(", ")));
    }
}

/// How deep a type is compared or described (the world's deepest is 4).
const TYPE_DEPTH: usize = 8;

/// Whether the component type `ty` is the world's `shape` (records field by field, in order).
fn fits(types: &Types, ty: ComponentValType, shape: &Shape, depth: usize) -> bool {
    if depth > TYPE_DEPTH {
        return false;
    }
    let defined = match ty {
        ComponentValType::Primitive(p) => return primitive_fits(p, shape),
        ComponentValType::Type(id) => &types[id],
    };
    match (defined, shape) {
        (ComponentDefinedType::Primitive(p), _) => primitive_fits(*p, shape),
        (ComponentDefinedType::Option { ty, .. }, Shape::Option(inner)) => {
            fits(types, *ty, inner, depth + 1)
        }
        (ComponentDefinedType::List { element, .. }, Shape::List(inner)) => {
            fits(types, *element, inner, depth + 1)
        }
        (ComponentDefinedType::Record(record), Shape::Record(fields)) => {
            record.fields.len() == fields.len()
                && record
                    .fields
                    .iter()
                    .zip(fields.iter())
                    .all(|((name, ty), (want, shape))| {
                        name.as_str() == *want && fits(types, *ty, shape, depth + 1)
                    })
        }
        (
            ComponentDefinedType::Result {
                ok: Some(ok),
                err: Some(err),
                ..
            },
            Shape::Result {
                ok: want_ok,
                err: want_err,
            },
        ) => fits(types, *ok, want_ok, depth + 1) && fits(types, *err, want_err, depth + 1),
        _ => false,
    }
}

fn primitive_fits(p: PrimitiveValType, shape: &Shape) -> bool {
    matches!(
        (p, shape),
        (PrimitiveValType::String, Shape::String)
            | (PrimitiveValType::U64, Shape::U64)
            | (PrimitiveValType::F64, Shape::F64)
    )
}

/// A component value type in WIT-like text, for messages (bounded in depth).
fn describe(types: &Types, ty: ComponentValType, depth: usize) -> String {
    if depth > TYPE_DEPTH {
        return "…".into();
    }
    let defined = match ty {
        ComponentValType::Primitive(p) => return primitive_name(p),
        ComponentValType::Type(id) => &types[id],
    };
    let inner = |ty: Option<ComponentValType>| match ty {
        Some(ty) => describe(types, ty, depth + 1),
        None => "_".into(),
    };
    match defined {
        ComponentDefinedType::Primitive(p) => primitive_name(*p),
        ComponentDefinedType::Option { ty, .. } => format!("option<{}>", inner(Some(*ty))),
        ComponentDefinedType::List { element, .. } => format!("list<{}>", inner(Some(*element))),
        ComponentDefinedType::Record(record) => {
            let fields: Vec<String> = record
                .fields
                .iter()
                .map(|(name, ty)| format!("{name}: {}", inner(Some(*ty))))
                .collect();
            format!("record {{ {} }}", fields.join(", "))
        }
        ComponentDefinedType::Result { ok, err, .. } => {
            format!("result<{}, {}>", inner(*ok), inner(*err))
        }
        ComponentDefinedType::Tuple(_) => "tuple<…>".into(),
        ComponentDefinedType::Variant(_) => "variant { … }".into(),
        ComponentDefinedType::Enum(_) => "enum { … }".into(),
        ComponentDefinedType::Flags(_) => "flags { … }".into(),
        _ => "a type the world does not use".into(),
    }
}

fn primitive_name(p: PrimitiveValType) -> String {
    format!("{p:?}").to_lowercase()
}
