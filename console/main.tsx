/** The compliance console's entry: scripts/build-console.mjs bundles it, src/server/console.ts serves it at /console. */
import { render } from "preact";
import { App } from "./components/App.tsx";
import "./console.css";

render(<App />, document.getElementById("console")!);
