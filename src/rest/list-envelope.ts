/** REST paging: page/records_per_page ↔ Relay first/after, and the list envelope. */
import { cursorBefore, DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from "../graphql/paging.js";
import { invalid } from "../lib/errors.js";

export type Paging = { page: number; recordsPerPage: number };

function intParam(query: URLSearchParams, name: string, fallback: number, min: number, max: number) {
  const raw = query.get(name);
  if (raw === null || raw === "") return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max)
    throw invalid([
      { field: name, code: "out_of_range", message: `${name} must be an integer from ${min} to ${max === Number.MAX_SAFE_INTEGER ? "up" : max}.` },
    ]);
  return n;
}

export function readPaging(query: URLSearchParams): Paging {
  return {
    page: intParam(query, "page", 1, 1, 1_000_000),
    recordsPerPage: intParam(query, "records_per_page", DEFAULT_PAGE_SIZE, 1, MAX_PAGE_SIZE),
  };
}

export const pagingVariables = ({ page, recordsPerPage }: Paging) => ({ first: recordsPerPage, after: cursorBefore((page - 1) * recordsPerPage) });

type Connection = { total_count: number; edges: { node: unknown }[] }; // aliased by restOperation

export function listEnvelope(connection: Connection, paging: Paging, url: Pick<URL, "pathname" | "searchParams">) {
  const totalPages = Math.ceil(connection.total_count / paging.recordsPerPage);
  const link = (page: number) => {
    const q = new URLSearchParams(url.searchParams);
    q.set("page", String(page));
    q.set("records_per_page", String(paging.recordsPerPage));
    return `${url.pathname}?${q}`;
  };
  return {
    pagination: {
      page: paging.page,
      records_per_page: paging.recordsPerPage,
      total_records: connection.total_count,
      total_pages: totalPages,
      links: {
        self: link(paging.page),
        ...(paging.page < totalPages ? { next: link(paging.page + 1) } : {}),
        ...(paging.page > 1 ? { prev: link(Math.min(paging.page - 1, Math.max(totalPages, 1))) } : {}),
      },
    },
    data: connection.edges.map((e) => e.node),
  };
}
