/**
 * Pothos prisma's query for a field, planned once per field of a document instead of once per
 * request (issue #17). `queryFromInfo` walks the field's selection and plays the merges it
 * collected on every call: ~8 % of the CPU of a by-id read, most of it allocations. The plan depends
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
import { visit, type ASTNode, type FieldNode, type FragmentDefinitionNode, type GraphQLResolveInfo } from "graphql";

type Adapter = Parameters<typeof Plan.fromInfo>[0];
type Mappings = Parameters<typeof setLoaderMappings>[2];
type Planned = { query: object; mappings: Mappings } | null;

// the adapter `queryFromInfo` plans with: plugin-prisma does not export it, so it is read from the
// very module its own entry point imports (a second copy would be a different adapter)
const pluginEntry = createRequire(import.meta.url).resolve("@pothos/plugin-prisma");
const { prismaAdapter } = (await import(new URL("../esm/util/adapter.js", `file://${pluginEntry}`).href)) as { prismaAdapter: Adapter };

const plans = new WeakMap<FieldNode, Planned>();

export type PlanOptions = { path?: string[]; typeName?: string };

/** The query `queryFromInfo({ context, info, ...options })` gives, from a plan made once per field node. */
export function plannedQuery(context: object, info: GraphQLResolveInfo, options: PlanOptions = {}): object {
  const node = info.fieldNodes[0];
  let planned = plans.get(node);
  if (planned === undefined) {
    planned = planOnce(context, info, options);
    plans.set(node, planned);
  }
  if (!planned) return queryFromInfo({ context, info, ...options });
  setLoaderMappings(context, info, planned.mappings);
  return planned.query;
}

function planOnce(context: object, info: GraphQLResolveInfo, { path, typeName }: PlanOptions): Planned {
  if (info.fieldNodes.length !== 1 || readsVariables(info.fieldNodes[0], info.fragments)) return null;
  const plan = Plan.fromInfo(prismaAdapter, { context, info, typeName, path, skipDeferredFragments: true });
  // a plan that waits on a select function's promise is not replayed
  if (!plan || !(plan instanceof Plan)) return null;
  const { root, mappings } = plan.play(); // what the seedless `plan.query()` of queryFromInfo plays
  return { query: deepFreeze(prismaAdapter.toQuery(root) as object), mappings };
}

/** true when a variable appears anywhere below the field (its own arguments and directives are not its selection). */
function readsVariables(field: FieldNode, fragments: Record<string, FragmentDefinitionNode>): boolean {
  const seen = new Set<string>();
  const walk = (node: ASTNode | undefined): boolean => {
    let found = false;
    if (node) visit(node, {
      Variable() { found = true; return false; },
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
