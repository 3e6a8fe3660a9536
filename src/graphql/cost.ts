/**
 * What an operation costs to answer, with its variables: graphql-armor's formula (an object 2, a
 * leaf 1, each level down ×1.5, a list asked for `first: n` or `last: n` ×n), but priced at
 * execution. armor prices the document at validation, where only a literal `first: 100` counts:
 * the same page asked as `first: $n` cost a hundredth as much, so any limit was one variable away
 * from none, while a literal page of 100 users with their documents was refused. Checked for every
 * transport where inputs are (server/plugins/use-input-guard.ts `inputError`: yoga, the REST shim,
 * the lanes), cached per document and per page sizes asked.
 */
import { Kind, type DocumentNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionNode } from "graphql";

/**
 * The most an operation may cost. A page of 100 users with every field of the REST body, their
 * documents and latest checks (GET /v2/users?records_per_page=100) costs ~23,000; a page of 100 with
 * a list of 100 beneath each row costs over 100 times that.
 */
export const MAX_OPERATION_COST = 40_000;
const OBJECT = 2;
const LEAF = 1;
const DEPTH_FACTOR = 1.5;

type Shape = { operations: OperationDefinitionNode[]; fragments: Map<string, FragmentDefinitionNode>; pageVariables: string[]; costs: Map<string, number> };
const shapes = new WeakMap<DocumentNode, Shape>();

function shapeOf(document: DocumentNode): Shape {
  let shape = shapes.get(document);
  if (shape === undefined) {
    // several operations (one picked by operationName): priced as the dearest of them
    const operations = document.definitions.filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
    const pageVariables = new Set<string>();
    const collect = (selections: readonly SelectionNode[]) => {
      for (const s of selections) {
        if (s.kind === Kind.FIELD) for (const arg of s.arguments ?? []) if (isPageArg(arg.name.value) && arg.value.kind === Kind.VARIABLE) pageVariables.add(arg.value.name.value);
        if (s.kind !== Kind.FRAGMENT_SPREAD && s.selectionSet) collect(s.selectionSet.selections);
      }
    };
    for (const operation of operations) collect(operation.selectionSet.selections);
    for (const fragment of fragments.values()) collect(fragment.selectionSet.selections);
    shape = { operations, fragments, pageVariables: [...pageVariables], costs: new Map() };
    shapes.set(document, shape);
  }
  return shape;
}

const isPageArg = (name: string) => name === "first" || name === "last";

/** The operation's cost with these variables. */
export function operationCost(document: DocumentNode, variables: Record<string, unknown> | null | undefined): number {
  const shape = shapeOf(document);
  const key = shape.pageVariables.length ? shape.pageVariables.map((name) => String(variables?.[name] ?? "")).join(",") : "";
  let cost = shape.costs.get(key);
  if (cost === undefined) {
    cost = costOf(shape, variables ?? {});
    if (shape.costs.size < 100) shape.costs.set(key, cost); // a handful of page sizes per document
  }
  return cost;
}

function costOf({ operations, fragments }: Shape, variables: Record<string, unknown>) {
  const spreadCosts = new Map<string, number>(); // a fragment is priced once, and each spread of it counts, as in armor
  const pageSize = (selection: SelectionNode) => {
    if (selection.kind !== Kind.FIELD) return 1;
    const arg = selection.arguments?.find((a) => isPageArg(a.name.value));
    const value = arg?.value.kind === Kind.INT ? Number(arg.value.value) : arg?.value.kind === Kind.VARIABLE ? variables[arg.value.name.value] : null;
    return typeof value === "number" && Number.isFinite(value) ? Math.max(1, value) : 1;
  };
  const selectionCost = (selection: SelectionNode): number => {
    if (selection.kind === Kind.FIELD && selection.name.value === "__schema") return 0; // introspection: armor's limits apply
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      if (!spreadCosts.has(name)) {
        spreadCosts.set(name, 0);
        const fragment = fragments.get(name);
        spreadCosts.set(name, fragment ? OBJECT + DEPTH_FACTOR * setCost(fragment.selectionSet.selections) : 0);
      }
      return LEAF + DEPTH_FACTOR * spreadCosts.get(name)!;
    }
    if (!selection.selectionSet) return LEAF;
    return (OBJECT + DEPTH_FACTOR * setCost(selection.selectionSet.selections)) * pageSize(selection);
  };
  const setCost = (selections: readonly SelectionNode[]) => selections.reduce((sum, s) => sum + selectionCost(s), 0);
  return Math.max(0, ...operations.map((operation) => setCost(operation.selectionSet.selections)));
}
