import type { Problem } from "../graphql/errors.ts";

/** A refusal as the gateway put it: its code and its message, announced at once. */
export function ErrorNotice({ title, problem }: { title: string; problem: Problem }) {
  return (
    <div class="notice notice--error" role="alert">
      <p class="notice__title">{title}</p>
      <p>
        <code class="notice__code">{problem.code}</code> {problem.message}
      </p>
    </div>
  );
}
