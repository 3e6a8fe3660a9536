/**
 * Remittance lookups: global reference data (no client scoping), read-only. Each `find*` checks its
 * arguments through remittance.rules.ts once and returns `count` and `page`, which the offset-backed
 * connection (graphql/paging.ts) runs side by side. Pothos's `query` is spread into every findMany
 * so nested relations load in the same batch of statements.
 */
import type { Prisma } from "../../../generated/prisma/client.js";
import type { Db } from "../../db/client.js";
import { toAlpha2 } from "../../lib/countries.js";
import { notFound, type FieldError } from "../../lib/errors.js";
import { found } from "../../lib/found.js";
import { parseSort, type SortArgs } from "../../lib/choices.js";
import { arg, parseArgs, parseCurrencySort, type InstitutionType, type Status, type UserType } from "./remittance.rules.js";

type Window = { offset: number; limit: number };
type Query<S, I> = { select?: S; include?: I };
const paged = <T>(count: () => Promise<number>, find: (window: { skip: number; take: number }) => Promise<T[]>) => ({
  count,
  page: ({ offset, limit }: Window) => find({ skip: offset, take: limit }),
});
const only = <K extends string, V>(key: K, value: V | undefined) => (value === undefined ? {} : ({ [key]: value } as { [P in K]: V }));

export type CountryArgs = SortArgs & {
  destinationCountryCode?: string[] | null;
  receivingInstitutionType?: string | null;
  userType?: string | null;
  status?: string | null;
};
/** sort_fields values of each list → the columns they order by (the id last, so pages are stable) */
export const SORTS = {
  country: { country_code: "code", country_name: "name" },
  currency: { currency_code: "code", currency_name: "name" },
  corridor: { id: "id", receiving_country: "receivingCountry", receiving_currency: "receivingCurrency" },
  institution: { name: "nameKey" },
  branch: { name: "nameKey", code: "code", city: "cityKey" },
} as const;
const orderOf = <K extends keyof typeof SORTS>(list: K, args: SortArgs, fallback: keyof (typeof SORTS)[K] & string, tieBreak: string) => {
  const sort = parseSort(Object.keys(SORTS[list]) as (keyof (typeof SORTS)[K] & string)[], args, { field: fallback, order: "asc" });
  const column = (SORTS[list] as Record<string, string>)[sort.field];
  return column === tieBreak ? [{ [column]: sort.order }] : [{ [column]: sort.order }, { [tieBreak]: sort.order }];
};

/** Every filter but the codes narrows to countries with at least one corridor matching all of them. */
export function findCountries(db: Db, args: CountryArgs, query?: Query<Prisma.CountrySelect, Prisma.CountryInclude>) {
  const a = parseArgs<{ destinationCountryCode: string[]; receivingInstitutionType: InstitutionType; userType: UserType; status: Status }>(args, {
    destinationCountryCode: arg.countries,
    receivingInstitutionType: arg.type,
    userType: arg.userType,
    status: arg.status,
  });
  const corridor = {
    ...only("receivingInstitutionType", a.receivingInstitutionType),
    ...only("status", a.status),
    ...(a.userType ? { userTypes: { has: a.userType } } : {}),
  };
  const where: Prisma.CountryWhereInput = {
    ...(a.destinationCountryCode ? { code: { in: a.destinationCountryCode } } : {}),
    ...(Object.keys(corridor).length ? { corridors: { some: corridor } } : {}),
  };
  const orderBy = orderOf("country", args, "country_code", "code");
  return paged(
    () => db.country.count({ where }),
    (w) => db.country.findMany({ ...query, where, orderBy, ...w }),
  );
}

export type CurrencyArgs = SortArgs & { search?: string | null; status?: string | null; sort?: string | null };

/** `search` matches the code or name (case- and accent-insensitive) or a country using the currency. */
export function findCurrencies(db: Db, args: CurrencyArgs, query?: Query<Prisma.CurrencySelect, Prisma.CurrencyInclude>) {
  const a = parseArgs<{ search: string; status: Status }>(args, { search: arg.like, status: arg.status });
  // `sort=-code` is the older spelling of sort_fields=currency_code&sort_order=DESC
  const alias = args.sort && !args.sortFields && !args.sortOrder ? parseCurrencySort(args.sort) : null;
  const orderBy = orderOf("currency", alias ? { sortFields: `currency_${alias.field}`, sortOrder: alias.order } : args, "currency_code", "code");
  const country = args.search ? toAlpha2(args.search, { allowName: true }) : null;
  const where: Prisma.CurrencyWhereInput = {
    ...only("status", a.status),
    ...(a.search ? { OR: [{ searchKey: { contains: a.search } }, ...(country ? [{ countries: { some: { countryCode: country } } }] : [])] } : {}),
  };
  return paged(
    () => db.currency.count({ where }),
    (w) => db.currency.findMany({ ...query, where, orderBy, ...w }),
  );
}

export type CorridorArgs = SortArgs & {
  id?: string | null;
  receivingCountry?: string | null;
  receivingCountryCode?: string | null;
  receivingCurrency?: string | null;
  receivingInstitutionType?: string | null;
  userType?: string | null;
  status?: string | null;
};
type CorridorQuery = Query<Prisma.CorridorSelect, Prisma.CorridorInclude>;

export function findCorridors(db: Db, args: CorridorArgs, query?: CorridorQuery) {
  const a = parseArgs<{
    receivingCountry: string;
    receivingCountryCode: string;
    receivingCurrency: string;
    receivingInstitutionType: InstitutionType;
    userType: UserType;
    status: Status;
  }>(args, {
    receivingCountry: arg.country,
    receivingCountryCode: arg.country,
    receivingCurrency: arg.currency,
    receivingInstitutionType: arg.type,
    userType: arg.userType,
    status: arg.status,
  });
  // both country parameters may be given; a corridor must match each
  const countries = [a.receivingCountry, a.receivingCountryCode].filter((c): c is string => !!c);
  const where: Prisma.CorridorWhereInput = {
    ...(args.id ? { id: args.id } : {}),
    AND: countries.map((receivingCountry) => ({ receivingCountry })),
    ...only("receivingCurrency", a.receivingCurrency),
    ...only("receivingInstitutionType", a.receivingInstitutionType),
    ...only("status", a.status),
    ...(a.userType ? { userTypes: { has: a.userType } } : {}),
  };
  const orderBy = orderOf("corridor", args, "id", "id");
  return paged(
    () => db.corridor.count({ where }),
    (w) => db.corridor.findMany({ ...query, where, orderBy, ...w }),
  );
}

// ids here are reference-data slugs, not UUIDs: a missing row is the only "not found"
export const getCorridor = (db: Db, id: string, query?: CorridorQuery) => db.corridor.findUnique({ ...query, where: { id } }).then(found("corridor"));
export const getInstitution = (db: Db, id: string, query?: Query<Prisma.ReceivingInstitutionSelect, Prisma.ReceivingInstitutionInclude>) =>
  db.receivingInstitution.findUnique({ ...query, where: { id } }).then(found("receiving institution"));
export const getBranch = (db: Db, id: string, query?: Query<Prisma.BranchSelect, Prisma.BranchInclude>) =>
  db.branch.findUnique({ ...query, where: { id } }).then(found("branch"));

export type InstitutionArgs = {
  receivingCountry?: string | null;
  receivingInstitutionType?: string | null;
  name?: string | null;
  status?: string | null;
  sortFields?: string | null;
  sortOrder?: string | null;
};

export function findInstitutions(db: Db, args: InstitutionArgs) {
  const a = parseArgs<{ receivingCountry: string; receivingInstitutionType: InstitutionType; name: string; status: Status }>(args, {
    receivingCountry: arg.country,
    receivingInstitutionType: arg.type,
    name: arg.like,
    status: arg.status,
  });
  const orderBy = orderOf("institution", args, "name", "id");
  const where: Prisma.ReceivingInstitutionWhereInput = {
    ...only("countryCode", a.receivingCountry),
    ...only("type", a.receivingInstitutionType),
    ...only("status", a.status),
    ...(a.name ? { nameKey: { contains: a.name } } : {}),
  };
  return paged(
    () => db.receivingInstitution.count({ where }),
    (w) => db.receivingInstitution.findMany({ where, orderBy, ...w }),
  );
}

/** Institutions offered by each corridor (country + type), for many corridors in one statement. */
export async function institutionsByCorridor(db: Db, corridors: readonly { country: string; type: InstitutionType }[]) {
  const rows = await db.receivingInstitution.findMany({
    where: { OR: corridors.map((c) => ({ countryCode: c.country, type: c.type })) },
    orderBy: [{ nameKey: "asc" }, { id: "asc" }],
  });
  return corridors.map((c) => rows.filter((r) => r.countryCode === c.country && r.type === c.type));
}

/** The receiving institution a path names by type and id, or 404: a type it is not, or no type at all, names nothing. */
export async function getInstitutionOfType(db: Db, id: string, type: string) {
  const named = arg.type(type, "receiving_institution_type", [] as FieldError[]);
  const row = named ? await db.receivingInstitution.findFirst({ where: { id, type: named }, select: { id: true } }) : null;
  if (!row) throw notFound("receiving institution of that type");
  return row;
}

export type BranchArgs = {
  receivingInstitutionId: string;
  receivingInstitutionType?: string | null;
  name?: string | null;
  search?: string | null;
  city?: string | null;
  sortFields?: string | null;
  sortOrder?: string | null;
};

/** An unknown institution (or one of another type) is 404; it is checked only when nothing matched. */
export function findBranches(db: Db, args: BranchArgs, query?: Query<Prisma.BranchSelect, Prisma.BranchInclude>) {
  const a = parseArgs<{ receivingInstitutionType: InstitutionType; name: string; search: string; city: string }>(args, {
    receivingInstitutionType: arg.type,
    name: arg.like,
    search: arg.like,
    city: arg.text,
  });
  const orderBy = orderOf("branch", args, "name", "id");
  const institution = { id: args.receivingInstitutionId, ...only("type", a.receivingInstitutionType) };
  const where: Prisma.BranchWhereInput = {
    institutionId: institution.id,
    ...(a.receivingInstitutionType ? { institution: { is: { type: a.receivingInstitutionType } } } : {}),
    ...(a.name ? { nameKey: { contains: a.name } } : {}),
    ...(a.search ? { searchKey: { contains: a.search } } : {}),
    ...only("cityKey", a.city),
  };
  const count = async () => {
    const n = await db.branch.count({ where });
    if (n === 0 && !(await db.receivingInstitution.findFirst({ where: institution, select: { id: true } })))
      throw notFound("receiving institution of that type");
    return n;
  };
  return paged(count, (w) => db.branch.findMany({ ...query, where, orderBy, ...w }));
}
