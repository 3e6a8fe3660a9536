import type { LiveState } from "../graphql/client.ts";
import type { Reviewer } from "../graphql/types.ts";

const LIVE_LABELS: Record<LiveState, string> = { connecting: "Connecting live updates…", live: "Live updates on", reconnecting: "Live updates reconnecting…" };

export function ConsoleHeader({ me, live, onLogOut }: { me: Reviewer; live: LiveState; onLogOut: () => void }) {
  return (
    <header class="topbar">
      <h1 class="topbar__title">Compliance console</h1>
      <p class={`live live--${live}`} role="status">
        {LIVE_LABELS[live]}
      </p>
      <p class="topbar__who">
        Signed in as <strong>{me.name}</strong>
      </p>
      <button type="button" class="button" onClick={onLogOut}>
        Log out
      </button>
    </header>
  );
}
