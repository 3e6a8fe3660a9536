/**
 * Executes a document that has already been validated (a REST route's, or a /graphql query yoga
 * validated once) from a compiled cache, for the lanes (server/lanes.ts). What yoga's envelop does
 * at execution is done here with the same functions: the input guard before, the error mask after.
 *
 * graphql-jit compiles a document into one function, cheaper per read than graphql-js's `execute`
 * the wider the body (docs/performance.md), but three of its differences are visible, so it runs
 * only where they are not:
 * - a selection below the root that is itself a Prisma object: Pothos prisma loads those with the
 *   parent's query under graphql-js; under graphql-jit it fell back to a query per row, so such
 *   documents run on graphql-js `execute` (still parsed and validated once);
 * - variable coercion messages differ, and its errors carry no `locations`: with `exactErrors` (both
 *   lanes) a result with errors is run again on graphql-js, so the caller gets graphql-js's errors
 *   (a read has no side effect); without it, variables are coerced by graphql-js first and a
 *   document whose variables do not coerce runs on graphql-js. With `keepDomainErrors` (the REST
 *   lane: a problem document answers a DomainError's code, message and fields, alike in both) a
 *   result whose every error is a resolver's DomainError is not run again.
 * Subscriptions never come here. A mutation comes only as a REST route's operation (the REST lane's
 * writes): it runs on graphql-js `execute`, since graphql-jit compiles queries alone.
 */
import {
  execute,
  getNamedType,
  type GraphQLError,
  getVariableValues,
  GraphQLObjectType,
  Kind,
  type DocumentNode,
  type ExecutionResult,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";
import { compileQuery, isCompiledQuery, type CompiledQuery } from "graphql-jit";
import { DomainError } from "../lib/errors.js";
import { ModelName } from "../../generated/prisma/internal/prismaNamespace.js";
import { inputError } from "../server/plugins/use-input-guard.js";

export type MaskError = (error: Error) => Error;
/** `stringVars`: the operation's variables when each is an ID or String (fast coercion check), else null */
type Plan = { operation: OperationDefinitionNode; jit: CompiledQuery | null; stringVars: { name: string; required: boolean }[] | null };

export type CompiledExecutor = ReturnType<typeof createCompiledExecutor>;

export function createCompiledExecutor(schema: GraphQLSchema, maskError: MaskError) {
  const prismaTypes = new Set<string>(Object.values(ModelName));
  const plans = new WeakMap<DocumentNode, Plan>();
  const planOf = (document: DocumentNode) => {
    let plan = plans.get(document);
    if (!plan) {
      const operation = document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
      const compiled = operation.operation === "query" && !nestsPrismaObject(schema, document, operation, prismaTypes) ? compileQuery(schema, document) : null;
      plan = { operation, jit: compiled && isCompiledQuery(compiled) ? compiled : null, stringVars: stringVariables(operation) };
      plans.set(document, plan);
    }
    return plan;
  };

  /**
   * Whether graphql-js would coerce the variables. The common case (`$id: ID!` given a string) is
   * answered without graphql-js's coercion, which allocated a copy of every value per request; any
   * other value or type is left to graphql-js.
   */
  const coercible = ({ operation, stringVars }: Plan, variables: Record<string, unknown>) =>
    stringVars?.every(({ name, required }) => typeof variables[name] === "string" || (!required && variables[name] == null))
    || !getVariableValues(schema, operation.variableDefinitions ?? [], variables).errors;

  return {
    /**
     * One validated single-operation document, as yoga's envelop would run it (input guard, mask).
     * `accepted`: the caller asked `accepts` for these very inputs, so the guard has run already.
     */
    async execute(
      document: DocumentNode,
      variables: Record<string, unknown>,
      contextValue: object,
      { exactErrors = false, accepted = false, keepDomainErrors = false } = {},
    ): Promise<ExecutionResult> {
      const guarded = accepted ? null : inputError(document, variables);
      if (guarded) return { errors: [maskError(guarded) as GraphQLError] };
      const plan = planOf(document);
      const { jit } = plan;
      // with exactErrors any error is answered by graphql-js anyway: no need to coerce twice
      const compiled = jit && (exactErrors || coercible(plan, variables)) ? jit : null;
      const classic = () => execute({ schema, document, variableValues: variables, contextValue }) as Promise<ExecutionResult>;
      let result = compiled ? await compiled.query(undefined, contextValue, variables) : await classic();
      const answered = (errors: readonly GraphQLError[]) => keepDomainErrors && errors.every((e) => e.originalError instanceof DomainError);
      if (compiled && exactErrors && result.errors?.length && !answered(result.errors)) result = await classic();
      return result.errors?.length ? { ...result, errors: result.errors.map((e) => maskError(e) as GraphQLError) } : result;
    },
    /** false when the input guard or variable coercion would refuse: on /graphql yoga answers those (400, its wording) */
    accepts(document: DocumentNode, variables: Record<string, unknown>) {
      return !inputError(document, variables) && coercible(planOf(document), variables);
    },
  };
}

/** The operation's variables if every one is declared `ID`, `ID!`, `String` or `String!`; null otherwise. */
function stringVariables(operation: OperationDefinitionNode) {
  const out: { name: string; required: boolean }[] = [];
  for (const definition of operation.variableDefinitions ?? []) {
    const required = definition.type.kind === Kind.NON_NULL_TYPE;
    const named = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
    if (named.kind !== Kind.NAMED_TYPE || (named.name.value !== "ID" && named.name.value !== "String")) return null;
    out.push({ name: definition.variable.name.value, required });
  }
  return out;
}

/** true when a field below the root returns a Prisma object (loaded by Pothos with its parent's query). */
function nestsPrismaObject(schema: GraphQLSchema, document: DocumentNode, operation: OperationDefinitionNode, prismaTypes: ReadonlySet<string>) {
  const fragments = new Map(document.definitions.flatMap((d) => (d.kind === Kind.FRAGMENT_DEFINITION ? [[d.name.value, d] as const] : [])));
  const walk = (type: GraphQLObjectType, set: SelectionSetNode, depth: number): boolean =>
    set.selections.some((selection) => {
      if (selection.kind !== Kind.FIELD) {
        const inner = selection.kind === Kind.FRAGMENT_SPREAD ? fragments.get(selection.name.value) : selection;
        const on = inner?.typeCondition ? schema.getType(inner.typeCondition.name.value) : type;
        // an interface or union fragment: not planned here, graphql-js runs it
        return !inner || !(on instanceof GraphQLObjectType) || walk(on, inner.selectionSet, depth);
      }
      if (selection.name.value.startsWith("__")) return false;
      const field = type.getFields()[selection.name.value];
      const named = field && getNamedType(field.type);
      if (!field) return true;
      if (depth > 0 && prismaTypes.has(named.name)) return true;
      if (!selection.selectionSet) return false;
      return !(named instanceof GraphQLObjectType) || walk(named, selection.selectionSet, depth + 1);
    });
  const root = schema.getQueryType();
  return !root || walk(root, operation.selectionSet, 0);
}
