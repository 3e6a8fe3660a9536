/**
 * Pothos prisma's query for a field, planned once per field of a document instead of once per
 * request. `queryFromInfo` walks the field's selection and plays the merges it collected on every
 * call: a visible share of a by-id read's CPU, most of it allocations. The plan depends
 * only on the selection under the field, which a parsed document never changes, so it is made for
 * the first request and replayed for the next: each request still records the plan's loader
 * mappings on its own context (the nested `select` fields and relations look themselves up there)
 * and gets the plan's query, frozen, since every request shares it.
 *
 * Planned every time instead (Pothos's own `queryFromInfo`): a selection that reads a variable
 * (`@include(if: $x)`, `documents(first: $n)`), a field named twice in one selection, and a plan
 * that waits on a select function's promise. A select function runs once per plan, so one that
 * read the caller's context would be planned for the first caller only: none reads it (the two in
 * remittance.schema.ts take neither arguments nor context).
 */
import { createRequire } from "node:module";
import { queryFromInfo } from "@pothos/plugin-prisma";
import { Plan, setLoaderMappings } from "@pothos/selection-mapper";
import {
  getNamedType,
  GraphQLObjectType,
  Kind,
  visit,
  type ASTNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from "graphql";

type Adapter = Parameters<typeof Plan.fromInfo>[0];
type Mappings = Parameters<typeof setLoaderMappings>[2];
type Planned = { query: object; mappings: Mappings } | null;

// the adapter `queryFromInfo` plans with: plugin-prisma does not export it, so it is read from the
// very module its own entry point imports (a second copy would be a different adapter)
const pluginEntry = createRequire(import.meta.url).resolve("@pothos/plugin-prisma");
const { prismaAdapter } = (await import(new URL("../esm/util/adapter.js", `file://${pluginEntry}`).href)) as { prismaAdapter: Adapter };

const plans = new WeakMap<FieldNode, Planned>();

/**
 * Field extensions for a field computed from columns of its own row, on a type in include mode
 * (every column loaded): `extensions: ownColumns({ billingAddress: true })`. Pothos's `select`
 * would say the same, but it wraps the resolver to look up, on every resolution, which plan loaded
 * the row (a cost per field and row that showed in a REST user read); the columns are always
 * there, and `narrowed` reads them from here to keep them when it trims a page to what it shows.
 */
export const ownColumns = (columns: Record<string, true>) => ({ ownColumns: columns });

export type PlanOptions = {
  path?: string[];
  typeName?: string;
  /**
   * Read only the columns the selection shows (see `narrowed`): for a list whose service hands the
   * query to Prisma as it is and reads nothing else off the rows
   */
  narrow?: boolean;
};

/** The query `queryFromInfo({ context, info, ...options })` gives, from a plan made once per field node. */
export function plannedQuery(context: object, info: GraphQLResolveInfo, options: PlanOptions = {}): object {
  const node = info.fieldNodes[0];
  let planned = plans.get(node);
  if (planned === undefined) {
    planned = planOnce(context, info, options);
    plans.set(node, planned);
  }
  if (!planned) return queryFromInfo({ context, info, path: options.path, typeName: options.typeName });
  setLoaderMappings(context, info, planned.mappings);
  return planned.query;
}

function planOnce(context: object, info: GraphQLResolveInfo, { path, typeName, narrow }: PlanOptions): Planned {
  if (info.fieldNodes.length !== 1 || readsVariables(info.fieldNodes[0], info.fragments)) return null;
  const plan = Plan.fromInfo(prismaAdapter, { context, info, typeName, path, skipDeferredFragments: true });
  // a plan that waits on a select function's promise is not replayed
  if (!plan || !(plan instanceof Plan)) return null;
  const { root, mappings } = plan.play(); // what the seedless `plan.query()` of queryFromInfo plays
  let query = prismaAdapter.toQuery(root) as Query;
  if (narrow) {
    const set = selectionAt(info.fieldNodes[0].selectionSet, path ?? []);
    const type = info.schema.getType(typeName ?? getNamedType(info.returnType).name);
    query = (set && type instanceof GraphQLObjectType && narrowed(query, type, set, info.fragments)) || query;
  }
  return { query: deepFreeze(query), mappings };
}

type Query = { select?: Record<string, unknown>; include?: Record<string, unknown>; [arg: string]: unknown };

/** The one selection set at `path` below a field (`edges.node` of a connection), or null when there is not exactly one. */
function selectionAt(set: SelectionSetNode | undefined, path: string[]): SelectionSetNode | null {
  for (const name of path) {
    if (!set || set.selections.some((s) => s.kind !== Kind.FIELD)) return null;
    const found = set.selections.filter((s) => (s as FieldNode).name.value === name) as FieldNode[];
    if (found.length !== 1) return null;
    set = found[0].selectionSet;
  }
  return set ?? null;
}

/**
 * Pothos's query for a type without a type-level select reads every column of every row (Prisma's
 * include mode): a page of 100 users with their documents and checks fetched and mapped ~50
 * columns a row to answer four fields (Prisma was a quarter of the list's CPU, mapping rows).
 * When every field the selection shows is an exposed column, `ownColumns`, a column-only `select` or a relation
 * the plan loaded, the query becomes a `select` of those columns (and `id`), relation by relation.
 * Anything else (a resolver that may read any column, a fragment on another type, a relation the
 * plan left to its own loader) keeps Pothos's query as it is.
 */
function narrowed(query: Query, type: GraphQLObjectType, set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>): Query | null {
  if (query.select) return query;
  const fields = fieldsOf(type, set, fragments);
  if (!fields) return null;
  const include = query.include ?? {};
  const select: Record<string, unknown> = { id: true };
  for (const [name, nodes] of fields) {
    if (name === "__typename") continue;
    const field = type.getFields()[name];
    const ext = (field?.extensions ?? {}) as {
      pothosExposedField?: string;
      pothosPrismaRelationField?: { name: string };
      pothosPrismaSelect?: unknown;
      ownColumns?: Record<string, true>;
    };
    if (ext.pothosPrismaRelationField) {
      const relation = ext.pothosPrismaRelationField.name; // the model's relation (Prisma's field)
      const inner = getNamedType(field.type);
      if (!(relation in include) || nodes.length !== 1 || !nodes[0].selectionSet || !(inner instanceof GraphQLObjectType)) return null;
      const loaded = include[relation] === true ? {} : (include[relation] as Query);
      const sub = narrowed(loaded, inner, nodes[0].selectionSet, fragments);
      if (!sub) return null;
      select[relation] = sub;
    } else if (typeof ext.pothosExposedField === "string") {
      select[ext.pothosExposedField] = true;
    } else if (ext.ownColumns) {
      Object.assign(select, ext.ownColumns);
    } else if (ext.pothosPrismaSelect && typeof ext.pothosPrismaSelect === "object" && Object.values(ext.pothosPrismaSelect).every((v) => v === true)) {
      Object.assign(select, ext.pothosPrismaSelect);
    } else return null;
  }
  // a relation Pothos merged in for a field this walk did not account for keeps the whole query
  if (Object.keys(include).some((relation) => !(relation in select))) return null;
  const { include: _all, ...args } = query;
  return { ...args, select };
}

/** The fields selected on `type` (through fragments on the same type), or null when a fragment is on another. */
function fieldsOf(type: GraphQLObjectType, set: SelectionSetNode, fragments: Record<string, FragmentDefinitionNode>): Map<string, FieldNode[]> | null {
  const fields = new Map<string, FieldNode[]>();
  const walk = (inner: SelectionSetNode): boolean =>
    inner.selections.every((s) => {
      if (s.kind === Kind.FIELD) {
        fields.set(s.name.value, [...(fields.get(s.name.value) ?? []), s]);
        return true;
      }
      const fragment = s.kind === Kind.FRAGMENT_SPREAD ? fragments[s.name.value] : s;
      if (!fragment || (fragment.typeCondition && fragment.typeCondition.name.value !== type.name)) return false;
      return walk(fragment.selectionSet);
    });
  return walk(set) ? fields : null;
}

/** true when a variable appears anywhere below the field (its own arguments and directives are not its selection). */
function readsVariables(field: FieldNode, fragments: Record<string, FragmentDefinitionNode>): boolean {
  const seen = new Set<string>();
  const walk = (node: ASTNode | undefined): boolean => {
    let found = false;
    if (node)
      visit(node, {
        Variable() {
          found = true;
          return false;
        },
        FragmentSpread(spread) {
          if (seen.has(spread.name.value)) return;
          seen.add(spread.name.value);
          if (walk(fragments[spread.name.value])) found = true;
        },
      });
    return found;
  };
  return walk(field.selectionSet);
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
