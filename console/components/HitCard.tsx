import type { ComponentChildren } from "preact";
import type { FeatureComparison, NamePair, ScreenedPerson, ScreeningHit } from "../graphql/types.ts";
import { fullName, percent } from "../format.ts";

/** How a verdict of the matcher reads: whether it points to the same person (a match) or away (differs). */
const VERDICTS: Record<string, { text: string; tone: "match" | "partial" | "differs" | "unknown" }> = {
  exact: { text: "Same date", tone: "match" },
  year: { text: "Same year", tone: "partial" },
  near: { text: "Close date", tone: "partial" },
  match: { text: "Same", tone: "match" },
  conflict: { text: "Differs", tone: "differs" },
  unknown: { text: "Not known", tone: "unknown" },
};

function Verdict({ verdict }: { verdict: string }) {
  const { text, tone } = VERDICTS[verdict] ?? { text: verdict, tone: "unknown" };
  return <span class={`verdict verdict--${tone}`}>{text}</span>;
}

const fold = (word: string) =>
  word
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase();
const words = (name: string) => name.split(/[\s,]+/).filter(Boolean);
const strength = (similarity: number) => (similarity >= 0.999 ? "exact" : similarity >= 0.85 ? "close" : "weak");

/** A name word by word: a word the matcher paired is marked by how alike the pair is, an unpaired one struck through lightly. */
function NameWords({ name, pairs, side }: { name: string; pairs: NamePair[]; side: "given" | "listed" }) {
  return (
    <span class="name-words">
      {words(name).map((word, index) => {
        const pair = pairs.find((p) => fold(p[side]) === fold(word));
        const key = `${index}-${word}`;
        if (!pair)
          return (
            <span key={key} class="word word--unpaired">
              {word}{" "}
            </span>
          );
        const other = side === "given" ? pair.listed : pair.given;
        return (
          <span key={key}>
            <mark class={`word word--${strength(pair.similarity)}`} title={`pairs with ${other}, ${percent(pair.similarity)} alike`}>
              {word}
            </mark>{" "}
          </span>
        );
      })}
    </span>
  );
}

const listOrDash = (values: readonly string[]) => (values.length ? values.join(", ") : "—");

/** One feature of the user beside the entry's; without the matcher's comparison (a provider's hit), nothing is said of the entry's. */
function FeatureRow({ label, given, comparison }: { label: string; given: string | null; comparison: FeatureComparison | null }) {
  return (
    <tr class={`comparison__row comparison__row--${(comparison && VERDICTS[comparison.verdict]?.tone) ?? "unknown"}`}>
      <th scope="row">{label}</th>
      <td>{given ?? comparison?.given ?? "—"}</td>
      <td>{comparison ? listOrDash(comparison.listed) : "—"}</td>
      <td>{comparison ? <Verdict verdict={comparison.verdict} /> : <span class="verdict verdict--unknown">Not compared</span>}</td>
    </tr>
  );
}

/** The user's screened data beside the list entry, row by row, with the matcher's verdict on each. */
function Comparison({ hit, screened }: { hit: ScreeningHit; screened: ScreenedPerson }) {
  const explanation = hit.explanation;
  // without the matcher's pairing, no word is marked as paired or unpaired
  const pairs = explanation?.name.pairs ?? [];
  const otherNames = hit.entryNames.filter((n) => n !== hit.matchedName);
  return (
    <table class="comparison">
      <caption class="visually-hidden">The user's screened data beside list entry {hit.entryId}</caption>
      <thead>
        <tr>
          <td />
          <th scope="col">Screened user</th>
          <th scope="col">List entry</th>
          <th scope="col">Match</th>
        </tr>
      </thead>
      <tbody>
        <tr class="comparison__row">
          <th scope="row">Name</th>
          <td>{explanation ? <NameWords name={fullName(screened)} pairs={pairs} side="given" /> : fullName(screened)}</td>
          <td>
            {explanation ? <NameWords name={hit.matchedName} pairs={pairs} side="listed" /> : hit.matchedName}
            {explanation && (
              <span class="comparison__note">
                {explanation.alias.primary ? "the listed name" : "an alias"}
                {explanation.alias.weak && ", a weak alias"}
              </span>
            )}
          </td>
          <td>
            <span class="verdict verdict--score">{percent(explanation?.name.score ?? hit.score)}</span>
          </td>
        </tr>
        <FeatureRow label="Date of birth" given={screened.dateOfBirth} comparison={explanation?.dateOfBirth ?? null} />
        <FeatureRow label="Nationality" given={screened.nationality} comparison={explanation?.nationality ?? null} />
        <tr class="comparison__row">
          <th scope="row">Also listed as</th>
          <td>—</td>
          <td>{listOrDash(otherNames)}</td>
          <td />
        </tr>
        <tr class="comparison__row">
          <th scope="row">Programmes</th>
          <td>—</td>
          <td>{listOrDash(hit.programs)}</td>
          <td />
        </tr>
      </tbody>
    </table>
  );
}

/** The words the matcher paired, how alike, and what it could not pair. */
function NameExplanationList({ hit }: { hit: ScreeningHit }) {
  if (!hit.explanation)
    return (
      <div class="explanation">
        <h4 class="explanation__title">Why the names match</h4>
        <p>The provider that found this hit gave no explanation of it: compare the names above yourself.</p>
        {hit.reasons.length > 0 && <p class="explanation__reasons">The provider said: {hit.reasons.join("; ")}</p>}
      </div>
    );
  const { pairs, unpairedGiven, unpairedListed, reordered } = hit.explanation.name;
  return (
    <div class="explanation">
      <h4 class="explanation__title">Why the names match</h4>
      <ul class="explanation__pairs">
        {pairs.map((pair) => (
          <li key={`${pair.given}-${pair.listed}`}>
            <mark class={`word word--${strength(pair.similarity)}`}>{pair.given}</mark> pairs with{" "}
            <mark class={`word word--${strength(pair.similarity)}`}>{pair.listed}</mark>, {percent(pair.similarity)} alike
          </li>
        ))}
        {unpairedGiven.length > 0 && <li>Only in the user's name: {unpairedGiven.join(", ")}</li>}
        {unpairedListed.length > 0 && <li>Only in the listed name: {unpairedListed.join(", ")}</li>}
        {reordered && <li>The words are in a different order.</li>}
      </ul>
      {hit.reasons.length > 0 && <p class="explanation__reasons">The screening said: {hit.reasons.join("; ")}</p>}
    </div>
  );
}

/** One possible match: the comparison, the explanation, and (while undecided) the reviewer's decision on it. */
export function HitCard({ hit, index, screened, children }: { hit: ScreeningHit; index: number; screened: ScreenedPerson; children?: ComponentChildren }) {
  const titleId = `hit-${hit.id}-title`;
  return (
    <article class="hit" aria-labelledby={titleId}>
      <header class="hit__header">
        <h3 id={titleId} class="hit__title">
          Hit {index + 1}: {hit.entryName}
        </h3>
        <p class="hit__source">
          {hit.list} {hit.listVersion} · entry {hit.entryId} · score {percent(hit.score)}
        </p>
      </header>
      <Comparison hit={hit} screened={screened} />
      <NameExplanationList hit={hit} />
      {children}
    </article>
  );
}
