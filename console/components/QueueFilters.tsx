import { useId } from "preact/hooks";
import type { CheckType } from "../graphql/types.ts";
import { CHECK_TYPES } from "../format.ts";

export type Filters = {
  /** in the "to decide" list: both undecided statuses, or one */
  undecided: "both" | "OPEN" | "ESCALATED";
  type: CheckType | "";
  /** "me", "none" or "" (anyone) */
  assignee: "" | "me" | "none";
};

export const NO_FILTERS: Filters = { undecided: "both", type: "", assignee: "" };

function Choice<T extends string>({ label, value, options, onChange }: { label: string; value: T; options: [T, string][]; onChange: (value: T) => void }) {
  const id = useId();
  return (
    <div class="filters__field">
      <label for={id}>{label}</label>
      <select id={id} value={value} onChange={(event) => onChange(event.currentTarget.value as T)}>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
}

export function QueueFilters({ filters, showStatus, onChange }: { filters: Filters; showStatus: boolean; onChange: (filters: Filters) => void }) {
  return (
    <fieldset class="filters">
      <legend class="visually-hidden">Filter the list</legend>
      {showStatus && (
        <Choice
          label="Status"
          value={filters.undecided}
          options={[
            ["both", "Open and escalated"],
            ["OPEN", "Open"],
            ["ESCALATED", "Escalated"],
          ]}
          onChange={(undecided) => onChange({ ...filters, undecided })}
        />
      )}
      <Choice
        label="Check"
        value={filters.type}
        options={[["", "Every check"], ...(Object.entries(CHECK_TYPES) as [CheckType, string][])]}
        onChange={(type) => onChange({ ...filters, type })}
      />
      <Choice
        label="Assigned to"
        value={filters.assignee}
        options={[
          ["", "Anyone"],
          ["me", "Me"],
          ["none", "Nobody"],
        ]}
        onChange={(assignee) => onChange({ ...filters, assignee })}
      />
    </fieldset>
  );
}
