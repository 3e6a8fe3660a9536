/**
 * Recall and false hits of the built-in screening on its test set, per kind, as markdown tables:
 * `npx tsx bench/screening-eval.ts`. `TESTSET_DIR=/tmp/ho4` screens a set another seed wrote there
 * (src/domains/checks/screening/testset/README.md, "Hold-out check"); `--failures` lists every missed
 * listed person and every flagged unlisted one.
 */
import { evaluate, loadTestset, markdown } from "../src/domains/checks/screening/testset/evaluate.js";
import { loadWatchlist } from "../src/domains/checks/screening/watchlist.js";

const watchlist = await loadWatchlist();
const dir = process.env.TESTSET_DIR;
const evaluation = evaluate(watchlist, dir ? loadTestset(dir) : loadTestset());
console.log(`screening ${watchlist.version.id} on ${dir ?? "the shipped test set"}\n`);
console.log(markdown(evaluation));
console.log(`\nexact names with an agreeing date of birth rejected: ${evaluation.strong.rejected}/${evaluation.strong.cases}`);
if (process.argv.includes("--failures")) {
  const failures = [...evaluation.recall, ...evaluation.falseHits.filter((r) => !r.kind.startsWith("…"))].flatMap((r) => r.failures);
  console.log(`\n${failures.length ? failures.join("\n") : "no failures"}`);
}
