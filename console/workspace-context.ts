/** What every part of the signed-in console shares: who is signed in, the reason codes, the live updates. */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { ReasonCode, Reviewer } from "./graphql/types.ts";

export type Workspace = {
  me: Reviewer;
  reasonCodes: ReasonCode[];
  /** moves on with every review the subscription reports: the queries ask again */
  tick: number;
  /** the reviews the subscription told of as they opened, until the reviewer opens them */
  arrived: ReadonlySet<string>;
};

export const WorkspaceContext = createContext<Workspace | null>(null);

export function useWorkspace(): Workspace {
  const workspace = useContext(WorkspaceContext);
  if (!workspace) throw new Error("useWorkspace outside the signed-in console");
  return workspace;
}

/** Queries that must be asked again when a mutation returns a Review, even while they hold none (an empty page, the counts). */
export const REVIEW_TYPENAMES = { additionalTypenames: ["Review"] };
