import { Provider } from "@urql/preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { createConsoleClient } from "../graphql/client.ts";
import type { Problem } from "../graphql/errors.ts";
import { forgetKey, storedKey, storeKey } from "../session.ts";
import { Login } from "./Login.tsx";
import { Workspace } from "./Workspace.tsx";

/** The login until a key is given (or kept from earlier in this tab), then the console on a client with that key. */
export function App() {
  const [key, setKey] = useState<string | null>(storedKey);
  const [refusal, setRefusal] = useState<Problem | null>(null);
  const client = useMemo(() => (key ? createConsoleClient(key) : null), [key]);
  useEffect(() => () => client?.dispose(), [client]);

  const logIn = (given: string) => {
    storeKey(given);
    setRefusal(null);
    setKey(given);
  };
  const logOut = (problem?: Problem) => {
    forgetKey();
    setRefusal(problem ?? null);
    setKey(null);
  };
  if (!client) return <Login refusal={refusal} onLogIn={logIn} />;
  return (
    <Provider value={client.urql}>
      <Workspace client={client} onLogOut={logOut} />
    </Provider>
  );
}
