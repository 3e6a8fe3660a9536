const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A calendar date as YYYY-MM-DD; rejects impossible dates such as 2001-02-30. */
export function parseIsoDate(text: unknown): Date | null {
  if (typeof text !== "string" || !ISO_DATE.test(text)) return null;
  const date = new Date(`${text}T00:00:00.000Z`);
  return Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== text ? null : date;
}
