/**
 * A spec prepared for validation: patterns compiled, allowed values in sets, fields by payout
 * method. Kept per spec object (WeakMap), so a caller that holds its specs in memory pays this
 * once, not on every dry run.
 */
import { UPPER_FORMATS } from "./requirements.formats.js";
import type { AlternativeSpec, DocumentSpec, FieldSpec, RequirementSpec } from "./requirements.spec.js";

export type CompiledField = { spec: FieldSpec; pattern?: RegExp; allowed?: ReadonlySet<string>; upper: boolean };
export type CompiledAlternative = { spec: AlternativeSpec; fields: CompiledField[]; keys: ReadonlySet<string> };
export type CompiledSpec = {
  sender: CompiledField[];
  senderKeys: ReadonlySet<string>;
  /** common fields first, then the method's own */
  alternatives: CompiledAlternative[];
  byMethod: ReadonlyMap<string, CompiledAlternative>;
  /** which payout method a beneficiary key belongs to, for messages */
  methodOfKey: ReadonlyMap<string, string>;
  purposes: ReadonlySet<string>;
  documents: ReadonlyMap<string, DocumentSpec>;
};

const cache = new WeakMap<RequirementSpec, CompiledSpec>();

const field = (spec: FieldSpec): CompiledField => ({
  spec,
  pattern: spec.pattern === undefined ? undefined : new RegExp(spec.pattern, "u"),
  allowed: spec.enum && new Set(spec.enum.map((e) => e.value)),
  upper: spec.upper === true || (spec.format !== undefined && UPPER_FORMATS.has(spec.format)),
});

export function compiled(spec: RequirementSpec): CompiledSpec {
  const hit = cache.get(spec);
  if (hit) return hit;
  const common = spec.beneficiary.fields.map(field);
  const alternatives = spec.beneficiary.alternatives.map((alt) => {
    const fields = [...common, ...alt.fields.map(field)];
    return { spec: alt, fields, keys: new Set(fields.map((f) => f.spec.key)) };
  });
  const methodOfKey = new Map<string, string>();
  for (const alt of spec.beneficiary.alternatives) for (const f of alt.fields) if (!methodOfKey.has(f.key)) methodOfKey.set(f.key, alt.payout_method);
  const out: CompiledSpec = {
    sender: spec.sender.fields.map(field),
    senderKeys: new Set(spec.sender.fields.map((f) => f.key)),
    alternatives,
    byMethod: new Map(alternatives.map((a) => [a.spec.payout_method, a])),
    methodOfKey,
    purposes: new Set(spec.purposes.codes.map((c) => c.code)),
    documents: new Map(spec.documents.map((d) => [d.key, d])),
  };
  cache.set(spec, out);
  return out;
}
