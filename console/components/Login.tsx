import { useState } from "preact/hooks";
import type { Problem } from "../graphql/errors.ts";
import { ErrorNotice } from "./ErrorNotice.tsx";

/** The reviewer key, pasted; kept for this tab only (session.ts). */
export function Login({ refusal, onLogIn }: { refusal: Problem | null; onLogIn: (key: string) => void }) {
  const [key, setKey] = useState("");
  const submit = (event: Event) => {
    event.preventDefault();
    if (key.trim()) onLogIn(key.trim());
  };
  return (
    <main class="login">
      <h1>Compliance console</h1>
      <form class="login__form" onSubmit={submit}>
        <label for="reviewer-key">Reviewer key</label>
        <input
          id="reviewer-key"
          name="reviewer-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          autofocus
          aria-describedby="reviewer-key-help"
          value={key}
          onInput={(event) => setKey(event.currentTarget.value)}
        />
        <p id="reviewer-key-help" class="hint">
          The key your operator issued you (it starts <code>ogk_</code>). It is kept in this tab only and forgotten when the tab closes.
        </p>
        {refusal && <ErrorNotice title="That key was refused" problem={refusal} />}
        <button type="submit" class="button button--primary">
          Open the queue
        </button>
      </form>
    </main>
  );
}
