/**
 * What an operation costs to answer, with its variables and the schema's types: graphql-armor's
 * formula (an object 2, a leaf 1, each level down ×1.5), with every list multiplied by the most
 * items it can hold:
 * - a field taking `first`/`last`: the page asked (a literal or a variable), else the argument's
 *   default, else the connection default; never more than MAX_PAGE_SIZE, which no page exceeds;
 * - a connection's `edges`/`nodes`: its page, already counted on the connection field;
 * - any other list of objects: the size its field declares (`costs({ listSize })`, where the domain
 *   knows its bound), else ASSUMED_LIST_SIZE;
 * - a list of scalars or enums: one leaf (values of the row that holds them, no rows of their own).
 * A byte-heavy leaf declares its own cost (`costs({ leaf })`: a file's bytes by the largest file).
 *
 * Priced at execution, not by armor at validation, where only a literal `first: 100` counted: the
 * same page asked as `first: $n` cost a hundredth as much. Checked for every transport where inputs
 * are (server/plugins/use-input-guard.ts `inputError`: yoga, the REST shim, the lanes), cached per
 * document and per page sizes asked. What the model cannot know (a list longer than declared) is
 * bounded again while the operation runs (graphql/work-budget.ts).
 */
import {
  getNamedType,
  getNullableType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLInterfaceType,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionNode,
  type ValueNode,
} from "graphql";
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "./paging.js";

/**
 * The most an operation may cost. The largest REST pages cost ~28,000 (GET /v2/users with every
 * field of the body) and ~70,000 (100 currencies with their countries); a page of 100 users with
 * their documents and check runs at the relations' default pages ~61,000. Half a page of users with
 * 100 check runs each costs ~85,000, a page of documents with their user's documents with theirs
 * over 1,600,000, and two documents' bytes in one list over 100,000.
 */
export const MAX_OPERATION_COST = 80_000;
/** The size priced for a list of objects whose field declares none: the largest page of any list. */
const ASSUMED_LIST_SIZE = MAX_PAGE_SIZE;
const OBJECT = 2;
const LEAF = 1;
const DEPTH_FACTOR = 1.5;

/** What a field declares for the cost model, in its `extensions`. */
export type FieldCost = {
  /** the most items the list can hold, where a rule or the reference data bounds it */
  listSize?: number;
  /** a leaf dearer than 1 (e.g. a file's bytes) */
  leaf?: number;
};
/** Field extensions for the cost model: `extensions: costs({ listSize: 3 })`. */
export const costs = (cost: FieldCost) => ({ cost });

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
        if (s.kind === Kind.FIELD)
          for (const arg of s.arguments ?? []) if (isPageArg(arg.name.value) && arg.value.kind === Kind.VARIABLE) pageVariables.add(arg.value.name.value);
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
export function operationCost(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> | null | undefined): number {
  const shape = shapeOf(document);
  const key = shape.pageVariables.length ? shape.pageVariables.map((name) => String(variables?.[name] ?? "")).join(",") : "";
  let cost = shape.costs.get(key);
  if (cost === undefined) {
    cost = costOf(schema, shape, variables ?? {});
    if (shape.costs.size < 100) shape.costs.set(key, cost); // a handful of page sizes per document
  }
  return cost;
}

function costOf(schema: GraphQLSchema, { operations, fragments }: Shape, variables: Record<string, unknown>) {
  const spreadCosts = new Map<string, number>(); // a fragment is priced once, and each spread of it counts, as in armor
  const typeNamed = (name: string | undefined, otherwise: GraphQLNamedType | undefined) => (name ? (schema.getType(name) ?? undefined) : otherwise);
  const selectionCost = (selection: SelectionNode, parent: GraphQLNamedType | undefined): number => {
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      if (!spreadCosts.has(name)) {
        spreadCosts.set(name, 0);
        const fragment = fragments.get(name);
        spreadCosts.set(
          name,
          fragment ? OBJECT + DEPTH_FACTOR * setCost(fragment.selectionSet.selections, typeNamed(fragment.typeCondition.name.value, parent)) : 0,
        );
      }
      return LEAF + DEPTH_FACTOR * spreadCosts.get(name)!;
    }
    if (selection.kind === Kind.INLINE_FRAGMENT)
      return OBJECT + DEPTH_FACTOR * setCost(selection.selectionSet.selections, typeNamed(selection.typeCondition?.name.value, parent));
    if (selection.name.value === "__schema" || selection.name.value === "__type") return 0; // introspection: armor's limits apply
    const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
    const declared = field?.extensions?.cost as FieldCost | undefined;
    if (!selection.selectionSet) return declared?.leaf ?? LEAF;
    const own = OBJECT + DEPTH_FACTOR * setCost(selection.selectionSet.selections, field && getNamedType(field.type));
    return own * (field ? itemsOf(field, parent as GraphQLObjectType | GraphQLInterfaceType, selection, variables) : 1);
  };
  const setCost = (selections: readonly SelectionNode[], parent: GraphQLNamedType | undefined): number =>
    selections.reduce((sum, s) => sum + selectionCost(s, parent), 0);
  const rootOf = (operation: OperationDefinitionNode) =>
    (operation.operation === "query" ? schema.getQueryType() : operation.operation === "mutation" ? schema.getMutationType() : schema.getSubscriptionType())
    ?? undefined;
  return Math.max(0, ...operations.map((operation) => setCost(operation.selectionSet.selections, rootOf(operation))));
}

/** How many items a field with a selection can answer: 1 for an object, the most a list holds. */
function itemsOf(
  field: GraphQLField<unknown, unknown>,
  parent: GraphQLObjectType | GraphQLInterfaceType,
  selection: FieldNode,
  variables: Record<string, unknown>,
) {
  const paged = field.args.filter((arg) => isPageArg(arg.name));
  if (paged.length) {
    // left out or null, an argument's default applies (the resolvers read `first ?? default`)
    const asked = paged
      .map((arg) => {
        const given = selection.arguments?.find((a) => a.name.value === arg.name);
        return (given ? argumentValue(given.value, variables) : undefined) ?? arg.defaultValue;
      })
      .filter((n): n is number => typeof n === "number" && Number.isFinite(n));
    // first and last together: the last of the first, so the smaller
    return asked.length ? Math.min(MAX_PAGE_SIZE, Math.max(1, Math.min(...asked))) : DEFAULT_PAGE_SIZE;
  }
  if (!isListType(getNullableType(field.type)) || isLeafType(getNamedType(field.type))) return 1;
  if ((field.name === "edges" || field.name === "nodes") && "pageInfo" in parent.getFields()) return 1;
  return (field.extensions?.cost as FieldCost | undefined)?.listSize ?? ASSUMED_LIST_SIZE;
}

function argumentValue(value: ValueNode, variables: Record<string, unknown>): unknown {
  if (value.kind === Kind.INT) return Number(value.value);
  if (value.kind === Kind.VARIABLE) return variables[value.name.value];
  return null;
}
